# SPDX-License-Identifier: GPL-2.0
"""The unit tests as records of the unit tier: pass|fail|skip<TAB>NAME<TAB>WHY.

python3 -m tests.tsv (from tools/pylib): every test of tests/test_*.py,
named by its docstring's first line or its name; exit 1 if one failed.
"""

import sys
import unittest


class TsvResult(unittest.TestResult):

    def name(self, test):
        what = test.shortDescription() or test.id().split('.')[-1][5:].replace('_', ' ')
        return f'selftest python: {test.id().split(".")[1][5:]}: {what}'

    def record(self, status, test, why=''):
        why = ' '.join(why.strip().splitlines()[-1:])
        sys.stdout.write(f'{status}\t{self.name(test)}\t{why}\n')

    def addSuccess(self, test):
        super().addSuccess(test)
        self.record('pass', test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.record('fail', test, self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.record('fail', test, self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.record('skip', test, reason)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.record('fail', subtest, self._exc_info_to_string(err, subtest))


def main():
    suite = unittest.defaultTestLoader.discover('tests', top_level_dir='.')
    result = TsvResult()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
