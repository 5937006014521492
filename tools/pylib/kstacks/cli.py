# SPDX-License-Identifier: GPL-2.0
"""kstacks COMMAND ...: the command line of the computing tools.

Every command is a function taking the parsed arguments and returning an
exit status; a kstacks.Error is one line on stderr and status 1, and a
command that fails that way has written nothing.
"""

import argparse
import datetime
import sys

from . import Error, drift, junit, kcidb, linecov, meta, recipients, refresh, series, summary

PROG = 'kstacks'


def cmd_meta(args):
    m = meta.Meta()
    if args.what == 'check':
        print(f'metadata: {len(m.stacks)} stacks, {len(m.bases)} bases, well-formed')
    elif args.what == 'dump':
        for line in m.dump():
            print(line)
    elif args.what == 'get':
        print(m.get(args.kind, args.name, args.key))
    elif args.what == 'version':
        m.get('base', args.base, 'PACKAGE')
        print(m.stack_version(args.stack, args.base))
    elif args.what == 'set':
        meta.set_value(m.repo, args.kind, args.name, args.key, args.value, after=args.after)
    elif args.what == 'set-version':
        m.set_version(args.stack, args.base, args.n)
    elif args.what == 'bump':
        print(m.bump(args.stack, args.base, args.changelog, datetime.date.today().isoformat()))
    return 0


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='command', metavar='COMMAND', required=True)

    s = sub.add_parser('meta', help='stack and base metadata, checked against the schema')
    ms = s.add_subparsers(dest='what', metavar='WHAT', required=True)
    ms.add_parser('check', help='every STACK file and base conf read against the schema')
    ms.add_parser('dump', help='all of it as KIND<TAB>NAME<TAB>KEY<TAB>VALUE lines (lib.sh reads them)')
    g = ms.add_parser('get', help='one value (empty when not set)')
    g.add_argument('kind', choices=('stack', 'base'))
    g.add_argument('name')
    g.add_argument('key')
    v = ms.add_parser('version', help="the version of a stack's series on a base")
    v.add_argument('stack')
    v.add_argument('base')
    w = ms.add_parser('set', help="write one value, the file read against the schema first ('' removes it)")
    w.add_argument('kind', choices=('stack', 'base'))
    w.add_argument('name')
    w.add_argument('key')
    w.add_argument('value')
    w.add_argument('--after', metavar='KEY', help='a new line goes after the line of KEY (default: the end)')
    w = ms.add_parser('set-version', help="the version of a stack's series on a base is N (BASE_VERSIONS)")
    w.add_argument('stack')
    w.add_argument('base')
    w.add_argument('n', type=int)
    w = ms.add_parser('bump', help="a new version of a stack's series on a base, with its CHANGELOG entry")
    w.add_argument('stack')
    w.add_argument('base')
    w.add_argument('--changelog', metavar='TEXT', required=True, help="the entry's text (after '- ')")
    s.set_defaults(func=cmd_meta)

    summary.add_parser(sub)
    kcidb.add_parser(sub)
    recipients.add_parser(sub)
    drift.add_parser(sub)
    refresh.add_parser(sub)
    series.add_parser(sub)
    junit.add_parser(sub)
    linecov.add_parser(sub)
    return p


def main(argv=None):
    p = parser()
    # argparse's own errors (a missing value, an unknown command) are two
    # lines; make them one, like every tool of the workbench.
    _one_line_errors(p)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except Error as e:
        print(f'{PROG} {args.command}: error: {e}', file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except (OSError, UnicodeError) as e:
        # a file that cannot be read or written where no check foresaw it:
        # still one line
        print(f'{PROG} {args.command}: error: {e}', file=sys.stderr)
        return 1


def _one_line_errors(p):
    """Every parser and sub-parser reports a usage error in one line."""
    p.error = lambda message: _usage_error(p, message)
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sp in action.choices.values():
                _one_line_errors(sp)


def _usage_error(p, message):
    print(f'{p.prog}: error: {message} (--help for usage)', file=sys.stderr)
    sys.exit(2)
