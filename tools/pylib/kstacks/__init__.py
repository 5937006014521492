# SPDX-License-Identifier: GPL-2.0
"""kstacks: the workbench's tools that parse, validate and compute.

The shell tools (tools/*) stay glue around make, quilt and qemu; what
reads metadata, computes verdicts and writes results lives here, behind
one command line, tools/kstacks (kstacks.cli).
"""

import os

# The repository: tools/pylib/kstacks/ is three levels below it.
REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))


class Error(Exception):
    """A problem the user must fix: printed as one line, exit status 1."""
