#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""export -f blktrace against its definition.

   btorder.py CSV PREFIX

CSV is export -f csv of a trace (its records in start order, the order
whose index breaks ties), PREFIX the CPU files export -f blktrace wrote of
the same trace.  A record's events are Q (issue - queue time, or the issue
time when it has none) and D (issue) on the issuing CPU and C (completion) on the completing
CPU; each CPU file holds its events in (time, record, kind) order, times
from the earliest event of all, numbered from 1 (process notifies aside).
Prints what differs first and exits 1, else a summary.
"""
import csv
import glob
import struct
import sys

RF_COMPLETE, RF_NO_ISSUE, RF_QUEUE_VALID = 1 << 0, 1 << 7, 1 << 8
ACT = (1, 7, 8)                 # queue, issue, complete
NOTIFY = 1 << 26                # BLK_TN_PROCESS


def wanted(path):
    ev = []
    rows = 0
    for i, r in enumerate(csv.DictReader(open(path))):
        rows += 1
        fl = int(r['rflags'])
        iss, com = int(r['issue_ns'] or 0), int(r['complete_ns'] or 0)
        # no sector ("" in the CSV): UINT64_MAX in the event
        q, sec = int(r['queue_ns'] or 0), int(r['sector'] or 2**64 - 1)
        if not fl & RF_NO_ISSUE:
            # queued at its issue when it has no queue time (Q2D 0)
            qt = iss - q if fl & RF_QUEUE_VALID and iss >= q else iss
            ev.append((qt, i, 0, int(r['issue_cpu']), sec))
            ev.append((iss, i, 1, int(r['issue_cpu']), sec))
        if fl & RF_COMPLETE:
            ev.append((com, i, 2, int(r['complete_cpu']), sec))
    ev.sort()
    t0 = ev[0][0] if ev else 0
    per_cpu = {}
    for t, _, k, cpu, sec in ev:
        per_cpu.setdefault(cpu, []).append((t - t0, sec, ACT[k]))
    return rows, len(ev), per_cpu


def written(prefix):
    per_cpu = {}
    for f in glob.glob(glob.escape(prefix) + '.blktrace.*'):
        cpu = int(f.rsplit('.', 1)[1])
        b = open(f, 'rb').read()
        o, n, lst = 0, 0, []
        while o + 48 <= len(b):
            (_, seq, t, sec, _, act, _, _, c, _,
             pdu) = struct.unpack_from('=IIQQIIIIIHH', b, o)
            o += 48 + pdu
            if act == NOTIFY:
                continue
            n += 1
            if seq != n or c != cpu:
                sys.exit('%s: event %d has sequence %d, cpu %d' %
                         (f, n, seq, c))
            lst.append((t, sec, act & 0xffff))
        if o != len(b):
            sys.exit('%s: %d bytes after the last event' % (f, len(b) - o))
        if lst:
            per_cpu[cpu] = lst
    return per_cpu


def main():
    rows, n, want = wanted(sys.argv[1])
    got = written(sys.argv[2])
    for cpu in sorted(set(want) | set(got)):
        w, g = want.get(cpu, []), got.get(cpu, [])
        for j in range(max(len(w), len(g))):
            a = w[j] if j < len(w) else None
            b = g[j] if j < len(g) else None
            if a != b:
                sys.exit('cpu %d, event %d: (time, sector, action) %s '
                         'wanted, %s written' % (cpu, j + 1, a, b))
    print('%d records, %d events, each CPU file in order' % (rows, n))


if __name__ == '__main__':
    main()
