#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two blkparse listings of the same I/O request by request.

usage: d2ccmp.py EXPORT.txt REAL.txt PCT

Each listing is blkparse's default text output.  In each, a D (issue)
event opens a request and the next C (complete) event of the same
direction, sector and length closes it.  The requests of the two listings
are paired by direction, sector and length, in issue order.  Prints one
summary line and, for the requests whose device times differ most, both
times.  Requests for blocks already in flight are left out (which C
closes which D is ambiguous).  Exits 0 when every request of either
listing has its pair, at most 10% are left out, at least 80% of the
pairs have device times within PCT percent of the real blktrace's (or
within 2 us: both tracers read the clock at the same tracepoint, one
probe after the other), and the median difference is at most 3% of the
median device time (an offset or a scale error fails here).

An average (btt's D2C) is no oracle on an emulated machine: the first
requests run both tracers' code for the first time, and QEMU (TCG)
translates it then, up to milliseconds between the two probes of one
request; that moves a 1500-request average by several percent.  Request
by request, it is a few outliers.
"""
import sys

SLACK_US = 2.0
MEDIAN_PCT = 3.0


def requests(path):
    """Return ({(dir, sector, len): [(D2C in us, nth issued), ...]}, in
    issue order; the number of events without a pair; the keys issued
    again while in flight).
    """
    open_ = {}
    done = {}
    twice = set()
    unmatched = 0
    with open(path) as f:
        for line in f:
            fld = line.split()
            if len(fld) < 10 or fld[5] not in ("D", "C") or fld[8] != "+":
                continue
            rwbs = fld[6]
            op = "R" if "R" in rwbs else "W" if "W" in rwbs else rwbs
            key = (op, int(fld[7]), int(fld[9]))
            t = float(fld[3])
            if fld[5] == "D":
                if open_.get(key):
                    twice.add(key)
                open_.setdefault(key, []).append(t)
            elif open_.get(key):
                d = open_[key].pop(0)
                done.setdefault(key, []).append((d, (t - d) * 1e6))
            else:
                unmatched += 1
    order = sorted(d for v in done.values() for d, _ in v)
    rank = {d: i + 1 for i, d in enumerate(order)}
    for key in done:
        done[key] = [(d2c, rank[d]) for d, d2c in sorted(done[key])]
    unmatched += sum(len(v) for v in open_.values())
    return done, unmatched, twice


def main():
    exp, exp_open, exp_twice = requests(sys.argv[1])
    real, real_open, real_twice = requests(sys.argv[2])
    pct = float(sys.argv[3])
    pairs = []
    lone = exp_open + real_open
    # Two requests for the same blocks in flight at once: which C closes
    # which D is not in the listing; leave them out of the comparison.
    twice = exp_twice | real_twice
    skipped = 0
    for key in set(exp) | set(real):
        a, b = exp.get(key, []), real.get(key, [])
        lone += abs(len(a) - len(b))
        if key in twice:
            skipped += min(len(a), len(b))
            continue
        pairs += [(key, x[0], y[0], y[1]) for x, y in zip(a, b)]
    if not pairs:
        print("# d2ccmp: no requests")
        return 1
    diffs = sorted(abs(x - y) for _, x, y, _ in pairs)
    close = sum(1 for _, x, y, _ in pairs
                if abs(x - y) <= max(y * pct / 100, SLACK_US))
    real_d2c = sorted(y for _, _, y, _ in pairs)
    med = real_d2c[len(real_d2c) // 2]
    print("# d2ccmp: %d requests paired, %d without a pair, %d left out"
          " (same blocks in flight twice); real D2C median %.1f us;"
          " |export - real| median %.2f us, 95th %.2f us, max %.1f us;"
          " %d (%.1f%%) within %g%%"
          % (len(pairs), lone, skipped, med, diffs[len(diffs) // 2],
             diffs[int(len(diffs) * 0.95)], diffs[-1], close,
             100.0 * close / len(pairs), pct))
    worst = sorted(pairs, key=lambda p: -abs(p[1] - p[2]))[:3]
    for key, x, y, nth in worst:
        print("# d2ccmp: %s %d + %d, request %d issued: export %.1f us,"
              " real %.1f us" % (key + (nth, x, y)))
    return 0 if (lone == 0 and len(pairs) >= 0.9 * (len(pairs) + skipped)
                 and close >= 0.8 * len(pairs)
                 and diffs[len(diffs) // 2] <= med * MEDIAN_PCT / 100) else 1


if __name__ == "__main__":
    sys.exit(main())
