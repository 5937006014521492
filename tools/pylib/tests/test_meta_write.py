# SPDX-License-Identifier: GPL-2.0
"""kstacks.meta writes: one value, a version, a bump with its CHANGELOG."""

import os
import unittest

from kstacks import Error, meta

from . import fixture


class MetaWriteTest(unittest.TestCase):

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        self.repo.write('core/CHANGELOG', 'core changelog\n\nv4 (2026-01-01)\n- Older.\n')

    def meta(self):
        return meta.Meta(meta.Repo(self.repo.root))

    def read(self, path):
        with open(os.path.join(self.repo.root, path), encoding='utf-8') as f:
            return f.read()

    def test_set_in_place(self):
        """a value rewritten on its own line, comments and order kept"""
        r = meta.Repo(self.repo.root)
        meta.set_value(r, 'base', '6.1', 'PROVEN', '6.1.195-1')
        text = self.read('tools/bases/6.1.conf')
        self.assertEqual(text, fixture.BASE_61.replace('PROVEN=6.1.192-3   # trailing comment',
                                                       'PROVEN=6.1.195-1'))
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.195-1')

    def test_set_new_quoted_and_removed(self):
        """a new key after another, quoted with its escapes; '' removes it"""
        r = meta.Repo(self.repo.root)
        meta.set_value(r, 'stack', 'core', 'SUMMARY', 'a "b" $c \\d')
        meta.set_value(r, 'stack', 'core', 'BOOT_ARGS', 'x=1 y', after='VERSION')
        lines = self.read('core/STACK').splitlines()
        self.assertEqual(lines[1], 'BOOT_ARGS="x=1 y"')
        self.assertEqual(self.meta().get('stack', 'core', 'SUMMARY'), 'a "b" $c \\d')
        meta.set_value(r, 'stack', 'core', 'BOOT_ARGS', '')
        self.assertNotIn('BOOT_ARGS', self.read('core/STACK'))

    def test_set_refused_writes_nothing(self):
        """a value the schema refuses: one line naming the key, the file as it was"""
        r = meta.Repo(self.repo.root)
        before = self.read('tools/bases/6.1.conf')
        for kind, name, key, value, why in (
                ('base', '6.1', 'PROVEN', 'a b', 'PROVEN must be one word'),
                ('base', '6.1', 'PROVN', 'x', 'PROVN is not a key'),
                ('base', '9.9', 'PROVEN', 'x', "unknown base '9.9'"),
                ('base', '6.1', 'LIST', 'a\tb', 'one line without tabs'),
                ('base', '6.1', 'PACKAGE', '', 'PACKAGE is missing')):
            with self.subTest(key=key, value=value):
                with self.assertRaisesRegex(Error, why):
                    meta.set_value(r, kind, name, key, value)
                self.assertEqual(self.read('tools/bases/6.1.conf'), before)
        # no temporary file left behind
        self.assertEqual(sorted(os.listdir(os.path.join(self.repo.root, 'tools', 'bases'))),
                         ['6.1-rt.conf', '6.1.conf'])

    def test_set_version(self):
        """a base's own version is a BASE_VERSIONS entry, none at VERSION"""
        m = self.meta()
        m.set_version('core', '6.1', 6)
        self.assertIn('BASE_VERSIONS="6.1:6"', self.read('core/STACK').splitlines())
        self.assertEqual(self.meta().stack_version('core', '6.1'), 6)
        m.set_version('core', '6.1', 4)
        self.assertNotIn('BASE_VERSIONS', self.read('core/STACK'))

    def test_bump_alone(self):
        """the stack's only series: VERSION up, the entry newest in CHANGELOG"""
        how = self.meta().bump('core', '6.1', 'Base 6.1: refreshed.', '2026-12-05')
        self.assertEqual(how, 'VERSION 4 -> 5')
        self.assertEqual(self.meta().get('stack', 'core', 'VERSION'), '5')
        self.assertEqual(self.read('core/CHANGELOG'),
                         'core changelog\n\nv5 (2026-12-05)\n- Base 6.1: refreshed.\n\nv4 (2026-01-01)\n- Older.\n')

    def test_bump_one_of_several(self):
        """a series among others: the base's own version, the others stay"""
        self.repo.write('core/patches/6.12/series', '0001-a.patch\n')
        how = self.meta().bump('core', '6.1', 'Base 6.1: refreshed.', '2026-12-05')
        self.assertIn('v4 -> v5 on 6.1 (BASE_VERSIONS', how)
        m = self.meta()
        self.assertEqual((m.get('stack', 'core', 'VERSION'), m.stack_version('core', '6.1')), ('4', 5))
        self.assertIn('v5 on 6.1 (2026-12-05)\n- Base 6.1: refreshed.\n\nv4', self.read('core/CHANGELOG'))

    def test_bump_keeps_other_base_versions(self):
        """mm-bulk at 6.1:9, its only series (6.1-rt a link): VERSION 10, the entry gone"""
        self.repo.write('mm-bulk/CHANGELOG', '')
        self.meta().bump('mm-bulk', '6.1', 'x', '2026-12-05')
        m = self.meta()
        self.assertEqual((m.get('stack', 'mm-bulk', 'VERSION'), m.stack_version('mm-bulk', '6.1')), ('10', 10))
        self.assertEqual(self.read('mm-bulk/CHANGELOG'), 'v10 (2026-12-05)\n- x\n')


    def test_bump_unreadable_changelog_writes_nothing(self):
        """a CHANGELOG that cannot be read: one error, STACK as it was"""
        with open(os.path.join(self.repo.root, 'core', 'CHANGELOG'), 'ab') as f:
            f.write(b'\xff\n')
        before = self.read('core/STACK')
        with self.assertRaisesRegex(Error, 'CHANGELOG: not UTF-8 text'):
            self.meta().bump('core', '6.1', 'x', '2026-12-05')
        self.assertEqual(self.read('core/STACK'), before)

    def test_value_not_utf8(self):
        """a value that is not UTF-8 (bytes from argv): one error, no file left over"""
        before = self.read('core/STACK')
        with self.assertRaisesRegex(Error, 'SUMMARY: the value is not UTF-8 text'):
            meta.set_value(meta.Repo(self.repo.root), 'stack', 'core', 'SUMMARY', 'caf\udce9')
        self.assertEqual(self.read('core/STACK'), before)
        self.assertEqual(sorted(os.listdir(os.path.join(self.repo.root, 'core'))), ['CHANGELOG', 'STACK', 'patches'])

    def test_write_atomically_leaves_no_tmp(self):
        """a write that fails leaves the file as it was and no temporary file"""
        path = self.repo.write('x.txt', 'old\n')
        with self.assertRaisesRegex(Error, 'not UTF-8 text'):
            meta.write_atomically(path, 'caf\udce9')
        os.mkdir(path + '.d')
        with self.assertRaisesRegex(Error, 'cannot write'):
            meta.write_atomically(path + '.d', 'new\n')
        self.assertEqual(self.read('x.txt'), 'old\n')
        self.assertFalse([n for n in os.listdir(self.repo.root) if n.endswith('.tmp')])

    def test_version_of_a_link_or_no_series_refused(self):
        """set-version and bump on a base whose series is a link, or that has
        none: one error, nothing written (the entry would never be read)"""
        before = self.read('mm-bulk/STACK'), self.read('core/STACK')
        m = self.meta()
        with self.assertRaisesRegex(Error, "mm-bulk's series on 6.1-rt is a link to 6.1"):
            m.set_version('mm-bulk', '6.1-rt', 12)
        with self.assertRaisesRegex(Error, "mm-bulk's series on 6.1-rt is a link to 6.1"):
            m.bump('mm-bulk', '6.1-rt', 'x', '2026-12-05')
        with self.assertRaisesRegex(Error, 'core has no series on 6.1-rt'):
            m.bump('core', '6.1-rt', 'x', '2026-12-05')
        self.assertEqual((self.read('mm-bulk/STACK'), self.read('core/STACK')), before)

    def test_dependency_cycle(self):
        """a stack that depends on itself through another: one error naming the cycle"""
        self.repo.write('core/STACK', fixture.STACKS['core'] + 'DEPENDS="mm-bulk"\n')
        with self.assertRaisesRegex(Error, 'core/STACK: DEPENDS is a cycle: core -> mm-bulk -> core'):
            self.meta()


if __name__ == '__main__':
    unittest.main()
