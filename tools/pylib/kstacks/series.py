# SPDX-License-Identifier: GPL-2.0
"""kstacks series: what a generated series says, computed.

tools/series is the glue around git and b4 (a git tree of the base, the
patches applied as the sender, b4 prep and b4 send); what the mails say
is computed here: the cover letter (cover), the subject a dependent
series names (title), b4's record of the series' earlier versions
(tracking), whether a new series differs from the stored one in more
than what b4 makes anew (same), and whether one maintainer takes every
patch (one-maintainer).
"""

import glob
import json
import os
import re
import sys

from . import Error, meta, recipients, results

# The header lines b4 makes anew on every run.
VOLATILE = re.compile(r'(Date|Message-Id|In-Reply-To|References|X-Mailer|X-B4-Tracking):')
CHANGE_ID = re.compile(r'change-id: ([0-9]{8}-[A-Za-z0-9_-]*-[0-9a-f]{12})$')


def read(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read()


def fold(line, width):
    """A line folded as GNU fold -s -w WIDTH folds it: by columns of bytes
    (a tab to the next multiple of 8), at the last blank that keeps a line
    within WIDTH, the blank kept; at WIDTH where there is none."""
    def adjust(col, c):
        if c == 9:
            return col + 8 - col % 8
        if c == 8:
            return max(col - 1, 0)
        if c == 13:
            return 0
        return col + 1

    data = line.encode('utf-8', 'surrogateescape')
    out, buf, col, i = [], bytearray(), 0, 0
    while i < len(data):
        c = data[i]
        ncol = adjust(col, c)
        if ncol > width:
            j = max(buf.rfind(b' '), buf.rfind(b'\t'))
            if j >= 0:
                out.append(bytes(buf[:j + 1]))
                buf = buf[j + 1:]
                col = 0
                for x in buf:
                    col = adjust(col, x)
                continue
            if buf:
                out.append(bytes(buf))
                buf, col = bytearray(), 0
                continue
        buf.append(c)
        col = ncol
        i += 1
    out.append(bytes(buf))
    return [x.decode('utf-8', 'surrogateescape') for x in out]


def wrap(text, first, nxt=None):
    """TEXT's lines folded at 72 columns: the first output line indented
    by FIRST, the lines after it by NXT (FIRST when not given)."""
    nxt = first if nxt is None else nxt
    out = []
    for line in text.split('\n'):
        for part in fold(line, 72 - len(nxt)):
            out.append((first if not out else nxt) + part.rstrip(' '))
    return out


def header_field(path, want):
    """The value of a header field of a patch file (recipients.header)."""
    return recipients.header(read(path), want)


def subject(path):
    """The subject of a stored patch, without its [PATCH]."""
    for line in read(path).split('\n'):
        if line.startswith('Subject: [PATCH] '):
            return line[len('Subject: [PATCH] '):]
    return ''


def tree_kernel_version(tree):
    """VERSION.PATCHLEVEL.SUBLEVEL of a kernel tree's Makefile."""
    v = {}
    try:
        text = read(os.path.join(tree, 'Makefile'))
    except OSError:
        return ''
    for line in text.split('\n'):
        for key in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL'):
            if line.startswith(key + ' ='):
                words = line.split()
                v[key] = words[2] if len(words) > 2 else ''
    if not v.get('VERSION'):
        return ''
    return f"{v['VERSION']}.{v.get('PATCHLEVEL', '')}.{v.get('SUBLEVEL', '')}"


def upstream_version(debian_version):
    """The upstream release of a Debian version: 6.1.192-3 -> 6.1.192."""
    return debian_version.split(':', 1)[-1].split('-', 1)[0]


def mail_stable(path):
    """A generated mail without what b4 makes anew on every run: the
    volatile header lines (with their continuations), the index lines of
    the diffs, the change-id."""
    out, hdr, skip = [], True, False
    for line in lines_of(path):
        if hdr and not line.split():
            hdr = False
        elif hdr:
            if line[:1] in (' ', '\t'):
                if not skip:
                    out.append(line)
                continue
            skip = bool(VOLATILE.match(line))
            if not skip:
                out.append(line)
            continue
        if re.match(r'index [0-9a-f]+\.\.[0-9a-f]+', line) or line.startswith('change-id: '):
            continue
        out.append(line)
    return out


def commit_subjects(path):
    """The lines of a series' .commits without their commit ids (as
    cut -d' ' -f2- gives them)."""
    return [line.split(' ', 1)[1] if ' ' in line else line for line in lines_of(path)]


def lines_of(path):
    """The lines of a file, as a line-reading tool sees them."""
    lines = read(path).split('\n')
    if lines[-1] == '':
        lines.pop()
    return lines


def same(a, b):
    """Two generated series are the same but for what mail_stable leaves
    out and the commit ids of .commits."""
    if sorted(os.listdir(a)) != sorted(os.listdir(b)):
        return False
    mails = sorted(glob.glob(os.path.join(a, '*.eml')))
    if not mails:
        return False
    for f in mails:
        if mail_stable(f) != mail_stable(os.path.join(b, os.path.basename(f))):
            return False
    try:
        if read(os.path.join(a, '.source')) != read(os.path.join(b, '.source')):
            return False
        return commit_subjects(os.path.join(a, '.commits')) == commit_subjects(os.path.join(b, '.commits'))
    except OSError:
        return False


def one_maintainer(rows):
    """The maintainers of a series' patches (one 'PATCH<TAB>M1, M2' row per
    patch, as kstacks recipients maintainers gives them): None when one
    maintainer takes every patch (or the patches name only one set), else
    the sets, sorted."""
    sets = [r.split('\t')[1] for r in rows if len(r.split('\t')) > 1 and r.split('\t')[1]]
    mixed = sorted(set(sets))
    if len(mixed) <= 1:
        return None
    common = set.intersection(*(set(s.split(', ')) for s in sets))
    return None if common else mixed


class Series:
    def __init__(self, m, stack, base):
        self.m = m
        self.s = stack
        self.b = base
        m.get('stack', stack, 'VERSION')
        m.get('base', base, 'PACKAGE')
        if not m.patches(stack, base):
            raise Error(f'{stack} has no series on {base}')
        self.root = m.repo.root
        self.dir = os.path.join(self.root, 'series', stack, base)

    def var(self, key, stack=None):
        return self.m.get('stack', stack or self.s, key)

    def mainline(self):
        return self.m.get('base', self.b, 'MAINLINE') == 'yes'

    def versions(self):
        """The stored versions' directories, newest first."""
        ds = glob.glob(os.path.join(self.dir, 'v*'))
        return sorted((d for d in ds if os.path.isdir(d)),
                      key=lambda d: meta.version_key(os.path.basename(d)), reverse=True)

    def msgid(self, n):
        """The Message-Id (without <>) of the first message of stored
        version N, '' when it is not stored."""
        mails = sorted(glob.glob(os.path.join(self.dir, f'v{n}', '*.eml')))
        if not mails:
            return ''
        for line in read(mails[0]).split('\n'):
            words = line.split()
            if not words:
                break
            if words[0].lower() == 'message-id:' and len(words) > 1:
                return words[1].replace('<', '').replace('>', '')
        return ''

    def change_id(self):
        """The change-id of the newest stored version that has one."""
        for d in self.versions():
            for f in sorted(glob.glob(os.path.join(d, '*.eml'))):
                for line in read(f).split('\n'):
                    mo = CHANGE_ID.match(line)
                    if mo:
                        return mo.group(1)
        return ''

    def title(self, stack=None):
        """The subject of the first message of STACK's series on the base."""
        s = stack or self.s
        v = self.m.stack_version(s, self.b)
        patches = self.m.patches(s, self.b)
        pre = 'PATCH' if self.mainline() else f'PATCH {self.b}'
        if v > 1:
            pre += f' v{v}'
        if len(patches) > 1:
            cover = os.path.join(self.root, s, 'COVER')
            if os.path.isfile(cover):
                first = read(cover).split('\n')[0]
            else:
                first = f"{s}: {self.var('SUMMARY', s)}"
            return f'[{pre} 0/{len(patches)}] {first}'
        return f'[{pre}] {subject(patches[0]) if patches else ""}'

    def base_desc(self):
        bp = self.m.get('base', self.b, 'BASE_PATCH')
        return f"Debian {self.m.get('base', self.b, 'PACKAGE')}" + (f' with {os.path.basename(bp)}' if bp else '')

    def tree_version(self):
        """The Debian version of the base's extracted tree."""
        src = self.m.base_src(self.b)
        try:
            return read(src + '.version').rstrip('\n')
        except OSError:
            pass
        f = self.m.found(self.b)
        return f if f and tree_kernel_version(src) == upstream_version(f) else ''

    def guest_programs(self, stack):
        d = os.path.join(self.root, stack, 'tests', 'guest')
        return len(glob.glob(os.path.join(d, '*.c'))) + len(glob.glob(os.path.join(d, '*.sh')))

    def known_problems(self):
        """The base's own reports (BASE.problems) in a file the series
        changes, or naming no file."""
        touched = set()
        for p in self.m.patches(self.s, self.b):
            for line in read(p).split('\n'):
                if line.startswith('+++ b/'):
                    touched.add(line[len('+++ b/'):])
        path = os.path.join(self.root, 'tools', 'bases', f'{self.b}.problems')
        if not os.path.isfile(path):
            return []
        out = []
        for line in read(path).split('\n'):
            if line.startswith('#'):
                continue
            fields = [f for f in line.strip('\t\n').split('\t') if f != '']
            if len(fields) < 2:
                continue
            what, files = fields[1], ' '.join(fields[2:]).split()
            if files and not touched.intersection(files):
                continue
            out.append(what)
        return out

    def benchmark(self, v):
        """The benchmark lines of the cover: from out/bench/report.txt when
        it has the stack's rows on the base, else the table of the newest
        stored cover letter that has one."""
        bs = self.var('BENCH_BY') or self.s
        report = os.path.join(results.out_dir(), 'bench', 'report.txt')
        row = re.compile(f'^{self.b} +{bs} ')
        if os.path.isfile(report):
            lines = read(report).split('\n')
            if lines and lines[-1] == '':
                lines.pop()
            if any(row.match(x) for x in lines):
                when = ''
                for x in lines:
                    mo = re.match(r'.*report, ([0-9-]*)', x)
                    if mo:
                        when = mo.group(1)
                        break
                out = [f'Benchmark, base against patched, same run ({when}):', '']
                out += ['  ' + x for x in lines[1:3]]
                out += ['  ' + x for x in lines if x.startswith('base ')]
                out += ['  ' + x for x in lines if row.match(x)]
                return out + ['']
        covers = sorted(glob.glob(os.path.join(self.dir, f'v{v}', '0000-*.eml')))
        for d in self.versions():
            covers += sorted(glob.glob(os.path.join(d, '0000-*.eml')))
        for c in covers:
            lines = read(c).split('\n')
            if lines[-1] == '':
                lines.pop()
            starts = [i for i, x in enumerate(lines) if x.startswith('Benchmark, base against patched')]
            if not starts:
                continue
            out = []
            for x in lines[starts[0]:]:
                if x.startswith('The tests '):
                    break
                out.append(x)
            return out
        return []

    def tests_line(self):
        suites = self.var('KUNIT_SUITES').split()
        tests = 'KUnit ' + ', '.join(suites) if suites else ''

        def programs(stack, what):
            n = self.guest_programs(stack)
            return '' if n == 0 else f"{what}{n} guest test program{'' if n == 1 else 's'}"
        t = programs(self.s, '')
        if t:
            tests = f'{tests} and {t}' if tests else t
        by = self.var('BENCH_BY')
        if by and (self.m.supports(by, self.b) or self.b in self.var('UPSTREAM_TESTS', by).split()):
            t = programs(by, 'the ')
            if t:
                t += f' of {by}'
                tests = f'{tests} and {t}' if tests else t
        return f"The tests ({tests or 'none'}) pass on the {self.b} debug kernel"

    def changes(self, v):
        """'Changes since' paragraphs, newest first, from the CHANGELOG
        (an entry 'vN on BASE' belongs to that base's series alone)."""
        out = []
        try:
            log = read(os.path.join(self.root, self.s, 'CHANGELOG')).split('\n')
        except OSError:
            log = []
        if log and log[-1] == '':
            log.pop()
        for i in range(v, 1, -1):
            out.append(f'Changes since v{i - 1}:')
            keep = False
            for line in log:
                words = line.split()
                if re.match(r'v[0-9]+ ', line):
                    n = int(re.match(r'v([0-9]*)', words[0]).group(1) or 0)
                    keep = n == i and (len(words) < 2 or words[1] != 'on' or (len(words) > 2 and words[2] == self.b))
                    continue
                if keep and words:
                    out.append(line)
            link = self.msgid(i - 1)
            if link:
                out.append(f'- Link to v{i - 1}: https://lore.kernel.org/r/{link}')
            out.append('')
        return out

    def cover(self, range_diff='', range_diff_why=''):
        """The cover letter's text (b4 prep --edit-cover takes it)."""
        s, b = self.s, self.b
        v = self.m.stack_version(s, b)
        out = []
        cover = os.path.join(self.root, s, 'COVER')
        if os.path.isfile(cover):
            text = read(cover)
            out += text[:-1].split('\n') if text.endswith('\n') else text.split('\n')
        else:
            summary = self.var('SUMMARY')
            out += [f'{s}: {summary}', '', f'{summary}.']
        out.append('')
        src = self.m.base_src(b)
        if self.mainline():
            out += [f'This series is against Linux {tree_kernel_version(src)} ({self.base_desc()} {self.tree_version()}),',
                    'the newest release Debian carries. The mails name no base-commit: their',
                    'base is that release as Debian\'s source package has it, not a commit',
                    'of upstream\'s tree.']
        else:
            out += [f'This series is for Linux {b} as Debian carries it: {self.base_desc()}',
                    f"{self.tree_version()}, which is Linux {tree_kernel_version(src)} with Debian's own patches",
                    '(the mails name no base-commit: no git tree has that base).']
        for d in self.var('DEPENDS').split():
            out += [f'It applies on top of the {d} series for {b}, sent separately:',
                    f'  "{self.title(d)}"']
        out += ['', 'Upstream, patch by patch:', '']
        patches = self.m.patches(s, b)
        for k, p in enumerate(patches, 1):
            out += wrap(f'{k}/{len(patches)} {subject(p)}', '  ', '      ')
            pm = header_field(p, 'Patch-mainline')
            if pm:
                out += wrap(pm, '      ')
            refs = header_field(p, 'References')
            if refs:
                for r in refs.replace('; ', '\n').split('\n'):
                    out += wrap(r.strip(' \t\n'), '      ')
        out.append('')
        out += self.benchmark(v)
        out.append(self.tests_line())
        known = self.known_problems()
        if known:
            out += ["(KASAN, lockdep, DEBUG_VM) with no kernel report but the base's",
                    'own, which its vanilla kernel shows as well:']
            for what in known:
                parts = [x.rstrip(' ') for x in fold(what, 70)]
                out += ['- ' + parts[0]] + ['  ' + x for x in parts[1:]]
        else:
            out.append('(KASAN, lockdep, DEBUG_VM) with no kernel report.')
        if v > 1:
            out.append('')
            out += self.changes(v)
        if range_diff:
            out.append(f'Range-diff against v{v - 1}:')
            text = range_diff
            out += text[:-1].split('\n') if text.endswith('\n') else text.split('\n')
        elif range_diff_why:
            out.append(f'No range-diff against v{v - 1}: {range_diff_why}.')
        return '\n'.join(out) + '\n'

    def tracking(self, doc):
        """b4's record of the series (its branch's b4-tracking JSON) with the
        change-id of the stored versions and the links to each of them."""
        try:
            t = json.loads(doc)
            series = t['series']
        except (ValueError, KeyError, TypeError) as e:
            raise Error(f"not b4's tracking record: {e}") from None
        if not isinstance(series, dict):
            raise Error("not b4's tracking record: its series is not an object")
        cid = self.change_id()
        if cid:
            series['change-id'] = cid
        v = self.m.stack_version(self.s, self.b)
        series['history'] = {f'v{i}': [self.msgid(i)] for i in range(1, v) if self.msgid(i)}
        return json.dumps(t)


def run(args):
    if args.what == 'same':
        for d in (args.a, args.b):
            if not os.path.isdir(d):
                raise Error(f'{d}: no such directory')
        print('same' if same(args.a, args.b) else 'different')
        return 0
    if args.what == 'one-maintainer':
        try:
            rows = read(args.file).split('\n')
        except OSError as e:
            raise Error(f'{args.file}: {e.strerror}') from None
        mixed = one_maintainer(rows)
        if mixed:
            print(f"series {args.stack} for {args.base} goes to more than one maintainer ({' and '.join(mixed)}):"
                  f' split the stack, one series per maintainer ({args.file})')
        return 0
    x = Series(meta.Meta(), args.stack, args.base)
    if args.what == 'title':
        print(x.title())
    elif args.what == 'cover':
        rd = ''
        if args.range_diff:
            try:
                rd = read(args.range_diff)
            except OSError as e:
                raise Error(f'{args.range_diff}: {e.strerror}') from None
        sys.stdout.write(x.cover(rd, args.range_diff_why or ''))
    elif args.what == 'tracking':
        print(x.tracking(sys.stdin.read()))
    return 0


def add_parser(sub):
    p = sub.add_parser('series', help='what a generated series says (tools/series runs git and b4)',
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    w = p.add_subparsers(dest='what', metavar='WHAT', required=True)
    for name, text in (('title', 'the subject of the first message of a series'),
                       ('cover', 'the cover letter'),
                       ('tracking', "b4's tracking record (JSON on stdin) with the stored versions' change-id and links")):
        c = w.add_parser(name, help=text)
        c.add_argument('stack')
        c.add_argument('base')
        if name == 'cover':
            c.add_argument('--range-diff', metavar='FILE', help='git range-diff against the previous version')
            c.add_argument('--range-diff-why', metavar='TEXT', help='why there is no range-diff')
    c = w.add_parser('same', help="'same' when two generated series differ only in what b4 makes anew, else 'different'")
    c.add_argument('a')
    c.add_argument('b')
    c = w.add_parser('one-maintainer', help='nothing when one maintainer takes every patch, else the warning')
    c.add_argument('stack')
    c.add_argument('base')
    c.add_argument('file', help='kstacks recipients maintainers output')
    p.set_defaults(func=run)
