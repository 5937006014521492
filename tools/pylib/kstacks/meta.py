# SPDX-License-Identifier: GPL-2.0
"""Stack and base metadata: read as data against a schema, never run.

A stack's STACK file and a base's tools/bases/BASE.conf hold lines
KEY=value (one word) or KEY="value" (blanks allowed; \\", \\\\ and \\$
escape, nothing is expanded), comments and empty lines. Every key has a
type in the schemas below; an unknown key, a key given twice, a missing
required one, a value of the wrong type, a stack or base that does not
exist is one error naming the file, the line and the key.

The shell tools get the metadata from "kstacks meta dump" once when they
start (lib.sh), so a mistake stops any tool before it does anything.
"""

import glob
import os
import re
import subprocess

from . import REPO, Error

# KEY: (type, required)
BASE_SCHEMA = {
    'PACKAGE': ('word', True),
    'SUITE': ('word', True),
    'PROVEN': ('word', False),
    'LIST': ('email', False),
    'CONFIG_PACKAGE': ('word', False),
    'COVERAGE': ('words', False),
    'BASE_PATCH': ('path', False),
    'SOURCE': ('base', False),
    'IN_CHECK': ('words', False),
    'FETCH': ('yesno', False),
    'MAINLINE': ('yesno', False),
}

STACK_SCHEMA = {
    'VERSION': ('number', True),
    'DEPENDS': ('stacks', False),
    'SUMMARY': ('text', False),
    'UPSTREAM': ('bases', False),
    'UPSTREAM_PROBE': ('text', False),
    'LATER': ('bases', False),
    'PENDING': ('bases', False),
    'KUNIT_SUITES': ('words', False),
    'QEMU_NEEDS': ('words', False),
    'BOOT_ARGS': ('text', False),
    'TEST_MEM': ('size', False),
    'UPSTREAM_TESTS': ('bases', False),
    'UPSTREAM_BENCH': ('bases', False),
    'SUITES': ('words', False),
    'SEPARATE_TESTS': ('words', False),
    'BENCH_BY': ('stack', False),
    'ALT_NEEDS': ('words', False),
    'BASE_VERSIONS': ('baseversions', False),
}

SCHEMAS = {'stack': STACK_SCHEMA, 'base': BASE_SCHEMA}

_BLANK = re.compile(r'\s*(#.*)?$')
_ASSIGN = re.compile(r'([A-Z_][A-Z0-9_]*)=(.*)$')
_QUOTED = re.compile(r'"((?:\\.|[^"\\])*)"\s*(?:#.*)?$')
_BARE = re.compile(r'''([^\s"'$`]*)\s*(?:#.*)?$''')
_EXPANSION = re.compile(r'(?:^|[^\\])[$`]')


class Repo:
    """Where the metadata lives: REPO/STACK-NAME/STACK, REPO/tools/bases/B.conf."""

    def __init__(self, root=REPO):
        self.root = root

    def stack_file(self, name):
        return os.path.join(self.root, name, 'STACK')

    def base_file(self, name):
        return os.path.join(self.root, 'tools', 'bases', name + '.conf')

    def is_stack(self, name):
        return os.path.isfile(self.stack_file(name))

    def is_base(self, name):
        return os.path.isfile(self.base_file(name))

    def stacks(self):
        """The stacks in the order of the shell's glob */STACK (C locale:
        mm-bulk-fallbacks before mm-bulk), which names cells and orders sets."""
        return sorted((os.path.basename(os.path.dirname(f))
                       for f in glob.glob(os.path.join(self.root, '*', 'STACK'))
                       if os.path.isfile(f)), key=lambda s: (s + '/').encode())

    def bases(self):
        return sorted((os.path.basename(f)[:-len('.conf')]
                       for f in glob.glob(os.path.join(self.root, 'tools', 'bases', '*.conf'))),
                      key=version_key)

    def name(self, path):
        return os.path.relpath(path, self.root)


def cache_dir():
    """Where the workbench keeps trees, builds and logs (lib.sh's CACHE)."""
    c = os.environ.get('KSTACKS_CACHE')
    if c:
        return c
    return os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'kstacks')


def stackset_name(stacks):
    """The name of a set of stacks (build trees, cells): joined by '+', or base."""
    return '+'.join(stacks) or 'base'


def version_key(s):
    """sort -V for base names: 5.10 < 5.10-rt < 6.1 < 6.12."""
    return [(0, int(p), '') if p.isdigit() else (1, 0, p) for p in re.findall(r'\d+|\D+', s)]


def type_problem(repo, typ, value):
    """Why VALUE is not of TYPE, or None."""
    if typ in ('word', 'path', 'email'):
        if not re.fullmatch(r'\S+', value):
            return f"one word, not '{value}'"
        if typ == 'path' and not value.startswith('/'):
            return f"an absolute path, not '{value}'"
        if typ == 'email' and not re.fullmatch(r'.*@.*\..*', value):
            return f"an e-mail address, not '{value}'"
    elif typ == 'number':
        if not re.fullmatch(r'[0-9]+', value):
            return f"a whole number, not '{value}'"
    elif typ == 'size':
        if not re.fullmatch(r'[0-9]+[KMG]', value):
            return f"a size such as 4G, not '{value}'"
    elif typ == 'yesno':
        if value not in ('yes', 'no'):
            return f"yes or no, not '{value}'"
    elif typ == 'baseversions':
        for w in value.split():
            m = re.fullmatch(r'([^:\s]+):([0-9]+)', w)
            if not m:
                return f"BASE:N words (6.1:5), not '{w}'"
            if not repo.is_base(m.group(1)):
                return f"BASE:N words, and there is no base '{m.group(1)}'"
    elif typ in ('stack', 'stacks', 'base', 'bases'):
        if typ in ('stack', 'base') and re.search(r'\s', value):
            return f"one name, not '{value}'"
        for w in value.split():
            if typ.startswith('stack') and not repo.is_stack(w):
                return f"a stack's name, and there is no stack '{w}'"
            if typ.startswith('base') and not repo.is_base(w):
                return f"a base's name, and there is no base '{w}'"
    return None


def parse_value(key, raw):
    """The value of KEY from the text after '='; raises Error (no file) on a problem."""
    m = _QUOTED.match(raw)
    if m:
        inner = m.group(1)
        if _EXPANSION.search(inner):
            raise Error(f'{key}: $ or ` in a value (nothing is expanded here; \\$ for a dollar sign)')
        # \\, \" and \$ escape; any other backslash stays (a regex's \()
        value = re.sub(r'\\([\\"$])', r'\1', inner)
    else:
        m = _BARE.match(raw)
        if not m:
            raise Error(f'{key}: a value with blanks or quotes goes in double quotes: {raw}')
        value = m.group(1)
    if '\t' in value:
        raise Error(f'{key}: a tab in a value (blanks are spaces)')
    return value


def parse(repo, path, schema):
    """The file at PATH read against SCHEMA: {KEY: value}; raises Error."""
    name = repo.name(path)
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise Error(f'{name}: no such file') from None
    except UnicodeDecodeError:
        raise Error(f'{name}: not UTF-8 text') from None
    return parse_lines(repo, name, lines, schema)


def parse_lines(repo, name, lines, schema):
    """The LINES of file NAME read against SCHEMA: {KEY: value}; raises Error."""
    values = {}
    for n, line in enumerate(lines, 1):
        if _BLANK.match(line):
            continue
        m = _ASSIGN.match(line)
        if not m:
            raise Error(f'{name}:{n}: not KEY=value: {line}')
        key, raw = m.groups()
        if key not in schema:
            raise Error(f'{name}:{n}: unknown key {key} (known: {" ".join(schema)})')
        if key in values:
            raise Error(f'{name}:{n}: {key} is set twice')
        try:
            value = parse_value(key, raw)
        except Error as e:
            raise Error(f'{name}:{n}: {e}') from None
        why = type_problem(repo, schema[key][0], value)
        if why:
            raise Error(f'{name}:{n}: {key} must be {why}')
        values[key] = value
    for key, (_, required) in schema.items():
        if required and key not in values:
            raise Error(f'{name}: {key} is missing (required)')
    # A base's own version is one its series moved to alone: above the
    # stack's (a stack-wide version that reaches it takes its place).
    for w in values.get('BASE_VERSIONS', '').split():
        if int(w.split(':')[1]) <= int(values.get('VERSION', '0')):
            raise Error(f"{name}: BASE_VERSIONS: {w} is not above VERSION={values['VERSION']}"
                        ' (drop it: the base is at the stack\'s version)')
    return values


# --- writing: one key at a time, the file read against its schema first ---

_PLAIN = re.compile(r'[A-Za-z0-9._:@/+~=,-]+')


# Types whose values are lists or text: written in quotes even when one
# word (DEPENDS="core"), as the files have them.
_QUOTED_TYPES = ('words', 'stacks', 'bases', 'text', 'baseversions')


def format_line(key, value, typ='word'):
    """KEY=value as the files write it: bare when one plain word of a
    one-word type, else quoted."""
    if _PLAIN.fullmatch(value) and typ not in _QUOTED_TYPES:
        return f'{key}={value}'
    return '%s="%s"' % (key, re.sub(r'([\\"$])', r'\\\1', value))


def _key_line(lines, key):
    for i, line in enumerate(lines):
        m = _ASSIGN.match(line)
        if m and m.group(1) == key:
            return i
    return None


def write_atomically(path, text):
    """TEXT replaces the file at PATH whole, or the file stays as it was
    (no temporary file left either way); Error when it cannot."""
    try:
        data = text.encode('utf-8')
    except UnicodeEncodeError:
        raise Error(f'cannot write {path}: not UTF-8 text') from None
    tmp = path + '.tmp'
    try:
        with open(tmp, 'wb') as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise Error(f'cannot write {path}: {e.strerror}') from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def set_value(repo, kind, name, key, value, after=None):
    """Set KEY of stack or base NAME to VALUE in its file ('' removes the
    line): the line of KEY rewritten in place, or a new line after the
    line of AFTER (else at the end); comments and order kept. The new text
    is read against the schema before it replaces the file: when it does
    not hold, Error and nothing written."""
    set_values(repo, kind, name, [(key, value, after)])


def set_values(repo, kind, name, changes):
    """set_value() of every (KEY, VALUE, AFTER) of CHANGES, in one write."""
    schema = SCHEMAS[kind]
    path = repo.stack_file(name) if kind == 'stack' else repo.base_file(name)
    if not os.path.isfile(path):
        raise Error(f"unknown {kind} '{name}'")
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    for key, value, after in changes:
        if key not in schema:
            raise Error(f'{key} is not a key of a {"STACK file" if kind == "stack" else "base conf"}')
        if re.search(r'[\n\t]', value):
            raise Error(f'{key}: a value is one line without tabs')
        try:
            value.encode('utf-8')
        except UnicodeEncodeError:
            raise Error(f'{key}: the value is not UTF-8 text') from None
        at = _key_line(lines, key)
        if at is not None:
            if value:
                lines[at] = format_line(key, value, schema[key][0])
            else:
                del lines[at]
        elif value:
            anchor = _key_line(lines, after) if after else None
            lines.insert(len(lines) if anchor is None else anchor + 1, format_line(key, value, schema[key][0]))
    parse_lines(repo, repo.name(path), lines, schema)
    write_atomically(path, '\n'.join(lines) + '\n')


def changelog_with(path, entry):
    """The text of a CHANGELOG with ENTRY (its lines) as the newest: before
    the first version heading ("vN ..."), with an empty line after it; at
    the end of a file without one. Error when the file cannot be read."""
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []
    except UnicodeDecodeError:
        raise Error(f'{path}: not UTF-8 text') from None
    except OSError as e:
        raise Error(f'{path}: {e.strerror}') from None
    at = next((i for i, line in enumerate(lines) if re.match(r'v[0-9]+', line)), None)
    new = entry.split('\n')
    lines = lines + new if at is None else lines[:at] + new + [''] + lines[at:]
    return '\n'.join(lines) + '\n'


class Meta:
    """Every stack's and base's metadata, read and checked at once."""

    def __init__(self, repo=None):
        self.repo = repo or Repo()
        self.stacks = {s: parse(self.repo, self.repo.stack_file(s), STACK_SCHEMA)
                       for s in self.repo.stacks()}
        self.bases = {b: parse(self.repo, self.repo.base_file(b), BASE_SCHEMA)
                      for b in self.repo.bases()}
        self.check_cycles()

    def check_cycles(self):
        """No stack depends on itself, directly or through others."""
        done = set()

        def visit(s, path):
            if s in path:
                cycle = path[path.index(s):] + [s]
                raise Error(f"{self.repo.name(self.repo.stack_file(cycle[0]))}: DEPENDS is a cycle: "
                            + ' -> '.join(cycle))
            if s in done or s not in self.stacks:
                return
            for d in self.stacks[s].get('DEPENDS', '').split():
                visit(d, path + [s])
            done.add(s)
        for s in self.stacks:
            visit(s, [])

    def table(self, kind):
        return self.stacks if kind == 'stack' else self.bases

    def get(self, kind, name, key):
        """KEY of a stack or base ('' when not set); raises Error for an unknown one."""
        table = self.table(kind)
        if name not in table:
            raise Error(f"unknown {kind} '{name}' (known: {' '.join(table)})")
        if key not in SCHEMAS[kind]:
            raise Error(f'{key} is not a key of a {"STACK file" if kind == "stack" else "base conf"}')
        return table[name].get(key, '')

    def stack_version(self, stack, base):
        """The version of STACK's series on BASE: the base's own or the stack's."""
        link = os.path.join(self.repo.root, stack, 'patches', base)
        if os.path.islink(link):
            base = os.readlink(link).rstrip('/')
        v = self.get('stack', stack, 'VERSION')
        for w in self.get('stack', stack, 'BASE_VERSIONS').split():
            b, n = w.split(':')
            if b == base:
                v = n
        return int(v)

    # --- the stacks' series, as lib.sh lays them out ---

    def patches(self, stack, base):
        """The patch files of STACK on BASE in series order (paths under the
        base's patches/ directory, a link's name kept); [] without a series."""
        d = os.path.join(self.repo.root, stack, 'patches', base)
        try:
            with open(os.path.join(d, 'series'), encoding='utf-8') as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            words = line.split('#', 1)[0].split()
            if words:
                out.append(os.path.join(d, words[0]))
        return out

    def supports(self, stack, base):
        """The stack is carried on the base: a series, not PENDING (unless
        KSTACKS_WITH_PENDING=1 asks for pending ones too)."""
        if not os.path.isfile(os.path.join(self.repo.root, stack, 'patches', base, 'series')):
            return False
        if os.environ.get('KSTACKS_WITH_PENDING', '0') == '1':
            return True
        return base not in self.get('stack', stack, 'PENDING').split()

    def deps_first(self, s):
        """STACK after what it depends on, depth first (names may repeat)."""
        for d in self.get('stack', s, 'DEPENDS').split():
            yield from self.deps_first(d)
        yield s

    def closure(self, stacks):
        """STACKS and what they depend on, dependencies first, otherwise in
        the order of all stacks (lib.sh's stack_closure: one set, one name)."""
        want = {d for s in stacks for d in self.deps_first(s)}
        out = []
        for s in self.stacks:
            if s in want:
                for d in self.deps_first(s):
                    if d not in out:
                        out.append(d)
        return out

    def bench_programs(self, stack):
        """A stack's benchmark programs (bench/*.c, *.sh, */Kbuild)."""
        d = os.path.join(self.repo.root, stack, 'bench')
        return sorted(glob.glob(os.path.join(d, '*.c')) + glob.glob(os.path.join(d, '*.sh'))
                      + glob.glob(os.path.join(d, '*', 'Kbuild')))

    def upstream_rows(self, stack, kind):
        """The rows of STACK/upstream.tsv of KIND (equivalent, fix, ...),
        each a list of its tab-separated fields; [] without the file."""
        try:
            with open(os.path.join(self.repo.root, stack, 'upstream.tsv'), encoding='utf-8') as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as e:
            raise Error(f'{stack}/upstream.tsv: {getattr(e, "strerror", None) or "not UTF-8 text"}') from None
        return [line.split('\t') for line in lines
                if not line.startswith('#') and line.split('\t')[0] == kind]

    def bench_stacks(self, base):
        """The stacks of the kernels tools/bench builds on BASE: every stack
        carried there with benchmark programs of its own, or measured by
        another's (BENCH_BY), with what they depend on."""
        return self.closure([s for s in self.stacks if self.supports(s, base)
                             and (self.bench_programs(s) or self.get('stack', s, 'BENCH_BY'))])

    def upstream_bench_stacks(self, base):
        """Stacks whose feature is upstream on BASE and whose programs run
        there too (UPSTREAM_TESTS or UPSTREAM_BENCH, with programs)."""
        return [s for s in self.stacks if self.bench_programs(s)
                and base in (self.get('stack', s, 'UPSTREAM_TESTS') + ' '
                             + self.get('stack', s, 'UPSTREAM_BENCH')).split()]

    def base_src(self, base):
        """The pristine extracted tree of a base (a flavour's SOURCE base's)."""
        src = self.get('base', base, 'SOURCE') or base
        return os.path.join(cache_dir(), 'linux-source-' + src)

    def found(self, base):
        """The version of the base's package found here: installed
        (dpkg), or for a FETCH=yes base the one fetched into the cache;
        empty when there is none."""
        if self.get('base', base, 'FETCH') == 'yes':
            try:
                with open(self.base_src(base) + '.version', encoding='utf-8') as f:
                    return f.read().strip()
            except OSError:
                return ''
        try:
            out = subprocess.run(['dpkg-query', '-W', '-f=${db:Status-Status} ${Version}\\n',
                                  self.get('base', base, 'PACKAGE')],
                                 capture_output=True, text=True).stdout
        except OSError:
            return ''
        for line in out.splitlines():
            if line.startswith('installed '):
                return line.split(' ', 1)[1].strip()
        return ''

    # --- versions of a stack's series, written ---

    def own_bases(self, stack):
        """The bases whose series of STACK are its own (not a link to another's)."""
        d = os.path.join(self.repo.root, stack, 'patches')
        if not os.path.isdir(d):
            return []
        return sorted((b for b in os.listdir(d) if os.path.isfile(os.path.join(d, b, 'series'))
                       and not os.path.islink(os.path.join(d, b))), key=version_key)

    def own_series(self, stack, base):
        """Error unless STACK has a series of its own on BASE (a version
        written for a link's name would never be read)."""
        self.get('stack', stack, 'VERSION')
        self.get('base', base, 'PACKAGE')
        d = os.path.join(self.repo.root, stack, 'patches', base)
        if os.path.islink(d):
            raise Error(f"{stack}'s series on {base} is a link to {os.readlink(d)}: its version is that base's")
        if not os.path.isfile(os.path.join(d, 'series')):
            raise Error(f'{stack} has no series on {base}')

    def set_version(self, stack, base, n):
        """The version of STACK's series on BASE is N: the base's own entry
        in BASE_VERSIONS, none when N is the stack's VERSION."""
        self.own_series(stack, base)
        keep = [w for w in self.get('stack', stack, 'BASE_VERSIONS').split()
                if w.split(':')[0] != base]
        if n != int(self.get('stack', stack, 'VERSION')):
            keep.append(f'{base}:{n}')
        set_value(self.repo, 'stack', stack, 'BASE_VERSIONS', ' '.join(keep), after='VERSION')
        self.stacks[stack] = parse(self.repo, self.repo.stack_file(stack), STACK_SCHEMA)

    def bump(self, stack, base, why, today):
        """A new version of STACK's series on BASE with its CHANGELOG entry
        ("- WHY"): the stack's VERSION when BASE holds its only series of
        its own, else the base's own version (BASE_VERSIONS; the other
        bases keep theirs). Returns what changed, in words."""
        self.own_series(stack, base)
        log = os.path.join(self.repo.root, stack, 'CHANGELOG')
        v = self.stack_version(stack, base)
        nv = v + 1
        head = f'v{nv} ({today})' if self.own_bases(stack) == [base] else f'v{nv} on {base} ({today})'
        # the CHANGELOG read before STACK is written: both or neither
        changelog = changelog_with(log, f'{head}\n- {why}')
        if self.own_bases(stack) == [base]:
            # the base's own entry, if it had one, is the stack's now
            keep = [w for w in self.get('stack', stack, 'BASE_VERSIONS').split()
                    if w.split(':')[0] != base]
            set_values(self.repo, 'stack', stack, [('VERSION', str(nv), None),
                                                    ('BASE_VERSIONS', ' '.join(keep), None)])
            how = f'VERSION {v} -> {nv}'
        else:
            self.set_version(stack, base, nv)
            how = (f'v{v} -> v{nv} on {base} (BASE_VERSIONS; the stack\'s other bases stay at'
                   f" v{self.get('stack', stack, 'VERSION')})")
        write_atomically(log, changelog)
        return how

    def dump(self):
        """Lines KIND<TAB>NAME<TAB>KEY<TAB>VALUE for the shell (lib.sh),
        version<TAB>STACK<TAB>BASE<TAB>N for every stack and base (its
        stack_version), carried<TAB>STACK<TAB>BASE<TAB>yes for every pair
        the stack is carried on (supports()), then schema<TAB>KIND<TAB>KEY<TAB>TYPE per key of
        each schema."""
        for kind in ('stack', 'base'):
            for name, values in self.table(kind).items():
                for key, value in values.items():
                    yield f'{kind}\t{name}\t{key}\t{value}'
        for s in self.stacks:
            for b in self.bases:
                yield f'version\t{s}\t{b}\t{self.stack_version(s, b)}'
                if self.supports(s, b):
                    yield f'carried\t{s}\t{b}\tyes'
        for kind, schema in SCHEMAS.items():
            for key, (typ, _) in schema.items():
                yield f'schema\t{kind}\t{key}\t{typ}'
