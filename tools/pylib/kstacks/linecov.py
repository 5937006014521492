# SPDX-License-Identifier: GPL-2.0
"""kstacks linecov: which lines of a cell's patches its tests execute.

tools/linecov boots a cell's tests under the gcov flavour of its debug
kernel (counters in the objects of the patched C files); each guest prints
its gcov data files on the console (tools/guest/init, kstacks.gcov=1).
This command takes those console logs, the build directory and the
applied tree, and reports, per stack, the executable lines its patches
add or change, how many the tests execute, and every line they do not.

A line belongs to the stack whose patch last wrote it: each patch's own
diff (quilt diff -P, the tree as it was before it and after it) moves a
label per line of every file it touches from the original file to the
final one.  A patched line is executable when gcov has a count for it;
lines of a file no profiled object includes (a header only other objects
use) are "not profiled", and the report says how many.  Branches are
counted too, for information: the branches of the patched lines, how many
were taken, and each line run with a branch never taken (a loop's early
"break" is counted on the line of its condition).

STACK/linecov/BASE, if present, explains lines the tests cannot reach:
one "FILE<TAB>TEXT<TAB>WHY" line each, TEXT the line's source with its
indentation stripped (line numbers move with every patch; the text of a
line says which it is).  An explained line still counts as not executed;
the report shows the reason beside it, and one an explanation no longer
matches is a failure (stale).
"""

import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from . import REPO, Error

GOAL = 95.0
# the files whose patched lines can be executed
SOURCES = ('.c', '.h', '.S')

_TEST_FILE = re.compile(r'(^|/)(tests?/|test_[^/]*\.c$|[^/]*(_kunit|_test|-test)\.c$|kunit[^/]*\.c$)')
_B64 = re.compile(r'[A-Za-z0-9+/=]+')
_HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


# --- gcov data out of the console logs ------------------------------------

def extract(log, build, dest):
    """Write the gcda files of console LOG under DEST (paths relative to
    the build directory BUILD); returns their relative paths."""
    build = os.path.realpath(build)
    files = []
    cur = None
    ended = False
    with open(log, 'rb') as f:
        text = f.read().decode('utf-8', 'replace')
    for raw in text.split('\n'):
        line = raw.rstrip('\r')
        if line.startswith('kstacks-gcov-file '):
            if cur:
                files.append(_write(cur, build, dest, log))
            parts = line.split()
            if len(parts) != 3:
                raise Error(f'{log}: malformed gcov file line: {line[:80]}')
            cur = {'path': parts[1], 'sum': parts[2], 'b64': []}
        elif line.startswith('kstacks-gcov-end'):
            if cur:
                files.append(_write(cur, build, dest, log))
            cur = None
            ended = True
            break
        elif cur is not None and _B64.fullmatch(line.strip()):
            cur['b64'].append(line.strip())
        # anything else between the markers is a kernel message that came
        # through (the console is the kernel's as well as init's): a line
        # of base64 it split is caught by the file's sum
    if not ended:
        raise Error(f'{log}: no gcov data (was the guest booted with kstacks.gcov=1, '
                    'and did it finish its tests?)')
    if not files:
        raise Error(f'{log}: the guest found no gcov data file: is the kernel a gcov build?')
    return files


def _write(cur, build, dest, log):
    try:
        data = base64.b64decode(''.join(cur['b64']), validate=True)
    except ValueError as e:
        raise Error(f'{log}: gcov data of {cur["path"]} is not base64 ({e})') from None
    if hashlib.md5(data).hexdigest() != cur['sum']:
        raise Error(f'{log}: gcov data of {cur["path"]} damaged on the console (sum differs)')
    path = cur['path']
    rel = os.path.normpath(path[len(build) + 1:]) if path.startswith(build + '/') else ''
    if not rel.endswith('.gcda') or rel.startswith('..') or os.path.isabs(rel):
        raise Error(f'{log}: gcov data of {path}, not a .gcda file of the build directory {build}')
    try:
        raw = gzip.decompress(data)
    except (OSError, EOFError) as e:
        raise Error(f'{log}: gcov data of {path} is not gzip ({e})') from None
    out = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, 'wb') as f:
        f.write(raw)
    return rel


def gcov_counts(build, src, gcda_root, rels, counts, branches=None):
    """Add the line counts of the gcda files RELS (under GCDA_ROOT, each
    with its gcno from BUILD) to COUNTS: {src-relative file: {line: n}},
    and their branches' to BRANCHES: {file: {line: {branch: n}}}, a branch
    named by its object, the line's place among that object's entries for
    the line, and its own place on the line."""
    src = os.path.realpath(src)
    for rel in rels:
        gcda = os.path.join(gcda_root, rel)
        gcno = os.path.join(build, rel[:-len('.gcda')] + '.gcno')
        if not os.path.exists(gcno):
            raise Error(f'no {gcno}: the build directory is not the one the guest ran')
        shutil.copyfile(gcno, gcda[:-len('.gcda')] + '.gcno')
        r = subprocess.run(['gcov', '--branch-probabilities', '--json-format', '--stdout', gcda], cwd=os.path.dirname(gcda),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise Error(f'gcov failed on {rel}: {r.stderr.strip().splitlines()[-1:]}')
        for doc in _json_docs(r.stdout):
            cwd = doc.get('current_working_directory', build)
            for f in doc.get('files', []):
                path = os.path.realpath(os.path.join(cwd, f['file']))
                if not path.startswith(src + '/'):
                    continue
                lines = counts.setdefault(path[len(src) + 1:], {})
                brs = {} if branches is None else branches.setdefault(path[len(src) + 1:], {})
                seen = {}
                for ln in f.get('lines', []):
                    n = ln['line_number']
                    lines[n] = lines.get(n, 0) + ln['count']
                    k = seen[n] = seen.get(n, -1) + 1
                    for i, br in enumerate(ln.get('branches', [])):
                        key = (rel, k, i)
                        line_brs = brs.setdefault(n, {})
                        line_brs[key] = line_brs.get(key, 0) + br['count']


def _json_docs(text):
    dec = json.JSONDecoder()
    i = 0
    text = text.strip()
    while i < len(text):
        doc, j = dec.raw_decode(text, i)
        yield doc
        i = j
        while i < len(text) and text[i].isspace():
            i += 1


# --- which stack wrote which line -----------------------------------------

def parse_u0(diff):
    """A -U0 unified diff: {file: [(old_start, old_len, new_start, new_len)]},
    None for a file it deletes (or the old name of one it renames)."""
    out = {}
    cur = None
    old = None
    left = 0  # lines of the current hunk still to come: its content
    for line in diff.splitlines():
        if left > 0:
            left -= 1
            continue
        if line.startswith('--- '):
            old = line[4:].split('\t')[0]
        elif line.startswith('+++ '):
            name = line[4:].split('\t')[0]
            if name == '/dev/null':
                out[_strip_ab(old or '', 'a/')] = None
                cur = None
            else:
                cur = out.setdefault(_strip_ab(name, 'b/'), [])
        elif line.startswith('@@'):
            m = _HUNK.match(line)
            if not m:
                raise Error(f'unreadable hunk header: {line}')
            a, b, c, d = m.groups()
            b = 1 if b is None else int(b)
            d = 1 if d is None else int(d)
            left = b + d
            if cur is not None:
                cur.append((int(a), b, int(c), d))
    return out


def _strip_ab(name, prefix):
    return name[len(prefix):] if name.startswith(prefix) else name


def apply_labels(labels, hunks, label):
    """Move LABELS (one per line of a file) through one patch's HUNKS: the
    lines it writes take LABEL."""
    for a, b, _c, d in sorted(hunks, reverse=True):
        start = a - 1 if b > 0 else a
        if start + b > len(labels):
            raise Error(f'a hunk past the end of the file ({a},{b}: {len(labels)} lines)')
        labels[start:start + b] = [label] * d
    return labels


def patched_lines(src):
    """{file: {line: (stack, patch)}}: the lines of the applied tree SRC
    that its series' patches wrote, each with the last patch that did."""
    env = dict(os.environ, QUILT_PATCHES='kstacks-patches', QUILT_PC='.pc')
    series = os.path.join(src, 'kstacks-patches', 'series')
    try:
        with open(series) as f:
            names = [ln.split()[0] for ln in f if ln.strip() and not ln.startswith('#')]
    except OSError:
        raise Error(f'{src} has no kstacks series: not a tree tools/apply laid out') from None
    labels = {}
    for name in names:
        r = subprocess.run(['quilt', '--quiltrc=-', 'diff', '-p', 'ab', '-U', '0', '--no-index', '-P', name],
                           cwd=src, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise Error(f'quilt diff -P {name} failed in {src}: {r.stderr.strip()[:200]}')
        stack = name.split('/')[0] if '/' in name else ''
        for path, hunks in parse_u0(r.stdout).items():
            if hunks is None:
                labels[path] = []
                continue
            if path not in labels:
                orig = os.path.join(src, '.pc', name, path)
                n = 0
                if os.path.exists(orig):
                    with open(orig, 'rb') as f:
                        n = f.read().count(b'\n')
                labels[path] = [None] * n
            apply_labels(labels[path], hunks, (stack, os.path.basename(name)))
    out = {}
    for path, lab in labels.items():
        final = os.path.join(src, path)
        n = 0
        if os.path.exists(final):
            with open(final, 'rb') as f:
                n = f.read().count(b'\n')
        if n != len(lab):
            raise Error(f'{path}: {len(lab)} lines followed through the patches, {n} in the tree')
        out[path] = {i + 1: v for i, v in enumerate(lab) if v is not None}
    return out


# --- the report -------------------------------------------------------------

def explanations(stack, base, repo=REPO):
    """STACK/linecov/BASE: [(file, text, why)].  TEXT is what lies between
    the first and the last tab (a line of code may hold tabs), "*" for a
    patched C file with no coverage data at all."""
    path = os.path.join(repo, stack, 'linecov', base)
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            first, last = line.find('\t'), line.rfind('\t')
            parts = (line[:first], line[first + 1:last], line[last + 1:])
            if first < 0 or first == last or not all(p.strip() for p in parts):
                raise Error(f'{stack}/linecov/{base}:{n}: not FILE<TAB>TEXT<TAB>WHY')
            out.append(parts)
    return out


def _same(a, b):
    return ' '.join(a.split()) == ' '.join(b.split())


def is_test_file(path):
    """A KUnit suite or other test code a patch adds: its lines say what
    the tests ran of themselves, not of the code under test."""
    return bool(_TEST_FILE.search(path))


def report(src, build, base, logs, repo=REPO):
    """The report of a cell: {stack: {...}}."""
    counts = {}
    branches = {}
    with tempfile.TemporaryDirectory() as gcda_root:
        for i, log in enumerate(logs):
            dest = os.path.join(gcda_root, str(i))
            rels = extract(log, build, dest)
            gcov_counts(build, src, dest, rels, counts, branches)
    patched = patched_lines(src)
    sources = {}

    def text(path, n):
        if path not in sources:
            with open(os.path.join(src, path), errors='replace') as f:
                sources[path] = f.read().split('\n')
        return sources[path][n - 1].strip()

    stacks = {}
    for path in sorted(patched):
        if not path.endswith(SOURCES):
            continue  # Kconfig, Makefile, MAINTAINERS: nothing to run
        cov = counts.get(path)
        test = is_test_file(path)
        for n, (stack, patch) in sorted(patched[path].items()):
            st = stacks.setdefault(stack, {'executable': 0, 'executed': 0, 'missed': [],
                                           'not_profiled': 0, 'not_profiled_files': [],
                                           'no_data_files': [],
                                           'test_executable': 0, 'test_executed': 0,
                                           'branches': 0, 'branches_taken': 0, 'untaken': []})
            if cov is None:
                # a header no profiled object compiled code of, or a C
                # file with no data at all (not built, a module never
                # loaded): the latter fails the stack unless explained
                st['not_profiled'] += 1
                key = 'no_data_files' if path.endswith('.c') else 'not_profiled_files'
                if path not in st[key]:
                    st[key].append(path)
                continue
            if n not in cov:
                continue
            if test:
                st['test_executable'] += 1
                st['test_executed'] += cov[n] > 0
                continue
            st['executable'] += 1
            if cov[n] > 0:
                st['executed'] += 1
            else:
                st['missed'].append({'file': path, 'line': n, 'patch': patch, 'text': text(path, n)})
            brs = branches.get(path, {}).get(n, {})
            taken = sum(1 for v in brs.values() if v > 0)
            st['branches'] += len(brs)
            st['branches_taken'] += taken
            # a line run whose branches were not all taken: a path the
            # line count alone does not show (the "break" of a loop
            # condition gcov counts on the line before)
            if cov[n] > 0 and taken < len(brs):
                st['untaken'].append({'file': path, 'line': n, 'patch': patch, 'text': text(path, n),
                                      'taken': taken, 'branches': len(brs)})
    for stack, st in stacks.items():
        share = 100.0 * st['executed'] / st['executable'] if st['executable'] else 100.0
        st['percent'] = round(share, 1)
        expl = explanations(stack, base, repo)
        used = set()
        # one entry explains one line
        for m in st['missed']:
            for i, (f, t, why) in enumerate(expl):
                if i not in used and f == m['file'] and _same(t, m['text']):
                    m['why'] = why
                    used.add(i)
                    break
        no_data = []
        for path in st['no_data_files']:
            for i, (f, t, why) in enumerate(expl):
                if i not in used and f == path and t.strip() == '*':
                    used.add(i)
                    break
            else:
                no_data.append(path)
        st['no_data_unexplained'] = no_data
        st['stale'] = [{'file': f, 'text': t} for i, (f, t, _w) in enumerate(expl) if i not in used]
        st['explained'] = sum(1 for m in st['missed'] if 'why' in m)
        st['verdict'] = ('pass' if not st['stale'] and not no_data and
                         (share >= GOAL or st['explained'] == len(st['missed'])) else 'fail')
    return stacks


def write(base, stacks, out_dir):
    """linecov.json, linecov.txt and linecov.tsv in OUT_DIR."""
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.NamedTemporaryFile('w', dir=out_dir, delete=False)
    with tmp:
        json.dump({'base': base, 'goal_percent': GOAL, 'stacks': stacks}, tmp, indent=1, sort_keys=True)
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, os.path.join(out_dir, 'linecov.json'))
    with open(os.path.join(out_dir, 'linecov.txt'), 'w') as f:
        for line in text_report(base, stacks):
            f.write(line + '\n')
    with open(os.path.join(out_dir, 'linecov.tsv'), 'w') as f:
        for stack in sorted(stacks):
            f.write(f"{stacks[stack]['verdict']}\tlinecov {base} {stack}\t"
                    f"{summary_line(stack, stacks[stack])}\n")


def summary_line(stack, st):
    s = (f"{stack}: {st['executed']} of {st['executable']} patched lines executed "
         f"({st['percent']}%)")
    if st['missed']:
        s += f", {len(st['missed'])} not ({st['explained']} explained)"
    if st['branches']:
        s += f", {st['branches_taken']} of {st['branches']} branches taken"
    if st['test_executable']:
        s += f", test code {st['test_executed']} of {st['test_executable']} apart"
    if st['not_profiled']:
        s += f", {st['not_profiled']} in files no profiled object compiles"
    if st['stale']:
        s += f", {len(st['stale'])} stale explanations"
    return s


def text_report(base, stacks):
    out = []
    for stack in sorted(stacks):
        st = stacks[stack]
        out.append(f'{base} {summary_line(stack, st)}')
        for m in st['missed']:
            why = f"  [{m['why']}]" if 'why' in m else ''
            out.append(f"  {m['file']}:{m['line']}: {m['text']}{why}")
        for u in st['untaken']:
            out.append(f"  branch: {u['file']}:{u['line']}: {u['taken']} of {u['branches']} taken: {u['text']}")
        for s in st['stale']:
            out.append(f"  stale: {s['file']}: {s['text']} (in {stack}/linecov/{base}, matches no missed line)")
        if st['not_profiled_files']:
            out.append(f"  not profiled: {', '.join(st['not_profiled_files'])}")
        for path in st.get('no_data_unexplained', []):
            out.append(f"  no coverage data: {path} (not built in this config, or a module never loaded)")
    return out


def cmd_check(args):
    for stack in args.stack:
        explanations(stack, args.base)
    return 0


def cmd_linecov(args):
    for p in [args.src, args.build]:
        if not os.path.isdir(p):
            raise Error(f'no such directory: {p}')
    for log in args.console:
        if not os.path.isfile(log):
            raise Error(f'no such console log: {log}')
    stacks = report(args.src, args.build, args.base, args.console)
    write(args.base, stacks, args.out)
    for line in text_report(args.base, stacks):
        print(line)
    return 0 if all(st['verdict'] == 'pass' for st in stacks.values()) else 1


def add_parser(sub):
    s = sub.add_parser('linecov', help="the lines of a cell's patches its tests execute (gcov)")
    s.add_argument('--src', required=True, help='the applied tree (tools/apply)')
    s.add_argument('--build', required=True, help='the gcov build directory (tools/build --flavour gcov)')
    s.add_argument('--base', required=True)
    s.add_argument('--out', required=True, help='where linecov.json, .txt and .tsv go')
    s.add_argument('console', nargs='+', help='console logs of gcov boots (kstacks.gcov=1)')
    s.set_defaults(func=cmd_linecov)
    c = sub.add_parser('linecov-check', help='STACK/linecov/BASE of each stack well-formed (before the boots)')
    c.add_argument('base')
    c.add_argument('stack', nargs='+')
    c.set_defaults(func=cmd_check)
