# SPDX-License-Identifier: GPL-2.0
"""kstacks summary: the cells of the last run, one row per stack and base.

Applied, built, booted, the tests passed/failed/skipped, the benchmark
ratio and the share of the stack's patched lines its tests execute (the
newest tools/linecov report that has it), printed as a table and written as JSON to out/summary.json; then
the suites (tools/suite: the subsystems' own, the torture tools) per base,
vanilla against patched; then the upstream post-merge fixes each stack
lists (STACK/upstream.tsv): how many affect the stack and whether it
handles them.
"""

import json
import os
import re

from . import Error, meta, results

COLUMNS = '%-18s %-5s %-9s %-6s %-6s %-18s %-8s %s'


def state(m, stack, base):
    """What an uncarried pair is: upstream, later, pending or '-'."""
    st = '-'
    for key, name in (('UPSTREAM', 'upstream'), ('LATER', 'later'), ('PENDING', 'pending')):
        if base in m.get('stack', stack, key).split():
            st = name
    return st


def cell_row(m, out, stack, base):
    """The carried pair's row from its newest cell and benchmark."""
    row = {'stack': stack, 'base': base, 'state': 'carried', 'applied': '-', 'built': '-',
           'booted': '-', 'passed': 0, 'failed': 0, 'skipped': 0, 'bench': '-', 'lines': '-'}
    res = results.newest_cell(out, base, stack)
    if res:
        recs = results.read_tsv(res)

        def first(prefix):
            for status, name, _ in recs:
                if re.fullmatch(r'[a-z]+', status) and name.startswith(prefix):
                    return status
            return '-'

        row['applied'] = first('apply')
        row['built'] = first('build debug kernel')
        row['booted'] = first('boot')
        prefixes = [f'guest {stack}-', 'no kernel report']
        for u in m.get('stack', stack, 'KUNIT_SUITES').split():
            prefixes += [f'kunit {u}.', f'kunit suite {u} ']
        for status, name, _ in recs:
            if name.startswith(tuple(prefixes)):
                key = {'pass': 'passed', 'fail': 'failed', 'skip': 'skipped'}.get(status)
                if key:
                    row[key] += 1
    lc = newest_linecov(out, base, stack)
    if lc:
        row['lines'] = f"{lc['percent']}%"
        row['lines_executed'] = lc['executed']
        row['lines_executable'] = lc['executable']
    mine = m.get('stack', stack, 'SUITES').split()
    suites = {k: v for k, v in suite_results(out, base).items() if k.split(' ')[0] in mine}
    if suites:
        row['suites'] = suites
    ratio = os.path.join(out, 'bench', base, stack + '.ratio')
    if os.path.isfile(ratio):
        with open(ratio, encoding='utf-8') as f:
            row['bench'] = f.read().strip()
    return row


def suite_results(out, base):
    """{SUITE: {KIND: (passed, failed, skipped), 'regressions': [TEST...]}}
    of tools/suite's records of BASE (out/suite/BASE/KIND/SUITE.tsv; those
    of the latency flavour or an instruction-counted guest, KIND-latency,
    KIND-icount, as "SUITE (latency)", "SUITE (icount)"); a regression
    passes on vanilla and fails patched."""
    found = {}
    recs = {}
    top = os.path.join(out, 'suite', base)
    for dk in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        sk = results.suite_kind(dk)
        d = os.path.join(top, dk)
        if not sk or not os.path.isdir(d):
            continue
        kind, flavour, icount = sk
        how = ', '.join(x for x in (flavour if flavour != 'debug' else '', 'icount' if icount else '') if x)
        for f in sorted(os.listdir(d)):
            if not f.endswith('.tsv'):
                continue
            name = f[:-len('.tsv')] + (f' ({how})' if how else '')
            rows = results.read_tsv(os.path.join(d, f))
            recs[(name, kind)] = {n: st for st, n, _ in rows}
            found.setdefault(name, {})[kind] = tuple(sum(1 for st, _, _ in rows if st == k)
                                                     for k in ('pass', 'fail', 'skip'))
    for name, entry in found.items():
        v = recs.get((name, 'vanilla'), {})
        p = recs.get((name, 'patched'), {})
        entry['regressions'] = sorted(n for n in p if p[n] == 'fail' and v.get(n) == 'pass')
    return found


def suites_lines(m, out):
    """One line per base and suite: vanilla and patched counts."""
    lines = []
    for b in m.bases:
        for name, e in sorted(suite_results(out, b).items()):
            def pfs(kind):
                return '%d/%d/%d' % e[kind] if kind in e else 'not run'
            reg = ', '.join(e['regressions'])
            verdict = ('' if 'vanilla' not in e or 'patched' not in e
                       else f'; regressions: {reg}' if reg else '; no regression')
            lines.append(f'{b:<8} {name:<18} vanilla {pfs("vanilla"):<8} patched {pfs("patched"):<8}{verdict}')
    return lines


def newest_linecov(out, base, stack):
    """The stack's entry in the newest line coverage report (tools/linecov)
    of a cell of BASE that holds it, or None."""
    path = results.newest_cell(out, base, stack, 'linecov', 'linecov.json')
    if not path:
        return None
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)['stacks'].get(stack)
    except (OSError, ValueError, KeyError, AttributeError):
        raise Error(f'{path}: unreadable line coverage report') from None


def fix_counts(m, stack):
    """(N, A, H): the fixes STACK/upstream.tsv lists, how many affect the
    stack, how many of those it handles."""
    n = a = h = 0
    for fields in m.upstream_rows(stack, 'fix'):
        n += 1
        if len(fields) > 6 and fields[6].startswith('yes'):
            a += 1
            if 'open' not in fields[6]:
                h += 1
    return n, a, h


def fixes_line(m):
    parts = []
    for s in m.stacks:
        n, a, h = fix_counts(m, s)
        if n == 0:
            parts.append(f'{s} 0')
        elif a == 0:
            parts.append(f'{s} {n} (none affects the stack)')
        else:
            verb = 'affects' if a == 1 else 'affect'
            if a == h:
                parts.append(f'{s} {n} ({a} {verb} the stack, handled)')
            else:
                parts.append(f'{s} {n} ({a} {verb} the stack: {h} handled, {a - h} open)')
    return 'upstream fixes listed: ' + ', '.join(parts)


def rows(m, out):
    for s in m.stacks:
        for b in m.bases:
            if m.supports(s, b):
                yield cell_row(m, out, s, b)
            else:
                yield {'stack': s, 'base': b, 'state': state(m, s, b)}


def run(args):
    m = meta.Meta()
    out = results.out_dir()
    table = list(rows(m, out))
    print(COLUMNS % ('stack', 'base', 'applied', 'built', 'booted', 'tests p/f/s', 'bench', 'lines'))
    for r in table:
        if r['state'] != 'carried':
            print(f"{r['stack']:<18} {r['base']:<5} {r['state']}")
        else:
            print(COLUMNS % (r['stack'], r['base'], r['applied'], r['built'], r['booted'],
                             f"{r['passed']}/{r['failed']}/{r['skipped']}", r['bench'], r['lines']))
    path = os.path.join(out, 'summary.json')
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise Error(f'cannot write {path}: {e.strerror}') from None
    meta.write_atomically(path, json.dumps(table, indent=2) + '\n')
    print(f'summary: {path}')
    su = suites_lines(m, out)
    if su:
        print('suites (tools/suite), passed/failed/skipped:')
        for line in su:
            print('  ' + line)
    print(fixes_line(m))
    return 0


def add_parser(sub):
    p = sub.add_parser('summary', help='the summary table of the last run (out/summary.json)',
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.set_defaults(func=run)
