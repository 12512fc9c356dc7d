#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stats' total latency (queue + device) against the records.

   totalcheck.py RECORDS.csv STATS.json STATS.csv STATS.txt
   totalcheck.py --interval RECORDS.csv IVAL.json IVAL.csv IVAL.txt

RECORDS.csv is export -f csv of a source, the others stats -o json,
stats -o csv and stats of it (one disk, or several).  Computed here from
the records alone, per disk and operation: the total latency of each
completed request with a device latency (latency_ns) and a queue time
(queue_ns, not saturated: rflags bit 11), queue_ns + latency_ns; the
requests left out (completed, no total); min, mean, max; p50, p90, p99
and p99.9 by the method of every report (nearest rank ceil(p/100 n),
the first and last rank exact, else the midpoint of the value's bucket
of the log-linear histogram: 2048 exact values, then 1024 buckets per
power of two, clamped to min and max), which is within 1/2048 of the
exact nearest rank; the log2 microsecond bins.  The CSV must keep its
earlier columns first, in their order.  With --interval, the files are
stats --interval -o json, -o csv and text of one disk's source, and the
totals (n, left out, mean, p50, p99, max) are those of the requests that
completed in each interval.  Prints what differs first and exits 1.
"""
import csv
import json
import math
import sys

RF_QUEUE_SAT = 1 << 11
PCTS = (50, 90, 99, 99.9)
OLD_CSV = ("disk,op,count,iops,mbps,bytes,lat_n,lat_min_ns,lat_avg_ns,"
           "lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p99.9_ns,lat_max_ns,"
           "queue_n,queue_avg_ns,queue_max_ns,span_ns").split(",")


def pct(v, p):
    x = p / 100.0 * len(v)
    r = min(max(int(x) + (int(x) < x), 1), len(v))
    if r in (1, len(v)) or v[r - 1] < 2048:
        return v[r - 1]
    e = v[r - 1].bit_length() - 1
    w = 1 << (e - 10)
    return min(max(v[r - 1] // w * w + w // 2, v[0]), v[-1])


def lat_bin(ns):
    return min((ns // 1000).bit_length(), 63)


def main():
    stats = json.load(open(sys.argv[2]))
    by_disk = {s["source"].rsplit(":", 1)[-1]: s for s in stats}
    recs = list(csv.DictReader(open(sys.argv[1])))
    disks = sorted(set(r["disk"] for r in recs))
    if len(stats) == 1 and len(disks) == 1:
        by_disk = {disks[0]: stats[0]}
    groups = {}
    for r in recs:
        if r["complete_ns"] == "":
            continue
        disk = r["disk"]
        g = groups.setdefault((disk, r["op"]), [0, []])
        g[0] += 1
        if (r["queue_ns"] != "" and r["latency_ns"] != "" and
                not int(r["rflags"]) & RF_QUEUE_SAT):
            g[1].append(int(r["queue_ns"]) + int(r["latency_ns"]))
    csvrows = list(csv.reader(open(sys.argv[3])))
    head = csvrows[0]
    assert head[:len(OLD_CSV)] == OLD_CSV, ("CSV columns moved", head)
    rows = {(x[0], x[1]): dict(zip(head, x)) for x in csvrows[1:]}
    text = {}
    for line in open(sys.argv[4]).read().split("\n"):
        if line.startswith("total latency (queue + device"):
            cur = text.setdefault(len(text), {})
        elif text and line and not line.startswith(" ") and line.split()[0] != "OP":
            f = line.split()
            if len(f) == 10 and f[1].isdigit():
                cur[f[0]] = f[1:]
    assert len(text) == len(stats), ("a total table per disk", len(text))
    checked = left = 0
    for i, (disk, s) in enumerate(by_disk.items()):
        for op, o in s["ops"].items():
            name = op
            n, v = groups.get((disk, name), (0, []))
            if name == "other":
                n = sum(g[0] for (d, k), g in groups.items() if d == disk and k not in s["ops"])
                v = [x for (d, k), g in groups.items() if d == disk and k not in s["ops"] for x in g[1]]
            v.sort()
            t = o["total_ns"]
            assert t["n"] == len(v) and t["no_queue"] == n - len(v), (disk, op, t, len(v), n)
            c = rows[(disk, op)]
            assert c["total_n"] == str(len(v)) and c["total_no_queue"] == str(n - len(v)), (disk, op, c)
            tx = text[i][op]
            assert tx[0] == str(len(v)) and tx[1] == str(n - len(v)), (disk, op, tx)
            left += n - len(v)
            bins = [0] * 64
            for x in v:
                bins[lat_bin(x)] += 1
            assert o["total_log2_us"] == bins, (disk, op, o["total_log2_us"], bins)
            if not v:
                assert c["total_min_ns"] == "" and tx[2] == "-", (disk, op, c, tx)
                continue
            want = {"min": v[0], "max": v[-1], "avg": sum(v) / len(v)}
            for p in PCTS:
                want["p%g" % p] = pct(v, p)
                exact = v[max(1, math.ceil(p / 100 * len(v))) - 1]
                assert abs(pct(v, p) - exact) <= exact / 2048, (p, exact)
            for k, w in want.items():
                got = t[k]
                assert abs(got - w) <= (0.06 if k == "avg" else 0), (disk, op, k, got, w)
                got = float(c["total_%s_ns" % k])
                assert abs(got - w) <= (0.06 if k == "avg" else 0), (disk, op, "csv", k, got, w)
            for k, col in zip(("min", "avg", "p50", "p90", "p99", "p99.9", "max"), tx[2:]):
                assert abs(float(col) - want[k] / 1000) <= 0.051, (disk, op, "text", k, col, want[k])
            checked += 1
    assert checked, "no total latency checked"
    print("%d (disk, op) totals as computed from the records, %d requests left out" % (checked, left))


IVAL_OLD_CSV = ("disk,time_ns,start_ns,interval_ns,op,count,iops,mbps,bytes,"
                "queue_depth,lat_n,lat_avg_ns,lat_p50_ns,lat_p99_ns,"
                "lat_max_ns,lost").split(",")


def interval():
    recs = [r for r in csv.DictReader(open(sys.argv[2])) if r["complete_ns"] != ""]
    ts = json.load(open(sys.argv[3]))
    rows = list(csv.reader(open(sys.argv[4])))
    assert rows[0][:len(IVAL_OLD_CSV)] == IVAL_OLD_CSV, ("CSV columns moved", rows[0])
    crow = {(x[1], x[4]): dict(zip(rows[0], x)) for x in rows[1:]}
    lines = open(sys.argv[5]).read().split("\n")
    assert lines[0].split()[-5:] == ["TAVG_US", "TP50_US", "TP99_US", "TMAX_US", "NO_QTIME"], lines[0]
    text = {(round(float(f[0]) * 1e6), f[1]): f[-5:] for f in (l.split() for l in lines[1:] if l)}
    checked = left = 0
    for i, x in enumerate(ts):
        lo, hi = x["start_ns"], x["start_ns"] + x["interval_ns"]
        last = i == len(ts) - 1
        for op, o in x["ops"].items():
            mine = [r for r in recs if r["op"] == op and
                    lo <= int(r["complete_ns"]) < hi + last]
            v = sorted(int(r["queue_ns"]) + int(r["latency_ns"]) for r in mine
                       if r["queue_ns"] != "" and r["latency_ns"] != "" and
                       not int(r["rflags"]) & RF_QUEUE_SAT)
            t = o["total_ns"]
            assert o["count"] == len(mine), (x["time_ns"], op, o["count"], len(mine))
            assert t["n"] == len(v) and t["no_queue"] == len(mine) - len(v), (x["time_ns"], op, t, len(v))
            c = crow[(str(x["time_ns"]), op)]
            tx = text[(round(x["time_ns"] / 1e3), op)]
            assert c["total_n"] == str(len(v)) and c["total_no_queue"] == str(len(mine) - len(v)), c
            assert tx[4] == str(len(mine) - len(v)), (x["time_ns"], op, tx)
            left += len(mine) - len(v)
            if not v:
                assert c["total_avg_ns"] == "" and tx[0] == "-", (c, tx)
                continue
            want = {"avg": sum(v) / len(v), "p50": pct(v, 50), "p99": pct(v, 99), "max": v[-1]}
            for k, w in want.items():
                tol = 0.06 if k == "avg" else 0
                assert abs(t[k] - w) <= tol, (x["time_ns"], op, k, t[k], w)
                assert abs(float(c["total_%s_ns" % k]) - w) <= tol, (x["time_ns"], op, "csv", k, c)
            for k, col in zip(("avg", "p50", "p99", "max"), tx[:4]):
                assert abs(float(col) - want[k] / 1000) <= 0.051, (x["time_ns"], op, "text", k, col, want[k])
            checked += 1
    assert checked, "no interval total checked"
    print("%d (interval, op) totals as computed from the records, %d requests left out" % (checked, left))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "--interval":
            interval()
        else:
            main()
    except (AssertionError, KeyError) as e:
        print("totalcheck: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
