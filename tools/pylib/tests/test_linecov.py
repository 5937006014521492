# SPDX-License-Identifier: GPL-2.0
"""kstacks.linecov: gcov data off a console log, lines followed through a
quilt series, and the report of what a cell's tests execute."""

import base64
import gzip
import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

from kstacks import Error, linecov

ORIG = ''.join(f'int l{i};\n' for i in range(1, 11))

# Stack "one" replaces line 3 and adds two lines after line 7; stack "two"
# then rewrites one of the lines "one" added and deletes line 1.
P1 = '''--- a/f.c
+++ b/f.c
@@ -3 +3 @@
-int l3;
+int one3;
@@ -7,0 +8,2 @@
+int oneA;
+int oneB;
'''
P2 = '''--- a/f.c
+++ b/f.c
@@ -1 +0,0 @@
-int l1;
@@ -9 +8 @@
-int oneB;
+int twoB;
'''


def console(entries, end=True, noise=''):
    """A console log carrying ENTRIES [(guest path, bytes)] as the guest's
    init prints them."""
    out = ['[    1.0] booting', 'kstacks-tests-end']
    for path, data in entries:
        gz = gzip.compress(data)
        out.append(f'kstacks-gcov-file {path} {hashlib.md5(gz).hexdigest()}')
        b64 = base64.b64encode(gz).decode()
        out += [b64[i:i + 76] + noise for i in range(0, len(b64), 76)]
    if end:
        out.append('kstacks-gcov-end')
    return '\r\n'.join(out) + '\r\n'


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path


@unittest.skipUnless(shutil.which('quilt'), 'quilt not installed')
class PatchedLines(Tmp):
    def tree(self):
        src = os.path.join(self.tmp, 'src')
        self.write('src/f.c', ORIG)
        self.write('src/kstacks-patches/one/a.patch', P1)
        self.write('src/kstacks-patches/two/b.patch', P2)
        self.write('src/kstacks-patches/series', 'one/a.patch\ntwo/b.patch\n')
        subprocess.run(['quilt', 'push', '-a', '-q', '--fuzz=0'], cwd=src, check=True,
                       env=dict(os.environ, QUILT_PATCHES='kstacks-patches'), capture_output=True)
        return src

    def test_each_line_goes_to_the_last_patch_that_wrote_it(self):
        got = linecov.patched_lines(self.tree())['f.c']
        # final: l2 one3 l4 l5 l6 l7 oneA twoB l8 l9 l10
        self.assertEqual(got, {2: ('one', 'a.patch'), 7: ('one', 'a.patch'), 8: ('two', 'b.patch')})

    def test_a_file_deleted_after_another_stack_changed_it(self):
        src = self.tree()
        self.write('src/g.c', 'int g;\n')
        self.write('src/kstacks-patches/three/c.patch',
                   '--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-int g;\n+int three;\n')
        self.write('src/kstacks-patches/three/d.patch', '--- a/g.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-int three;\n')
        self.write('src/kstacks-patches/series', 'one/a.patch\ntwo/b.patch\nthree/c.patch\nthree/d.patch\n')
        subprocess.run(['quilt', 'push', '-a', '-q', '--fuzz=0'], cwd=src, check=True,
                       env=dict(os.environ, QUILT_PATCHES='kstacks-patches'), capture_output=True)
        got = linecov.patched_lines(src)
        self.assertEqual((got['g.c'], len(got['f.c'])), ({}, 3))

    def test_a_tree_without_a_series_is_refused(self):
        with self.assertRaisesRegex(Error, 'no kstacks series'):
            linecov.patched_lines(self.tmp)


class Labels(unittest.TestCase):
    def test_hunks_apply_from_the_end(self):
        hunks = linecov.parse_u0(P1)['f.c']
        self.assertEqual(hunks, [(3, 1, 3, 1), (7, 0, 8, 2)])
        got = linecov.apply_labels([None] * 10, hunks, 'x')
        self.assertEqual([i + 1 for i, v in enumerate(got) if v], [3, 8, 9])

    def test_a_hunk_past_the_end_is_an_error(self):
        with self.assertRaisesRegex(Error, 'past the end'):
            linecov.apply_labels([None] * 2, [(5, 1, 5, 1)], 'x')

    def test_new_and_deleted_files(self):
        d = '--- /dev/null\n+++ b/new.c\n@@ -0,0 +1,2 @@\n+a\n+b\n--- a/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'
        self.assertEqual(linecov.parse_u0(d), {'new.c': [(0, 0, 1, 2)], 'old.c': None})

    def test_an_added_line_that_looks_like_a_header(self):
        d = '--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,2 @@\n--- x\n-y\n+++ z\n++ w\n@@ -9,0 +10 @@\n+v\n'
        self.assertEqual(linecov.parse_u0(d), {'f.c': [(1, 2, 1, 2), (9, 0, 10, 1)]})

    def test_test_code(self):
        self.assertEqual([p for p in ('mm/page_batch_kunit.c', 'mm/page_alloc.c', 'lib/test_x.c',
                                      'mm/gup_test.c', 'x/tests/a.c', 'mm/kunit_util.c')
                          if linecov.is_test_file(p)],
                         ['mm/page_batch_kunit.c', 'lib/test_x.c', 'mm/gup_test.c', 'x/tests/a.c',
                          'mm/kunit_util.c'])


class Extract(Tmp):
    BUILD = '/build/k'

    def test_files_come_back_as_they_were(self):
        log = self.write('console.log', console([(self.BUILD + '/mm/a.gcda', b'\x00gcda one'),
                                                 (self.BUILD + '/b.gcda', b'two' * 500)]))
        dest = os.path.join(self.tmp, 'd')
        got = linecov.extract(log, self.BUILD, dest)
        self.assertEqual(got, ['mm/a.gcda', 'b.gcda'])
        with open(os.path.join(dest, 'b.gcda'), 'rb') as f:
            self.assertEqual(f.read(), b'two' * 500)

    def test_kernel_messages_between_the_lines(self):
        text = console([(self.BUILD + '/a.gcda', b'y' * 400)]).replace(
            'kstacks-gcov-end', '[  252.070547] kstacks: done\r\nkstacks-gcov-end')
        lines = text.split('\r\n')
        lines.insert(4, '[   10.0] a message')
        log = self.write('console.log', '\r\n'.join(lines))
        dest = os.path.join(self.tmp, 'd')
        self.assertEqual(linecov.extract(log, self.BUILD, dest), ['a.gcda'])
        with open(os.path.join(dest, 'a.gcda'), 'rb') as f:
            self.assertEqual(f.read(), b'y' * 400)

    def test_a_damaged_line_is_caught(self):
        text = console([(self.BUILD + '/a.gcda', b'x' * 300)]).replace('kstacks-gcov-end', 'AAAA\r\nkstacks-gcov-end')
        log = self.write('console.log', text)
        with self.assertRaisesRegex(Error, 'damaged|not base64'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd'))

    def test_a_guest_that_stopped_early(self):
        log = self.write('console.log', console([(self.BUILD + '/a.gcda', b'x')], end=False))
        with self.assertRaisesRegex(Error, 'no gcov data'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd'))

    def test_a_kernel_without_gcov(self):
        log = self.write('console.log', console([]))
        with self.assertRaisesRegex(Error, 'no gcov data file'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd'))

    def test_another_build_directory(self):
        log = self.write('console.log', console([('/elsewhere/a.gcda', b'x')]))
        with self.assertRaisesRegex(Error, 'not a .gcda file of the build directory'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd'))

    def test_a_path_out_of_the_build_directory(self):
        log = self.write('console.log', console([(self.BUILD + '/../../escaped.gcda', b'x')]))
        with self.assertRaisesRegex(Error, 'not a .gcda file of the build directory'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd', 'e'))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'escaped.gcda')))

    def test_not_gzip(self):
        text = console([(self.BUILD + '/a.gcda', b'x')])
        data = b'plain, not gzip'
        lines = [ln for ln in text.split('\r\n') if not ln.startswith('H4sI')]
        i = next(n for n, ln in enumerate(lines) if ln.startswith('kstacks-gcov-file'))
        lines[i] = f'kstacks-gcov-file {self.BUILD}/a.gcda {hashlib.md5(data).hexdigest()}'
        lines.insert(i + 1, base64.b64encode(data).decode())
        log = self.write('console.log', '\r\n'.join(lines))
        with self.assertRaisesRegex(Error, r'console.log: gcov data of /build/k/a.gcda is not gzip'):
            linecov.extract(log, self.BUILD, os.path.join(self.tmp, 'd'))


PROG = '''int main(int argc, char **argv)
{
	int r = 0;

	if (argc > 5)
		r = 1;
	if (argc > 0)
		r += 2;
	return r == 2 ? 0 : 1;
}
'''
# the stack adds lines 5-6 (never run) and 7-8 (run)
PROG_PATCH = '''--- a/p.c
+++ b/p.c
@@ -4,0 +5,4 @@
+	if (argc > 5)
+		r = 1;
+	if (argc > 0)
+		r += 2;
'''


@unittest.skipUnless(shutil.which('quilt') and shutil.which('gcov') and shutil.which('gcc'),
                     'quilt, gcc or gcov not installed')
class Report(Tmp):
    """The whole way: a program built with gcov's counters in a build
    directory of its own, run, its gcda carried on a console log."""

    def cell(self):
        src = os.path.join(self.tmp, 'src')
        orig = PROG.replace('\tif (argc > 5)\n\t\tr = 1;\n\tif (argc > 0)\n\t\tr += 2;\n', '')
        self.write('src/p.c', orig)
        self.write('src/kstacks-patches/st/x.patch', PROG_PATCH)
        self.write('src/kstacks-patches/series', 'st/x.patch\n')
        subprocess.run(['quilt', 'push', '-a', '-q', '--fuzz=0'], cwd=src, check=True,
                       env=dict(os.environ, QUILT_PATCHES='kstacks-patches'), capture_output=True)
        with open(os.path.join(src, 'p.c')) as f:
            self.assertEqual(f.read(), PROG)
        build = os.path.join(self.tmp, 'build')
        os.makedirs(build)
        subprocess.run(['gcc', '--coverage', '-O0', '-o', 'p', os.path.join(src, 'p.c')], cwd=build, check=True)
        subprocess.run([os.path.join(build, 'p')], cwd=build, check=True)
        gcda = [f for f in os.listdir(build) if f.endswith('.gcda')]
        self.assertEqual(len(gcda), 1)
        with open(os.path.join(build, gcda[0]), 'rb') as f:
            data = f.read()
        os.remove(os.path.join(build, gcda[0]))
        log = self.write('console.log', console([(os.path.join(build, gcda[0]), data)]))
        return src, build, log

    def test_executed_and_missed_lines(self):
        src, build, log = self.cell()
        st = linecov.report(src, build, '9.9', [log])['st']
        self.assertEqual((st['executable'], st['executed']), (4, 3))
        self.assertEqual([(m['file'], m['line'], m['text']) for m in st['missed']], [('p.c', 6, 'r = 1;')])
        self.assertEqual(st['verdict'], 'fail')
        # each if ran one way only: the line run with a branch never taken
        self.assertEqual((st['branches'], st['branches_taken']), (4, 2))
        self.assertEqual([(u['line'], u['taken'], u['branches']) for u in st['untaken']], [(5, 1, 2), (7, 1, 2)])

    def test_two_boots_add_up(self):
        src, build, log = self.cell()
        st = linecov.report(src, build, '9.9', [log, log])['st']
        self.assertEqual((st['executable'], st['executed']), (4, 3))

    def test_written_files(self):
        src, build, log = self.cell()
        out = os.path.join(self.tmp, 'out')
        linecov.write('9.9', linecov.report(src, build, '9.9', [log]), out)
        with open(os.path.join(out, 'linecov.tsv')) as f:
            self.assertEqual(f.read(), 'fail\tlinecov 9.9 st\tst: 3 of 4 patched lines executed (75.0%), '
                             '1 not (0 explained), 2 of 4 branches taken\n')
        with open(os.path.join(out, 'linecov.txt')) as f:
            self.assertIn('  p.c:6: r = 1;\n', f.read())

    def test_an_explained_line_passes_and_a_stale_one_fails(self):
        src, build, log = self.cell()
        self.write('repo/st/linecov/9.9', '# why\np.c\tr = 1;\tonly with six arguments\n')
        st = linecov.report(src, build, '9.9', [log], repo=os.path.join(self.tmp, 'repo'))['st']
        self.assertEqual((st['explained'], st['verdict'], st['missed'][0]['why']),
                         (1, 'pass', 'only with six arguments'))
        self.write('repo/st/linecov/9.9', 'p.c\tr = 1;\tsix\np.c\tr = 7;\tgone\n')
        st = linecov.report(src, build, '9.9', [log], repo=os.path.join(self.tmp, 'repo'))['st']
        self.assertEqual((st['stale'], st['verdict']), ([{'file': 'p.c', 'text': 'r = 7;'}], 'fail'))

    def test_one_entry_one_line_and_tabs_in_the_text(self):
        src, build, log = self.cell()
        repo = os.path.join(self.tmp, 'repo')
        self.write('repo/st/linecov/9.9', 'p.c\tr  =\t1;\ttabs and spaces as the line has them\n')
        st = linecov.report(src, build, '9.9', [log], repo=repo)['st']
        self.assertEqual((st['explained'], st['verdict']), (1, 'pass'))
        self.write('repo/st/linecov/9.9', 'p.c\tr = 1;\tone\np.c\tr = 1;\ta second for the same line\n')
        st = linecov.report(src, build, '9.9', [log], repo=repo)['st']
        self.assertEqual((st['explained'], len(st['stale']), st['verdict']), (1, 1, 'fail'))

    def test_a_patched_c_file_without_data(self):
        src, build, log = self.cell()
        self.write('src/kstacks-patches/st/y.patch', '--- /dev/null\n+++ b/q.c\n@@ -0,0 +1 @@\n+int q(void) { return 1; }\n')
        self.write('src/kstacks-patches/series', 'st/x.patch\nst/y.patch\n')
        subprocess.run(['quilt', 'push', '-a', '-q', '--fuzz=0'], cwd=src, check=True,
                       env=dict(os.environ, QUILT_PATCHES='kstacks-patches'), capture_output=True)
        repo = os.path.join(self.tmp, 'repo')
        self.write('repo/st/linecov/9.9', 'p.c\tr = 1;\tsix arguments\n')
        st = linecov.report(src, build, '9.9', [log], repo=repo)['st']
        self.assertEqual((st['no_data_unexplained'], st['verdict']), (['q.c'], 'fail'))
        self.write('repo/st/linecov/9.9', 'p.c\tr = 1;\tsix arguments\nq.c\t*\tnot built here\n')
        st = linecov.report(src, build, '9.9', [log], repo=repo)['st']
        self.assertEqual((st['no_data_unexplained'], st['verdict']), ([], 'pass'))

    def test_a_malformed_explanation(self):
        src, build, log = self.cell()
        self.write('repo/st/linecov/9.9', 'p.c r = 1; no tabs\n')
        with self.assertRaisesRegex(Error, 'not FILE<TAB>TEXT<TAB>WHY'):
            linecov.report(src, build, '9.9', [log], repo=os.path.join(self.tmp, 'repo'))


if __name__ == '__main__':
    unittest.main()
