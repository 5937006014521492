# SPDX-License-Identifier: GPL-2.0
"""Where the results of a run are: out/ (KSTACKS_OUT), its cells' results.tsv."""

import glob
import os
import re

from . import REPO


def out_dir():
    return os.environ.get('KSTACKS_OUT') or os.path.join(REPO, 'out')


def read_tsv(path):
    """Records of a results file: (status, name, why) per line."""
    rows = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f.read().splitlines():
            if not line:
                continue
            fields = line.split('\t')
            rows.append((fields[0], fields[1] if len(fields) > 1 else '',
                         fields[2] if len(fields) > 2 else ''))
    return rows


def newest_cell(out, base, stack, kind='cells', name='results.tsv'):
    """The newest out/KIND/BASE/*/NAME (results.tsv of a cell; linecov.json
    of a line coverage run) of a cell of BASE that holds STACK (a cell's
    directory is its stacks joined by '+'), or None."""
    found = glob.glob(os.path.join(out, kind, base, '*', name))
    found.sort(key=os.path.getmtime, reverse=True)
    for r in found:
        if stack in os.path.basename(os.path.dirname(r)).split('+'):
            return r
    return None


# tools/suite's result directories: KIND, KIND-latency (the latency
# flavour), KIND-icount (an instruction-counted guest), KIND-latency-icount.
_SUITE_KIND = re.compile(r'(vanilla|patched)(-latency)?(-icount)?')


def suite_kind(dirname):
    """(kind, flavour, icount) of a tools/suite result directory's name:
    ('vanilla' or 'patched', 'debug' or 'latency', bool); None for any
    other name."""
    m = _SUITE_KIND.fullmatch(dirname)
    if not m:
        return None
    return m.group(1), 'latency' if m.group(2) else 'debug', bool(m.group(3))
