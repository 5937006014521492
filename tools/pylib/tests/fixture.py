# SPDX-License-Identifier: GPL-2.0
"""A made-up repository for the tests: two bases, three stacks."""

import os
import tempfile

BASE_61 = '''# a comment
PACKAGE=linux-source-6.1
SUITE=bookworm-security
PROVEN=6.1.192-3   # trailing comment
LIST=debian-kernel@lists.debian.org
COVERAGE="amd64 no-thp"
IN_CHECK="core"
'''

BASE_RT = '''PACKAGE=linux-source-6.1
SUITE=bookworm-security
SOURCE=6.1
'''

STACKS = {
    'core': 'VERSION=4\nSUMMARY="helpers \\"shared\\" by \\$others"\nUPSTREAM="6.1-rt"\n',
    'mm-bulk': 'VERSION=8\nDEPENDS="core"\nBASE_VERSIONS="6.1:9"\n'
               'UPSTREAM_PROBE="mm/page_alloc.c:^unsigned long (a|b)\\("\n',
    'mm-bulk-fallbacks': 'VERSION=1\nDEPENDS="mm-bulk core"\nPENDING="6.1"\n',
}


class Repo:
    """A temporary repository; .root is its path."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write('tools/bases/6.1.conf', BASE_61)
        self.write('tools/bases/6.1-rt.conf', BASE_RT)
        for s, text in STACKS.items():
            self.write(f'{s}/STACK', text)
            self.write(f'{s}/patches/6.1/series', '0001-a.patch\n')
        os.symlink('6.1', os.path.join(self.root, 'mm-bulk', 'patches', '6.1-rt'))

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)
        return full

    def append(self, path, text):
        with open(os.path.join(self.root, path), 'a', encoding='utf-8') as f:
            f.write(text)

    def cleanup(self):
        self.tmp.cleanup()
