# SPDX-License-Identifier: GPL-2.0
"""kstacks.drift: quilt's words read, verdicts decided, patches kept in their format."""

import argparse
import contextlib
import io
import json
import os
import unittest
from unittest import mock

from kstacks import Error, drift, meta

from . import fixture

QUILT_LOG = '''Applying patch patches/core/a.patch
patching file mm/a.c
Hunk #1 succeeded at 20 (offset 3 lines).
Hunk #2 succeeded at 40 (offset -12 lines).
patching file 'mm/b c.c'
Hunk #1 FAILED at 7.
|+++ b/mm/gone.c
No file to patch.  Skipping patch.
1 out of 1 hunk ignored
The next patch would create the file mm/new.c,
which already exists!  Applying it anyway.
Reversed (or previously applied) patch detected!  Assume -R? [n]
Patch patches/core/a.patch does not apply (enforce with -f)
'''

ORIG = '''From: kstacks <kstacks@kstacks.invalid>
Subject: [PATCH] mm: a change

Why.

---
 mm/a.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
diff --git a/mm/new.c b/mm/new.c
new file mode 100644
--- /dev/null
+++ b/mm/new.c
@@ -0,0 +1 @@
+new
'''

# what quilt refresh writes: its own header, no diff --git lines
REFRESHED = '''Index: x
===
--- a/mm/a.c
+++ b/mm/a.c
@@ -10,3 +10,3 @@
 one
-two
+TWO
 three
--- /dev/null
+++ b/mm/new.c
@@ -0,0 +1 @@
+new
'''


class DriftTest(unittest.TestCase):

    def test_hunk_words(self):
        """each file's and hunk's words, under the file they are about"""
        self.assertEqual(drift.hunk_words(QUILT_LOG), [
            'mm/a.c: Hunk #1 succeeded at 20 (offset 3 lines).',
            'mm/a.c: Hunk #2 succeeded at 40 (offset -12 lines).',
            'mm/b c.c: Hunk #1 FAILED at 7.',
            "mm/gone.c: can't find file to patch",
            'mm/gone.c: 1 out of 1 hunk ignored',
            'which already exists!  Applying it anyway.',
            'mm/b c.c: Reversed (or previously applied) patch detected!  Assume -R? [n]'])

    def test_largest_offset(self):
        """the largest offset, whatever its sign"""
        words = drift.hunk_words(QUILT_LOG)
        self.assertEqual(drift.largest(words, r'offset -?[0-9]+ lines?'), 12)
        self.assertIsNone(drift.largest(words, r'with fuzz [0-9]+'))

    def test_patch_head(self):
        self.assertEqual(drift.patch_head(ORIG)[-2:], [' 1 file changed, 1 insertion(+), 1 deletion(-)', ''])
        self.assertEqual(drift.patch_head('a\n--- /dev/null\n'), ['a'])

    def test_format_like(self):
        """a refreshed patch keeps its message, a diffstat of its width and
        its diff --git and mode lines"""
        repo = fixture.Repo()
        self.addCleanup(repo.cleanup)
        orig = repo.write('orig.patch', ORIG)
        new = repo.write('new.patch', REFRESHED)
        d = drift.Drift(meta.Meta(meta.Repo(repo.root)), '6.1', [], repo.root, repo.root, 'x',
                        logs=os.path.join(repo.root, 'logs'))
        self.addCleanup(d.cleanup)
        out = d.format_like(orig, new)
        self.assertTrue(out.startswith(ORIG.split('diff --git')[0].replace(
            ' mm/a.c | 2 +-\n 1 file changed', ' mm/a.c   | 2 +-\n mm/new.c | 1 +\n 2 files changed')[:60]))
        self.assertIn('\ndiff --git a/mm/a.c b/mm/a.c\n--- a/mm/a.c\n+++ b/mm/a.c\n@@ -10,3 +10,3 @@\n', out)
        self.assertIn('\ndiff --git a/mm/new.c b/mm/new.c\nnew file mode 100644\n--- /dev/null\n', out)
        self.assertIn(' 2 files changed, 2 insertions(+), 1 deletion(-)\n\ndiff --git', out)
        self.assertNotIn('Index: x', out)


class DriftRunTest(unittest.TestCase):
    """A made-up base and target: a patch applying with an offset, one
    upstream, one failing and the one after it on the same file."""

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        r = self.repo
        src = ''.join(f'line {i}\n' for i in range(1, 30))
        r.write('src/Makefile', 'VERSION = 6\n')
        r.write('src/lib/a.c', src)
        r.write('src/lib/b.c', src)
        r.write('tgt/Makefile', 'VERSION = 6\n')
        # target: 3 lines more at the top of a.c; b.c has patch 2 and a
        # different line 20
        r.write('tgt/lib/a.c', 'x\ny\nz\n' + src)
        r.write('tgt/lib/b.c', src.replace('line 5\n', 'LINE 5\n').replace('line 20\n', 'other 20\n'))

        def patch(name, f, old, new):
            return r.write(f'core/patches/6.1/{name}', f'Subject: [PATCH] {name}\n\n---\n'
                           f'--- a/{f}\n+++ b/{f}\n@@ -{old - 1},3 +{old - 1},3 @@\n'
                           f' line {old - 1}\n-line {old}\n+{new}\n line {old + 1}\n')
        patch('1-offset.patch', 'lib/a.c', 10, 'TEN')
        patch('2-upstream.patch', 'lib/b.c', 5, 'LINE 5')
        patch('3-fails.patch', 'lib/b.c', 20, 'TWENTY')
        patch('4-after.patch', 'lib/b.c', 25, 'XXV')
        r.write('core/patches/6.1/series', '1-offset.patch\n2-upstream.patch\n3-fails.patch\n4-after.patch\n')
        p = mock.patch.dict(os.environ, {'KSTACKS_OUT': os.path.join(r.root, 'out')})
        p.start()
        self.addCleanup(p.stop)
        m = meta.Meta(meta.Repo(r.root))
        p = mock.patch.object(meta, 'Meta', lambda: m)
        p.start()
        self.addCleanup(p.stop)

    def drift(self, *extra):
        sub = argparse.ArgumentParser().add_subparsers()
        drift.add_parser(sub)
        a = sub.choices['drift'].parse_args(['6.1', '--target', os.path.join(self.repo.root, 'tgt'),
                                             '--source', os.path.join(self.repo.root, 'src'),
                                             '--label', 'made-up', '--stack', 'core', *extra])
        out = io.StringIO()
        with contextlib.redirect_stdout(out), mock.patch.object(drift.sys.stdout, 'reconfigure', create=True):
            drift.run(a)
        with open(os.path.join(self.repo.root, 'out', 'drift', '6.1-made-up.json'), encoding='utf-8') as f:
            return out.getvalue(), json.load(f)

    def test_verdicts(self):
        """offsets, upstream by reverse-apply, FAILED, and not tried after it"""
        text, doc = self.drift()
        self.assertEqual([(p['patch'], p['verdict']) for p in doc['patches']], [
            ('1-offset.patch', 'offsets'), ('2-upstream.patch', 'upstream'),
            ('3-fails.patch', 'fails'), ('4-after.patch', 'not-tried')])
        self.assertIn('applies with offsets (up to 3 lines)', text)
        self.assertEqual(doc['patches'][3]['why'], 'lib/b.c is changed by 3-fails.patch, which does not apply')
        self.assertEqual(doc['patches'][2]['three_way'], 'does not resolve it')
        self.assertIn('verdicts: 1 fails, 1 not-tried, 1 offsets, 1 upstream', text)

    def test_write(self):
        """--write: the patch that applies, refreshed at its new place"""
        w = os.path.join(self.repo.root, 'w')
        self.drift('--write', w)
        with open(os.path.join(w, 'core', '1-offset.patch'), encoding='utf-8') as f:
            self.assertIn('@@ -10,7 +10,7 @@\n line 7\n', f.read())
        self.assertEqual(os.listdir(os.path.join(w, 'core')), ['1-offset.patch'])

    def test_missing_patch(self):
        """a series naming a missing patch: one line, no logs written"""
        self.repo.append('core/patches/6.1/series', 'nosuch.patch\n')
        with self.assertRaisesRegex(Error, 'series for 6.1 names a missing patch: core/patches/6.1/nosuch.patch'):
            self.drift()
        self.assertFalse(os.path.exists(os.path.join(self.repo.root, 'out')))


    def test_three_way_resolves_whatever_git_config(self):
        """a patch whose context the target changed (fuzz): the 3-way merge
        resolves it, written refreshed; the user's git configuration
        (diff.noprefix, apply.whitespace=error) changes nothing"""
        src = ''.join(f'line {i}\n' for i in range(1, 30))
        self.repo.write('src/lib/c.c', src)
        self.repo.write('tgt/lib/c.c', src.replace('line 8\n', 'EIGHT\n'))
        self.repo.write('core/patches/6.1/5-3way.patch', 'Subject: [PATCH] 5\n\n---\n'
                        '--- a/lib/c.c\n+++ b/lib/c.c\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n'
                        '-line 10\n+TEN \n line 11\n line 12\n line 13\n')
        self.repo.write('core/patches/6.1/series', '5-3way.patch\n')
        home = os.path.join(self.repo.root, 'home')
        self.repo.write('home/.gitconfig', '[diff]\n\tnoprefix = true\n[apply]\n\twhitespace = error\n')
        w = os.path.join(self.repo.root, 'w')
        with mock.patch.dict(os.environ, {'HOME': home, 'XDG_CONFIG_HOME': home}):
            _, doc = self.drift('--write', w)
        self.assertEqual([(p['verdict'], p.get('three_way')) for p in doc['patches']], [('fuzz', 'resolves')])
        with open(os.path.join(w, 'core', '5-3way.patch'), encoding='utf-8') as f:
            text = f.read()
        self.assertIn('--- a/lib/c.c\n+++ b/lib/c.c\n', text)
        self.assertIn(' EIGHT\n', text)
        self.assertIn('+TEN \n', text)

    def test_three_way_no_change(self):
        """the change already in the target under other context: the 3-way
        merge makes no commit, which is not a merge that resolves"""
        src = ''.join(f'line {i}\n' for i in range(1, 30))
        self.repo.write('src/lib/c.c', src)
        self.repo.write('tgt/lib/c.c', src.replace('line 8\n', 'EIGHT\n').replace('line 12\n', 'TWELVE\n')
                        .replace('line 10\n', 'TEN\n'))
        self.repo.write('core/patches/6.1/5-3way.patch', 'Subject: [PATCH] 5\n\n---\n'
                        '--- a/lib/c.c\n+++ b/lib/c.c\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n'
                        '-line 10\n+TEN\n line 11\n line 12\n line 13\n')
        self.repo.write('core/patches/6.1/series', '5-3way.patch\n')
        _, doc = self.drift()
        self.assertNotEqual(doc['patches'][0].get('three_way'), 'resolves')

    def test_maintainers_only(self):
        """a patch that fails only in MAINTAINERS: told apart, the code tried without it"""
        self.repo.write('src/MAINTAINERS', 'A\nB\nC\n')
        self.repo.write('tgt/MAINTAINERS', 'X\nY\nZ\n')
        self.repo.write('core/patches/6.1/6-maint.patch', 'Subject: [PATCH] 6\n\n---\n'
                        '--- a/MAINTAINERS\n+++ b/MAINTAINERS\n@@ -1,3 +1,4 @@\n A\n B\n C\n+D\n'
                        '--- a/lib/b.c\n+++ b/lib/b.c\n@@ -9,3 +9,3 @@\n line 9\n-line 10\n+TEN\n line 11\n')
        self.repo.write('core/patches/6.1/series', '6-maint.patch\n')
        text, doc = self.drift()
        self.assertEqual([p['verdict'] for p in doc['patches']], ['maintainers'])
        self.assertIn('FAILED in MAINTAINERS only; the rest applies', text)

    def test_not_a_kernel_tree(self):
        """a target without a Makefile: one error, nothing written"""
        os.unlink(os.path.join(self.repo.root, 'tgt', 'Makefile'))
        with self.assertRaisesRegex(Error, 'tgt is not a kernel tree'):
            self.drift()
        self.assertFalse(os.path.exists(os.path.join(self.repo.root, 'out')))

    def test_patch_not_on_its_own_base(self):
        """a patch that does not apply to its own base: the 3-way merge says so"""
        # 0-target-only applies to the target but not to the base; the 3-way
        # merge of the failing patch after it needs it on the base
        src = ''.join(f'line {i}\n' for i in range(1, 30))
        self.repo.write('src/lib/d.c', src)
        self.repo.write('tgt/lib/d.c', src.replace('line 2\n', 'TWO\n'))
        self.repo.write('core/patches/6.1/0-target-only.patch', 'Subject: [PATCH] 0\n\n---\n'
                        '--- a/lib/d.c\n+++ b/lib/d.c\n@@ -1,3 +1,3 @@\n line 1\n-TWO\n+2\n line 3\n')
        self.repo.write('core/patches/6.1/series', '0-target-only.patch\n3-fails.patch\n')
        with self.assertRaisesRegex(Error, 'does not apply to base 6.1 itself'):
            self.drift()


if __name__ == '__main__':
    unittest.main()
