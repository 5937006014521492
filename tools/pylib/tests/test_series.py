# SPDX-License-Identifier: GPL-2.0
"""kstacks.series: cover letter, title, b4's record, same series, one maintainer."""

import json
import os
import random
import subprocess
import unittest
from unittest import mock

from kstacks import Error, meta, series

from . import fixture

PATCH = '''From: kstacks <kstacks@kstacks.invalid>
Subject: [PATCH] mm: a change that has a rather long subject line, longer than one line
Patch-mainline: Never, reimplemented for 6.1; upstream has it since v6.18
References: 089722e8939e ("vfio/type1: introduce a new member has_rsvd for
 struct vfio_dma", v6.18); upstream bug 1

Why.

---
 mm/a.c | 2 +-

diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1 +1 @@
-a
+b
'''

MAIL = '''From: A Sender <sender@kstacks.invalid>
Subject: [PATCH 0/1] x
Date: Mon, 30 Nov 2026 23:05:01 +0000
Message-Id: <{id}@x>
X-B4-Tracking: v=1; b=AAAA
 {cont}
To: {to}

body
index 1234567..89abcde 100644
change-id: {cid}
'''


class FoldTest(unittest.TestCase):

    def test_fold_as_gnu_fold(self):
        """lines folded as GNU fold -s folds them (blanks, tabs, long words, UTF-8)"""
        rnd = random.Random(7)
        words = ['a', 'bb', 'ccc', 'dddddddd', 'x' * 30, 'é→', '\t', '  ', 'ünïcode']
        for _ in range(200):
            line = ' '.join(rnd.choice(words) for _ in range(rnd.randint(0, 30)))
            width = rnd.choice((10, 20, 66, 70))
            want = subprocess.run(['fold', '-s', '-w', str(width)], input=line.encode() + b'\n',
                                  capture_output=True, check=True).stdout.decode('utf-8', 'surrogateescape')
            with self.subTest(line=line, width=width):
                self.assertEqual('\n'.join(series.fold(line, width)) + '\n', want)

    def test_wrap(self):
        """the first line indented by one prefix, the rest by another, no trailing blanks"""
        self.assertEqual(series.wrap('1/2 ' + 'word ' * 20, '  ', '      '),
                         ['  1/2 word word word word word word word word word word word word',
                          '      word word word word word word word word'])


class VersionTest(unittest.TestCase):

    def test_tree_kernel_version(self):
        """VERSION.PATCHLEVEL.SUBLEVEL of a tree's Makefile; '' without one"""
        repo = fixture.Repo()
        self.addCleanup(repo.cleanup)
        repo.write('t/Makefile', '# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\n')
        self.assertEqual(series.tree_kernel_version(os.path.join(repo.root, 't')), '6.1.192')
        self.assertEqual(series.tree_kernel_version(os.path.join(repo.root, 'none')), '')
        self.assertEqual(series.upstream_version('1:6.1.192-3'), '6.1.192')


class SeriesTest(unittest.TestCase):

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        self.repo.write('mm-bulk/patches/6.1/series', '0001-a.patch\n0002-b.patch\n')
        self.repo.write('mm-bulk/patches/6.1/0001-a.patch', PATCH)
        self.repo.write('mm-bulk/patches/6.1/0002-b.patch', PATCH.replace('mm/a.c', 'mm/b.c'))
        self.repo.write('core/patches/6.1/0001-a.patch', PATCH.replace('a change', 'core change'))
        self.repo.write('mm-bulk/COVER', 'mm: bulk\n\nWhat and why.\n')
        self.repo.write('mm-bulk/CHANGELOG', 'changes\n\nv9 on 6.1 (2026-12-01)\n- Nine.\n\n'
                        'v9 on 5.10 (2026-12-01)\n- Not this base.\n\nv8 (2026-11-01)\n- Eight.\n')
        self.repo.write('mm-bulk/tests/guest/one.c', '')
        self.repo.write('tools/bases/6.1.problems', '# comment\nre\tin a touched file\tmm/b.c\n'
                        're\tin another file\tfs/x.c\nre\tnames no file\n')
        self.repo.write('series/mm-bulk/6.1/v8/0000-cover.eml',
                        MAIL.format(id='v8', cont='B', to='a', cid='20261101-mm-bulk-0123456789ab')
                        + '\nBenchmark, base against patched, same run (2026-11-01):\n\n  a 1 2\n\nThe tests (x)\n')
        self.repo.write('series/mm-bulk/6.1/v7/0000-cover.eml',
                        MAIL.format(id='v7', cont='B', to='a', cid='20261001-mm-bulk-0123456789ab'))
        self.out = self.repo.write('out/.keep', '')
        env = mock.patch.dict(os.environ, {'KSTACKS_OUT': os.path.dirname(self.out)})
        env.start()
        self.addCleanup(env.stop)

    def series(self, stack='mm-bulk'):
        m = meta.Meta(meta.Repo(self.repo.root))
        with mock.patch.object(meta.Meta, 'found', return_value='6.1.192-3'):
            return series.Series(m, stack, '6.1')

    def test_title(self):
        """[PATCH BASE vN 0/n] and the COVER's subject; one patch: its own subject"""
        self.assertEqual(self.series().title(), '[PATCH 6.1 v9 0/2] mm: bulk')
        self.assertEqual(self.series().title('core'),
                         '[PATCH 6.1 v4] mm: core change that has a rather long subject line, longer than one line')

    def test_cover(self):
        """the cover: base, dependency, upstream per patch, benchmark of the
        newest stored cover, tests, the base's own reports, changes"""
        s = self.series()
        with mock.patch.object(meta.Meta, 'found', return_value='6.1.192-3'):
            text = s.cover('', 'v8 does not apply')
        lines = text.split('\n')
        self.assertEqual(lines[:4], ['mm: bulk', '', 'What and why.', ''])
        self.assertIn('It applies on top of the core series for 6.1, sent separately:', lines)
        self.assertIn('  "[PATCH 6.1 v4] mm: core change that has a rather long subject line, longer than one line"',
                      lines)
        i = lines.index('Upstream, patch by patch:')
        self.assertEqual(lines[i + 2:i + 9], [
            '  1/2 mm: a change that has a rather long subject line, longer than',
            '      one line',
            '      Never, reimplemented for 6.1; upstream has it since v6.18',
            '      089722e8939e ("vfio/type1: introduce a new member has_rsvd for',
            '      struct vfio_dma", v6.18)',
            '      upstream bug 1',
            '  2/2 mm: a change that has a rather long subject line, longer than'])
        self.assertIn('Benchmark, base against patched, same run (2026-11-01):', lines)
        self.assertIn('The tests (1 guest test program) pass on the 6.1 debug kernel', lines)
        self.assertIn('- in a touched file', lines)
        self.assertIn('- names no file', lines)
        self.assertNotIn('- in another file', lines)
        j = lines.index('Changes since v8:')
        self.assertEqual(lines[j + 1:j + 3], ['- Nine.', '- Link to v8: https://lore.kernel.org/r/v8@x'])
        self.assertEqual(lines[lines.index('Changes since v7:') + 1], '- Eight.')
        self.assertEqual(lines[-2], 'No range-diff against v8: v8 does not apply.')
        with mock.patch.object(meta.Meta, 'found', return_value='6.1.192-3'):
            text = s.cover('1:  a = 1:  a\n', 'ignored')
        self.assertTrue(text.endswith('Range-diff against v8:\n1:  a = 1:  a\n'))

    def test_cover_benchmark_report(self):
        """out/bench/report.txt with the stack's rows wins over the stored table"""
        self.repo.write('out/bench/report.txt', 'kstacks benchmark report, 2026-12-05\nhead\n----\n'
                        'base 6.1 ref\n6.1   mm-bulk  pps 1.188\n5.10  mm-bulk  pps 1.1\n')
        with mock.patch.object(meta.Meta, 'found', return_value='6.1.192-3'):
            lines = self.series().cover().split('\n')
        i = lines.index('Benchmark, base against patched, same run (2026-12-05):')
        self.assertEqual(lines[i + 1:i + 7], ['', '  head', '  ----', '  base 6.1 ref', '  6.1   mm-bulk  pps 1.188', ''])

    def test_tracking(self):
        """b4's record gets the stored change-id and a link per stored version"""
        t = json.loads(self.series().tracking('{"series": {"change-id": "new", "revision": 9}}'))
        self.assertEqual(t['series'], {'change-id': '20261101-mm-bulk-0123456789ab', 'revision': 9,
                                       'history': {'v7': ['v7@x'], 'v8': ['v8@x']}})
        with self.assertRaisesRegex(Error, "not b4's tracking record"):
            self.series().tracking('[]')
        with self.assertRaisesRegex(Error, "its series is not an object"):
            self.series().tracking('{"series": 1}')

    def test_no_series_on_base(self):
        """a stack with no series on the base: one error"""
        self.repo.write('tools/bases/7.3.conf', 'PACKAGE=linux-source-7.3\nSUITE=x\n')
        with self.assertRaisesRegex(Error, 'core has no series on 7.3'):
            series.Series(meta.Meta(meta.Repo(self.repo.root)), 'core', '7.3')

    def test_same(self):
        """series that differ only in what b4 makes anew are the same; other
        recipients, sources or commit subjects are not"""
        def make(d, mid, cont, to='a@x', cid='1', commit='aaa x', source='s'):
            self.repo.write(f'{d}/0000-x.eml', MAIL.format(id=mid, cont=cont, to=to, cid=cid))
            self.repo.write(f'{d}/.commits', commit + '\n')
            self.repo.write(f'{d}/.source', source + '\n')
            return os.path.join(self.repo.root, d)
        a = make('s1', '1', 'BBBB')
        self.assertTrue(series.same(a, make('s2', '2', 'CCCC', cid='2', commit='bbb x')))
        self.assertFalse(series.same(a, make('s3', '1', 'BBBB', to='b@x')))
        self.assertFalse(series.same(a, make('s4', '1', 'BBBB', commit='aaa y')))
        self.assertFalse(series.same(a, make('s5', '1', 'BBBB', source='t')))
        e1, e2 = (os.path.join(self.repo.root, d) for d in ('e1', 'e2'))
        os.makedirs(e1)
        os.makedirs(e2)
        self.assertFalse(series.same(e1, e2))
        os.unlink(os.path.join(self.repo.root, 's2', '.source'))
        self.assertFalse(series.same(a, os.path.join(self.repo.root, 's2')))

    def test_one_maintainer(self):
        """one maintainer in every patch's list is one series; none in common is two"""
        self.assertIsNone(series.one_maintainer(['a.patch\tA, B', 'b.patch\tB', 'c.patch\t']))
        self.assertEqual(series.one_maintainer(['a.patch\tA', 'b.patch\tB, C']), ['A', 'B, C'])
        self.assertIsNone(series.one_maintainer(['a.patch\tA', 'b.patch\tA']))


if __name__ == '__main__':
    unittest.main()
