# SPDX-License-Identifier: GPL-2.0
"""kstacks junit [KCIDB-FILE [FILE]]: the results in out/ as JUnit XML.

One testsuite for the unit tier (the records of out/check.tsv that are
not a cell's), one per cell of the matrix and one per benchmarked base,
the last two taken from the KCIDB file (kstacks kcidb) so that both files
say the same: a testcase per record, build and test; FAIL is a failure
with its message and log excerpt, ERROR and MISS an error, SKIP skipped;
a benchmark figure passes with its median in system-out.
"""

import collections
import glob
import json
import os
import re

from . import Error, meta, results

_CONTROL = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]')
_UNIT_STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP'}


def xml(value):
    """VALUE as XML attribute or text: characters XML cannot hold dropped."""
    text = _CONTROL.sub('', value if isinstance(value, str) else number(value))
    for a, b in (('&', '&amp;'), ('<', '&lt;'), ('>', '&gt;'), ('"', '&quot;'), ("'", '&apos;')):
        text = text.replace(a, b)
    return text


def number(value):
    """A JSON number as jq prints it: 2.0 is 2, 0.1 is 0.1."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e17:
        return str(int(value))
    return str(value)


def first_line(text):
    return (text or '').split('\n')[0]


def short(ident):
    """A KCIDB id without its origin: kstacks:6.1/core -> 6.1/core."""
    return re.sub(r'^[a-z0-9_]+:', '', ident or '')


def testcase(suite, c):
    message = re.sub(r'^\s+', '', c.get('message') or '')
    s = f'    <testcase classname="{xml(suite)}" name="{xml(c["name"])}"'
    if c.get('time') is not None:
        s += f' time="{number(c["time"])}"'
    s += '>'
    status = c['status']
    if status == 'FAIL':
        s += f'<failure message="{xml(message)}" type="FAIL">{xml(c.get("body") or "")}</failure>'
    elif status in ('ERROR', 'MISS'):
        s += f'<error message="{xml(message)}" type="{status}">{xml(c.get("body") or "")}</error>'
    elif status == 'SKIP':
        s += f'<skipped message="{xml(message)}"/>'
    if c.get('out'):
        s += f'<system-out>{xml(c["out"])}</system-out>'
    return s + '</testcase>'


def counts(cases):
    st = [c['status'] for c in cases]
    return (len(st), st.count('FAIL'), st.count('ERROR') + st.count('MISS'), st.count('SKIP'))


def testsuite(name, cases):
    n, f, e, k = counts(cases)
    yield (f'  <testsuite name="{xml(name)}" tests="{n}" failures="{f}" errors="{e}"'
           f' skipped="{k}">')
    for c in cases:
        yield testcase(name, c)
    yield '  </testsuite>'


def unit_cases(out):
    """check.tsv without the records of the cells' results (as a multiset)."""
    check = os.path.join(out, 'check.tsv')
    if not os.path.isfile(check):
        return []
    cell = collections.Counter()
    for r in glob.glob(os.path.join(out, 'cells', '*', '*', 'results.tsv')):
        with open(r, encoding='utf-8', errors='replace') as f:
            cell.update(f.read().splitlines())
    cases = []
    with open(check, encoding='utf-8', errors='replace') as f:
        for line in f.read().splitlines():
            if cell[line] > 0:
                cell[line] -= 1
                continue
            if not line:
                continue
            fields = line.split('\t')
            why = fields[2] if len(fields) > 2 else ''
            cases.append({'name': fields[1] if len(fields) > 1 else '',
                          'status': _UNIT_STATUS.get(fields[0], 'ERROR'),
                          'message': why, 'body': why})
    return cases


def kcidb_cases(k):
    """(group, case) of each checkout that did not apply, build and test."""
    misc = {b.get('id'): b.get('misc') or {} for b in k.get('builds') or []}
    for c in k.get('checkouts') or []:
        if c.get('valid') is False:
            yield (c.get('misc') or {}).get('group'), {
                'name': 'apply ' + short(c.get('id')), 'status': 'FAIL',
                'message': first_line(c.get('log_excerpt')), 'body': c.get('log_excerpt') or ''}
    for b in k.get('builds') or []:
        bm = b.get('misc') or {}
        yield bm.get('group'), {
            'name': 'build ' + (bm.get('label') or short(b.get('id'))),
            'status': b.get('status') or 'PASS',
            'message': first_line(b.get('log_excerpt')), 'body': b.get('log_excerpt') or '',
            'out': b.get('config_name') or ''}
    for t in k.get('tests') or []:
        bm = misc.get(t.get('build_id')) or {}
        lines = [x for x in (t.get('log_excerpt') or '').split('\n') if x]
        out = ''
        num = t.get('number')
        if num:
            out = f"{number(num.get('value'))} {num.get('unit') or ''}"
            tm = t.get('misc') or {}
            if tm.get('min') is not None:
                out += (f" (median of {number(tm.get('samples'))}; min {number(tm['min'])},"
                        f" max {number(tm.get('max'))})")
        yield bm.get('group'), {
            'name': (bm.get('label') or short(t.get('build_id'))) + ': ' + (t.get('path') or ''),
            'status': t.get('status') or 'PASS', 'time': t.get('duration'),
            'message': t.get('comment') or (lines[0] if lines else ''),
            'body': t.get('log_excerpt') or '', 'out': out}


def document(out, k):
    """The JUnit document's lines."""
    unit = unit_cases(out)
    groups = collections.defaultdict(list)
    for g, c in kcidb_cases(k):
        groups[g].append(c)
    every = unit + [c for cs in groups.values() for c in cs]
    n, f, e, s = counts(every)
    yield '<?xml version="1.0" encoding="UTF-8"?>'
    yield f'<testsuites name="kstacks" tests="{n}" failures="{f}" errors="{e}" skipped="{s}">'
    if unit:
        yield from testsuite('unit tier', unit)
    for g in sorted(groups, key=lambda g: (g is not None, str(g))):
        yield from testsuite(g if g is not None else 'null', groups[g])
    yield '</testsuites>'


def run(args):
    out = results.out_dir()
    kfile = args.kcidb or os.path.join(out, 'kcidb.json')
    file = args.file or os.path.join(out, 'junit.xml')
    try:
        with open(kfile, encoding='utf-8') as f:
            k = json.load(f)
    except FileNotFoundError:
        raise Error(f'no KCIDB file {kfile} (kstacks kcidb writes it)') from None
    except (ValueError, OSError) as e:
        raise Error(f'{kfile} is not a KCIDB file: {e}') from None
    if not isinstance(k, dict):
        raise Error(f'{kfile} is not a KCIDB file: not a JSON object')
    for key in ('checkouts', 'builds', 'tests'):
        if not isinstance(k.get(key) or [], list) or not all(isinstance(x, dict) for x in k.get(key) or []):
            raise Error(f'{kfile} is not a KCIDB file: {key} is not a list of objects')
    try:
        text = '\n'.join(document(out, k)) + '\n'
    except (AttributeError, TypeError, ValueError) as e:
        raise Error(f'{kfile} is not a KCIDB file this tool reads ({e.__class__.__name__}: {e})') from None
    try:
        os.makedirs(os.path.dirname(os.path.abspath(file)), exist_ok=True)
    except OSError as e:
        raise Error(f'cannot write {file}: {e.strerror}') from None
    meta.write_atomically(file, text)
    n = sum(1 for line in text.split('\n') if '<testcase ' in line)
    print(f'junit: {file} ({n} testcases)')
    return 0


def add_parser(sub):
    p = sub.add_parser('junit', help='the results in out/ as JUnit XML (out/junit.xml)',
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.add_argument('kcidb', nargs='?', metavar='KCIDB-FILE',
                   help='the KCIDB file (default out/kcidb.json)')
    p.add_argument('file', nargs='?', metavar='FILE', help='where to write (default out/junit.xml)')
    p.set_defaults(func=run)
