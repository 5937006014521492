# SPDX-License-Identifier: GPL-2.0
"""kstacks.refresh: blockers named, moved patches copied, versions bumped
per stack and base, linked series parted, PROVEN only after the cell."""

import contextlib
import hashlib
import io
import json
import os
import subprocess
import unittest
from unittest import mock

from kstacks import Error, meta, refresh

from . import fixture

TODAY = '2026-12-05'


def row(stack, patch, verdict, text=None, **kw):
    r = {'stack': stack, 'patch': patch, 'verdict': verdict, 'text': text or verdict, 'words': []}
    r.update(kw)
    return r


def doc(rows, version='6.1.195-1', kind='debian'):
    return {'base': '6.1', 'target': {'name': f'linux-source-6.1={version}' if version else 'mytree',
                                      'kind': kind, 'version': version, 'kernel': '6.1.160'},
            'patches': rows}


class RefreshTest(unittest.TestCase):

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        for s in fixture.STACKS:
            self.repo.write(f'{s}/patches/6.1/0001-a.patch', f'{s} as proven\n')
            self.repo.write(f'{s}/CHANGELOG', f'{s} changelog\n\nv1 (2026-01-01)\n- First.\n')
        self.new = os.path.join(self.repo.root, 'new')
        for s in fixture.STACKS:
            self.repo.write(f'new/{s}/0001-a.patch', f'{s} refreshed\n')

    def meta(self):
        return meta.Meta(meta.Repo(self.repo.root))

    def read(self, path):
        with open(os.path.join(self.repo.root, path), encoding='utf-8') as f:
            return f.read()

    def snapshot(self):
        """Every path of the repository but new/, with what it is."""
        out = {}
        for d, dirs, files in os.walk(self.repo.root):
            dirs[:] = [x for x in dirs if x != 'new']
            for n in dirs + files:
                p = os.path.join(d, n)
                if os.path.islink(p):
                    out[p] = 'link ' + os.readlink(p)
                elif os.path.isfile(p):
                    with open(p, 'rb') as f:
                        out[p] = hashlib.sha1(f.read()).hexdigest()
                else:
                    out[p] = 'dir'
        return out

    def refresh(self, rows, test=False, found='6.1.195-1', cell_rc=0, **kw):
        m = self.meta()
        r = refresh.Refresh(m, '6.1', doc(rows, **kw), self.new, test=test, today=TODAY)
        out = io.StringIO()
        calls = []

        def fake_run(cmd, *a, **k):
            calls.append(cmd)
            return subprocess.CompletedProcess(cmd, cell_rc)
        with mock.patch.object(meta.Meta, 'found', return_value=found), \
                mock.patch.object(refresh.subprocess, 'run', side_effect=fake_run), \
                contextlib.redirect_stdout(out):
            rc = r.run()
        return rc, out.getvalue(), calls

    def test_blocker_words(self):
        """a failed patch is named with the words that give the cause"""
        r = row('core', 'a.patch', 'fails', 'FAILED',
                words=['patching file mm/a.c', 'mm/a.c: Hunk #1 FAILED at 17.', 'x: 1 out of 1 hunk ignored'],
                why='after core/b.patch', probe='feature found upstream', three_way='conflicts')
        self.assertEqual(refresh.blocker(r), 'core/a.patch: FAILED: mm/a.c: Hunk #1 FAILED at 17.; '
                         'x: 1 out of 1 hunk ignored (after core/b.patch) (feature found upstream); 3-way: conflicts')
        r = row('core', 'a.patch', 'upstream', 'upstream', words=['reverse-applies'])
        self.assertEqual(refresh.blocker(r), 'core/a.patch: upstream: reverse-applies')
        self.assertEqual(refresh.blocker(row('core', 'a.patch', 'untried', 'not tried')),
                         'core/a.patch: not tried')

    def test_what_changed(self):
        """the CHANGELOG's words for a stack's moved patches"""
        self.assertEqual(refresh.what_changed([('a', 'offsets'), ('b', 'offsets')]), 'offsets only')
        self.assertEqual(refresh.what_changed([('a', '3way'), ('b', '3way')]), '3-way merge of a, b')
        self.assertEqual(refresh.what_changed([('a', 'offsets'), ('b', '3way')]),
                         '3-way merge of b; offsets in the others')

    def test_blocked_changes_nothing(self):
        """one patch that does not apply: every blocker named, exit 1, nothing written"""
        before = self.snapshot()
        rc, out, calls = self.refresh([
            row('core', '0001-a.patch', 'offsets'),
            row('mm-bulk', '0001-a.patch', 'fails', 'FAILED', words=['lib/d.c: Hunk #1 FAILED at 17.'],
                three_way='conflicts'),
            row('mm-bulk-fallbacks', '0001-a.patch', 'fails', 'FAILED', three_way='resolves')], test=True)
        self.assertEqual(rc, 1)
        self.assertEqual(out.splitlines(), [
            'refresh of base 6.1 onto linux-source-6.1=6.1.195-1: nothing changed; these patches do not apply:',
            '  mm-bulk/0001-a.patch: FAILED: lib/d.c: Hunk #1 FAILED at 17.; 3-way: conflicts'])
        self.assertEqual(self.snapshot(), before)
        self.assertEqual(calls, [])

    def test_missing_refreshed_file(self):
        """drift's refreshed copy missing: one error, nothing written"""
        os.unlink(os.path.join(self.new, 'mm-bulk', '0001-a.patch'))
        before = self.snapshot()
        with self.assertRaisesRegex(Error, 'tools/drift wrote no refreshed mm-bulk/0001-a.patch'):
            self.refresh([row('core', '0001-a.patch', 'offsets'), row('mm-bulk', '0001-a.patch', 'offsets')])
        self.assertEqual(self.snapshot(), before)

    def test_stack_version_and_changelog(self):
        """a stack carried on this base alone: VERSION raised, its CHANGELOG entry"""
        rc, out, _ = self.refresh([row('core', '0001-a.patch', 'fails', three_way='resolves'),
                                   row('mm-bulk', '0001-a.patch', 'applies')])
        self.assertEqual(rc, 0)
        self.assertEqual(self.read('core/patches/6.1/0001-a.patch'), 'core refreshed\n')
        self.assertEqual(self.read('mm-bulk/patches/6.1/0001-a.patch'), 'mm-bulk as proven\n')
        m = self.meta()
        self.assertEqual(m.get('stack', 'core', 'VERSION'), '5')
        self.assertEqual(self.read('core/CHANGELOG').splitlines()[2:4],
                         [f'v5 ({TODAY})', '- Base 6.1: refreshed for 6.1.195-1: 3-way merge of 0001-a.patch.'])
        self.assertIn('core: VERSION 4 -> 5, CHANGELOG: refreshed for 6.1.195-1: 3-way merge of 0001-a.patch',
                      out.splitlines())
        self.assertIn('next: make series for the new versions (core)', out.splitlines())

    def test_linked_flavour_keeps_its_patches(self):
        """a flavour's series linked to the base's: parted, the flavour keeps
        the patches and the version it was proven with"""
        rc, out, _ = self.refresh([row('mm-bulk', '0001-a.patch', 'offsets')])
        self.assertEqual(rc, 0)
        rt = os.path.join(self.repo.root, 'mm-bulk', 'patches', '6.1-rt')
        self.assertFalse(os.path.islink(rt))
        self.assertEqual(self.read('mm-bulk/patches/6.1-rt/0001-a.patch'), 'mm-bulk as proven\n')
        self.assertEqual(self.read('mm-bulk/patches/6.1/0001-a.patch'), 'mm-bulk refreshed\n')
        m = self.meta()
        self.assertEqual((m.stack_version('mm-bulk', '6.1'), m.stack_version('mm-bulk', '6.1-rt')), (10, 9))
        self.assertEqual(m.get('stack', 'mm-bulk', 'VERSION'), '8')
        self.assertIn('mm-bulk/patches/6.1-rt was a link to 6.1: now its own series, as it was proven',
                      out.splitlines())
        log = self.read('mm-bulk/CHANGELOG').splitlines()
        self.assertEqual(log[2:4], [f'v10 on 6.1 ({TODAY})', '- Base 6.1: refreshed for 6.1.195-1: offsets only.'])
        # the flavour's version is its own now: an entry says so
        self.assertIn(f'v9 on 6.1-rt ({TODAY})', log)

    def test_link_with_trailing_slash(self):
        """a flavour's link written 6.1/ is parted as 6.1 is"""
        rt = os.path.join(self.repo.root, 'mm-bulk', 'patches', '6.1-rt')
        os.unlink(rt)
        os.symlink('6.1/', rt)
        self.refresh([row('mm-bulk', '0001-a.patch', 'offsets')])
        self.assertFalse(os.path.islink(rt))
        self.assertEqual(self.read('mm-bulk/patches/6.1-rt/0001-a.patch'), 'mm-bulk as proven\n')

    def test_failure_half_way_puts_everything_back(self):
        """a bump refused half way (a CHANGELOG that cannot be read): every
        file as it was, one error; a second run after the fix does it all"""
        with open(os.path.join(self.repo.root, 'mm-bulk', 'CHANGELOG'), 'ab') as f:
            f.write(b'\xff\n')
        before = self.snapshot()
        rows = [row('core', '0001-a.patch', 'offsets'), row('mm-bulk', '0001-a.patch', 'offsets')]
        with self.assertRaisesRegex(Error, 'stopped, everything put back as it was: .*CHANGELOG: not UTF-8'):
            self.refresh(rows)
        self.assertEqual(self.snapshot(), before)
        self.repo.write('mm-bulk/CHANGELOG', 'mm-bulk changelog\n')
        rc, out, _ = self.refresh(rows)
        self.assertEqual(rc, 0)
        m = self.meta()
        self.assertEqual((m.get('stack', 'core', 'VERSION'), m.stack_version('mm-bulk', '6.1')), ('5', 10))

    def test_patch_not_in_series(self):
        """drift's verdict names a patch the series does not have: one error, nothing written"""
        self.repo.write('new/core/9-other.patch', 'x\n')
        before = self.snapshot()
        with self.assertRaisesRegex(Error, 'core/patches/6.1/9-other.patch: no such patch in the series'):
            self.refresh([row('core', '9-other.patch', 'offsets')])
        self.assertEqual(self.snapshot(), before)

    def test_base_linked_to_another(self):
        """the base refreshed is the link: it gets files of its own, the
        other base is untouched"""
        self.repo.write('tools/bases/6.1-rt.conf', fixture.BASE_RT)
        d = os.path.join(self.repo.root, 'mm-bulk', 'patches')
        os.unlink(os.path.join(d, '6.1-rt'))
        os.rename(os.path.join(d, '6.1'), os.path.join(d, '6.1-rt'))
        os.symlink('6.1-rt', os.path.join(d, '6.1'))
        rc, out, _ = self.refresh([row('mm-bulk', '0001-a.patch', 'offsets')])
        self.assertEqual(rc, 0)
        self.assertFalse(os.path.islink(os.path.join(d, '6.1')))
        self.assertEqual(self.read('mm-bulk/patches/6.1-rt/0001-a.patch'), 'mm-bulk as proven\n')
        self.assertEqual(self.read('mm-bulk/patches/6.1/0001-a.patch'), 'mm-bulk refreshed\n')
        self.assertIn('mm-bulk/patches/6.1 was a link to 6.1-rt: now its own series (only 6.1 is refreshed)',
                      out.splitlines())
        m = self.meta()
        self.assertEqual((m.stack_version('mm-bulk', '6.1'), m.stack_version('mm-bulk', '6.1-rt')), (9, 8))

    def test_nothing_moved(self):
        """refreshed copies the same as the series: no version, no CHANGELOG"""
        self.repo.write('new/core/0001-a.patch', 'core as proven\n')
        before = self.snapshot()
        rc, out, _ = self.refresh([row('core', '0001-a.patch', 'offsets')])
        self.assertEqual(rc, 0)
        self.assertEqual(self.snapshot(), before)
        self.assertIn('no patch file of base 6.1 needed a refresh for 6.1.195-1', out.splitlines())

    def test_proven_only_after_the_cell(self):
        """--no-test and a failed cell keep PROVEN; a passed one records it"""
        rows = [row('core', '0001-a.patch', 'applies')]
        rc, out, calls = self.refresh(rows, test=False)
        self.assertEqual((rc, calls), (0, []))
        self.assertEqual(out.splitlines()[-2:], [
            'cell not run (--no-test): tools/test 6.1 core mm-bulk',
            'PROVEN stays 6.1.192-3 in tools/bases/6.1.conf: it is recorded when the cell passes on 6.1.195-1'
            ' (make refresh BASE=6.1 again)'])
        rc, out, calls = self.refresh(rows, test=True, cell_rc=1)
        self.assertEqual(rc, 1)
        self.assertEqual(calls, [[os.path.join(self.repo.root, 'tools', 'test'), '6.1', 'core', 'mm-bulk']])
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.192-3')
        self.assertEqual(out.splitlines()[-1], 'PROVEN stays 6.1.192-3 in tools/bases/6.1.conf: '
                         'the cell failed on 6.1.195-1 (tools/test 6.1 core mm-bulk)')
        rc, out, calls = self.refresh(rows, test=True, cell_rc=0)
        self.assertEqual((rc, len(calls)), (0, 1))
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.195-1')
        self.assertEqual(out.splitlines()[-1],
                         'tools/bases/6.1.conf: PROVEN=6.1.195-1 (was 6.1.192-3): the cell passed on it')

    def test_cell_not_on_what_is_installed(self):
        """a target not installed here: the cell is not run, PROVEN stays"""
        rc, out, calls = self.refresh([row('core', '0001-a.patch', 'applies')], test=True, found='6.1.192-3')
        self.assertEqual((rc, calls), (0, []))
        self.assertEqual(out.splitlines()[-2], 'cell not run: the tools build linux-source-6.1 6.1.192-3, not '
                         'linux-source-6.1=6.1.195-1; with linux-source-6.1 6.1.195-1 installed: '
                         'tools/test 6.1 core mm-bulk')
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.192-3')

    def test_not_a_debian_version(self):
        """a tree of one's own: refreshed, PROVEN untouched, the cell not run"""
        rc, out, calls = self.refresh([row('core', '0001-a.patch', 'offsets')], test=True,
                                      version='', kind='tree')
        self.assertEqual((rc, calls), (0, []))
        self.assertIn('core: VERSION 4 -> 5, CHANGELOG: refreshed for Linux 6.1.160 (tree mytree): offsets only',
                      out.splitlines())
        self.assertEqual(out.splitlines()[-2:], [
            'tools/bases/6.1.conf unchanged: mytree is not a Debian version',
            'cell not run: the tools build linux-source-6.1 6.1.195-1, not mytree'])
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.192-3')

    def test_no_cell_no_proven(self):
        """a base that carries no stack: PROVEN still only for a version
        installed here, and not with --no-test"""
        rows = [row('core', '0001-a.patch', 'applies')]
        with mock.patch.object(meta.Meta, 'supports', return_value=False):
            for test, found in ((False, '6.1.195-1'), (True, '6.1.192-3')):
                rc, out, calls = self.refresh(rows, test=test, found=found)
                self.assertEqual((rc, calls), (0, []))
                self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.192-3')
            rc, out, calls = self.refresh(rows, test=True)
        self.assertEqual(self.meta().get('base', '6.1', 'PROVEN'), '6.1.195-1')

    def test_proven_already(self):
        """the version refreshed onto is PROVEN already: the cell runs, nothing is written"""
        before = self.snapshot()
        rc, out, calls = self.refresh([row('core', '0001-a.patch', 'applies')], test=True,
                                      version='6.1.192-3', found='6.1.192-3')
        self.assertEqual((rc, len(calls)), (0, 1))
        self.assertNotIn('PROVEN=', out)
        self.assertEqual(self.snapshot(), before)

    def test_bad_verdicts(self):
        """verdicts that are not drift's, or another base's: one error"""
        bad = self.repo.write('bad.json', '{"target": {}}')
        with self.assertRaisesRegex(Error, "not drift's verdicts"):
            refresh.read_verdicts(bad)
        with self.assertRaisesRegex(Error, 'No such file'):
            refresh.read_verdicts(os.path.join(self.repo.root, 'none.json'))
        norow = self.repo.write('norow.json', json.dumps(doc([{'stack': 'core', 'patch': 'a'}])))
        with self.assertRaisesRegex(Error, "not drift's verdicts"):
            refresh.read_verdicts(norow)
        with mock.patch.object(meta, 'Meta', return_value=self.meta()):
            with self.assertRaisesRegex(Error, 'nosuch: no such directory'):
                refresh.run(mock.Mock(base='6.1', verdicts=norow, patches=os.path.join(self.repo.root, 'nosuch'),
                                      no_test=True))
        other = self.repo.write('other.json', json.dumps(dict(doc([]), base='5.10')))
        with mock.patch.object(meta, 'Meta', return_value=self.meta()):
            with self.assertRaisesRegex(Error, 'verdicts for base 5.10, not 6.1'):
                refresh.run(mock.Mock(base='6.1', verdicts=other, patches=self.new, no_test=True))


if __name__ == '__main__':
    unittest.main()
