# SPDX-License-Identifier: GPL-2.0
"""kstacks.recipients: To and Cc of backport and mainline series."""

import os
import unittest

from kstacks import Error, meta, recipients

from . import fixture

# A get_maintainer.pl that answers from its options: maintainers (--m
# alone), reviewers and lists (--r --l), lists (--l alone), for any file.
GET_MAINTAINER = r'''#!/usr/bin/perl
my %o = map { $_ => 1 } @ARGV;
my @out;
if ($o{'--m'} && $o{'--nor'} && $o{'--nol'}) {
    push @out, 'Mae Maintainer <mae@kernel.invalid>';
    push @out, 'Rob Both <rob@maint.invalid>' if grep { /0002|\.patch$/ && !/0001/ } @ARGV;
} elsif ($o{'--r'} && $o{'--l'}) {
    push @out, 'Rob Both <rob@reviewer.invalid>', 'Mae Maintainer <mae@other.invalid>',
        'linux-mm@kvack.org', 'linux-kernel@vger.kernel.org';
} elsif ($o{'--l'}) {
    push @out, 'linux-mm@kvack.org', 'linux-kernel@vger.kernel.org';
}
print "$_\n" for @out;
'''

PATCH = '''From: kstacks <kstacks@kstacks.invalid>
Subject: [PATCH] mm: a change with a long subject
References: 0123456789ab ("mm: upstream", v6.3); 89abcdef0123 ("x", v6.4)

body
'''

MAIL = '''From: A Sender <sender@kstacks.invalid>
Subject: [PATCH 6.1 v2 1/1] mm: a change with a long
 subject

body
'''


class RecipientsTest(unittest.TestCase):

    def setUp(self):
        self.repo = fixture.Repo()
        self.addCleanup(self.repo.cleanup)
        r = self.repo
        r.write('core/patches/6.1/series', '0001-a.patch\n')
        r.write('core/patches/6.1/0001-a.patch', PATCH)
        r.write('core/upstream.tsv', '# kind\tid\n'
                'equivalent\t0123456789ab\tmm: upstream\tv6.3\tUp Author <up@kernel.invalid>, Other <o@x.invalid>\n'
                'equivalent\t89abcdef0123\tx\tv6.4\tno address here\n'
                'fix\t0123456789ab\tmm: upstream\tv6.3\tFixer <fix@kernel.invalid>\n')
        self.tree = os.path.join(r.root, 'tree')
        r.write('tree/MAINTAINERS', '')
        os.chmod(r.write('tree/scripts/get_maintainer.pl', GET_MAINTAINER), 0o755)
        self.mail = r.write('mail.eml', MAIL)
        cwd = os.getcwd()
        os.chdir(self.tree)
        self.addCleanup(os.chdir, cwd)
        self.m = meta.Meta(meta.Repo(r.root))

    def rec(self, base='6.1', stack='core'):
        return recipients.Recipients(self.m, base, stack)

    def test_backport_to(self):
        """a backport goes to the base's LIST, the Debian list without one"""
        self.assertEqual(self.rec().to(self.mail), ['debian-kernel@lists.debian.org'])
        self.repo.write('tools/bases/6.1.conf', fixture.BASE_61.replace(
            'LIST=debian-kernel@lists.debian.org', 'LIST=stable@vger.kernel.org'))
        self.assertEqual(recipients.Recipients(meta.Meta(meta.Repo(self.repo.root)), '6.1', 'core')
                         .to(self.mail), ['stable@vger.kernel.org'])

    def test_backport_cc(self):
        """Cc: the equivalents' authors (not a fix's) and the lists, not LKML"""
        self.assertEqual(self.rec().cc(self.mail), ['Up Author <up@kernel.invalid>', 'linux-mm@kvack.org'])

    def test_backport_cc_other_subject(self):
        """a mail of no stored patch: the lists only"""
        other = self.repo.write('other.eml', MAIL.replace('a change', 'another change'))
        self.assertEqual(self.rec().cc(other), ['linux-mm@kvack.org'])

    def test_mainline(self):
        """mainline: To the maintainers; a reviewer who maintains a patch of
        the series at the maintainer's address, none already in To:"""
        self.repo.write('tools/bases/7.3.conf', 'PACKAGE=linux-source-7.3\nSUITE=x\nMAINLINE=yes\n')
        self.repo.write('core/patches/7.3/series', '0001-a.patch\n0002-b.patch\n')
        self.repo.write('core/patches/7.3/0001-a.patch', PATCH)
        self.repo.write('core/patches/7.3/0002-b.patch', PATCH)
        r = recipients.Recipients(meta.Meta(meta.Repo(self.repo.root)), '7.3', 'core')
        self.assertEqual(r.to(self.mail), ['Mae Maintainer <mae@kernel.invalid>'])
        self.assertEqual(r.cc(self.mail), ['Rob Both <rob@maint.invalid>', 'linux-mm@kvack.org',
                                           'linux-kernel@vger.kernel.org'])

    def test_reviewer_name_inside_another(self):
        """a reviewer whose name ends another maintainer's name is not taken for him"""
        self.repo.write('tools/bases/7.3.conf', 'PACKAGE=linux-source-7.3\nSUITE=x\nMAINLINE=yes\n')
        self.repo.write('core/patches/7.3/series', '0002-b.patch\n')
        self.repo.write('core/patches/7.3/0002-b.patch', PATCH)
        gm = os.path.join(self.tree, 'scripts', 'get_maintainer.pl')
        with open(gm, encoding='utf-8') as f:
            text = f.read()
        with open(gm, 'w', encoding='utf-8') as f:
            f.write(text.replace("'Rob Both <rob@maint.invalid>'", "'Bob Rob Both <bob@maint.invalid>'"))
        r = recipients.Recipients(meta.Meta(meta.Repo(self.repo.root)), '7.3', 'core')
        self.assertIn('Rob Both <rob@reviewer.invalid>', r.cc(self.mail))
        self.assertNotIn('Bob Rob Both <bob@maint.invalid>', r.cc(self.mail))

    def test_maintainers(self):
        self.assertEqual(self.rec().maintainers(), [('0001-a.patch', 'Mae Maintainer <mae@kernel.invalid>')])

    def test_not_a_tree(self):
        """outside a kernel tree: one line"""
        os.chdir(self.repo.root)
        with self.assertRaisesRegex(Error, 'not at the top of a kernel tree'):
            self.rec().cc(self.mail)

    def test_missing_patch(self):
        """a series naming a patch that is not there: one line"""
        self.repo.append('core/patches/6.1/series', 'nosuch.patch\n')
        with self.assertRaisesRegex(Error, 'names a missing patch: core/patches/6.1/nosuch.patch'):
            self.rec().cc(self.mail)

    def test_unknown(self):
        with self.assertRaisesRegex(Error, "unknown base '9.9'"):
            self.rec(base='9.9')
        with self.assertRaisesRegex(Error, "unknown stack 'nosuch'"):
            self.rec(stack='nosuch')

    def test_header(self):
        """header lines: a folded one joined, the body not read"""
        self.assertEqual(recipients.mail_subject(MAIL), 'mm: a change with a long subject')
        self.assertEqual(recipients.header(PATCH, 'References').split('; ')[1], '89abcdef0123 ("x", v6.4)')
        self.assertEqual(recipients.header('A: 1\n\nReferences: x\n', 'References'), '')


if __name__ == '__main__':
    unittest.main()
