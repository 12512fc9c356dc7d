#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""diff's numbers and their change column against the records.

   diffcheck.py A.csv B.csv DIFF.json DIFF.txt

A.csv and B.csv are export -f csv of the two sides, DIFF.json and
DIFF.txt the output of diff -o json and diff on them (sides small enough
for exact latencies: 262,144 requests or fewer).  Computed here from the
records alone: per operation and size class (or all sizes) the requests,
IOPS over the side's span (earliest start to latest completion, or start
without one), the mean latency, the nearest-rank p50, p90 and p99
(ceil(p/100 n)), the maximum, and B's change relative to A in percent,
none where A is 0 or a side has no latency.  Prints what differs first
and exits 1.
"""
import csv
import math
import sys

RF_COMPLETE, RF_NO_ISSUE = 1 << 0, 1 << 7
NAMES = ("count", "iops", "avg", "p50", "p90", "p99", "max")
TEXT = ("count", "IOPS", "avg_us", "p50_us", "p90_us", "p99_us", "max_us")


def side(path):
    recs = []
    t0, t1 = None, None
    for r in csv.DictReader(open(path)):
        fl = int(r["rflags"])
        start = int(r["complete_ns"]) if fl & RF_NO_ISSUE else int(r["issue_ns"])
        end = int(r["complete_ns"]) if fl & RF_COMPLETE else start
        t0 = start if t0 is None else min(t0, start)
        t1 = end if t1 is None else max(t1, end)
        lat = int(r["latency_ns"]) if r["latency_ns"] != "" else None
        recs.append((r["op"], int(r["bytes"]), lat))
    return recs, (t1 - t0 if recs and t1 > t0 else 0)


def numbers(recs, span, op, lo, hi):
    mine = [r for r in recs if r[0] == op and (lo is None or lo <= r[1] <= hi)]
    lat = sorted(r[2] for r in mine if r[2] is not None)
    v = {"count": len(mine), "iops": len(mine) / (span / 1e9) if span else 0}
    for k in ("avg", "p50", "p90", "p99", "max"):
        v[k] = None
    if lat:
        v["avg"] = sum(lat) / len(lat)
        for p in (50, 90, 99):
            v["p%d" % p] = lat[max(1, math.ceil(p / 100 * len(lat))) - 1]
        v["max"] = lat[-1]
    return v


def change(a, b):
    if a is None or b is None or a == 0:
        return None
    return (b - a) / a * 100


def main():
    A, sa = side(sys.argv[1])
    B, sb = side(sys.argv[2])
    d = __import__("json").load(open(sys.argv[3]))
    text = {}
    for line in open(sys.argv[4]).read().split("\n")[3:]:
        f = line.split()
        if len(f) != 6 or f[2] not in TEXT:
            continue
        text[(f[0], f[1], f[2])] = f[3:]
    assert d["a"]["span_ns"] == sa and d["b"]["span_ns"] == sb, (d["a"], sa, d["b"], sb)
    rows = 0
    changes = 0
    for r in d["rows"]:
        a = numbers(A, sa, r["op"], r["size_min"], r["size_max"])
        b = numbers(B, sb, r["op"], r["size_min"], r["size_max"])
        for side_, want in (("a", a), ("b", b)):
            got = r[side_]
            assert got["count"] == want["count"], (r, side_, want)
            assert abs(got["iops"] - want["iops"]) <= 0.0006, (r, side_, want)
            if want["avg"] is not None:
                assert abs(got["lat_ns"]["avg"] - want["avg"]) <= 0.06, (r, side_, want)
                for k in ("p50", "p90", "p99", "max"):
                    assert got["lat_ns"][k] == want[k], (r, side_, k, want)
        for k, t in zip(NAMES, TEXT):
            want = change(a[k], b[k])
            got = r["change_pct"][k]
            if want is None:
                assert got is None, (r, k, got)
            else:
                assert got is not None and abs(got - want) <= 0.0006 + 1e-9 * abs(want), (r, k, got, want)
                changes += 1
            row = text.get((r["op"], r["size"], t))
            assert row, ("no text line", r["op"], r["size"], t)
            if want is None:
                assert row[2] == "-", (r["op"], r["size"], t, row)
            else:
                assert row[2].endswith("%") and abs(float(row[2][:-1]) - want) <= 0.05 + 1e-9 * abs(want), (r["op"], r["size"], t, row, want)
        rows += 1
    assert len(text) == rows * len(TEXT), (len(text), rows)
    assert rows > 10 and changes > 50, (rows, changes)
    print("%d rows, %d changes as computed from the records" % (rows, changes))


if __name__ == "__main__":
    try:
        main()
    except (AssertionError, KeyError) as e:
        print("diffcheck: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
