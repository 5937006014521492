# SPDX-License-Identifier: GPL-2.0
"""kstacks.kcidb: cells and benchmarks as KCIDB checkouts, builds and tests."""

import hashlib
import io
import json
import os
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from kstacks import Error, console, kcidb, meta

from . import fixture

CONSOLE = (b'Linux version 6.1\r\n'
           b'Run /init as init process\n'
           b'kstacks-tests-begin 3\n'
           b'# t1: bytes \xff of no charset\n'
           b'not ok 1 t1 # exit 1\n'
           b'# t2: expected 4096\n'
           # a kernel message cut into the init's line
           b'not ok 2 io_ur[   40.1] kstacks: running foo\n'
           b'ing-x # exit 2\n'
           b'ok 3 t3 # 5s\n'
           b'kstacks-tests-end\n'
           b'[   50.0] BUG: kernel NULL pointer dereference\n')

KUNIT = ('[    1.0]     # Subtest: page_batch\n'
         '[    1.1]     ok 1 - page_batch_alloc\n'
         '[    1.2]     # page_batch_free: EXPECTATION FAILED\n'
         '[    1.3]     not ok 2 - page_batch_free\n'
         '[    1.4] not ok 1 - page_batch\n')

RESULTS = ('pass\tapply 6.1 core --fuzz=0\t\n'
           'pass\tbuild prefix 1/2\t\n'
           'pass\tbuild debug kernel 2/2\t\n'
           'fail\tboot\tno init\n'
           'fail\tno kernel report in console log\tBUG: kernel NULL pointer dereference\n'
           'pass\tkunit page_batch.page_batch_alloc\t\n'
           'fail\tkunit page_batch.page_batch_free\tFAIL\n'
           'fail\tguest t1\texit 1\n'
           'fail\tguest io_uring-x\texit 2\n'
           'pass\tguest t3\t\n'
           'base\tkernel report of the base\tBUG: one\n'
           'base\tkernel report of the base\tWARNING: two\n')


class KcidbTest(unittest.TestCase):

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        r = self.repo
        r.write('core/patches/6.1/series', '0001-a.patch\n0002-b.patch # a comment\n')
        self.patches = [r.write('core/patches/6.1/0001-a.patch', 'one\n'),
                        r.write('core/patches/6.1/0002-b.patch', 'two\n')]
        self.out = os.path.join(r.root, 'out')
        cell = os.path.join(self.out, 'cells', '6.1', 'core')
        r.write('out/cells/6.1/core/started', '2025-06-01T10:00:00Z\n')
        r.write('out/cells/6.1/core/results.tsv', RESULTS)
        r.write('out/cells/6.1/core/kunit.log', KUNIT)
        r.write('out/cells/6.1/core/guest.tsv', 'not ok\tt1\t # exit 1\nok\tt3\t # 5s\n')
        with open(os.path.join(cell, 'console.log'), 'wb') as f:
            f.write(CONSOLE)
        env = {'KSTACKS_OUT': self.out, 'KSTACKS_CACHE': os.path.join(r.root, 'cache')}
        p = mock.patch.dict(os.environ, env)
        p.start()
        self.addCleanup(p.stop)
        self.m = meta.Meta(meta.Repo(r.root))
        p = mock.patch.object(meta, 'Meta', lambda: self.m)
        p.start()
        self.addCleanup(p.stop)

    def run_kcidb(self, *argv):
        class Args:
            file = argv[0] if argv else None
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            kcidb.run(Args)
        with open(Args.file or os.path.join(self.out, 'kcidb.json'), encoding='utf-8') as f:
            return json.load(f), err.getvalue()

    def by_path(self, doc):
        return {t['id'].split('/debug/', 1)[-1]: t for t in doc['tests']}

    def test_patchset_hash(self):
        """a cell's checkout: its patches and KCIDB's patchset hash"""
        doc, _ = self.run_kcidb()
        co = doc['checkouts'][0]
        sums = ''.join(kcidb.sha256_file(p) + '\n' for p in self.patches)
        self.assertEqual(co['id'], 'kstacks:6.1/core@20250601T100000Z')
        self.assertEqual(co['patchset_hash'], hashlib.sha256(sums.encode()).hexdigest())
        self.assertEqual([f['name'] for f in co['patchset_files']], ['core-0001-a.patch', 'core-0002-b.patch'])
        self.assertTrue(co['valid'])
        # the prefix's checkout has the first patch only
        self.assertEqual([f['name'] for f in doc['checkouts'][1]['patchset_files']], ['core-0001-a.patch'])
        self.assertIn('first 1 of 2 patches', doc['checkouts'][1]['comment'])

    def test_statuses_and_unique_ids(self):
        """record statuses map to KCIDB's; a path twice gets #2"""
        doc, _ = self.run_kcidb()
        t = self.by_path(doc)
        self.assertEqual(t['kstacks.kernel_report_of_the_base']['status'], 'PASS')
        self.assertEqual(t['kstacks.kernel_report_of_the_base#2']['comment'], 'WARNING: two')
        self.assertEqual(t['kunit.page_batch.page_batch_free']['status'], 'FAIL')
        self.assertEqual(t['kstacks.guest.t3']['duration'], 5)
        self.assertNotIn('duration', t['kstacks.guest.t1'])
        self.assertEqual(len({x['id'] for x in doc['tests']}), len(doc['tests']))

    def test_excerpts(self):
        """a failure's log lines: the guest test's own, a cut line whole, KTAP of 5.10's style"""
        doc, _ = self.run_kcidb()
        t = self.by_path(doc)
        self.assertEqual(t['kstacks.guest.io_uring-x']['log_excerpt'],
                         '# t2: expected 4096\nnot ok 2 io_uring-x # exit 2')
        self.assertIn('bytes \ufffd of no charset\nnot ok 1 t1', t['kstacks.guest.t1']['log_excerpt'])
        self.assertEqual(t['kunit.page_batch.page_batch_free']['log_excerpt'],
                         '    # page_batch_free: EXPECTATION FAILED\n    not ok 2 - page_batch_free')
        self.assertTrue(t['kstacks.no_kernel_report']['log_excerpt'].endswith('BUG: kernel NULL pointer dereference'))
        self.assertTrue(t['boot']['log_excerpt'].startswith('no init\nLinux version 6.1\nRun /init'))
        self.assertNotIn('log_excerpt', t['kstacks.guest.t3'])

    def test_excerpt_limit(self):
        """an excerpt is at most 16000 bytes, the end of the log, and UTF-8"""
        ex = console.excerpt('x' * 20000 + '\xc3\xa9end\n\n')
        self.assertEqual(ex[-4:], '\xe9end')
        self.assertLessEqual(len(ex.encode()), 16000)

    def test_failed_apply(self):
        """a cell whose stacks did not apply: an invalid checkout with the reason"""
        self.repo.write('out/cells/6.1/core/results.tsv', 'fail\tapply 6.1 core --fuzz=0\tHunk #1 FAILED\n')
        doc, _ = self.run_kcidb()
        self.assertFalse(doc['checkouts'][0]['valid'])
        self.assertEqual(doc['checkouts'][0]['log_excerpt'], 'Hunk #1 FAILED')

    def test_unknown_cell_skipped(self):
        """a cell of a base no longer in the workbench: a warning, no objects"""
        self.repo.write('out/cells/9.9/core/results.tsv', 'pass\tapply 9.9 core\t\n')
        doc, err = self.run_kcidb()
        self.assertIn('skipping', err)
        self.assertEqual({c['misc']['base'] for c in doc['checkouts']}, {'6.1'})

    def test_linecov(self):
        """a line coverage report: a gcov build, a test per stack with its share"""
        st = {'executable': 4, 'executed': 3, 'explained': 0, 'not_profiled': 0, 'percent': 75.0,
              'verdict': 'fail', 'stale': [],
              'missed': [{'file': 'mm/a.c', 'line': 7, 'text': 'return -EINVAL;', 'patch': 'x'}]}
        self.repo.write('out/linecov/6.1/core/linecov.json', json.dumps({'goal_percent': 95.0,
                                                                         'stacks': {'core': st}}))
        self.repo.write('out/linecov/6.1/core/started', '2025-06-01T11:00:00Z\n')
        doc, _ = self.run_kcidb()
        t = [t for t in doc['tests'] if t['path'] == 'kstacks.linecov.core']
        self.assertEqual(len(t), 1)
        self.assertEqual((t[0]['status'], t[0]['number']), ('FAIL', {'value': 75, 'unit': '%'}))
        self.assertEqual(t[0]['build_id'], 'kstacks:6.1/core@20250601T110000Z/linecov/gcov')
        self.assertIn('mm/a.c:7: return -EINVAL;', t[0]['log_excerpt'])
        self.assertIn('kstacks:6.1/core@20250601T110000Z/linecov/gcov', [b['id'] for b in doc['builds']])

    def test_suites(self):
        """tools/suite's records: a checkout and build per kind and run, a test per record"""
        r = self.repo
        for kind in ('vanilla', 'patched', 'patched-latency'):
            r.write(f'out/suite/6.1/{kind}/cyclictest.tsv',
                    'pass\tidle\tmax 40 us, mean 9 us over 2 CPUs\nskip\tbulk\t\n')
            r.write(f'out/suite/6.1/{kind}/cyclictest.stacks', 'core\n')
            r.write(f'out/suite/6.1/{kind}/cyclictest.started', '2025-06-01T12:00:00Z\n')
        # a record without its run's stacks: skipped, said
        r.write('out/suite/6.1/patched/trinity.tsv', 'pass\tvm\t\n')
        doc, err = self.run_kcidb()
        self.assertIn('trinity.tsv: no record of its run', err)
        t = {x['id']: x for x in doc['tests'] if x['path'].startswith('kstacks.suite.')}
        p = 'kstacks:6.1/core@20250601T120000Z/suite-patched/debug/kstacks.suite.cyclictest.'
        self.assertEqual((t[p + 'idle']['status'], t[p + 'idle']['comment']),
                         ('PASS', 'max 40 us, mean 9 us over 2 CPUs'))
        self.assertEqual(t[p + 'bulk']['status'], 'SKIP')
        self.assertEqual(len(t), 6)
        b_id = 'kstacks:6.1/core@20250601T120000Z/suite-patched-latency/latency'
        self.assertIn(b_id + '/kstacks.suite.cyclictest.idle', t)
        co = {c['id']: c for c in doc['checkouts']}
        self.assertNotIn('patchset_files', co['kstacks:6.1/core@20250601T120000Z/suite-vanilla'])
        self.assertEqual(len(co['kstacks:6.1/core@20250601T120000Z/suite-patched']['patchset_files']), 2)
        b = {x['id']: x for x in doc['builds']}
        self.assertEqual(b[b_id]['command'], 'tools/build --flavour latency 6.1 core')
        self.assertIn('none of their patches',
                      b['kstacks:6.1/core@20250601T120000Z/suite-vanilla/debug']['config_name'])

    def test_bench(self):
        """a benchmark figure: a DONE test of each kernel with its median"""
        self.repo.write('core/bench/b.c', '')
        rep = {'date': '2025-06-01T10:00Z', 'figures': [], 'missing': [
            {'base': '6.1', 'kernel': 'patched', 'what': 'core-b', 'why': 'exit 1'}], 'samples': [
            {'base': '6.1', 'kernel': k, 'stack': 'core', 'program': 'core-b', 'round': i,
             'figure': 'map_s', 'value': v * (1 if k == 'vanilla' else 0.5), 'unit': 's', 'better': 'lower'}
            for k in ('vanilla', 'patched') for i, v in enumerate((4.0, 2.0, 3.0, 5.0))]}
        self.repo.write('out/bench/report.json', json.dumps(rep))
        doc, _ = self.run_kcidb()
        figs = {t['id']: t for t in doc['tests'] if t['status'] == 'DONE'}
        van = figs['kstacks:6.1/vanilla@20250601T1000Z/lean/kstacks.bench.core.map_s']
        self.assertEqual(van['number'], {'value': 3.5, 'unit': 's', 'prefix': 'metric'})
        self.assertEqual((van['misc']['min'], van['misc']['max']), (2, 5))
        err = [t for t in doc['tests'] if t['status'] == 'ERROR']
        self.assertEqual([t['path'] for t in err], ['kstacks.bench.core-b'])
        self.assertEqual(doc['checkouts'][-1]['start_time'], '2025-06-01T10:00:00Z')

    def test_bench_kernels_as_tools_bench_builds_them(self):
        """a stack measured by another's programs (BENCH_BY) is in the
        benchmark kernels, their patches and their build's name"""
        self.repo.write('core/bench/b.c', '')
        self.repo.append('mm-bulk/STACK', 'BENCH_BY="core"\n')
        self.repo.write('mm-bulk/patches/6.1/0001-a.patch', 'm\n')
        self.m = type(self.m)(meta.Repo(self.repo.root))
        self.assertEqual(self.m.bench_stacks('6.1'), ['core', 'mm-bulk'])
        rep = {'date': '2025-06-01T10:00Z', 'figures': [], 'missing': [], 'samples': [
            {'base': '6.1', 'kernel': 'patched', 'stack': 'core', 'program': 'core-b', 'round': 0,
             'figure': 'f', 'value': 1, 'unit': 's', 'better': 'lower'}]}
        self.repo.write('out/bench/report.json', json.dumps(rep))
        with mock.patch.object(meta, 'Meta', lambda: self.m):
            doc, _ = self.run_kcidb()
        co = next(c for c in doc['checkouts'] if c['id'].startswith('kstacks:6.1/core+mm-bulk@'))
        self.assertEqual([f['name'] for f in co['patchset_files']],
                         ['core-0001-a.patch', 'core-0002-b.patch', 'mm-bulk-0001-a.patch'])
        self.assertEqual(doc['builds'][-1]['command'], 'tools/build --flavour lean 6.1 core mm-bulk')

    def test_report_entries_without_fields(self):
        """a benchmark report whose samples lack fields: one line, nothing written"""
        self.repo.write('core/bench/b.c', '')
        self.repo.write('out/bench/report.json', json.dumps(
            {'date': '2025-06-01T10:00Z', 'figures': [], 'missing': [], 'samples': [{'base': '6.1'}]}))
        with self.assertRaisesRegex(Error, 'cannot read .*report.json: a sample, figure or missing entry'):
            self.run_kcidb()
        self.assertFalse(os.path.exists(os.path.join(self.out, 'kcidb.json')))

    def test_uris_escaped(self):
        """a repository path with a blank or a %: the patch and log URIs are URIs"""
        self.assertEqual(kcidb.url('/a b/c%d+e/f#g', resolve=False), 'file:///a%20b/c%25d+e/f%23g')
        doc, _ = self.run_kcidb()
        for f in doc['checkouts'][0]['patchset_files']:
            self.assertRegex(f['url'], r'^file:///[^ ]*$')

    def test_guest_line_cut_short(self):
        """a TAP line cut short at the end of a console: no excerpt, no crash"""
        path = self.repo.write('console.log', 'Run /init as init process\nnot ok 3 \n')
        self.assertEqual(console.guest_excerpt(path, 't1'), '')

    def test_bad_origin(self):
        """an origin KCIDB does not take: one line, nothing written"""
        with mock.patch.dict(os.environ, {'KSTACKS_KCIDB_ORIGIN': 'Bad-Origin'}):
            with self.assertRaisesRegex(Error, 'lowercase letters'):
                self.run_kcidb()
        self.assertFalse(os.path.exists(os.path.join(self.out, 'kcidb.json')))

    def test_missing_patch(self):
        """a series naming a patch that is not there: one line, nothing written"""
        self.repo.append('core/patches/6.1/series', 'nosuch.patch\n')
        with self.assertRaisesRegex(Error, 'cannot read patch .*nosuch.patch'):
            self.run_kcidb()
        self.assertFalse(os.path.exists(os.path.join(self.out, 'kcidb.json')))

    def test_bad_report(self):
        """a benchmark report that is not one: one line, nothing written"""
        self.repo.write('out/bench/report.json', '{"date": 1')
        with self.assertRaisesRegex(Error, 'cannot read .*report.json'):
            self.run_kcidb()
        self.assertFalse(os.path.exists(os.path.join(self.out, 'kcidb.json')))


if __name__ == '__main__':
    unittest.main()
