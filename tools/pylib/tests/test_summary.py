# SPDX-License-Identifier: GPL-2.0
"""kstacks.summary: a row per stack and base from the cells' results."""

import os
import tempfile
import unittest

from kstacks import Error, meta, summary
from tests.fixture import Repo


class SummaryTest(unittest.TestCase):

    def setUp(self):
        self.r = Repo()
        self.addCleanup(self.r.cleanup)
        self.out = tempfile.TemporaryDirectory()
        self.addCleanup(self.out.cleanup)

    def write_out(self, path, text, mtime=None):
        full = os.path.join(self.out.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)
        if mtime:
            os.utime(full, (mtime, mtime))

    def rows(self):
        m = meta.Meta(meta.Repo(self.r.root))
        return {(x['stack'], x['base']): x for x in summary.rows(m, self.out.name)}

    def test_states(self):
        rows = self.rows()
        self.assertEqual(rows[('core', '6.1-rt')]['state'], 'upstream')
        self.assertEqual(rows[('mm-bulk-fallbacks', '6.1')]['state'], 'pending')
        self.assertEqual(rows[('core', '6.1')]['state'], 'carried')
        self.assertEqual(rows[('core', '6.1')]['applied'], '-')

    def test_newest_cell_with_the_stack(self):
        self.write_out('cells/6.1/core/results.tsv',
                       'pass\tapply\t\npass\tbuild debug kernel (x)\t\nfail\tboot\t\n', mtime=1000)
        self.write_out('cells/6.1/core+mm-bulk/results.tsv',
                       'pass\tapply\t\npass\tbuild debug kernel\t\npass\tboot\t\n'
                       'pass\tguest core-a\t\nfail\tguest core-b\t\nskip\tguest core-c\t\n'
                       'pass\tguest mm-bulk-a\t\npass\tno kernel report\t\n', mtime=2000)
        self.write_out('cells/6.1/mm-bulk-fallbacks/results.tsv', 'fail\tapply\t\n', mtime=3000)
        self.write_out('bench/6.1/core.ratio', '1.25x\n')
        row = self.rows()[('core', '6.1')]
        self.assertEqual((row['applied'], row['built'], row['booted']), ('pass', 'pass', 'pass'))
        self.assertEqual((row['passed'], row['failed'], row['skipped']), (2, 1, 1))
        self.assertEqual(row['bench'], '1.25x')
        self.assertEqual(row['lines'], '-')

    def test_suites_vanilla_against_patched(self):
        """tools/suite's records: counts per kind, a regression named"""
        self.write_out('suite/6.1/vanilla/stress-ng.tsv', 'pass\tvm\t\npass\tmmap\t\nskip\tudp\t\n')
        self.write_out('suite/6.1/patched/stress-ng.tsv', 'pass\tvm\t\nfail\tmmap\texit 1\nskip\tudp\t\n')
        self.write_out('suite/6.1/patched/cyclictest.tsv', 'pass\tidle\tmax 9 us\n')
        self.write_out('suite/6.1/patched-latency-icount/cyclictest.tsv', 'pass\tidle\tmax 9 us\n')
        self.write_out('suite/6.1/vanilla-latency-icount/cyclictest.tsv', 'pass\tidle\tmax 8 us\n')
        self.write_out('suite/6.1/patched-lean/cyclictest.tsv', 'fail\tidle\t\n')
        m = meta.Meta(meta.Repo(self.r.root))
        res = summary.suite_results(self.out.name, '6.1')
        self.assertEqual(res['stress-ng']['vanilla'], (2, 0, 1))
        self.assertEqual(res['stress-ng']['patched'], (1, 1, 1))
        self.assertEqual(res['stress-ng']['regressions'], ['mmap'])
        self.assertEqual(res['cyclictest']['regressions'], [])
        self.assertEqual(res['cyclictest (latency, icount)']['vanilla'], (1, 0, 0))
        self.assertEqual(len(res), 3)
        lines = summary.suites_lines(m, self.out.name)
        self.assertIn('6.1      stress-ng          vanilla 2/0/1    patched 1/1/1   ; regressions: mmap', lines)
        self.assertTrue(any('cyclictest' in x and 'vanilla not run' in x and 'regression' not in x
                            for x in lines))

    def test_line_coverage_of_the_newest_report_holding_the_stack(self):
        rep = '{"stacks": {"core": {"percent": %s, "executed": %d, "executable": 10}}}'
        self.write_out('linecov/6.1/core/linecov.json', rep % (90.0, 9), mtime=1000)
        self.write_out('linecov/6.1/core+mm-bulk/linecov.json', rep % (100.0, 10), mtime=2000)
        self.write_out('linecov/6.1/mm-bulk/linecov.json', rep % (10.0, 1), mtime=3000)
        row = self.rows()[('core', '6.1')]
        self.assertEqual((row['lines'], row['lines_executed'], row['lines_executable']), ('100.0%', 10, 10))
        self.write_out('linecov/6.1/core+mm-bulk/linecov.json', '{"stacks": [', mtime=4000)
        with self.assertRaisesRegex(Error, 'unreadable line coverage report'):
            self.rows()

    def test_fix_counts(self):
        self.r.write('core/upstream.tsv', '# kind\n'
                     'fix\ta\tb\tc\td\te\tyes\n'
                     'fix\ta\tb\tc\td\te\tyes, open\n'
                     'fix\ta\tb\tc\td\te\tno\n'
                     'equivalent\ta\tb\tc\td\te\tyes\n')
        m = meta.Meta(meta.Repo(self.r.root))
        self.assertEqual(summary.fix_counts(m, 'core'), (3, 2, 1))
        self.assertEqual(summary.fix_counts(m, 'mm-bulk'), (0, 0, 0))
        self.assertIn('core 3 (2 affect the stack: 1 handled, 1 open)', summary.fixes_line(m))


if __name__ == '__main__':
    unittest.main()
