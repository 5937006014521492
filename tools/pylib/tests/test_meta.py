# SPDX-License-Identifier: GPL-2.0
"""kstacks.meta: the schema of STACK files and base confs."""

import unittest

from kstacks import Error, meta
from tests.fixture import Repo


class MetaTest(unittest.TestCase):

    def setUp(self):
        self.r = Repo()
        self.addCleanup(self.r.cleanup)

    def load(self):
        return meta.Meta(meta.Repo(self.r.root))

    def assertProblem(self, path, text, message, append=False):
        if append:
            self.r.append(path, text)
        else:
            self.r.write(path, text)
        with self.assertRaises(Error) as cm:
            self.load()
        self.assertRegex(str(cm.exception), message)
        self.assertNotIn('\n', str(cm.exception))

    def test_found(self):
        """the version found here: dpkg's installed one, a fetched base's stamp"""
        import os
        from unittest import mock
        bin_dir = os.path.join(self.r.root, 'bin')
        q = self.r.write('bin/dpkg-query', '#!/bin/sh\nfor a; do :; done\n'
                         'case $a in linux-source-6.1) echo "installed 6.1.195-1";; '
                         '*) echo "config-files 1.0";; esac\n')
        os.chmod(q, 0o755)
        self.r.write('tools/bases/7.3.conf', 'PACKAGE=linux-source-7.3\nSUITE=x\nFETCH=yes\n')
        cache = os.path.join(self.r.root, 'cache')
        self.r.write('cache/linux-source-7.3.version', '7.3.4-1~bpo13+1\n')
        self.r.write('tools/bases/6.2.conf', 'PACKAGE=linux-source-6.2\nSUITE=x\n')
        with mock.patch.dict(os.environ, {'PATH': bin_dir + ':' + os.environ['PATH'], 'KSTACKS_CACHE': cache}):
            m = self.load()
            self.assertEqual((m.found('6.1'), m.found('7.3'), m.found('6.2')),
                             ('6.1.195-1', '7.3.4-1~bpo13+1', ''))

    def test_values(self):
        m = self.load()
        self.assertEqual(m.get('base', '6.1', 'PROVEN'), '6.1.192-3')
        self.assertEqual(m.get('base', '6.1', 'COVERAGE'), 'amd64 no-thp')
        self.assertEqual(m.get('base', '6.1', 'BASE_PATCH'), '')
        self.assertEqual(m.get('stack', 'core', 'SUMMARY'), 'helpers "shared" by $others')

    def test_other_backslashes_stay(self):
        """A probe is a regex: only \\\\, \\" and \\$ are escapes."""
        self.assertEqual(self.load().get('stack', 'mm-bulk', 'UPSTREAM_PROBE'),
                         'mm/page_alloc.c:^unsigned long (a|b)\\(')

    def test_order_is_the_shells(self):
        """*/STACK sorts mm-bulk-fallbacks/ before mm-bulk/ (C locale)."""
        m = self.load()
        self.assertEqual(list(m.stacks), ['core', 'mm-bulk-fallbacks', 'mm-bulk'])
        self.assertEqual(list(m.bases), ['6.1', '6.1-rt'])

    def test_versions(self):
        m = self.load()
        self.assertEqual(m.stack_version('core', '6.1'), 4)
        self.assertEqual(m.stack_version('mm-bulk', '6.1'), 9)
        # a base whose patches are a link to another's is at that one's version
        self.assertEqual(m.stack_version('mm-bulk', '6.1-rt'), 9)

    def test_unknown_names(self):
        m = self.load()
        with self.assertRaisesRegex(Error, "unknown stack 'cor' \\(known: core"):
            m.get('stack', 'cor', 'VERSION')
        with self.assertRaisesRegex(Error, 'NOPE is not a key of a STACK file'):
            m.get('stack', 'core', 'NOPE')

    def test_misspelt_key(self):
        self.assertProblem('tools/bases/6.1.conf', 'PACAKGE=x\n',
                           r'^tools/bases/6\.1\.conf:1: unknown key PACAKGE \(known: PACKAGE SUITE ')

    def test_two_words_unquoted(self):
        self.assertProblem('tools/bases/6.1-rt.conf', 'PROVEN=6.1.192-3 6.1.195-1\n',
                           r'^tools/bases/6\.1-rt\.conf:4: PROVEN: a value with blanks or quotes goes '
                           'in double quotes', append=True)

    def test_missing_required(self):
        self.assertProblem('tools/bases/6.1-rt.conf', 'PACKAGE=linux-source-6.1\n',
                           r'^tools/bases/6\.1-rt\.conf: SUITE is missing \(required\)$')

    def test_expansion_refused(self):
        self.assertProblem('tools/bases/6.1-rt.conf', 'LIST="$(touch /tmp/x)"\n',
                           r':4: LIST: \$ or ` in a value \(nothing is expanded', append=True)
        self.assertProblem('tools/bases/6.1-rt.conf', 'PACKAGE=a\nSUITE=b\nLIST="`id`@x.y"\n',
                           r':3: LIST: \$ or ` in a value')

    def test_escaped_dollar_allowed(self):
        self.r.append('core/STACK', 'BOOT_ARGS="a=\\$b"\n')
        self.assertEqual(self.load().get('stack', 'core', 'BOOT_ARGS'), 'a=$b')

    def test_unknown_base_and_stack(self):
        self.assertProblem('tools/bases/6.1-rt.conf', 'SOURCE=6.13\n',
                           "SOURCE is set twice", append=True)
        self.assertProblem('tools/bases/6.1-rt.conf', 'PACKAGE=a\nSUITE=b\nSOURCE=6.13\n',
                           r":3: SOURCE must be a base's name, and there is no base '6\.13'")
        self.assertProblem('mm-bulk/STACK', 'VERSION=1\nDEPENDS="cor"\n',
                           r"^mm-bulk/STACK:2: DEPENDS must be a stack's name, and there is no stack 'cor'")
        self.assertProblem('mm-bulk/STACK', 'VERSION=1\nBENCH_BY="core mm-bulk"\n',
                           r"BENCH_BY must be one name, not 'core mm-bulk'")

    def test_types(self):
        for line, why in (('VERSION=3a', r"VERSION must be a whole number, not '3a'"),
                          ('VERSION=1\nTEST_MEM=4X', r"TEST_MEM must be a size such as 4G, not '4X'"),
                          ('VERSION=1\nBASE_VERSIONS="6.1"', r"BASE_VERSIONS must be BASE:N words \(6\.1:5\), not '6\.1'"),
                          ('VERSION=1\nBASE_VERSIONS="6.13:9"', r"there is no base '6\.13'"),
                          ('VERSION=1\nLATER="6.1 7.7"', r"LATER must be a base's name, and there is no base '7\.7'")):
            with self.subTest(line=line):
                self.assertProblem('core/STACK', line + '\n', why)
        self.r.write('core/STACK', 'VERSION=4\n')
        for line, why in (('FETCH=maybe', r"FETCH must be yes or no, not 'maybe'"),
                          ('BASE_PATCH=rt.patch', r"BASE_PATCH must be an absolute path, not 'rt\.patch'"),
                          ('LIST=nobody', r"LIST must be an e-mail address, not 'nobody'")):
            with self.subTest(line=line):
                self.assertProblem('tools/bases/6.1-rt.conf', 'PACKAGE=a\nSUITE=b\n' + line + '\n', why)

    def test_set_twice(self):
        self.assertProblem('core/STACK', 'VERSION=4\n', r'^core/STACK:4: VERSION is set twice$', append=True)

    def test_not_key_value(self):
        self.assertProblem('core/STACK', 'export VERSION\n', r'^core/STACK:4: not KEY=value: export VERSION$',
                           append=True)

    def test_tab_refused(self):
        """The shell reads KIND<TAB>NAME<TAB>KEY<TAB>VALUE: no tab in a value."""
        self.assertProblem('core/STACK', 'SUMMARY="a\tb"\n', r'SUMMARY: a tab in a value')

    def test_base_version_not_above(self):
        self.assertProblem('mm-bulk/STACK', 'VERSION=8\nBASE_VERSIONS="6.1:8"\n',
                           r'^mm-bulk/STACK: BASE_VERSIONS: 6\.1:8 is not above VERSION=8 \(drop it')

    def test_not_utf8(self):
        with open(self.r.write('core/STACK', ''), 'wb') as f:
            f.write(b'VERSION=1\nSUMMARY="\xff"\n')
        with self.assertRaisesRegex(Error, '^core/STACK: not UTF-8 text$'):
            self.load()

    def test_dump(self):
        lines = list(self.load().dump())
        self.assertIn('stack\tcore\tVERSION\t4', lines)
        self.assertIn('base\t6.1\tCOVERAGE\tamd64 no-thp', lines)
        self.assertIn('schema\tstack\tVERSION\tnumber', lines)
        self.assertIn('schema\tbase\tPACKAGE\tword', lines)
        # the shell's stack_version: the base's own, through an RT link too
        self.assertIn('version\tmm-bulk\t6.1-rt\t9', lines)
        self.assertIn('version\tcore\t6.1\t4', lines)
        # carried pairs: a series, not PENDING (mm-bulk-fallbacks on 6.1 is)
        self.assertIn('carried\tmm-bulk\t6.1-rt\tyes', lines)
        self.assertNotIn('carried\tmm-bulk-fallbacks\t6.1\tyes', lines)
        self.assertNotIn('carried\tcore\t6.1-rt\tyes', lines)
        for line in lines:
            self.assertEqual(len(line.split('\t')), 4, line)


if __name__ == '__main__':
    unittest.main()
