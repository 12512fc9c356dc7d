#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The man page against the commands' option tables.

doccheck.py RST OPTS: OPTS has a line per command of the dispatch table,
"COMMAND OPTION...", an option as --long or -s=--long (from the
command's --help).  Every command must have a SYNOPSIS line and a
section under COMMANDS, and every option of a command must be named
(either spelling) in that command's SYNOPSIS lines or section, or, for a
command whose synopsis takes *filters*, under FILTERS.  Prints what is
missing and exits 1, or exits 0.
"""
import re
import sys

HEADING = re.compile(r'^[A-Z][A-Z ]+$')


def sections(rst):
    """COMMANDS: the lines of each command's section, by command."""
    sect = {}
    cur = []
    start = rst.index('COMMANDS') if 'COMMANDS' in rst else 0
    for line in rst[start + 1:]:
        # "**name**" (or "**a**, **b**, **c**" for one shared section)
        m = re.match(r'^\*\*([a-z][a-z-]*)\*\*((, \*\*[a-z-]+\*\*)*)', line)
        if m:
            cur = [m.group(1)] + re.findall(r'\*\*([a-z-]+)\*\*',
                                             m.group(2))
            for c in cur:
                sect.setdefault(c, [])
        elif HEADING.match(line):
            break
        for c in cur:
            sect[c].append(line)
    return sect


def filters(rst):
    """The FILTERS section's text."""
    if 'FILTERS' not in rst:
        return ''
    out = []
    for line in rst[rst.index('FILTERS') + 2:]:
        if HEADING.match(line):
            break
        out.append(line)
    return '\n'.join(out)


def synopsis(syn, cmd):
    """The SYNOPSIS lines of @cmd ("**a**\\|\\ **b**" names several)."""
    pat = re.compile(r'^\| \*\*iotracectl\*\* (\*\*[a-z-]+\*\*\\\|\\ )*'
                     r'\*\*%s\*\*' % re.escape(cmd))
    return [l for l in syn
            if pat.match(l.replace('**iotracectl ', '**iotracectl** **', 1))]


def main():
    rst = open(sys.argv[1], encoding='utf-8').read().split('\n')
    syn = [l for l in rst if l.startswith('| **iotracectl ')]
    sect = sections(rst)
    filt = filters(rst)
    bad = []
    for line in open(sys.argv[2], encoding='utf-8'):
        words = line.split()
        if not words:
            continue
        cmd, opts = words[0], words[1:]
        cs = synopsis(syn, cmd)
        if not cs:
            bad.append('command %s: no SYNOPSIS line' % cmd)
        if cmd not in sect:
            bad.append('command %s: no section under COMMANDS' % cmd)
        text = '\n'.join(cs + sect.get(cmd, []))
        for o in opts:
            forms = o.split('=')
            if '--help' in forms:
                continue
            if any('**%s**' % f in text for f in forms):
                continue
            if '*filters*' in text and \
               any('**%s**' % f in filt for f in forms):
                continue
            bad.append('command %s: %s is not in its SYNOPSIS lines, its '
                       'section or (a command with filters) FILTERS' %
                       (cmd, o))
    print('\n'.join(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
