# SPDX-License-Identifier: GPL-2.0
"""kstacks drift: the verdicts of tools/drift, computed.

tools/drift (shell) resolves what the user named into two trees, the
target and the tree the patches were made on (apt, tools/fetch-source),
and hands them here: this module applies the base's stacks patch by
patch on scratch copies of the files they change (quilt, git am -3,
filterdiff), decides each patch's verdict, prints the table and writes
the verdicts as JSON (and, with --write, the patches refreshed against
the target in their own format).
"""

import collections
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import Error, meta, results

VERDICT_ORDER = ('applies', 'offsets', 'fuzz', 'maintainers', 'upstream', 'fails', 'not-tried')
_WORDS_FAILED = re.compile('FAILED|ignored|find file|exists|Reversed')


def run_quiet(cmd, cwd=None, env=None, stdout=None):
    """CMD's status and its output (stdout and stderr as one text)."""
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=stdout or subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    out = r.stdout.decode('utf-8', 'replace') if r.stdout is not None else ''
    return r.returncode, out


def lsdiff(patch, numbered=False):
    """The files a patch changes (lsdiff --strip=1), in its order; with
    NUMBERED, (line, file) of each file's first line."""
    cmd = ['lsdiff', '--strip=1', patch] if not numbered else ['lsdiff', '-n', '--strip=1', patch]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise Error(f'lsdiff cannot read {patch}: {r.stderr.strip()}')
    if not numbered:
        return [f for f in r.stdout.split('\n') if f]
    return [(int(x.split()[0]), x.split()[1]) for x in r.stdout.split('\n') if x.strip()]


def hunk_words(log):
    """What patch said about each file and hunk in a quilt log: "FILE: words"."""
    out = []
    f = nf = ''
    for line in log.split('\n'):
        if line.startswith('patching file '):
            f = line[len('patching file '):].strip("'")
        elif line.startswith('|+++ '):
            w = line.split()
            nf = re.sub('^b/', '', w[1]) if len(w) > 1 else ''
        elif line.startswith('No file to patch'):
            out.append(f"{nf}: can't find file to patch")
        elif re.match(r'[0-9]+ out of [0-9]+ hunks? ignored', line):
            out.append(f'{nf}: {line}')
        elif line.startswith('Hunk #') or line.startswith('Reversed (or previously applied) patch detected'):
            out.append(f'{f}: {line}')
        elif 'already exists' in line:
            out.append(line)
    return out


def largest(words, pattern):
    """The largest number PATTERN's match holds in WORDS (digits only), or None."""
    ns = [int(re.search('[0-9]+', m).group(0)) for w in words for m in re.findall(pattern, w)]
    return max(ns) if ns else None


def patch_head(text):
    """The header of a patch: everything before its first file."""
    out = []
    for line in text.split('\n'):
        if re.match(r'diff --git |--- (a/|/dev/null)', line):
            break
        out.append(line)
    return out


def _rstrip_lines(text):
    return '\n'.join(line.rstrip() for line in text.split('\n')).rstrip('\n')


def diffstat(width, path):
    r = subprocess.run(['diffstat', '-p1', '-w', str(width), path], capture_output=True, text=True,
                       check=False)
    return _rstrip_lines(r.stdout)


def diffstat_width(path, text):
    """The diffstat width that reproduces a patch's own diffstat block, or
    None when it has none."""
    have, on = [], False
    for line in text.split('\n'):
        if on and line == '':
            break
        if line == '---':
            on = True
            continue
        if on:
            have.append(line)
    have = '\n'.join(have).rstrip('\n')
    if not have:
        return None
    for w in [80, 70] + list(range(40, 101)):
        if diffstat(w, path) == have:
            return w
    return 80


class Drift:
    """One drift run: BASE's stacks onto TARGET (a directory), the 3-way
    merges starting from SOURCE (the tree the patches were made on)."""

    def __init__(self, m, base, stacks, target, source, label, write=None, logs=None):
        self.m = m
        self.base = base
        self.stacks = stacks
        self.tgt = target
        self.src = source
        self.label = label
        self.write = write
        self.work = tempfile.mkdtemp(prefix='kstacks-drift.')
        self.T = os.path.join(self.work, 'target')
        self.S = os.path.join(self.work, 'source')
        self.logs = logs
        self.json_path = logs + '.json'
        self.rows = []
        self.failed_files = []  # (file, patch name)
        self.broken = {}

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)

    # --- quilt on the scratch trees ---

    def q(self, d, *args, env=None):
        e = dict(os.environ, QUILT_PATCHES='patches', QUILT_PC='.pc', **(env or {}))
        return run_quiet(['quilt', '--quiltrc=/dev/null', *args], cwd=d, env=e)

    def series(self, d):
        return os.path.join(d, 'patches', 'series')

    def series_add(self, d, ident):
        with open(self.series(d), 'a', encoding='utf-8') as f:
            f.write(ident + '\n')

    def series_drop_last(self, d):
        with open(self.series(d), encoding='utf-8') as f:
            lines = f.read().splitlines()
        with open(self.series(d), 'w', encoding='utf-8') as f:
            f.write(''.join(line + '\n' for line in lines[:-1]))

    def prepare(self):
        """Scratch trees: only the files the patches change, copied (T from
        the target, S from the base), each with its own quilt series."""
        files = set()
        for d in (self.T, self.S):
            os.makedirs(os.path.join(d, 'patches'))
            open(self.series(d), 'w', encoding='utf-8').close()
        for s in self.stacks:
            for p in self.m.patches(s, self.base):
                os.makedirs(os.path.join(self.S, 'patches', s), exist_ok=True)
                shutil.copy(p, os.path.join(self.S, 'patches', s))
                self.series_add(self.S, f'{s}/{os.path.basename(p)}')
                files.update(lsdiff(p))
        for frm, to in ((self.tgt, self.T), (self.src, self.S)):
            for f in sorted(files):
                self.copy_file(frm, to, f)

    @staticmethod
    def copy_file(frm, to, f):
        if os.path.isfile(os.path.join(frm, f)):
            os.makedirs(os.path.dirname(os.path.join(to, f)), exist_ok=True)
            shutil.copy2(os.path.join(frm, f), os.path.join(to, f))

    # --- the 3-way merge ---

    def source_before(self, ident):
        """The source tree S where patch IDENT goes on: every patch of the
        series before it applied (they apply to the base: they are proven)."""
        with open(self.series(self.S), encoding='utf-8') as f:
            lines = f.read().splitlines()
        i = lines.index(ident)
        if i == 0:
            return
        prev = lines[i - 1]
        rc, top = self.q(self.S, 'top')
        if rc == 0 and top.strip() == 'patches/' + prev:
            return
        rc, out = self.q(self.S, 'push', '--fuzz=0', prev)
        log = os.path.join(self.logs, 'source.log')
        with open(log, 'a', encoding='utf-8') as f:
            f.write(out)
        if rc != 0:
            raise Error(f'patch {prev} does not apply to base {self.base} itself (log: {log})')

    def three_way(self, ident, p, log):
        """git am -3 of patch P, made on the base (with the patches before
        it), onto the target's version of the files it changes: the merged
        change against T, or None when it does not resolve."""
        self.source_before(ident)
        g = os.path.join(self.work, 'git')
        shutil.rmtree(g, ignore_errors=True)
        os.makedirs(g)
        pfiles = lsdiff(p)
        for f in pfiles:
            self.copy_file(self.S, g, f)
        git = ['git', '-C', g, '-c', 'user.name=kstacks', '-c', 'user.email=kstacks@localhost',
               '-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false']
        # git as it comes: the user's or the system's configuration
        # (diff.noprefix, apply.whitespace, hooks) must not change a merge.
        env = dict(os.environ, GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1')
        with open(p, encoding='utf-8', errors='replace') as f:
            subject = next((line[len('Subject: '):].rstrip('\n') for line in f if line.startswith('Subject: ')), '')
        three = os.path.join(self.work, '3way.patch')
        out = ''
        steps = [['init', '-q'], ['add', '-A'], ['commit', '-q', '--allow-empty', '-m', f'base {self.base}'],
                 ['apply', '--index', p], ['commit', '-q', '-m', subject]]
        ok = True
        for step in steps:
            rc, o = run_quiet(git + step, env=env)
            out += o
            if rc != 0:
                ok = False
                break
        if ok:
            with open(three, 'wb') as f:
                r = subprocess.run(git + ['format-patch', '-1', '--stdout', '--full-index', 'HEAD'],
                                   stdout=f, stderr=subprocess.PIPE, check=False, env=env)
            out += r.stderr.decode('utf-8', 'replace')
            ok = r.returncode == 0
        for step in (['checkout', '-q', '--orphan', 'target'], ['read-tree', '--empty']):
            if not ok:
                break
            rc, o = run_quiet(git + step, env=env)
            out += o
            ok = rc == 0
        if not ok:
            out += f'3-way merge not possible: the patch does not apply to base {self.base} with git apply\n'
            self.write_log(log, out)
            return None
        for e in os.listdir(g):
            if e != '.git':
                path = os.path.join(g, e)
                shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        for f in pfiles:
            self.copy_file(self.T, g, f)
        for step in (['add', '-A'], ['commit', '-q', '--allow-empty', '-m', f'target {self.label}']):
            rc, o = run_quiet(git + step, env=env)
            out += o
            if rc != 0:
                self.write_log(log, out + '3-way merge not possible: the target\'s files cannot be committed\n')
                return None
        head = run_quiet(git + ['rev-parse', 'HEAD'], env=env)[1]
        rc, o = run_quiet(git + ['am', '-3', three], env=env)
        out += o
        if rc == 0 and run_quiet(git + ['rev-parse', 'HEAD'], env=env)[1] == head:
            # "No changes -- Patch already applied": the target has it
            self.write_log(log, out + '3-way merge gave no change: the target has the change already\n')
            return None
        if rc != 0:
            self.write_log(log, out)
            run_quiet(git + ['am', '--abort'], env=env)
            return None
        r = subprocess.run(git + ['diff', '--no-ext-diff', '--no-color', '--src-prefix=a/', '--dst-prefix=b/',
                                  'HEAD^', 'HEAD'], capture_output=True, check=False, env=env)
        merged = r.stdout.decode('utf-8', 'surrogateescape')
        if r.returncode != 0 or not merged.strip():
            out += '3-way merge gave no change: ' + r.stderr.decode('utf-8', 'replace')
            self.write_log(log, out)
            return None
        self.write_log(log, out)
        return merged

    @staticmethod
    def write_log(path, text, append=False):
        with open(path, 'a' if append else 'w', encoding='utf-8') as f:
            f.write(text)

    # --- patches refreshed in their own format ---

    def format_like(self, orig, new):
        """NEW (quilt refresh output) in ORIG's format: ORIG's header with a
        new diffstat of the same width, and ORIG's "diff --git" lines (with
        their mode lines) before the files that had them."""
        with open(orig, encoding='utf-8', errors='surrogateescape') as f:
            otext = f.read()
        with open(new, encoding='utf-8', errors='surrogateescape') as f:
            ntext = f.read()
        w = diffstat_width(orig, otext)
        nlines = ntext.split('\n')
        if nlines and nlines[-1] == '':
            nlines.pop()
        start = next((i for i, line in enumerate(nlines) if re.match(r'--- (a/|/dev/null)', line)), len(nlines))
        body = nlines[start:]
        bodyf = os.path.join(self.work, 'body')
        with open(bodyf, 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(''.join(line + '\n' for line in body))
        # ORIG's extended header lines of each file
        ext = collections.defaultdict(list)
        f_, on = None, False
        for line in otext.split('\n'):
            if line.startswith('diff --git '):
                w4 = line.split()
                f_ = re.sub('^b/', '', w4[3]) if len(w4) > 3 else ''
                ext[f_].append(line)
                on = True
            elif on and re.match(r'(new|deleted) file mode|(old|new) mode|similarity|rename|copy', line):
                ext[f_].append(line)
            else:
                on = False
        out = []
        head = patch_head(otext)
        if w is not None:
            for line in head:
                out.append(line)
                if line == '---':
                    break
            out += diffstat(w, bodyf).split('\n')
            out.append('')
            done = block = False
            for line in head:
                if done:
                    out.append(line)
                elif line == '---':
                    block = True
                elif block and line == '':
                    done = True
        else:
            out += head
        at = dict(lsdiff(bodyf, numbered=True))
        for n, line in enumerate(body, 1):
            if n in at and at[n] in ext:
                out += ext[at[n]]
            out.append(line)
        return ''.join(line + '\n' for line in out)

    def refresh_into(self, ident, orig):
        """quilt refresh of the top patch of T with the project's diff
        options, in ORIG's format, written to WRITE/IDENT."""
        with open(orig, encoding='utf-8', errors='replace') as f:
            copt = ' --show-c-function' if any(re.match(r'@@ .* @@ .', line) for line in f) else ''
        rc, out = self.q(self.T, 'refresh', '-p', 'ab', '--no-timestamps', '--no-index',
                         env={'QUILT_DIFF_OPTS': '--suppress-blank-empty' + copt})
        log = os.path.join(self.logs, 'refresh.log')
        self.write_log(log, out, append=True)
        if rc != 0:
            raise Error(f'quilt refresh of {ident} failed (log: {log})')
        dst = os.path.join(self.write, ident)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(self.format_like(orig, os.path.join(self.T, 'patches', ident)))

    # --- the verdicts ---

    def row(self, s, p, text, key, why='', words=(), tw='', tww='', probe='', after=''):
        print('%-18s %-76s %s' % (s, p, text))
        if why:
            print('%21s%s' % ('', why))
        words = [w for w in words if w]
        if key == 'offsets' and len(words) > 4:
            for w in words[:3]:
                print(' ' * 21 + w)
            print('%21s%s' % ('', f'... {len(words) - 3} more hunks in {self.json_path}'))
        else:
            for w in words:
                print(' ' * 21 + w)
        if tw:
            print('%21s%s' % ('', f'3-way (git am -3): {tw}' + (f': {tww}' if tww else '')))
        r = {'stack': s, 'patch': p, 'verdict': key, 'text': text}
        if why:
            r['why'] = why
        if probe:
            r['probe'] = probe
        if after:
            r['after_failed'] = after.split('\n')
        r['words'] = words
        if tw:
            r['three_way'] = tw
            r['three_way_words'] = tww
        self.rows.append(r)

    def probe(self, s):
        """The stack's feature upstream in the target (its UPSTREAM_PROBE
        hits): said of the stack; each patch is still tried."""
        probe = self.m.get('stack', s, 'UPSTREAM_PROBE')
        if not probe:
            return ''
        pf, _, pre = probe.partition(':')
        path = os.path.join(self.tgt, pf)
        if not os.path.isfile(path):
            return ''
        r = subprocess.run(['grep', '-nE', '-m1', '--', pre, path], capture_output=True, check=False)
        hit = r.stdout.decode('latin-1').rstrip('\n')
        if not hit:
            return ''
        n, _, text = hit.partition(':')
        return f'its feature is upstream here: probe {probe} found: {pf}:{n}: {text.lstrip()[:80]}'

    def run(self):
        for s in self.stacks:
            probe = self.probe(s)
            after = []
            for d in dict.fromkeys(x for x in self.m.deps_first(s) if x != s):
                after += self.broken.get(d, [])
            after = '\n'.join(after)
            if probe:
                print('%-18s %s' % (s, f'({probe})'))
            if after:
                print('%-18s %s' % (s, f"(on top of its dependencies without: {'; '.join(after.split(chr(10)))})"))
            self.broken[s] = []
            for p in self.m.patches(s, self.base):
                self.one(s, p, probe, after)

    def one(self, s, p, probe, after):
        name = os.path.basename(p)
        ident = f'{s}/{name}'
        log = os.path.join(self.logs, f'{s}-{name}.log')
        common = {'probe': probe, 'after': after}
        files = lsdiff(p)
        clash = next((f'{f} is changed by {n}, which does not apply'
                      for f in files for (e, n) in self.failed_files if e == f), '')
        if clash:
            self.row(s, name, 'not tried', 'not-tried', clash, **common)
            self.broken[s].append(f'{ident} (not tried)')
            return
        os.makedirs(os.path.join(self.T, 'patches', s), exist_ok=True)
        shutil.copy(p, os.path.join(self.T, 'patches', ident))
        self.series_add(self.T, ident)
        rc, out = self.q(self.T, 'push', '--fuzz=0')
        self.write_log(log, out)
        if rc == 0:
            words = hunk_words(out)
            off = largest(words, r'offset -?[0-9]+ lines?')
            if off is not None:
                self.row(s, name, f'applies with offsets (up to {off} lines)', 'offsets', words=words, **common)
            else:
                self.row(s, name, 'applies', 'applies', words=words, **common)
            if self.write:
                self.refresh_into(ident, p)
            return
        if 'can be reverse-applied' in out:
            # Upstream: the target has it. The stack's later patches go
            # on as they would on top of it.
            self.series_drop_last(self.T)
            words = [line.replace('patches/', '', 1) for line in out.split('\n') if 'can be reverse-applied' in line]
            self.row(s, name, 'upstream', 'upstream', words=words, **common)
            return
        words = [w for w in hunk_words(out) if _WORDS_FAILED.search(w)]
        # Does it go on with fuzz? Then back off: the 3-way merge comes first.
        fuzz = None
        rc, fout = self.q(self.T, 'push')
        if rc == 0:
            fuzz = largest(hunk_words(fout), r'with fuzz [0-9]+')
            words += [w for w in hunk_words(fout) if 'with fuzz' in w]
            prc, pout = self.q(self.T, 'pop', '-f')
            fout += pout
            if prc != 0:
                self.write_log(log + '.fuzz', fout)
                raise Error(f'quilt pop failed in the scratch tree (log: {log}.fuzz)')
        self.write_log(log + '.fuzz', fout)
        maint = False
        merged = self.three_way(ident, p, log + '.3way')
        with open(log + '.3way', encoding='utf-8', errors='replace') as f:
            tlog = f.read().split('\n')
        if merged is not None:
            tw = 'resolves'
            tww = ';'.join(line for line in tlog if line.startswith('Auto-merging'))
            with open(p, encoding='utf-8', errors='surrogateescape') as f:
                head = patch_head(f.read())
            with open(os.path.join(self.T, 'patches', ident), 'w', encoding='utf-8', errors='surrogateescape') as f:
                f.write(''.join(line + '\n' for line in head) + merged)
            rc, o = self.q(self.T, 'push', '--fuzz=0')
            self.write_log(log + '.3way', o, append=True)
            if rc != 0:
                raise Error(f'the 3-way merge of {ident} does not apply to the target copy (log: {log}.3way)')
            if self.write:
                self.refresh_into(ident, p)
        else:
            tw = 'does not resolve it'
            tww = ';'.join(line for line in tlog if re.match('CONFLICT|error:', line) or 'not possible' in line)
            if fuzz is not None:
                self.write_log(log + '.fuzz', self.q(self.T, 'push')[1], append=True)
            elif all(w.startswith('MAINTAINERS: ') for w in words) and self.without_maintainers(p, ident, log):
                # Only MAINTAINERS fails: the code goes on without it,
                # and the patches on top of it are tried.
                maint = True
            else:
                self.series_drop_last(self.T)
                self.failed_files += [(f, name) for f in files]
        if fuzz is not None:
            self.row(s, name, f'applies only with fuzz {fuzz}', 'fuzz', words=words, tw=tw, tww=tww, **common)
        elif maint:
            self.row(s, name, 'FAILED in MAINTAINERS only; the rest applies', 'maintainers', words=words,
                     tw=tw, tww=tww, **common)
        else:
            self.row(s, name, 'FAILED', 'fails', words=words, tw=tw, tww=tww, **common)
            if tw != 'resolves':
                self.broken[s].append(f'{ident} (FAILED)')

    def without_maintainers(self, p, ident, log):
        with open(os.path.join(self.T, 'patches', ident), 'wb') as f:
            r = subprocess.run(['filterdiff', '-p1', '-x', 'MAINTAINERS', p], stdout=f, check=False)
        if r.returncode != 0:
            return False
        rc, out = self.q(self.T, 'push', '--fuzz=0')
        self.write_log(log + '.rest', out)
        return rc == 0


def run(args):
    sys.stdout.reconfigure(line_buffering=True)
    m = meta.Meta()
    base = args.base
    m.get('base', base, 'PACKAGE')
    if args.stack:
        m.get('stack', args.stack, 'VERSION')
    for d in (args.target, args.source):
        if not os.path.isfile(os.path.join(d, 'Makefile')):
            raise Error(f'{d} is not a kernel tree (no Makefile)')
    with_series = [s for s in ([args.stack] if args.stack else m.stacks)
                   if os.path.isfile(os.path.join(m.repo.root, s, 'patches', base, 'series'))]
    if not with_series:
        raise Error(f"no stack{' ' + args.stack if args.stack else ''} has a series for base {base}")
    stacks = [s for s in m.closure(with_series)
              if os.path.isfile(os.path.join(m.repo.root, s, 'patches', base, 'series'))]
    # Every patch a series names is there, before anything is written.
    for s in stacks:
        for p in m.patches(s, base):
            if not os.path.isfile(p):
                raise Error(f'stack {s}: series for {base} names a missing patch: {m.repo.name(p)}')
    logs = os.path.join(results.out_dir(), 'drift', f'{base}-{args.label}')
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    if args.write:
        os.makedirs(args.write, exist_ok=True)
    d = Drift(m, base, stacks, args.target, args.source, args.label, args.write, logs)
    try:
        d.prepare()
        b = m.bases[base]
        proven = b.get('PROVEN', '')
        print(f"drift of base {base} ({b['PACKAGE']} {proven or 'version not recorded'}) onto {args.label}"
              + (f' ({args.target_version})' if args.target_version else '')
              + f", Linux {args.kernel or '?'}")
        print('%-18s %-76s %s' % ('stack', 'patch', 'verdict'))
        d.run()
    finally:
        d.cleanup()
    doc = {'base': base, 'package': m.bases[base]['PACKAGE'], 'proven': m.bases[base].get('PROVEN', ''),
           'source': {'version': args.source_version, 'path': args.source},
           'target': {'name': args.label, 'kind': args.kind, 'package': args.package,
                      'version': args.target_version, 'kernel': args.kernel, 'path': args.target},
           'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%MZ'),
           'patches': d.rows}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + '\n'
    for path in [d.json_path] + ([args.json] if args.json else []):
        meta.write_atomically(path, text)
    counts = collections.Counter(r['verdict'] for r in d.rows)
    print('verdicts: ' + ', '.join(f'{counts[v]} {v}' for v in sorted(counts)))
    n3 = sum(1 for r in d.rows if r.get('three_way') == 'resolves')
    if n3:
        print(f'3-way merges that resolve a failure: {n3}')
    print(f'json: {d.json_path} (logs: {logs})')
    return 0


def add_parser(sub):
    p = sub.add_parser('drift', help="verdicts of a base's stacks on another tree (tools/drift resolves the trees)",
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.add_argument('base')
    p.add_argument('--target', required=True, metavar='DIR', help='the tree the stacks go onto (only read)')
    p.add_argument('--source', required=True, metavar='DIR', help='the tree the patches were made on')
    p.add_argument('--label', required=True, help='the name of the target (logs, JSON)')
    p.add_argument('--kind', default='tree', choices=('debian', 'tarball', 'tree'))
    p.add_argument('--package', default='', help="the target's Debian package")
    p.add_argument('--target-version', default='', help="the target's Debian version")
    p.add_argument('--source-version', default='', help="the source's Debian version")
    p.add_argument('--kernel', default='', help="the target's kernel version")
    p.add_argument('--stack', help='this stack (and what it depends on) only')
    p.add_argument('--write', metavar='DIR', help='every patch that applies, refreshed, to DIR/STACK/PATCH')
    p.add_argument('--json', metavar='FILE', help='the verdicts also to FILE')
    p.set_defaults(func=run)
