# SPDX-License-Identifier: GPL-2.0
"""kstacks refresh: a base's stacks brought onto drift's verdicts.

Given the verdicts of tools/drift (its --json file) and the patches it
refreshed against the target (its --write directory): when every patch
applies (as is, with offsets, or by a 3-way merge that resolves it), copy
the patch files that moved into the base's series, give each stack whose
patches changed a new version on this base with its CHANGELOG entry, run
the cell (tools/test) and, when it passed on the version installed here,
record that version as the base's PROVEN. When a patch does not apply,
nothing is written and every such patch is named with its hunk.

A series that is a link to another base's (an RT flavour's), or the
target of one, becomes a series of its own on each side before a patch
is rewritten: the other base keeps the patches it was proven with, and
each side the version it had. tools/refresh chooses the target and runs
drift; this is what follows.
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import Error, meta

# The words of a failed apply that name its cause (quilt's and patch's).
CAUSE = re.compile(r'FAILED|find file|ignored|exists|Reversed|reverse-applied')


def blocker(r):
    """One line for a patch that keeps the base from being refreshed."""
    line = f"{r['stack']}/{r['patch']}: {r['text']}"
    words = r.get('words') or []
    if words:
        cause = '; '.join(w for w in words if CAUSE.search(w))
        line += ': ' + (cause or words[0])
    if r.get('why'):
        line += f" ({r['why']})"
    if r.get('probe'):
        line += f" ({r['probe']})"
    if r.get('three_way'):
        line += f"; 3-way: {r['three_way']}"
    return line


def applies(r):
    return r['verdict'] in ('applies', 'offsets') or r.get('three_way') == 'resolves'


def moved(rows):
    """(stack, patch, how) of each patch whose file moved: 'offsets' or
    '3way' (a 3-way merge resolved it), in drift's order."""
    for r in rows:
        if r.get('three_way') == 'resolves':
            yield r['stack'], r['patch'], '3way'
        elif r['verdict'] == 'offsets':
            yield r['stack'], r['patch'], 'offsets'


def what_changed(hows):
    """The CHANGELOG's words for one stack's moved patches [(patch, how)]."""
    merged = [p for p, how in hows if how == '3way']
    if not merged:
        return 'offsets only'
    what = '3-way merge of ' + ', '.join(merged)
    if any(how == 'offsets' for _, how in hows):
        what += '; offsets in the others'
    return what


def read_verdicts(path):
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
        doc['target']['name']
        for r in doc['patches']:
            r['stack'], r['patch'], r['verdict'], r['text']
    except OSError as e:
        raise Error(f'{path}: {e.strerror}') from None
    except (ValueError, KeyError, TypeError) as e:
        raise Error(f"{path}: not drift's verdicts ({e.__class__.__name__}: {e})") from None
    return doc


def same_file(a, b):
    with open(a, 'rb') as f, open(b, 'rb') as g:
        return f.read() == g.read()


class Refresh:
    def __init__(self, m, base, doc, patches, test=True, today=None):
        self.m = m
        self.base = base
        self.doc = doc
        self.patches = patches
        self.test = test
        self.today = today or datetime.date.today().isoformat()
        t = doc['target']
        self.target = t['name']
        self.tver = t.get('version') or ''
        self.tkind = t.get('kind') or 'tree'
        self.for_what = self.tver or f"Linux {t.get('kernel') or '?'} ({self.tkind} {self.target})"

    def series_dir(self, stack, base):
        return os.path.join(self.m.repo.root, stack, 'patches', base)

    @staticmethod
    def link_target(path):
        """The base a series link names (a trailing slash left out)."""
        return os.readlink(path).rstrip('/')

    def part(self, s, link, frm, v):
        """The series link LINK becomes a copy of the series FRM, at version
        V: a copy next to it first, then put in its place."""
        tmp = link + '.parting'
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(frm, tmp, symlinks=True)
        os.unlink(link)
        os.rename(tmp, link)
        other = os.path.basename(link)
        self.m.set_version(s, other, v)
        if v != int(self.m.get('stack', s, 'VERSION')):
            # a version of that base's own: its CHANGELOG entry, which
            # series-check and the cover's "Changes since" look for
            log = os.path.join(self.m.repo.root, s, 'CHANGELOG')
            meta.write_atomically(log, meta.changelog_with(
                log, f'v{v} on {other} ({self.today})\n- The series of v{v} as it was proven, now a series'
                f' of its own ({self.base} was refreshed).'))

    def unshare(self, s):
        """STACK's series on the base and another base's that are the same
        files (a link either way) part: each gets files of its own and
        keeps the version it had."""
        base = self.base
        v = self.m.stack_version(s, base)
        d = self.series_dir(s, base)
        parent = os.path.dirname(d)
        if os.path.islink(d):
            to = self.link_target(d)
            self.part(s, d, os.path.join(parent, to), v)
            print(f'{s}/patches/{base} was a link to {to}: now its own series (only {base} is refreshed)')
        for other in sorted(os.listdir(parent)):
            link = os.path.join(parent, other)
            if not (os.path.islink(link) and self.link_target(link) == base):
                continue
            self.part(s, link, d, v)
            print(f'{s}/patches/{other} was a link to {base}: now its own series, as it was proven')

    def saved(self, stacks):
        """A copy of what a refresh may write for STACKS (their STACK,
        CHANGELOG and patches/), to put back if it fails half way."""
        keep = tempfile.mkdtemp(prefix='kstacks-refresh.')
        for st in stacks:
            root = os.path.join(self.m.repo.root, st)
            os.makedirs(os.path.join(keep, st))
            for f in ('STACK', 'CHANGELOG'):
                if os.path.isfile(os.path.join(root, f)):
                    shutil.copy2(os.path.join(root, f), os.path.join(keep, st, f))
            shutil.copytree(os.path.join(root, 'patches'), os.path.join(keep, st, 'patches'), symlinks=True)
        return keep

    def restore(self, keep, stacks):
        for st in stacks:
            root = os.path.join(self.m.repo.root, st)
            for f in ('STACK', 'CHANGELOG'):
                src = os.path.join(keep, st, f)
                if os.path.isfile(src):
                    shutil.copy2(src, os.path.join(root, f))
                elif os.path.exists(os.path.join(root, f)):
                    os.unlink(os.path.join(root, f))
            shutil.rmtree(os.path.join(root, 'patches'))
            shutil.copytree(os.path.join(keep, st, 'patches'), os.path.join(root, 'patches'), symlinks=True)

    def run(self):
        rows = self.doc['patches']
        blockers = [blocker(r) for r in rows if not applies(r)]
        if blockers:
            print(f'refresh of base {self.base} onto {self.target}: nothing changed; these patches do not apply:')
            for b in blockers:
                print('  ' + b)
            return 1
        todo = list(moved(rows))
        # Every refreshed file is there before one is written.
        for s, p, _ in todo:
            if not os.path.isfile(os.path.join(self.patches, s, p)):
                raise Error(f'tools/drift wrote no refreshed {s}/{p}')
            if not os.path.isfile(os.path.join(self.series_dir(s, self.base), p)):
                raise Error(f'{s}/patches/{self.base}/{p}: no such patch in the series')
        changed = {}
        for s, p, how in todo:
            if not same_file(os.path.join(self.patches, s, p), os.path.join(self.series_dir(s, self.base), p)):
                changed.setdefault(s, []).append((p, how))
        # All of it or none: what is written is put back when a step fails
        # (a version the schema refuses, a CHANGELOG that cannot be read,
        # a full disk), so that a second run sees the series as they were.
        keep = self.saved(changed)
        try:
            for s, hows in changed.items():
                self.unshare(s)
                for p, _ in hows:
                    old = os.path.join(self.series_dir(s, self.base), p)
                    shutil.copyfile(os.path.join(self.patches, s, p), old)
                    print(f'refreshed {self.m.repo.name(old)}')
                what = what_changed(hows)
                how = self.m.bump(s, self.base, f'Base {self.base}: refreshed for {self.for_what}: {what}.',
                                  self.today)
                print(f'{s}: {how}, CHANGELOG: refreshed for {self.for_what}: {what}')
        except (Error, OSError, shutil.Error) as e:
            self.restore(keep, changed)
            self.m.__init__(self.m.repo)
            why = e if isinstance(e, Error) else f'{e.__class__.__name__}: {getattr(e, "strerror", None) or e}'
            raise Error(f'refresh of base {self.base} stopped, everything put back as it was: {why}') from None
        finally:
            shutil.rmtree(keep, ignore_errors=True)
        if changed:
            print(f"next: make series for the new versions ({', '.join(changed)})")
        else:
            print(f'no patch file of base {self.base} needed a refresh for {self.for_what}')
        return self.cell()

    def cell(self):
        """The cell, on the tree the tools build (the installed package);
        the new version is recorded as PROVEN only when it passed there."""
        base = self.base
        b = self.m.bases[base]
        package, proven = b['PACKAGE'], b.get('PROVEN', '')
        installed = self.m.found(base)
        cell = [s for s in self.m.stacks if self.m.supports(s, base)]
        cmd = ' '.join(['tools/test', base] + cell)
        keep = f"PROVEN stays {proven or 'not recorded'} in tools/bases/{base}.conf"
        if self.tkind != 'debian' or not self.tver:
            print(f'tools/bases/{base}.conf unchanged: {self.target} is not a Debian version')
            if cell:
                print(f'cell not run (--no-test): {cmd}' if not self.test else
                      f"cell not run: the tools build {package} {installed or '(not installed)'}, not {self.target}")
            return 0
        # PROVEN only for a version that was tested here: not with
        # --no-test, not for a version other than the one installed (even
        # when no stack is carried, there is nothing to vouch for then).
        if not self.test:
            print(f'cell not run (--no-test): {cmd}')
            if self.tver != proven:
                print(f'{keep}: it is recorded when the cell passes on {self.tver} (make refresh BASE={base} again)')
            return 0
        if self.tver != installed:
            print(f"cell not run: the tools build {package} {installed or '(not installed)'}, not {self.target};"
                  f' with {package} {self.tver} installed: {cmd}')
            if self.tver != proven:
                print(f'{keep}: it is recorded when the cell passes on {self.tver}')
            return 0
        if cell:
            sys.stdout.flush()
            if subprocess.run([os.path.join(self.m.repo.root, 'tools', 'test'), base] + cell).returncode != 0:
                print(f'{keep}: the cell failed on {self.tver} ({cmd})')
                return 1
        if self.tver == proven:
            return 0
        meta.set_value(self.m.repo, 'base', base, 'PROVEN', self.tver)
        print(f"tools/bases/{base}.conf: PROVEN={self.tver} (was {proven or 'not recorded'})"
              + (': the cell passed on it' if cell else ''))
        return 0


def run(args):
    sys.stdout.reconfigure(line_buffering=True)
    m = meta.Meta()
    m.get('base', args.base, 'PACKAGE')
    if not os.path.isdir(args.patches):
        raise Error(f'{args.patches}: no such directory')
    doc = read_verdicts(args.verdicts)
    if doc.get('base', args.base) != args.base:
        raise Error(f"{args.verdicts}: verdicts for base {doc['base']}, not {args.base}")
    return Refresh(m, args.base, doc, args.patches, test=not args.no_test).run()


def add_parser(sub):
    p = sub.add_parser('refresh', help="a base's stacks brought onto drift's verdicts (tools/refresh runs drift first)",
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.add_argument('base')
    p.add_argument('--verdicts', required=True, metavar='FILE', help="drift's verdicts (tools/drift --json FILE)")
    p.add_argument('--patches', required=True, metavar='DIR',
                   help='the patches drift refreshed against the target (tools/drift --write DIR)')
    p.add_argument('--no-test', action='store_true', help='do not run the cell (PROVEN stays as it was)')
    p.set_defaults(func=run)
