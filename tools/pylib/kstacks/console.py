# SPDX-License-Identifier: GPL-2.0
"""A guest's console log read as text, and the lines of one test in it.

Text is handled as bytes (latin-1 strings: one character a byte), as the
shell tools read it, and made UTF-8 only where it leaves for a results
file (excerpt()).
"""

import re

# Where the guest's part of a console log begins (lib.sh's GUEST_BEGIN):
# the kernel's "Run /init" line or the init's own marker; it ends at
# kstacks-tests-end.
GUEST_BEGIN = re.compile('Run /init as init process|kstacks-tests-begin')
GUEST_END = re.compile('kstacks-tests-end')
_KLOG = re.compile(r'\[ *[0-9]+\.[0-9]+\] ')
_RESULT = re.compile(r'(not )?ok [0-9]+ ')
# The schema's limit for a log_excerpt.
EXCERPT_BYTES = 16000


def read(path):
    """The file as a latin-1 string ('' when it cannot be read)."""
    try:
        with open(path, 'rb') as f:
            return f.read().decode('latin-1')
    except OSError:
        return ''


def lines(text):
    """TEXT split into lines as awk reads them (no empty last one)."""
    out = text.split('\n')
    if out and out[-1] == '':
        out.pop()
    return out


def text(path):
    """A console log as lines of text (lib.sh's console_text): carriage
    returns dropped, and a line of the init that a kernel message cut in
    two ("not ok 9 io_urin[   40.1] ...", then "g-coalesce... # exit 1")
    made whole again, the message after it. A test's own output ("# ...")
    is left as it is: it may quote the kernel's log."""
    out = []
    cut = ''
    held = []
    for line in lines(read(path).replace('\r', '')):
        if cut:
            if _KLOG.match(line):
                held.append(line)
                continue
            line, cut = cut + line, ''
        m = _KLOG.search(line)
        if not line.startswith('#') and m and m.start() > 0:
            cut = line[:m.start()]
            held.append(line[m.start():])
            continue
        out.append(line)
        out.extend(held)
        held = []
    if cut:
        out.append(cut)
    out.extend(held)
    return out


def utf8(text):
    """A latin-1 string (bytes read) as the UTF-8 text it holds."""
    return text.encode('latin-1').decode('utf-8', 'replace')


def excerpt(text):
    """TEXT as a log_excerpt: no NUL or CR, its last 16000 bytes, no
    newline at the end, UTF-8 (a character cut in two replaced)."""
    return utf8(text.replace('\0', '').replace('\r', '')[-EXCERPT_BYTES:]).rstrip('\n')


def guest_excerpt(path, test):
    """The output of guest test TEST in a console log, up to its TAP line."""
    buf = ''
    inside = False
    for line in text(path):
        if not inside:
            if not GUEST_BEGIN.search(line):
                continue
            inside = True
        elif GUEST_END.search(line):
            inside = False
        if _RESULT.match(line):
            # "ok N NAME" or "not ok N NAME"; a line cut short names none
            f = line.split()[1:] if line.startswith('not ') else line.split()
            n = f[2] if len(f) > 2 else ''
            if n == test:
                return excerpt(buf + line + '\n')
            buf = ''
            continue
        buf += line + '\n'
    return ''


def kunit_excerpt(path, suite, case):
    """The KTAP lines of KUnit case SUITE.CASE, up to its result line
    ("ok 1 name" or, in older KTAP as 5.10's, "ok 1 - name")."""
    buf = ''
    in_suite = False
    for line in text(path):
        line = re.sub(r'^\[ *[0-9.]*\] ', '', line)
        bare = line.lstrip(' \t')
        if bare == '# Subtest: ' + suite:
            in_suite = True
            buf = ''
            continue
        if not in_suite:
            continue
        if _RESULT.match(bare):
            n = re.sub(r'^(not )?ok [0-9]+ (- )?', '', bare).split(' ')[0]
            if n == case:
                return excerpt(buf + line + '\n')
            if n == suite:
                return ''
            buf = ''
            continue
        buf += line + '\n'
    return ''
