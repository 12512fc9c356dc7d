#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare iotrace's queue times with blktrace's G (getrq) to D (issue).

usage: qtimecmp.py BLKPARSE.txt RING.txt BOUND_PCT [MIN_REQUESTS]

BLKPARSE.txt: blkparse -f '%a %d %S %N %T %t\\n' of one disk (action,
RWBS, sector, bytes, seconds, nanoseconds).  RING.txt: ringcheck dumpt of
the same disk, the same run (OP SECTOR BYTES RFLAGS ISSUE_NS QUEUE_NS
COMPLETE_NS).

blktrace follows each request from its G (allocated for a bio: sector,
length; the bio's Q before it) through back merges (M: a bio, or a
request, appended at its end: the merged request keeps the earlier G and
Q, as the kernel keeps the earlier allocation time) and front merges (F:
a bio before its start) to its first D (issue, with the request's final
sector and length); G to D is its queue time.  Each
such request is paired with the record of the same direction, sector and
length whose issue time is nearest its D (the two clocks are both
CLOCK_MONOTONIC, but blkparse prints times from its first event: the
offset is the median over the requests that are unique on both sides;
at most 3 ms apart after it).  A pair disagrees when the record has no
queue time, or its allocation time (issue_ns - queue_ns) is more than
max(50 us, 20% of G to D) before G and more than 50 us before its bio's
Q (when blktrace has it), or more than 50 us after the
request's next event in blktrace (I, M, F or D), which the kernel's code
reaches after block_io_start: the queue time against G to D, but to the
record's own issue, not to blktrace's D, which an interrupt between the
two tracers' probes of block_rq_issue can move by milliseconds, and not
bounded by G itself (see early_late()).

Empty PREFLUSH writes (WRITE, 0 bytes, IOTRACE_RF_NO_ISSUE and
IOTRACE_RF_PREFLUSH): blktrace's empty write completions (C, W, 0 bytes,
at the sector of an empty write's G: the last, empty completion of a
flush sequence's data write is past its data) are counted, each paired
with its G (first in, first out) and with the record completed nearest
to it; the record's allocation time (issue_ns) against G as above, with
its C as the next event (and its Q), and the median distance to G at
most 50 us.
Printed, and checked with --flush only.

Prints summary lines ("# qtimecmp: ...") and the worst pairs.  Exits 0
when at least 90% of the records of data requests and MIN_REQUESTS
(default 200) are paired, and at most BOUND_PCT percent of the pairs
disagree; with --flush instead, when every empty PREFLUSH write record
has its times, there are as many as blktrace completed (at least one),
all paired, at most BOUND_PCT percent disagreeing.
"""
import sys

RF_NO_ISSUE = 1 << 7
RF_QUEUE_VALID = 1 << 8
RF_PREFLUSH = 1 << 12
SLACK_NS = 50000
REL = 0.20
WINDOW_NS = 3000000


def direction(rwbs):
    for c in "DWR":
        if c in rwbs:
            return c
    return None


def blkparse(path):
    """G to D of each request, and G to C of the empty writes."""
    ev = []
    with open(path) as f:
        for line in f:
            fld = line.split()
            if len(fld) != 6 or not fld[2].isdigit():
                continue
            try:
                t = int(fld[4]) * 1000000000 + int(fld[5])
                ev.append((t, fld[0], fld[1], int(fld[2]), int(fld[3])))
            except ValueError:
                continue
    ev.sort(key=lambda e: e[0])
    by_start, by_end = {}, {}
    reqs = []
    empty_g, empty = {}, []
    q_last, empty_q = {}, {}
    nog = 0

    def drop(r):
        by_start[(r["d"], r["s"])].remove(r)
        by_end[(r["d"], r["e"])].remove(r)

    def add(r):
        by_start.setdefault((r["d"], r["s"]), []).append(r)
        by_end.setdefault((r["d"], r["e"]), []).append(r)

    for t, a, rwbs, sec, nbytes in ev:
        d = direction(rwbs)
        if d is None:
            continue
        if nbytes == 0:
            # an empty write's C is at its G's sector; the last, empty
            # completion of a flush sequence's data write is past its data
            if d == "W" and a == "Q":
                empty_q[sec] = t
            elif d == "W" and a == "G":
                empty_g.setdefault(sec, []).append((t, empty_q.pop(sec, None)))
            elif d == "W" and a == "C" and empty_g.get(sec):
                g, q = empty_g[sec].pop(0)
                empty.append((t, t - g, None if q is None else t - q))
            continue
        end = sec + nbytes // 512
        if a == "Q":
            q_last[(d, sec, end)] = t
        elif a == "G":
            add({"d": d, "s": sec, "e": end, "g": t, "n": None,
                 "q": q_last.pop((d, sec, end), None)})
        elif a == "I":
            for r in by_start.get((d, sec), []):
                if r["e"] == end and r["n"] is None:
                    r["n"] = t
        elif a in ("M", "F"):
            # a bio, or (M) a whole request with a G of its own, joins
            # the request it touches: the newest one there
            lst = by_end.get((d, sec)) if a == "M" else \
                by_start.get((d, end))
            if not lst:
                continue
            r = lst[-1]
            if a == "M":
                gone = [x for x in by_start.get((d, sec), [])
                        if x["e"] == end]
                if gone:
                    # the kernel keeps the earlier allocation time
                    g = gone[-1]
                    drop(g)
                    qs = [x for x in (r["q"], g["q"]) if x is not None]
                    r["q"] = min(qs) if len(qs) == 2 else None
                    r["g"] = min(r["g"], g["g"])
            drop(r)
            if r["n"] is None:
                r["n"] = t
            if a == "M":
                r["e"] += nbytes // 512
            else:
                r["s"] = sec
            add(r)
        elif a == "D":
            lst = [r for r in by_start.get((d, sec), []) if r["e"] == end]
            if not lst:
                nog += 1
                continue
            r = lst[-1]
            drop(r)
            reqs.append(((d, sec, nbytes), t,
                         (t - r["g"], t - (r["n"] or t),
                          None if r["q"] is None else t - r["q"])))
    return reqs, empty, nog


def ring(path):
    data, empty = [], []
    with open(path) as f:
        for line in f:
            fld = line.split()
            if len(fld) != 7:
                continue
            op, sec, nbytes, rf = fld[0], int(fld[1]), int(fld[2]), int(fld[3])
            issue, queue, done = int(fld[4]), int(fld[5]), int(fld[6])
            d = {"read": "R", "write": "W", "discard": "D"}.get(op)
            if d is None:
                continue
            if nbytes == 0:
                if d == "W" and rf & RF_NO_ISSUE and rf & RF_PREFLUSH:
                    empty.append((done, issue))
                continue
            if rf & RF_NO_ISSUE:
                continue
            data.append(((d, sec, nbytes), issue,
                         (issue, queue if rf & RF_QUEUE_VALID else None)))
    return data, empty


def early_late(mine, g, nxt, span, q=None):
    """An allocation time @mine is before the G at @g by more than
    max(50 us, 20% of @span, G to D) and, if its bio's Q time @q is
    known, before @q by more than 50 us; or after @nxt by more than 50
    us: the next event of the request in blktrace after G (I, M, F or
    D), which comes after block_io_start in the kernel's code.  Two
    probes microseconds of guest code apart can be milliseconds apart on
    the guest's clock when the host deschedules the vCPU between them:
    seen for 0.2-0.9% of the requests between G and block_io_start on a
    loaded host, so G itself is no upper bound; and before 6.9, where
    the kernel's stamp is taken before G, for 0.3-1.2% of them between
    the stamp and G (5.10, load average 6), so G is no lower bound
    either: the bio's Q is (the kernel allocates a request for a bio it
    has queued)."""
    early = mine < g - max(SLACK_NS, REL * span)
    if q is not None:
        early = early and mine < q - SLACK_NS
    return early or mine > nxt + SLACK_NS


def pair(bt, recs, offset):
    """Pair (key, t, x) of blktrace with (key, t, y) of the ring: the
    same key, nearest time within WINDOW_NS after the offset."""
    pool = {}
    for i, (k, t, y) in enumerate(recs):
        pool.setdefault(k, []).append((t, i, y))
    used = set()
    pairs = []
    for k, t, x in bt:
        best = None
        for rt, i, y in pool.get(k, []):
            dt = abs(rt - offset - t)
            if i not in used and dt <= WINDOW_NS and (best is None or
                                                     dt < best[0]):
                best = (dt, i, y)
        if best:
            used.add(best[1])
            pairs.append((k, t, x, best[2]))
    return pairs


def pair_sorted(bt, recs, offset):
    """Pair the i-th (key, t, x) of blktrace with the i-th (key, t, y) of
    the ring, both in time order, as many as the fewer has: for one key
    and the same events on both sides, the pairing with the least total
    time apart.  Used for the empty PREFLUSH writes, paired by their
    completion, where a host that deschedules the vCPU between
    blktrace's probe and iotrace's (both on block_rq_complete) can put
    one pair farther apart than WINDOW_NS.  Returns the pairs and how
    many are more than WINDOW_NS apart."""
    b = sorted(bt, key=lambda e: e[1])
    r = sorted(recs, key=lambda e: e[1])
    pairs = [(k, t, x, y) for (k, t, x), (_, _, y) in zip(b, r)]
    far = sum(1 for (_, t, _), (_, rt, _) in zip(b, r)
              if abs(rt - offset - t) > WINDOW_NS)
    return pairs, far


def offset_of(bt, recs):
    n_bt, n_r = {}, {}
    for k, t, _ in bt:
        n_bt[k] = n_bt.get(k, 0) + 1
    for k, t, _ in recs:
        n_r[k] = n_r.get(k, 0) + 1
    tr = {k: t for k, t, _ in recs if n_r[k] == 1}
    diffs = sorted(tr[k] - t for k, t, _ in bt
                   if n_bt[k] == 1 and k in tr)
    return diffs[len(diffs) // 2] if diffs else None


def us(ns):
    return "-" if ns is None else "%.1f us" % (ns / 1000.0)


def main():
    args = [a for a in sys.argv[1:] if a != "--flush"]
    flush = "--flush" in sys.argv[1:]
    bound = float(args[2])
    min_req = int(args[3]) if len(args) > 3 else 200
    reqs, bt_empty, nog = blkparse(args[0])
    data, empty = ring(args[1])
    offset = offset_of(reqs, data)
    if offset is None:
        print("# qtimecmp: no request to pair (blktrace %d, ring %d)"
              % (len(reqs), len(data)))
        return 1
    pairs = pair(reqs, data, offset)
    # the record's allocation time against G, on the record's clock
    bad = []
    for k, t, (gd, nd, qd), (issue, q) in pairs:
        g = t - gd + offset
        qt = None if qd is None else t - qd + offset
        if q is None or early_late(issue - q, g, t - nd + offset, gd, qt):
            bad.append((k, t, gd, q, issue - t - offset))
    ok = (len(pairs) >= 0.9 * len(data) and len(pairs) >= min_req and
          len(bad) <= bound / 100.0 * len(pairs))
    print("# qtimecmp: %d records of data requests, %d requests G..D in"
          " blktrace (%d D without a G), %d paired; %d (%.2f%%) queue times"
          " wrong: allocation (issue_ns - queue_ns) more than max(50 us,"
          " 20%% of G->D) before G and 50 us before Q, or after the"
          " request's next event"
          " (bound %g%%)"
          % (len(data), len(reqs), nog, len(pairs), len(bad),
             100.0 * len(bad) / max(len(pairs), 1), bound))
    bad.sort(key=lambda p: -abs((p[3] or 0) - p[2]))
    for k, t, gd, q, dd in bad[:5]:
        print("# qtimecmp: %s %d + %d: queue_ns %s, G->D %s (issue_ns - D"
              " %s)" % (k[0], k[1], k[2], us(q), us(gd), us(dd)))

    # empty PREFLUSH writes: (complete, latency) against blktrace's C, G->C
    lat = [(("E",), done, None if issue == 0 or done < issue
             else issue) for done, issue in empty]
    nolat = sum(1 for _, _, x in lat if x is None)
    bt_e = [(("E",), t, (x, qc)) for t, x, qc in bt_empty]
    epairs, efar = pair_sorted(bt_e, lat, offset)
    # the record's allocation time against G, on the record's clock:
    # nothing of the empty write between its G and its C in blktrace, and
    # as few of them as 10 per disk: each between G and C (early_late()),
    # and half of them within 50 us of G
    ebad = [(k, t, gc, None if a is None else t + offset - a)
            for k, t, (gc, qc), a in epairs
            if a is None or early_late(a, t - gc + offset, t + offset, gc,
                                       None if qc is None
                                       else t - qc + offset)]
    near = sorted(abs(a - (t - gc + offset)) for k, t, (gc, qc), a in epairs
                  if a is not None)
    emed = near[len(near) // 2] if near else None
    print("# qtimecmp: empty PREFLUSH writes: %d records (%d without a"
          " latency), blktrace completed %d; %d paired by completion"
          " (%d more than %g ms apart), %d"
          " allocation times off G..C (more than max(50 us, 20%% of G->C)"
          " before G and Q, or after C); allocation - G median %s"
          % (len(lat), nolat, len(bt_e), len(epairs), efar,
             WINDOW_NS / 1e6, len(ebad), us(emed)))
    for k, t, gc, x in ebad[:3]:
        print("# qtimecmp: empty write: latency %s (to blktrace's C), G->C"
              " %s" % (us(x), us(gc)))
    if flush:
        ok = (len(lat) > 0 and nolat == 0 and len(lat) == len(bt_e)
                     and len(epairs) == len(lat) and
                     efar <= max(1, 0.1 * len(epairs)) and
                     len(ebad) <= bound / 100.0 * len(epairs) and
                     emed <= SLACK_NS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
