# SPDX-License-Identifier: GPL-2.0
"""kstacks recipients to|cc|maintainers BASE STACK: who a generated series
goes to, for b4.

tools/series points b4.send-auto-to-cmd and b4.send-auto-cc-cmd here, and
b4 runs it once per patch mail of the series, the mail on stdin, at the
top of the git tree of the base that holds the series (its MAINTAINERS as
the series leaves it).

A series for a Debian LTS base is a backport series:
  To: the list of the base: LIST in tools/bases/BASE.conf, the Debian
      kernel team's list when it is not set;
  Cc: the authors of the upstream commits the patch is the equivalent of
      (its References: line names them; STACK/upstream.tsv has them as
      "equivalent" rows with their addresses, mapped through the newest
      base's .mailmap as get_maintainer.pl maps), and the subsystem lists
      that the base's scripts/get_maintainer.pl gives for the files it
      touches (lists only; linux-kernel@vger.kernel.org, which it gives
      for every file, is left out).
A series for a mainline base (MAINLINE=yes in its conf) is a [PATCH]
series for the subsystem maintainers, addressed as the base tree's own
scripts/get_maintainer.pl says for the patch:
  To: its maintainers (M:);
  Cc: its reviewers (R:) and lists (L:), linux-kernel@vger.kernel.org
      among them; a reviewer who is also a maintainer of a patch of the
      series (by name) is named at the maintainer's address, and not at
      all when already in To:.
One address a line, as b4 reads them.

"maintainers" prints, for each patch of STACK on BASE, its file name and
the maintainers get_maintainer.pl names for it (M: only): tools/series
warns when one mainline series would go to more than one maintainer.
"""

import os
import re
import subprocess
import sys
import tempfile

from . import REPO, Error, meta

DEBIAN_LIST = 'debian-kernel@lists.debian.org'
LKML = 'linux-kernel@vger.kernel.org'
_ADDRESS = re.compile(r'^[^<>]*[^<> ] <[^<>@ ]+@[^<> ]+>')


def get_maintainer(*args):
    """scripts/get_maintainer.pl of the tree we are at the top of: its lines."""
    if not (os.path.isfile('scripts/get_maintainer.pl') and os.path.isfile('MAINTAINERS')):
        raise Error(f'not at the top of a kernel tree (no scripts/get_maintainer.pl in {os.getcwd()})')
    r = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--nogit', '--nogit-fallback',
                        '--no-rolestats', *args], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise Error(f"get_maintainer.pl failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return [line for line in r.stdout.splitlines() if line]


def header(text, name):
    """Header NAME of a mail or stored patch (the lines before the first
    empty one), continuation lines joined; '' when it has none."""
    val = None
    on = False
    for line in text.split('\n'):
        if not line.strip():
            break
        if line[:1] in (' ', '\t'):
            if on:
                val += ' ' + line.lstrip(' \t')
            continue
        on = False
        if line.startswith(name + ':'):
            on = True
            val = line[len(name) + 1:].lstrip(' \t')
    return val or ''


def mail_subject(text):
    """The subject of a patch mail without its [PATCH ...] prefix (a long
    Subject: is folded in the mail: its lines joined as they are)."""
    subj = ''
    on = False
    for line in text.split('\n'):
        if not line.strip():
            break
        if line[:1] in (' ', '\t'):
            if on:
                subj += line
            continue
        on = line.startswith('Subject:')
        if on:
            subj = line[len('Subject:'):]
    return re.sub(r'^ *\[[^]]*\] *', '', subj)


def patch_refs(patch):
    """The upstream ids a stored patch's References: line names."""
    with open(patch, encoding='utf-8', errors='replace') as f:
        refs = header(f.read(), 'References')
    return re.findall(r'(?:^|; )([0-9a-f]{12}) \(', refs)


class Recipients:

    def __init__(self, m, base, stack):
        self.m = m
        self.base = base
        self.stack = stack
        m.get('base', base, 'PACKAGE')
        m.get('stack', stack, 'VERSION')

    def mainline(self):
        return self.m.get('base', self.base, 'MAINLINE') == 'yes'

    def to(self, mail):
        if self.mainline():
            return get_maintainer('--m', '--nor', '--nol', mail)
        return [self.m.get('base', self.base, 'LIST') or DEBIAN_LIST]

    def cc(self, mail):
        if self.mainline():
            return self.mainline_cc(mail)
        with open(mail, encoding='utf-8', errors='replace') as f:
            subject = mail_subject(f.read())
        # The stored patch this mail was made from: the same subject.
        patch = None
        for p in self.m.patches(self.stack, self.base):
            if not os.path.isfile(p):
                raise Error(f'stack {self.stack}: series for {self.base} names a missing patch:'
                            f' {self.m.repo.name(p)}')
            with open(p, encoding='utf-8', errors='replace') as f:
                for line in f:
                    if line.startswith('Subject: [PATCH] '):
                        if line.rstrip('\n')[len('Subject: [PATCH] '):] == subject:
                            patch = p
                        break
        out = []
        if patch:
            authors = set()
            for ref in patch_refs(patch):
                for row in self.m.upstream_rows(self.stack, 'equivalent'):
                    if len(row) > 4 and row[1] == ref:
                        a = _ADDRESS.match(row[4])
                        if a:
                            authors.add(a.group(0))
            out += [self.mailmapped(a) for a in sorted(authors, key=lambda a: a.encode())]
        return out + [a for a in get_maintainer('--nom', '--nor', '--l', mail) if a != LKML]

    def mailmapped(self, address):
        """ADDRESS through the newest base's .mailmap, as get_maintainer.pl maps."""
        cfg = []
        for b in reversed(list(self.m.bases)):
            mm = os.path.join(self.m.base_src(b), '.mailmap')
            if os.path.isfile(mm):
                cfg = ['-c', 'mailmap.file=' + mm]
                break
        r = subprocess.run(['git', '-C', REPO, *cfg, 'check-mailmap', address],
                           capture_output=True, text=True, check=False)
        return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else address

    def mainline_cc(self, mail):
        # A maintainer of one file of the series may be a reviewer of
        # another, under another address: one address for one person
        # across the series, the maintainer's.
        to = get_maintainer('--m', '--nor', '--nol', mail)
        maint = get_maintainer('--m', '--nor', '--nol', *self.m.patches(self.stack, self.base))
        out = []
        for a in get_maintainer('--nom', '--r', '--l', mail):
            name = a.split(' <', 1)[0]
            if name != a:
                a = next((x for x in maint if x.startswith(name + ' <')), a)
                if a in to:
                    continue
            out.append(a)
        return out

    def maintainers(self):
        """(patch file name, its maintainers joined by ', ') per patch."""
        return [(os.path.basename(p), ', '.join(sorted(get_maintainer('--m', '--nor', '--nol', p),
                                                       key=lambda a: a.encode())))
                for p in self.m.patches(self.stack, self.base)]


def run(args):
    r = Recipients(meta.Meta(), args.base, args.stack)
    if args.what == 'maintainers':
        for name, who in r.maintainers():
            print(f'{name}\t{who}')
        return 0
    with tempfile.NamedTemporaryFile('wb', prefix='kstacks-mail.') as f:
        f.write(sys.stdin.buffer.read())
        f.flush()
        for a in (r.to if args.what == 'to' else r.cc)(f.name):
            print(a)
    return 0


def add_parser(sub):
    p = sub.add_parser('recipients', help="who a generated series goes to (b4's send-auto-to/cc-cmd)",
                       description=__doc__.split('\n\n')[1].replace('\n', ' '))
    p.add_argument('what', choices=('to', 'cc', 'maintainers'),
                   help='To: or Cc: of the patch mail on stdin, or the maintainers of each patch')
    p.add_argument('base')
    p.add_argument('stack')
    p.set_defaults(func=run)
