# SPDX-License-Identifier: GPL-2.0
"""tools/kstacks: bad input is one line, a non-zero exit, nothing written."""

import os
import subprocess
import tempfile
import unittest

KSTACKS = os.path.join(os.path.dirname(__file__), '..', '..', 'kstacks')


def run(*args, env=None):
    p = subprocess.run([KSTACKS, *args], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, check=False)
    return p.returncode, p.stdout, p.stderr


class CliTest(unittest.TestCase):

    def test_bad_input_one_line(self):
        for args, message in ((('nope',), "invalid choice: 'nope'"),
                              ((), 'the following arguments are required: COMMAND'),
                              (('meta',), 'the following arguments are required: WHAT'),
                              (('meta', 'get', 'stack'), 'required: name, key'),
                              (('meta', 'get', 'stack', 'cor', 'VERSION'), "unknown stack 'cor'"),
                              (('meta', 'get', 'stack', 'core', 'NOPE'), 'NOPE is not a key'),
                              (('meta', 'version', 'core', '6.13'), "unknown base '6.13'"),
                              (('summary', 'extra'), 'unrecognized arguments: extra'),
                              (('junit', 'a', 'b', 'c'), 'unrecognized arguments: c')):
            with self.subTest(args=args):
                rc, out, err = run(*args)
                self.assertNotEqual(rc, 0)
                self.assertEqual(out, '')
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(message, err)

    def test_junit_bad_kcidb_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            for text, message in ((None, 'no KCIDB file'), ('{', 'is not a KCIDB file'),
                                  ('[]', 'not a JSON object')):
                with self.subTest(text=text):
                    k = os.path.join(d, 'k.json')
                    if text is not None:
                        with open(k, 'w', encoding='utf-8') as f:
                            f.write(text)
                    rc, _, err = run('junit', k, os.path.join(d, 'j.xml'), env={'KSTACKS_OUT': d})
                    self.assertEqual(rc, 1)
                    self.assertIn(message, err)
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertFalse(os.path.exists(os.path.join(d, 'j.xml')))

    def test_meta_check(self):
        rc, out, _ = run('meta', 'check')
        self.assertEqual(rc, 0)
        self.assertRegex(out, r'^metadata: \d+ stacks, \d+ bases, well-formed$')


if __name__ == '__main__':
    unittest.main()
