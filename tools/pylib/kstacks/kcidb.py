# SPDX-License-Identifier: GPL-2.0
"""kstacks kcidb [FILE]: the results in out/ in KCIDB's JSON format (I/O
schema v5), for KernelCI's common results database (kcidb-submit, see
docs/results.md).

Each cell of the matrix (out/cells/BASE/STACKS) is a checkout: the Debian
base with the cell's stacks as its patchset (patchset_files, patchset_hash
as KCIDB defines it); its debug kernel a build; its boot, console check,
KUnit cases (kunit.SUITE.CASE) and guest tests (kstacks.guest.NAME) tests
of that build, with the console log's lines of a failure as log_excerpt.
Each prefix of the series compiled is a checkout of that prefix and a
build of its objects. Benchmarks (out/bench/report.json): per base a
checkout without patches and one with the benchmarked stacks, their lean
builds, and each figure a test of each build (kstacks.bench.STACK.FIGURE,
status DONE, the median as number, min, max and ratio in misc). Line
coverage (out/linecov/BASE/STACKS/linecov.json, tools/linecov): a checkout
of the cell, its gcov build, and per stack a test kstacks.linecov.STACK,
the share of its patched lines executed as number, the lines not executed
as log_excerpt. The subsystems' own suites and the torture tools
(out/suite/BASE/KIND/SUITE.tsv, tools/suite): per base, kind (vanilla,
patched; KIND-latency of the latency flavour, KIND-icount
instruction-counted) and run a checkout (the vanilla one without
patches), its debug or latency build, and each run of a suite a test
kstacks.suite.SUITE.NAME with its record's detail (a figure, a reason)
as comment. Object ids
carry the time of their run, so regenerating the file gives the same ids.
The unit tier (out/check.tsv without the cells) builds no kernel: it is in
the JUnit file only (kstacks junit).
"""

import collections
import datetime
import glob
import hashlib
import json
import os
import re
import urllib.parse
import subprocess
import sys

from . import REPO, Error, console, meta, results, series

_ORIGIN = re.compile(r'[a-z0-9_]+')
_METRIC_UNITS = ('s', 'B', 'B/s', 'Hz')


def seg(name, encoding='utf-8'):
    """A test path segment: letters, digits, _ and - (a byte each)."""
    return re.sub(rb'[^A-Za-z0-9_-]', b'_', name.encode(encoding)).decode('ascii')


def lseg(name):
    """seg() of a name read from a results file (a latin-1 string)."""
    return seg(name, 'latin-1')


def url(path, resolve=True):
    """A file: URI of PATH (its real path with RESOLVE), escaped where a
    URI must be; the characters a path segment may hold are kept."""
    p = os.path.realpath(path) if resolve else os.path.abspath(path)
    return 'file://' + urllib.parse.quote(p, safe="/+~:@!$&'()*,;=")


def jq_number(v):
    """A number as jq writes it: 2.0 is 2."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e17:
        return int(v)
    return v


def sha256_file(path):
    try:
        with open(path, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise Error(f'cannot read patch {path}: {e.strerror}') from None


def stamp(t):
    return t.replace(':', '').replace('-', '')


class Writer:
    """The objects of one KCIDB file, in the order they were made."""

    def __init__(self, m, origin):
        self.m = m
        self.origin = origin
        self.checkouts = []
        self.builds = []
        self.tests = []
        self.test_ids = collections.Counter()
        self._versions = {}
        self._gcc = None

    # --- what a base and its series are ---

    def base_version(self, base):
        """The kernel version of the base's tree (its Makefile), '' without it."""
        return series.tree_kernel_version(self.m.base_src(base))

    def package_version(self, base):
        """The Debian version of the base's package found here (installed,
        or fetched for a FETCH=yes base), or the tree's kernel version."""
        if base not in self._versions:
            self._versions[base] = self.m.found(base) or self.base_version(base)
        return self._versions[base]

    def patch_list(self, base, stacks, n=None):
        """(stack, patch path) of the stacks' series on BASE in the order
        quilt applies them; the first N with N."""
        out = [(s, p) for s in stacks for p in self.m.patches(s, base)]
        return out if n is None else out[:n]

    # --- the three kinds of object ---

    def checkout(self, ident, group, base, valid, start, ex, n, stacks):
        """A checkout of BASE with the first N patches of STACKS (all with N
        None; none without stacks). GROUP (misc.group: the cell or benchmark
        it belongs to) is the testsuite of the JUnit file."""
        pl = self.patch_list(base, stacks, n)
        h = ''
        if pl:
            sums = ''.join(sha256_file(p) + '\n' for _, p in pl)
            h = hashlib.sha256(sums.encode()).hexdigest()
        b = self.m.bases[base]
        what = f"Debian {b['PACKAGE']} {self.package_version(base)} ({b['SUITE']})"
        if stacks:
            what += ' + ' + ', '.join(f'{s} v{self.m.stack_version(s, base)}' for s in stacks)
            if n is not None:
                what += f', first {n} of {len(self.patch_list(base, stacks))} patches'
        else:
            what += ', no patches'
        o = {'id': ident, 'origin': self.origin, 'tree_name': b['PACKAGE'], 'comment': what,
             'valid': valid, 'patchset_hash': h,
             'misc': {'group': group, 'base': base, 'kernel_version': self.base_version(base),
                      'stacks': [{'name': s, 'version': str(self.m.stack_version(s, base))}
                                 for s in stacks]}}
        if pl:
            o['patchset_files'] = [{'name': s + '-' + os.path.basename(p), 'url': url(p, resolve=False)}
                                   for s, p in pl]
        if start:
            o['start_time'] = start
        if ex:
            o['log_excerpt'] = ex
        self.checkouts.append(o)

    def compiler(self, config):
        try:
            with open(config, encoding='utf-8', errors='replace') as f:
                for line in f:
                    m = re.fullmatch(r'CONFIG_CC_VERSION_TEXT="(.*)"', line.rstrip('\n'))
                    if m and m.group(1):
                        return m.group(1)
        except OSError:
            pass
        if self._gcc is None:
            r = subprocess.run(['gcc', '--version'], capture_output=True, text=True, check=False)
            self._gcc = (r.stdout.split('\n') or [''])[0]
        return self._gcc

    def build(self, ident, group, label, checkout, status, config_name, build_dir, log, command, ex=''):
        """A build of CHECKOUT (LABEL, misc.label: which build of the group
        it is, for the JUnit file)."""
        cfg = os.path.join(build_dir, '.config')
        o = {'id': ident, 'checkout_id': checkout, 'origin': self.origin, 'architecture': 'x86_64',
             'compiler': self.compiler(cfg), 'config_name': config_name, 'command': command,
             'status': status, 'misc': {'group': group, 'label': label}}
        if os.path.isfile(cfg):
            o['config_url'] = url(cfg)
        if log and os.path.isfile(log):
            o['log_url'] = url(log)
        if ex:
            o['log_excerpt'] = ex
        self.builds.append(o)

    def test(self, build, path, status, comment='', log='', ex='', duration=None):
        """A test of BUILD. A path a build has more than once (two reports
        of the base in one boot) is one test each: its id gets "#N" from
        the second on (ids are unique)."""
        ident = f'{build}/{path}'
        self.test_ids[ident] += 1
        if self.test_ids[ident] > 1:
            ident += f'#{self.test_ids[ident]}'
        o = {'id': ident, 'build_id': build, 'origin': self.origin, 'path': path, 'status': status}
        if comment:
            o['comment'] = comment
        if log and os.path.isfile(log):
            o['log_url'] = url(log)
        if ex:
            o['log_excerpt'] = ex
        if duration is not None:
            o['duration'] = duration
        self.tests.append(o)

    def document(self):
        return {'version': {'major': 5, 'minor': 0}, 'checkouts': self.checkouts,
                'builds': self.builds, 'tests': self.tests}


# --- cells --------------------------------------------------------------------

def _fields(line):
    """A results.tsv line as the shell's read -r st name detail takes it
    (tabs are blanks there: runs of them are one separator)."""
    f = line.strip('\t ').split('\t', 2)
    f = [x.strip('\t ') for x in f[:2]] + [f[2].lstrip('\t').rstrip('\t ')] if len(f) == 3 else f
    return (f + ['', '', ''])[:3]


def _duration(guest_tsv, test):
    for line in console.lines(console.read(guest_tsv)):
        f = line.split('\t')
        if len(f) > 1 and f[1] == test:
            m = re.search(r'# ([0-9]*)s$', line)
            return int(m.group(1)) if m and m.group(1) else None
    return None


def _report_excerpt(path):
    """The console log's lines around its first kernel report."""
    r = subprocess.run([os.path.join(REPO, 'tools', 'check-log'), path],
                       capture_output=True, check=False)
    first = (r.stdout.decode('latin-1').split('\n') or [''])[0]
    ls = console.lines(console.read(path))
    ln = next((i for i, line in enumerate(ls, 1) if first in line), 1)
    return console.excerpt(''.join(line + '\n' for line in ls[max(ln - 5, 1) - 1:ln + 60]))


def _cell_dir(w, res):
    """(directory, base, set name, stacks, start) of the cell whose file
    RES is (out/KIND/BASE/STACKS/FILE), None (with a warning) when its base
    or a stack is no longer in the workbench.  The start is the cell's
    "started" file, else RES's time."""
    d = os.path.dirname(res)
    set_name = os.path.basename(d)
    b = os.path.basename(os.path.dirname(d))
    stacks = set_name.split('+')
    if b not in w.m.bases or any(s not in w.m.stacks for s in stacks):
        print(f'kstacks kcidb: warning: skipping {d}: base or stack no longer in the workbench',
              file=sys.stderr)
        return None
    try:
        with open(os.path.join(d, 'started'), encoding='utf-8') as f:
            start = f.read().rstrip('\n')
    except OSError:
        start = datetime.datetime.fromtimestamp(os.path.getmtime(res), datetime.timezone.utc) \
            .strftime('%Y-%m-%dT%H:%M:%SZ')
    return d, b, set_name, stacks, start


def add_cell(w, res):
    cell = _cell_dir(w, res)
    if not cell:
        return
    d, b, set_name, stacks, start = cell
    cid = f'{w.origin}:{b}/{set_name}@{stamp(start)}'
    bid = cid + '/debug'
    cache = meta.cache_dir()
    bdir = os.path.join(cache, 'build', f'{b}-debug-{set_name}')
    log_dir = os.path.join(cache, 'logs')
    con = os.path.join(d, 'console.log')
    records = [_fields(line) for line in console.lines(console.read(res))]

    apply = next((r for r in records if re.fullmatch('[a-z]+', r[0]) and r[1].startswith('apply ')), None)
    valid = apply is not None and apply[0] == 'pass'
    group = f'cell {b} {set_name}'
    w.checkout(cid, group, b, valid, start, '' if valid or apply is None else console.utf8(apply[2]), None, stacks)
    plus = ' + '.join(stacks)
    for st, name, detail in records:
        status = {'fail': 'FAIL', 'skip': 'SKIP'}.get(st, 'PASS')
        text = console.utf8(detail)
        if name.startswith('apply '):
            continue
        if name.startswith('build prefix '):
            k = name[len('build prefix '):].split('/')[0]
            pcid = f'{cid}/{k}'
            w.checkout(pcid, group, b, True, start, '', int(k) if k.isdigit() else 0, stacks)
            w.build(f'{pcid}/debug-objects', group, console.utf8(f"prefix {k}/{name.rsplit('/', 1)[-1]}"), pcid,
                    status, f'debug: objects of the files patches 1..{k} touch', bdir,
                    os.path.join(log_dir, f'build-{b}-debug-{set_name}@{k}.log'),
                    f"tools/build --upto {k} --objects {b} {' '.join(stacks)}",
                    text if status == 'FAIL' else '')
        elif name.startswith('build debug kernel '):
            log = os.path.join(log_dir, f'build-{b}-debug-{set_name}.log')
            ex = ''
            if status == 'FAIL':
                errs = [x for x in console.lines(console.read(log))
                        if re.search(r': (fatal )?error:|\*\*\* ', x)][:20]
                ex = console.excerpt(''.join(x + '\n' for x in [detail] + errs))
            w.build(bid, group, 'debug', cid, status, f'debug: tinyconfig + common + debug + {plus}',
                    bdir, log, f"tools/build --flavour debug {b} {' '.join(stacks)}", ex)
        elif name == 'boot':
            ex = ''
            if status == 'FAIL':
                tail = console.lines(console.read(con))[-60:]
                ex = console.excerpt(''.join(x + '\n' for x in [detail] + tail))
            w.test(bid, 'boot', status, text, con, ex)
        elif name == 'no kernel report in console log':
            ex = _report_excerpt(con) if status == 'FAIL' and os.path.isfile(con) else ''
            w.test(bid, 'kstacks.no_kernel_report', status, text, con, ex)
        elif name.startswith('kunit suite '):
            suite = name[len('kunit suite '):]
            suite = suite[:-len(' ran')] if suite.endswith(' ran') else suite
            w.test(bid, f'kunit.{lseg(suite)}', 'MISS', text, con)
        elif name == 'kunit parse':
            w.test(bid, 'kunit', 'ERROR', text, os.path.join(d, 'kunit.txt'))
        elif name.startswith('kunit '):
            suite, _, case = name[len('kunit '):].partition('.')
            case = case or suite
            if status == 'FAIL' and detail == 'ERROR':
                status = 'ERROR'
            ex = '' if status == 'PASS' else console.kunit_excerpt(os.path.join(d, 'kunit.log'), suite, case)
            w.test(bid, f'kunit.{lseg(suite)}.{lseg(case)}', status, '', con, ex)
        elif name.startswith('all ') and name.endswith(' guest tests reported'):
            w.test(bid, 'kstacks.guest', 'MISS', console.utf8(f'{name}: {detail}'), con)
        elif name == 'initramfs':
            w.test(bid, 'kstacks.guest', 'ERROR', 'the initramfs with the guest tests did not build')
        elif name.startswith('guest '):
            t = name[len('guest '):]
            ex = '' if status == 'PASS' else console.guest_excerpt(con, t)
            w.test(bid, f'kstacks.guest.{lseg(t)}', status, text, con, ex,
                   _duration(os.path.join(d, 'guest.tsv'), t))
        else:
            w.test(bid, f'kstacks.{lseg(name)}', status, text, con)


# --- benchmarks -----------------------------------------------------------------

def _median(v):
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def add_bench(w, rep):
    try:
        with open(rep, encoding='utf-8') as f:
            r = json.load(f)
        samples, missing, figures = r['samples'], r['missing'], r['figures']
        date = r['date']
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Error(f'cannot read {rep}: {e}') from None
    try:
        _add_bench(w, samples, missing, figures, date)
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise Error(f'cannot read {rep}: a sample, figure or missing entry without its fields'
                    f' ({e.__class__.__name__}: {e})') from None


def _add_bench(w, samples, missing, figures, date):
    m = w.m
    st = stamp(date)
    start = re.sub(r'T([0-9][0-9]:[0-9][0-9])Z$', r'T\1:00Z', date)
    cache = meta.cache_dir()
    for b in sorted({x['base'] for x in samples + missing}):
        if b not in m.bases:
            continue
        # The kernels tools/bench builds (the same stacks).
        stacks = m.bench_stacks(b)
        if not stacks and not m.upstream_bench_stacks(b):
            continue
        set_name = meta.stackset_name(stacks)
        plus = ' + '.join(stacks)
        for kind in ('vanilla', 'patched'):
            if kind == 'vanilla':
                cid = f'{w.origin}:{b}/vanilla@{st}'
                w.checkout(cid, f'bench {b}', b, True, start, '', None, [])
                dir_name, flag = 'vanilla+' + set_name, '--vanilla '
                config = f'lean: tinyconfig + common + lean + Kconfig of {plus} (none of their patches)'
            else:
                cid = f'{w.origin}:{b}/{set_name}@{st}'
                w.checkout(cid, f'bench {b}', b, True, start, '', None, stacks)
                dir_name, flag = set_name, ''
                config = f'lean: tinyconfig + common + lean + {plus}'
            bid = cid + '/lean'
            mine = [x for x in missing if x['base'] == b and x['kernel'] == kind]
            why = next((x['why'] for x in mine if 'kernel does not build' in x['why']), '')
            w.build(bid, f'bench {b}', kind, cid, 'FAIL' if why else 'PASS', config,
                    os.path.join(cache, 'build', f'{b}-lean-{dir_name}'),
                    os.path.join(cache, 'logs', f'build-{b}-lean-{dir_name}.log'),
                    f"tools/build --flavour lean {flag}{b} {' '.join(stacks)}", why)
            # Each figure: its median on this kernel as the number.
            fig = {x['stack'] + '/' + x['figure']: x for x in figures if x['base'] == b}
            groups = collections.defaultdict(list)
            for x in samples:
                if x['base'] == b and x['kernel'] == kind:
                    groups[(x['stack'], x['figure'])].append(x)
            for key in sorted(groups):
                g = groups[key]
                s = g[0]
                f = fig.get(s['stack'] + '/' + s['figure'])
                v = sorted(x['value'] for x in g)
                median = (f['vanilla'] if kind == 'vanilla' else f['patched']) if f else _median(v)
                path = f"kstacks.bench.{seg(s['stack'])}.{seg(s['figure'])}"
                number = {'value': jq_number(median), 'unit': s['unit']}
                if s['unit'] in _METRIC_UNITS:
                    number['prefix'] = 'metric'
                misc = {'min': jq_number(v[0]), 'max': jq_number(v[-1]), 'samples': len(v),
                        'better': s['better']}
                if f:
                    misc['ratio_patched_vanilla'] = jq_number(f['ratio'])
                    misc['significance'] = f['significance']
                w.tests.append({'id': f'{bid}/{path}', 'build_id': bid, 'origin': w.origin,
                                'path': path, 'status': 'DONE',
                                'comment': f"median of {len(v)} rounds, {s['better']} is better,"
                                           f" program {s['program']}",
                                'number': number, 'misc': misc})
            # What went missing on this kernel (a program or the whole guest).
            gone = collections.defaultdict(list)
            for x in mine:
                if 'kernel does not build' not in x['why']:
                    gone[x['what']].append(x['why'])
            for what in sorted(gone):
                path = 'kstacks.bench' if what == '*' else f'kstacks.bench.{seg(what)}'
                w.tests.append({'id': f'{bid}/{path}', 'build_id': bid, 'origin': w.origin,
                                'path': path, 'status': 'MISS' if what == '*' else 'ERROR',
                                'log_excerpt': '\n'.join(gone[what])[:16000]})


# --- suites -------------------------------------------------------------------

_SUITE_STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP'}


def add_suites(w, out):
    """tools/suite's results: out/suite/BASE/KIND/SUITE.tsv, with the run's
    stacks (SUITE.stacks) and start (SUITE.started) beside it.  The suites
    of one run share a checkout and a build."""
    runs = collections.defaultdict(list)
    for tsv in sorted(glob.glob(os.path.join(out, 'suite', '*', '*', '*.tsv')), key=lambda p: p.encode()):
        d = os.path.dirname(tsv)
        kind = os.path.basename(d)
        b = os.path.basename(os.path.dirname(d))
        name = os.path.basename(tsv)[:-len('.tsv')]
        if not results.suite_kind(kind):
            continue
        try:
            with open(os.path.join(d, name + '.stacks'), encoding='utf-8') as f:
                stacks = f.read().split()
            with open(os.path.join(d, name + '.started'), encoding='utf-8') as f:
                start = f.read().strip()
        except OSError:
            print(f'kstacks kcidb: warning: skipping {tsv}: no record of its run (SUITE.stacks, SUITE.started):'
                  ' run tools/suite again', file=sys.stderr)
            continue
        if b not in w.m.bases or not stacks or any(x not in w.m.stacks for x in stacks):
            print(f'kstacks kcidb: warning: skipping {tsv}: base or stack no longer in the workbench',
                  file=sys.stderr)
            continue
        runs[(b, kind, tuple(stacks), start)].append((name, tsv))
    cache = meta.cache_dir()
    for (b, kind, stacks, start), suites in sorted(runs.items()):
        set_name = '+'.join(stacks)
        cid = f'{w.origin}:{b}/{set_name}@{stamp(start)}/suite-{kind}'
        k, flavour, _ = results.suite_kind(kind)
        vanilla = k == 'vanilla'
        bid = f'{cid}/{flavour}'
        group = f'suite {b} {kind} {set_name}'
        w.checkout(cid, group, b, True, start, '', None, [] if vanilla else list(stacks))
        tag = ('vanilla+' if vanilla else '') + set_name
        flag = '--vanilla ' if vanilla else ''
        frags = 'common + debug' if flavour == 'debug' else 'common + lean + latency'
        w.build(bid, group, flavour, cid, 'PASS',
                f"{flavour}: tinyconfig + {frags} + {' + '.join(stacks)} kconfig"
                + (', none of their patches' if vanilla else ''),
                os.path.join(cache, 'build', f'{b}-{flavour}-{tag}'),
                os.path.join(cache, 'logs', f'build-{b}-{flavour}-{tag}.log'),
                f"tools/build --flavour {flavour} {flag}{b} {' '.join(stacks)}")
        for name, tsv in suites:
            con = os.path.join(out, 'suite', b, kind, name + '.console.log')
            for status, test, why in results.read_tsv(tsv):
                w.test(bid, f'kstacks.suite.{seg(name)}.{seg(test)}', _SUITE_STATUS.get(status, 'ERROR'),
                       comment=why, log=con)


# --- line coverage ------------------------------------------------------------

def add_linecov(w, path):
    """tools/linecov's report of a cell (out/linecov/BASE/STACKS/linecov.json):
    its gcov build, and per stack a test kstacks.linecov.STACK whose number
    is the share of the stack's patched lines the tests executed."""
    cell = _cell_dir(w, path)
    if not cell:
        return
    d, b, set_name, stacks, start = cell
    try:
        with open(path, encoding='utf-8') as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        raise Error(f'{path}: unreadable line coverage report ({e})') from None
    cid = f'{w.origin}:{b}/{set_name}@{stamp(start)}/linecov'
    bid = cid + '/gcov'
    group = f'linecov {b} {set_name}'
    w.checkout(cid, group, b, True, start, '', None, stacks)
    cache = meta.cache_dir()
    w.build(bid, group, 'gcov', cid, 'PASS',
            f"gcov: tinyconfig + common + debug + gcov + {' + '.join(stacks)}",
            os.path.join(cache, 'build', f'{b}-gcov-{set_name}'),
            os.path.join(cache, 'logs', f'build-{b}-gcov-{set_name}.log'),
            f"tools/build --flavour gcov {b} {' '.join(stacks)}")
    txt = os.path.join(d, 'linecov.txt')
    for stack in sorted(rep.get('stacks', {})):
        st = rep['stacks'][stack]
        missed = ''.join(f"{x['file']}:{x['line']}: {x['text']}" + (f"  [{x['why']}]" if 'why' in x else '') + '\n'
                         for x in st['missed'])
        w.tests.append({
            'id': f'{bid}/kstacks.linecov.{seg(stack)}', 'build_id': bid, 'origin': w.origin,
            'path': f'kstacks.linecov.{seg(stack)}',
            'status': 'PASS' if st['verdict'] == 'pass' else 'FAIL',
            'comment': f"{st['executed']} of {st['executable']} executable patched lines executed"
                       f" ({len(st['missed'])} not, {st['explained']} of them explained)",
            'number': {'value': jq_number(st['percent']), 'unit': '%'},
            'misc': {'executable': st['executable'], 'executed': st['executed'],
                     'explained': st['explained'], 'not_profiled': st['not_profiled'],
                     'goal_percent': jq_number(rep.get('goal_percent', 95))},
            **({'log_url': url(txt)} if os.path.isfile(txt) else {}),
            **({'log_excerpt': console.excerpt(missed)} if missed else {})})


def run(args):
    out = results.out_dir()
    file = args.file or os.path.join(out, 'kcidb.json')
    origin = os.environ.get('KSTACKS_KCIDB_ORIGIN', 'kstacks')
    if not _ORIGIN.fullmatch(origin):
        raise Error(f"KSTACKS_KCIDB_ORIGIN '{origin}': a KCIDB origin is lowercase letters, digits and _")
    w = Writer(meta.Meta(), origin)
    for res in sorted(glob.glob(os.path.join(out, 'cells', '*', '*', 'results.tsv')),
                      key=lambda p: p.encode()):
        add_cell(w, res)
    rep = os.path.join(out, 'bench', 'report.json')
    if os.path.isfile(rep):
        add_bench(w, rep)
    for lc in sorted(glob.glob(os.path.join(out, 'linecov', '*', '*', 'linecov.json')),
                     key=lambda p: p.encode()):
        add_linecov(w, lc)
    add_suites(w, out)
    text = json.dumps(w.document(), indent=2, ensure_ascii=False) + '\n'
    try:
        os.makedirs(os.path.dirname(os.path.abspath(file)), exist_ok=True)
    except OSError as e:
        raise Error(f'cannot write {file}: {e.strerror}') from None
    meta.write_atomically(file, text)
    print(f'kcidb: {file} ({len(w.checkouts)} checkouts, {len(w.builds)} builds, {len(w.tests)} tests)')
    return 0


def add_parser(sub):
    p = sub.add_parser('kcidb', help='the results in out/ as KCIDB JSON (out/kcidb.json)',
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.add_argument('file', nargs='?', metavar='FILE', help='where to write (default out/kcidb.json)')
    p.set_defaults(func=run)
