#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of iotracectl (no VM, no kernel module): the C unit tests, then
# golden outputs, error handling and the fake-debugfs live paths, with the
# normal build and again with the ASan+UBSan build.  Prints KTAP.
#   tests/run-host-tests.sh [--update]   (--update rewrites tests/golden/)
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1
T=$(mktemp -d /tmp/iotracectl-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
# Debian's python3, which has the python3-* packages .ci/install-deps
# installs, before a version manager's shim on PATH (pyenv's costs 0.5 s
# a call, Debian's 0.04 s)
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$T/.python"
	ln -s /usr/bin/python3 "$T/.python/python3"
	PATH=$T/.python:$PATH
fi
GOLD=tests/golden
N=0
FAILS=0
LINES=""

result() { # result 0|1 name [diagnostic file]
	N=$((N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $N $2"
	else
		echo "not ok $N $2"
		FAILS=$((FAILS + 1))
		[ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/# /' "$3" | head -40
	fi
}

echo "KTAP version 1"

# 1. unit tests, plain and sanitized
for u in build/unit build/unit-san build/btftest build/btftest-san; do
	case $u in *-san) sfx=-san ;; *) sfx= ;; esac
	$u > "$T/unit.out" 2>&1
	rc=$?
	grep '^#' "$T/unit.out"
	while read -r st name rest; do
		case $st in
		PASS) result 0 "$name$sfx" ;;
		FAIL) echo "$rest" > "$T/why"; result 1 "$name$sfx" "$T/why" ;;
		esac
	done < "$T/unit.out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/unit.out"; then
		result 1 "unit_binary_${u#build/}_exit_$rc" "$T/unit.out"
	fi
done

# 2. inputs
build/gen ring "$T/r.ring" 300 2 128 &&
build/gen file "$T/f.trace" 40 1 &&
build/gen file "$T/f2.trace" 40 2 &&
build/gen newer "$T/n.trace" 40 &&
build/gen minor1 "$T/o.trace" 40 1 &&
build/gen file "$T/s.trace" 6 2 &&
build/gen file "$T/m.trace" 200 2 &&
build/gen gaps "$T/g.trace" 200 1 &&
build/gen ops "$T/ops.trace" 60 1 &&
build/gen edges "$T/e.trace" 40 1 &&
build/gen ring2 "$T/r2.ring" 1000 2 32 16 &&
build/gen ring2 "$T/r2bad.ring" 1000 2 32 16 901,j950,960,999 &&
build/gen ring2 "$T/r2big.ring" 5000 1 512 16 1030,j2047,2048,4999 &&
build/gen debugfs "$T/dfs" || { result 1 gen_inputs; echo "1..$N"; exit 1; }
head -c 1000 "$T/f.trace" > "$T/trunc.trace"
printf 'hello, this is not a trace\n' > "$T/foreign"
: > "$T/empty"
cp "$T/f.trace" "$T/major3.trace"
head -c 300 "$T/f.trace" > "$T/head.trace"
# one bit of a record in the 4th chunk (after a command-name chunk, 16
# records chunks: disk 0's then disk 1's, 32, 32, 32 and 4 records of
# part 0 and part 1 in turn): disk 0, part 0, records 32 to 63
flipoff=$(python3 -c 'import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = struct.unpack_from("<I", d, 12)[0]
for i in range(3):
	off += sum(struct.unpack_from("<IIQ", d, off)[1:3])
d[off + 40 + 300] ^= 1
open(sys.argv[2], "wb").write(d)
print(off)' "$T/m.trace" "$T/flip.trace")
cp "$T/f.trace" "$T/corrupt.trace"
printf '\007\000\000\000' | dd of="$T/corrupt.trace" bs=1 seek=16 conv=notrunc 2>/dev/null
printf '\003\000\000\000' | dd of="$T/major3.trace" bs=1 seek=8 conv=notrunc 2>/dev/null
export IOTRACE_DEBUGFS="$T/dfs"

# golden NAME ARGS...: output of iotracectl ARGS must equal tests/golden/NAME
golden() {
	name=$1
	shift
	(cd "$T" && "$ROOT/$BIN" "$@") > "$T/out" 2> "$T/err"
	rc=$?
	sed "s|$T/||g" "$T/out" > "$T/out.clean"
	if [ $UPDATE = 1 ] && [ "$BIN" = iotracectl/iotracectl ]; then
		cp "$T/out.clean" "$GOLD/$name"
	fi
	if [ $rc = 0 ] && diff -u "$GOLD/$name" "$T/out.clean" > "$T/diff" 2>&1; then
		result 0 "golden_$name$SFX"
	else
		cat "$T/err" >> "$T/diff"
		result 1 "golden_$name$SFX (rc $rc)" "$T/diff"
	fi
}

# follower_ready PID FILE [RING]: wait (up to 120 s) until the live reader
# PID has begun: FILE (its output) is not empty (show -f -o csv prints its
# header once it has read the ring's position), or, with RING, PID has
# mapped RING (output formats without a header; then 0.3 s more).  A
# fixed sleep lost the race on a loaded machine: records pushed before
# the reader began are old to it, and show -f --count waited for ever.
# FILE must be removed before PID starts: "cmd > FILE &" truncates it in
# the child, after the parent has gone on, so an old FILE said "ready"
# before the reader had even opened the ring.
follower_ready() {
	for _ in $(seq 1200); do
		kill -0 "$1" 2> /dev/null || return 1
		[ -s "$2" ] && return 0
		if [ -n "${3:-}" ] && grep -qF "$3" "/proc/$1/maps" 2> /dev/null; then
			sleep 0.3
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# lines_at_least N FILE: wait (up to 120 s) until FILE has N lines
lines_at_least() {
	for _ in $(seq 1200); do
		[ "$(wc -l < "$2")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# refuse NAME WORD ARGS...: must fail cleanly (exit 1 or 2) saying WORD
refuse() {
	name=$1
	word=$2
	shift 2
	# bounded: a live mode that takes the option instead runs forever
	(cd "$T" && timeout 30 "$ROOT/$BIN" "$@") > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -le 2 ] && grep -q -- "$word" "$T/err" &&
	   [ ! -s "$T/out" ]; then
		result 0 "refuse_$name$SFX"
	else
		echo "exit $rc, wanted 1 or 2 and '$word' on stderr:" > "$T/why"
		cat "$T/err" "$T/out" >> "$T/why"
		result 1 "refuse_$name$SFX" "$T/why"
	fi
}

# A sysfs of stacked devices (issue 49) above the fake disks nullb0
# (252:0) and sda (8:0): vg0-data, dm linear over nullb0 and sda1 (one
# LV on two disks); luks-test, dm crypt over nullb0 at 50,000,000 with
# an LV vg1-home in it; md0, RAID1 of sda2 and nullb0p1, with an LV
# vg2-root in it.  A dm device's table is its dm/table file (stack.c).
mkfix_dev() { # DIR MAJ:MIN SECTORS
	mkdir -p "$1" && echo "$2" > "$1/dev" && echo "$3" > "$1/size"
}
mkfix_dm() { # NAME KNAME MAJ:MIN SECTORS TABLE
	mkfix_dev "$SYS/block/$2" "$3" "$4"
	mkdir -p "$SYS/block/$2/dm" && echo "$1" > "$SYS/block/$2/dm/name" &&
	printf '%b' "$5" > "$SYS/block/$2/dm/table"
}
mkfix_part() { # DISK PART MAJ:MIN START SECTORS
	mkfix_dev "$SYS/block/$1/$2" "$3" "$5"
	echo 1 > "$SYS/block/$1/$2/partition" && echo "$4" > "$SYS/block/$1/$2/start"
}
SYS=$T/sys
STACK_KEY=6f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a
mkfix_dev "$SYS/block/nullb0" 252:0 140000000
mkfix_part nullb0 nullb0p1 259:0 100000000 40000000
mkfix_dev "$SYS/block/sda" 8:0 140000000
mkfix_part sda sda1 8:1 2048 60000000
mkfix_part sda sda2 8:2 60002048 40000000
mkfix_dev "$SYS/block/loop0" 7:0 0
mkfix_dm vg0-data dm-0 253:0 70000000 \
	'0 40000000 linear 252:0 2048\n40000000 30000000 linear 8:1 0\n'
mkfix_dm luks-test dm-1 253:1 40000000 \
	"0 40000000 crypt aes-xts-plain64 $STACK_KEY 0 252:0 50000000 1 allow_discards\\n"
mkfix_dm vg1-home dm-2 253:2 20000000 '0 20000000 linear 253:1 2048\n'
mkfix_dev "$SYS/block/md0" 9:0 39990000
mkdir -p "$SYS/block/md0/md/dev-sda2" "$SYS/block/md0/md/dev-nullb0p1"
echo raid1 > "$SYS/block/md0/md/level"
echo 4096 > "$SYS/block/md0/md/dev-sda2/offset"
ln -s "$SYS/block/sda/sda2" "$SYS/block/md0/md/dev-sda2/block"
echo 2048 > "$SYS/block/md0/md/dev-nullb0p1/offset"
ln -s "$SYS/block/nullb0/nullb0p1" "$SYS/block/md0/md/dev-nullb0p1/block"
mkfix_dm vg2-root dm-3 253:3 30000000 '0 30000000 linear 9:0 2048\n'
# an md array not running (size 0) and an empty partition: nothing maps
# to them, and the tables stay readable
mkfix_dev "$SYS/block/md127" 9:127 0
mkdir -p "$SYS/block/md127/md/dev-sda1"
echo raid1 > "$SYS/block/md127/md/level"
echo 2048 > "$SYS/block/md127/md/dev-sda1/offset"
ln -s "$SYS/block/sda/sda1" "$SYS/block/md127/md/dev-sda1/block"
mkfix_part sda sda3 8:3 130000000 0
# the same disks, nothing stacked on them
mkfix_dev "$T/sys0/block/nullb0" 252:0 140000000
mkfix_dev "$T/sys0/block/sda" 8:0 140000000

mkdir -p "$GOLD"
for BIN in iotracectl/iotracectl build/iotracectl-san; do
	SFX=""
	[ "$BIN" = build/iotracectl-san ] && SFX="_san"
	golden show_ring.txt show r.ring
	golden show_ring_hex.txt show -o hex r.ring
	golden show_file_hex.txt show -o hex f.trace
	# -o hex carries every field of the record JSON has, by column name
	for src in r.ring f.trace; do
		"$BIN" show -o hex "$T/$src" > "$T/hex.txt" 2> "$T/err" &&
		"$BIN" show -o json "$T/$src" > "$T/recs.json" 2>> "$T/err" &&
		python3 -c 'import json, sys
recs = json.load(open(sys.argv[2]))
lines = open(sys.argv[1]).read().split("\n")
head = lines[0].split()
rows = [dict(zip(head, l.split())) for l in lines[1:] if l]
assert len(rows) == len(recs), (len(rows), len(recs))
cols = {"QUEUE_NS": "queue_ns", "ICPU": "issue_cpu", "CCPU": "complete_cpu",
	"HWQ": "hwq", "TAG": "tag", "RT": "retries", "PID": "pid",
	"CGROUP": "cgroup", "SEQ": "seq", "BYTES": "bytes"}
for h, r in zip(rows, recs):
	for c, k in cols.items():
		assert c in h, ("no column", c, head)
		want = r[k] if r[k] is not None else 0
		if k == "queue_ns" and not r["rflags"] & (1 << 8):
			continue
		assert int(h[c], 16) == want, (c, h[c], k, r[k], r["seq"])' \
			"$T/hex.txt" "$T/recs.json" >> "$T/err" 2>&1
		result $? "hex_has_every_field_${src%.*}$SFX" "$T/err"
	done
	golden show_file.txt show f.trace
	golden show_file.json show -o json f.trace
	golden show_file_realtime.txt show --realtime f.trace
	golden show_file.csv show -o csv f.trace
	golden show_multidisk.txt show f2.trace
	golden show_multidisk_disk1.txt show --disk disk1 f2.trace
	golden show_filter_op_lat.txt show --op write,flush --lat-min 3000 r.ring
	golden show_filter_sector_time.txt show --sector 0-50000000 --from 1.001 --to 1.002 r.ring
	golden show_filter_error.txt show --status EIO r.ring
	golden stats_ring.txt stats r.ring
	golden stats_file.json stats -o json f.trace
	golden stats_multidisk.txt stats f2.trace
	# a group with no latency or queue time (a discard never issued):
	# JSON's null where the CSV's fields are empty, never 0
	build/gen file "$T/s1.trace" 6 1 2> "$T/err" &&
	build/gen set "$T/s1.trace" "$T/ni.trace" 0 op=3 rflags=129 2>> "$T/err" &&
	"$BIN" stats -o csv "$T/ni.trace" > "$T/ni.csv" 2>> "$T/err" &&
	"$BIN" stats -o json "$T/ni.trace" > "$T/ni.json" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ops = json.load(open(sys.argv[2]))[0]["ops"]
bad, n = [], 0
for r in rows:
    o = ops[r["op"]]
    for k, v in r.items():
        g, _, f = k.partition("_")
        if g not in ("lat", "total", "queue") or f in ("n", "no_queue_n") or "log2" in f:
            continue
        f = f[:-3] if f.endswith("_ns") else f
        j = o[g + "_ns"].get(f, "?")
        n += 1
        if (v == "") != (j is None):
            bad.append("%s %s: csv %r, json %r" % (r["op"], k, v, j))
print("\n".join(bad))
sys.exit(1 if bad or not n or "" not in [r["lat_min_ns"] for r in rows] else 0)' \
		"$T/ni.csv" "$T/ni.json" >> "$T/err" 2>&1
	result $? "stats_json_null_where_csv_empty$SFX" "$T/err"
	golden stats_filter_read.txt stats --op read r.ring
	# --version names the ring ABI of the header the module is built with
	v=$("$BIN" --version 2> "$T/err")
	maj=$(awk '$2 == "IOTRACE_ABI_MAJOR" { print $3 }' ../uapi/linux/iotrace.h)
	min=$(awk '$2 == "IOTRACE_ABI_MINOR" { print $3 }' ../uapi/linux/iotrace.h)
	case $v in *"ring ABI $maj.$min and 1."*) rc=0 ;; *) rc=1 ;; esac
	echo "$v (header: $maj.$min)" >> "$T/err"
	result $rc "version_says_the_headers_ring_abi$SFX" "$T/err"
	# a filter of one value given twice is refused, not the last one kept
	refuse disk_twice "given twice" show --disk disk0 --disk disk1 f2.trace
	refuse comm_twice "given twice" show --comm dd --comm fio f.trace
	refuse status_twice "given twice" stats --status ok --status EIO r.ring
	# --comm matches the name as COMM shows it ([kernel] too); --lat-min
	# 0 keeps a request of latency 0; a request without a completion has
	# no completion time and no status (none matches --status)
	"$BIN" show -o json "$T/e.trace" > "$T/recs.json" 2> "$T/err" &&
	"$BIN" show -o json --comm '[kernel]' "$T/e.trace" > "$T/k.json" 2>> "$T/err" &&
	"$BIN" show -o json --lat-min 0 "$T/e.trace" > "$T/l0.json" 2>> "$T/err" &&
	"$BIN" show -o json --status ok "$T/e.trace" > "$T/ok.json" 2>> "$T/err" &&
	"$BIN" show -o csv "$T/e.trace" > "$T/e.csv" 2>> "$T/err" &&
	"$BIN" show "$T/e.trace" > "$T/e.txt" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
recs, k, l0, ok = (json.load(open(f)) for f in sys.argv[1:5])
kern = [r for r in recs if r["rflags"] >> 14 & 1]
assert kern and [r["seq"] for r in k] == [r["seq"] for r in kern], (len(k), len(kern))
lat = [r for r in recs if r["latency_ns"] is not None]
assert any(r["latency_ns"] == 0 for r in lat)
assert len(l0) == len(lat), (len(l0), len(lat))
inc = [r for r in recs if not r["rflags"] & 1]
assert len(inc) == 1, inc
assert inc[0]["complete_ns"] is None and inc[0]["status"] is None, inc[0]
assert len(ok) == len(recs) - 1, (len(ok), len(recs))
rows = [r for r in csv.DictReader(open(sys.argv[5])) if r["seq"] == str(inc[0]["seq"]) and r["issue_ns"] == str(inc[0]["issue_ns"])]
assert len(rows) == 1 and rows[0]["complete_ns"] == "" and rows[0]["status"] == "", rows
line = [l.split() for l in open(sys.argv[6]) if str(inc[0]["sector"]) in l.split()]
assert len(line) == 1 and line[0][0] == "-" and line[0][6] == "-", line' \
		"$T/recs.json" "$T/k.json" "$T/l0.json" "$T/ok.json" "$T/e.csv" \
		"$T/e.txt" >> "$T/err" 2>&1
	result $? "filters_comm_kernel_lat_min_0_and_requests_without_completion$SFX" "$T/err"
	# an empty PREFLUSH write (never issued: NO_ISSUE) with its
	# allocation time has a latency, the wait of its fsync(), in show,
	# CSV, --lat-min and stats; one without (issue_ns 0) has none; btt's
	# D2C counts issued requests only, as btt's own on the export
	: > "$T/err"
	build/gen set "$T/f.trace" "$T/fw1.trace" 5 op=1 bytes=0 rflags=0x1081 queue_ns=0 issue_ns=1000040000 complete_ns=1002540000 &&
	build/gen set "$T/fw1.trace" "$T/fw.trace" 6 op=1 bytes=0 rflags=0x1081 queue_ns=0 issue_ns=0 complete_ns=1000600000 ||
		echo "gen set failed" >> "$T/err"
	"$BIN" show -o csv "$T/fw.trace" > "$T/fw.csv" 2>> "$T/err" &&
	"$BIN" show "$T/fw.trace" > "$T/fw.txt" 2>> "$T/err" &&
	"$BIN" show -o csv --lat-min 2500 "$T/fw.trace" > "$T/fwl.csv" 2>> "$T/err" &&
	"$BIN" stats -o json "$T/fw.trace" > "$T/fw.json" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w = [r for r in rows if r["complete_ns"] == "1002540000"]
assert len(w) == 1 and w[0]["latency_ns"] == "2500000" and w[0]["queue_ns"] == "", w
u = [r for r in rows if r["complete_ns"] == "1000600000"]
assert len(u) == 1 and u[0]["latency_ns"] == "", u
txt = [l.split() for l in open(sys.argv[2]) if "2500.000" in l.split()]
assert len(txt) == 1, txt
big = [r["complete_ns"] for r in csv.DictReader(open(sys.argv[3]))]
assert "1002540000" in big, big
want = sum(1 for r in rows if r["op"] == "write" and r["latency_ns"] != "")
st = json.load(open(sys.argv[4]))[0]
n = st["ops"]["write"]["lat_ns"]["n"]
d2c = st["btt"]["ops"]["write"]["d2c_ns"]["n"]
assert n == want and d2c == want - 1, (n, d2c, want)' "$T/fw.csv" "$T/fw.txt" "$T/fwl.csv" "$T/fw.json" >> "$T/err" 2>&1
	result $? "empty_preflush_write_latency_is_its_fsync_wait$SFX" "$T/err"
	# stats --from/--to: rates over the window asked (cut to the trace),
	# not over the span of the requests that completed in it
	for w in "1.002 1.003" "1.0055 100"; do
		"$BIN" stats -o json --from ${w% *} --to ${w#* } "$T/r.ring" \
			> "$T/sw.json" 2> "$T/err" &&
		"$BIN" show -o json "$T/r.ring" > "$T/recs.json" 2>> "$T/err" &&
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))[0]
recs = json.load(open(sys.argv[2]))
a, b = round(float(sys.argv[3]) * 1e9), round(float(sys.argv[4]) * 1e9)
ends = [r["complete_ns"] if r["complete_ns"] is not None else r["issue_ns"]
	for r in recs]
hi = min(b, max(ends))
lo = max(a, min(r["issue_ns"] for r in recs))
assert s["span_ns"] == hi - lo, (s["span_ns"], hi - lo)
for op, o in s["ops"].items():
	n = sum(1 for r in recs if r["op"] == op and r["complete_ns"] is not None
		and a <= r["complete_ns"] < b)
	assert o["count"] == n, (op, o["count"], n)
	want = n / ((hi - lo) / 1e9)
	assert abs(o["iops"] - want) <= 0.001 * want, (op, o["iops"], want)' \
			"$T/sw.json" "$T/recs.json" ${w% *} ${w#* } >> "$T/err" 2>&1
		result $? "stats_from_to_rates_over_the_window_${w% *}_${w#* }$SFX" "$T/err"
	done
	(cd "$T" && "$ROOT/$BIN" stats --from 1.002 --to 1.003 r.ring) \
		> "$T/sw.txt" 2> "$T/err"
	grep -q '^r.ring: .*span 0.001000 s$' "$T/sw.txt"
	rc=$?
	sed -n 1p "$T/sw.txt" >> "$T/err"
	result $rc "stats_from_to_text_span_is_the_window$SFX" "$T/err"
	golden list.txt list
	golden list.json list -o json
	golden inflight.txt inflight nullb0
	golden inflight.csv inflight -o csv nullb0
	# inflight DISK: a device that is not there is not said; one that
	# fails (here no ioctl: ENOTTY) is, and debugfs is read instead; when
	# debugfs fails too, the error says what each gave
	mkdir -p "$T/devf" "$T/dfsbad/nullb0"
	: > "$T/devf/nullb0"
	echo 'FOO BAR' > "$T/dfsbad/nullb0/inflight"
	(cd "$T" && IOTRACE_DEV="$T/nodev" "$ROOT/$BIN" inflight nullb0) \
		> "$T/out" 2> "$T/err"
	[ $? = 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$GOLD/inflight.txt"
	result $? "inflight_no_device_debugfs_silently$SFX" "$T/err"
	(cd "$T" && IOTRACE_DEV="$T/devf" "$ROOT/$BIN" inflight nullb0) \
		> "$T/out" 2> "$T/err"
	[ $? = 0 ] && cmp -s "$T/out" "$GOLD/inflight.txt" &&
		grep -q "inflight: warning: nullb0: $T/devf/nullb0: IOTRACE_IOC_INFLIGHT: .*; read from $T/dfs/nullb0/inflight instead, without the commands" "$T/err"
	result $? "inflight_device_error_said_debugfs_read$SFX" "$T/err"
	(cd "$T" && IOTRACE_DEV="$T/devf" IOTRACE_DEBUGFS="$T/dfsbad" \
		"$ROOT/$BIN" inflight nullb0) > "$T/out" 2> "$T/err"
	[ $? = 1 ] && grep -q 'no ISSUE_NS column' "$T/err" &&
		grep -q "inflight nullb0: and the device: $T/devf/nullb0: IOTRACE_IOC_INFLIGHT" "$T/err"
	result $? "inflight_both_sources_fail_both_said$SFX" "$T/err"
	golden show_live_disk.txt show nullb0
	# submitters (file minor 2): columns, filters, per-process stats
	golden show_file_minor1.txt show o.trace
	golden show_filter_pid.txt show --pid 4242,4001 f.trace
	golden show_filter_comm.csv show -o csv --comm 'my,app "x"' f.trace
	golden show_filter_cgroup_kernel.txt show --cgroup 101 --op read f.trace
	golden stats_file_processes.txt stats --top 3 f.trace
	# the same requests as minor 1 wrote them: no submitter, else equal
	(cd "$T" && "$ROOT/$BIN" show -o csv f.trace) | cut -d, -f1-22 > "$T/a"
	(cd "$T" && "$ROOT/$BIN" show -o csv o.trace) | cut -d, -f1-22 > "$T/b"
	(cd "$T" && "$ROOT/$BIN" show -o csv o.trace) | grep -v '^disk,' |
		grep -qv ',0,,0$'
	[ $? = 1 ] && diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "minor1_file_reads_as_before$SFX" "$T/diff"
	(cd "$T" && "$ROOT/$BIN" export -f blktrace -o bt --pid 4000 f.trace) 2> "$T/err" &&
		(cd "$T" && blkparse -q -i bt) > "$T/out" 2>> "$T/err"
	# every event of pid 4000 (fio: 9 requests, a Q, D and C each), named
	[ "$(awk '$5 == 4000 && ($6 == "C" || $NF == "[fio]")' "$T/out" | wc -l)" = 27 ] &&
		[ "$(awk '$1 ~ /^[0-9]+,[0-9]+$/' "$T/out" | wc -l)" = 27 ]
	result $? "export_blktrace_pid_comm_blkparse$SFX" "$T/out"
	(cd "$T" && "$ROOT/$BIN" show f.trace) > "$T/a" 2>&1
	(cd "$T" && "$ROOT/$BIN" show n.trace) > "$T/b" 2>&1
	diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "newer_minor_file_reads_like_current$SFX" "$T/diff"
	# the same files as major 1 minor 2 wrote them (144 bytes a record):
	# every field of every record (show -o hex, in file order and merged),
	# the counts and the in-flight table read the same; major 2's are
	# smaller wherever a record has no command
	: > "$T/diff"
	sizes=
	for f in f f2 m g ops e; do
		build/gen major1 "$T/$f.trace" "$T/$f.m1" 2>> "$T/diff" || echo "gen major1 $f failed" >> "$T/diff"
		for args in "show -o hex" "show -o hex --sort issue" "info -o json" "inflight -o csv" "stats"; do
			# shellcheck disable=SC2086
			(cd "$T" && "$ROOT/$BIN" $args $f.trace 2>&1 |
				sed 's/"version":"2\.0"//; s/\.trace/.X/g') > "$T/a"
			# shellcheck disable=SC2086
			(cd "$T" && "$ROOT/$BIN" $args $f.m1 2>&1 |
				sed 's/"version":"1\.2"//; s/\.m1/.X/g') > "$T/b"
			diff -u "$T/a" "$T/b" >> "$T/diff" 2>&1 ||
				echo "$f: $args differs" >> "$T/diff"
		done
		sizes="$sizes $f $(wc -c < "$T/$f.trace")/$(wc -c < "$T/$f.m1")"
	done
	echo "# sizes, major 2/major 1:$sizes" >> "$T/diff"
	tail -n 1 "$T/diff"
	[ "$(grep -c . "$T/diff")" = 1 ] &&
		[ "$(wc -c < "$T/m.trace")" -lt "$(wc -c < "$T/m.m1")" ]
	result $? "file_major1_and_major2_read_the_same$SFX" "$T/diff"
	"$BIN" show -o binary "$T/r.ring" > "$T/bin" 2> "$T/err"
	sz=$(wc -c < "$T/bin")
	# the tool's record: a 1.x record and the submitter (file minor 2)
	[ "$sz" = $((256 * 144)) ]
	result $? "show_binary_is_256_records$SFX" "$T/err"
	# raw records have no disk field: a multi-disk file is refused
	# unless --disk picks one, whose records are exactly what comes
	refuse show_binary_multi_disk "give --disk NAME" show -o binary f2.trace
	"$BIN" show -o binary --disk disk1 "$T/f2.trace" > "$T/bin" 2> "$T/err" &&
	n1=$("$BIN" show -o csv --disk disk1 "$T/f2.trace" | tail -n +2 | wc -l) &&
	n0=$("$BIN" show -o csv --disk disk0 "$T/f2.trace" | tail -n +2 | wc -l) &&
	[ "$n1" -gt 0 ] && [ "$n0" -gt 0 ] &&
	[ "$(wc -c < "$T/bin")" = $((n1 * 144)) ]
	result $? "show_binary_one_disk_of_a_multi_disk_file$SFX" "$T/err"
	# -o trace: a trace file of the records shown, every disk, the
	# submitters' names and the source's header kept: read back, it
	# shows what its source shows (through the same filters)
	infokeys='import json, sys
j = json.load(sys.stdin)
print(j["host"], j["release"], j["start_real_ns"], j["end_real_ns"],
      [(d["name"], d["dev"]) for d in j["disks"]])'
	: > "$T/err"
	for f in "" "--op write --lat-min 1000" "--disk disk1"; do
		"$BIN" show -o trace $f "$T/f2.trace" > "$T/x.trace" 2>> "$T/err" &&
		"$BIN" show -o csv $f "$T/f2.trace" > "$T/a" 2>> "$T/err" &&
		"$BIN" show -o csv "$T/x.trace" > "$T/b" 2>> "$T/err" &&
		[ "$(wc -l < "$T/a")" -gt 2 ] &&
		cmp "$T/a" "$T/b" >> "$T/err" 2>&1 &&
		"$BIN" info -o json "$T/f2.trace" | python3 -c "$infokeys" > "$T/a" &&
		"$BIN" info -o json "$T/x.trace" | python3 -c "$infokeys" > "$T/b" &&
		cmp "$T/a" "$T/b" >> "$T/err" 2>&1 &&
		"$BIN" stats "$T/x.trace" > "$T/a" 2>> "$T/err" &&
		grep -q ', lost 0 ' "$T/a" || { echo "filters: $f" >> "$T/err"; break; }
	done
	[ -z "$(grep -v '^$' "$T/err")" ]
	result $? "show_trace_reads_back_every_disk_and_name$SFX" "$T/err"
	"$BIN" show -o trace "$T/r.ring" > "$T/x.trace" 2> "$T/err" &&
	"$BIN" show -o csv "$T/r.ring" > "$T/a" 2>> "$T/err" &&
	"$BIN" show -o csv "$T/x.trace" > "$T/b" 2>> "$T/err" &&
	cmp "$T/a" "$T/b" >> "$T/err" 2>&1
	result $? "show_trace_of_a_ring$SFX" "$T/err"
	# -o trace of a ring spans its records (first start to last end);
	# a ring copy's host, kernel and wall-clock time are unknown, a live
	# ring's are this machine's
	for src in "$T/r.ring" nullb0; do
		"$BIN" show -o trace $src > "$T/x.trace" 2> "$T/err" &&
		"$BIN" show -o json $src > "$T/recs.json" 2>> "$T/err" &&
		"$BIN" info -o json "$T/x.trace" > "$T/i.json" 2>> "$T/err" &&
		python3 -c 'import json, sys
i = json.load(open(sys.argv[1]))
recs = json.load(open(sys.argv[2]))
lo = min(r["complete_ns"] if r["rflags"] >> 7 & 1 or not r["issue_ns"] else r["issue_ns"] for r in recs)
hi = max(r["complete_ns"] if r["complete_ns"] is not None else r["issue_ns"] for r in recs)
assert (i["start_mono_ns"], i["end_mono_ns"]) == (lo, hi), (i["start_mono_ns"], i["end_mono_ns"], lo, hi)
if sys.argv[3].endswith("r.ring"):
	assert (i["host"], i["release"], i["start_real_ns"], i["end_real_ns"]) == ("", "", 0, 0), i
else:
	import os
	u = os.uname()
	assert (i["host"], i["release"]) == (u.nodename, u.release), i
	assert i["end_real_ns"] - i["start_real_ns"] == hi - lo, i' \
			"$T/i.json" "$T/recs.json" $src >> "$T/err" 2>&1
		result $? "show_trace_of_a_ring_spans_its_records_${src##*/}$SFX" "$T/err"
	done
	# -o trace of a snapshot keeps its trigger chunks (--disk's only)
	[ -s "$T/trig.trace" ] || build/gen trig "$T/trig.trace" 200 2
	trigkeys='import json, sys
print([(t["disk"], t["reason"], t["mono_ns"], t["real_ns"], t.get("serial"))
       for t in json.load(sys.stdin).get("triggers", [])])'
	for f in "" "--disk disk1"; do
		"$BIN" show -o trace $f "$T/trig.trace" > "$T/x.trace" 2> "$T/err" &&
		"$BIN" info -o json "$T/x.trace" 2>> "$T/err" | python3 -c "$trigkeys" > "$T/b" &&
		"$BIN" info -o json "$T/trig.trace" 2>> "$T/err" | python3 -c "$trigkeys" > "$T/a" &&
		if [ -n "$f" ]; then
			python3 -c 'import ast, sys
a = ast.literal_eval(open(sys.argv[1]).read())
print([t for t in a if t[0] == "disk1"])' "$T/a" > "$T/a2" && mv "$T/a2" "$T/a"
		fi &&
		grep -q disk "$T/a" &&
		diff -u "$T/a" "$T/b" >> "$T/err" 2>&1
		result $? "show_trace_keeps_trigger_chunks${f:+_disk1}$SFX" "$T/err"
	done
	refuse show_trace_follow "not with -f" show -f -o trace nullb0
	# record the fake live disks; the file shows what the disk shows
	"$BIN" record nullb0 -o "$T/rec.trace" --duration 0.2 2> "$T/err"
	rc=$?
	"$BIN" show "$T/rec.trace" > "$T/a" 2>> "$T/err"
	"$BIN" show nullb0 > "$T/b" 2>> "$T/err"
	[ $rc = 0 ] && diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "record_file_shows_like_disk$SFX" "$T/diff"
	"$BIN" stats "$T/rec.trace" 2>&1 | grep -q 'recorded 256, written 256, lost 0'
	result $? "record_trailer_counts$SFX"
	# the files made by -o are root's as the ring is (0600 under umask
	# 022, as the trace holds submitters and commands); one that exists
	# keeps its mode
	rm -f "$T/mode.trace" "$T/mode.csv" "$T/mode.svg"
	printf 'x\n' > "$T/mode-old.csv"
	chmod 0644 "$T/mode-old.csv"
	(umask 022
	 "$BIN" record nullb0 -o "$T/mode.trace" --duration 0.1 &&
		"$BIN" export -f csv "$T/mode.trace" -o "$T/mode.csv" &&
		"$BIN" plot "$T/mode.trace" -o "$T/mode.svg" &&
		"$BIN" export -f csv "$T/mode.trace" -o "$T/mode-old.csv") > "$T/err" 2>&1 &&
		[ "$(stat -c %a "$T/mode.trace" "$T/mode.csv" "$T/mode.svg" "$T/mode-old.csv" | tr '\n' ' ')" = "600 600 600 644 " ] &&
		[ "$(wc -l < "$T/mode-old.csv")" = 257 ]
	result $? "output_files_made_0600$SFX" "$T/err"
	# a ring copy cut short while it is read (cutmap.so truncates it as
	# soon as it is mapped; the sanitizer's binary cannot take a preload):
	# said, naming it, exit 1, where it died of SIGBUS (135) unsaid
	if [ -z "$SFX" ]; then
		./build/gen ring2 "$T/cut.ring" 40000 2 256 200 &&
			CUT_SIZE=65536 LD_PRELOAD=$ROOT/build/cutmap.so \
			"$BIN" show "$T/cut.ring" > /dev/null 2> "$T/err"
		rc=$?
		echo "exit $rc" >> "$T/err"
		[ $rc = 1 ] && [ "$(stat -c %s "$T/cut.ring")" = 65536 ] &&
			grep -qx "iotracectl: $T/cut.ring: the file was cut short (or could not be read) while it was read (SIGBUS): read it again once nothing writes to it, or read a copy" "$T/err"
		result $? "ring_copy_cut_while_read_said" "$T/err"
	fi
	# a clear while recording: the dropped and filtered counts of the
	# generation that ended add up with the new one's (the ring's CPU
	# headers: dropped at 8, filtered at 16; a clear zeroes the chunks'
	# take numbers and the CPU headers, and moves the generation on)
	mkdir -p "$T/dfsclr/nullc"
	cp "$T/dfs/nullb0/ring" "$T/dfsclr/nullc/ring"
	cat > "$T/mut.py" <<'EOF_PY'
import mmap, struct, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
g = lambda fmt, o: struct.unpack_from(fmt, m, o)[0]
ncpu, cpu_sz, cpu_off = g("<I", 16), g("<I", 24), g("<Q", 32)
nch, ch_off, ch_sz = g("<I", 84), g("<Q", 136), g("<I", 144)
if sys.argv[2] in ("zero", "drop"):
	n = (100, 7) if sys.argv[2] == "drop" else (0, 0)
	for c in range(ncpu):
		struct.pack_into("<QQ", m, cpu_off + c * cpu_sz + 8, *n)
else:
	for k in range(nch):
		struct.pack_into("<Q", m, ch_off + k * ch_sz, 0)
	for c in range(ncpu):
		struct.pack_into("<QQQQI", m, cpu_off + c * cpu_sz, 0, 0, 0, 0,
				 0xffffffff)
	struct.pack_into("<Q", m, 64, g("<Q", 64) + 1)
m.flush()
print(ncpu)
EOF_PY
	python3 "$T/mut.py" "$T/dfsclr/nullc/ring" zero > /dev/null
	(cd "$T" && IOTRACE_DEBUGFS="$T/dfsclr" "$ROOT/$BIN" record nullc \
		-o "$T/clr.trace" --duration 3 --poll-ms 10) > /dev/null 2> "$T/err" &
	recpid=$!
	sleep 0.8
	ncpu=$(python3 "$T/mut.py" "$T/dfsclr/nullc/ring" drop)
	sleep 0.8
	python3 "$T/mut.py" "$T/dfsclr/nullc/ring" clear > /dev/null
	wait $recpid
	"$BIN" info "$T/clr.trace" 2>> "$T/err" | grep -q "dropped by kernel $((ncpu * 100)), filtered $((ncpu * 7)),"
	result $? "record_counts_add_up_across_a_clear$SFX" "$T/err"
	# a recording started while the ring holds a hold (every chunk taken
	# before record 600 held; 16 chunks of 64: the 1,984 records between
	# the hold's 640 and the newest 376 were overwritten before it
	# started): those are neither recorded nor lost
	mkdir -p "$T/dfshold/nullh"
	build/gen ring2 "$T/dfshold/nullh/ring" 3000 1 64 16 h600 2> "$T/err" &&
	(cd "$T" && IOTRACE_DEBUGFS="$T/dfshold" "$ROOT/$BIN" record nullh \
		-o "$T/hold.trace" --duration 0.2) > /dev/null 2>> "$T/err" &&
	"$BIN" stats "$T/hold.trace" > "$T/out" 2>> "$T/err" &&
	grep -q 'recorded 1016, written 1016, lost 0 (overwritten 0, torn 0).*1984 records missing' "$T/out" &&
	"$BIN" info "$T/hold.trace" 2>> "$T/err" |
		grep -q 'records 1016, lost 0 .*1984 records missing'
	result $? "record_hold_gap_not_lost$SFX" "$T/out" "$T/err"
	# show of the same live ring: the hold's 640 records too, as the
	# recording has them, and its gap counted overwritten once
	(cd "$T" && IOTRACE_DEBUGFS="$T/dfshold" "$ROOT/$BIN" show nullh) > "$T/a" 2> "$T/err" &&
	"$BIN" show "$T/hold.trace" > "$T/b" 2>> "$T/err" &&
	[ "$(wc -l < "$T/a")" = 1017 ] && diff -u "$T/b" "$T/a" > "$T/diff" 2>&1 &&
	(cd "$T" && IOTRACE_DEBUGFS="$T/dfshold" "$ROOT/$BIN" stats nullh) 2>> "$T/err" |
		grep -q '^loss: completed 3000, present 1016, overwritten 1984, dropped 0'
	result $? "show_live_ring_with_hold$SFX" "$T/diff"
	refuse record_same_disk_twice "nullb0 given twice" \
		record nullb0 nullb0 -o "$T/twice.trace"
	# a metrics-only ring (buf_size 0: nr_chunks 0, flag 8) holds nothing
	mkdir -p "$T/dfsmo/nullmo"
	python3 -c 'import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", d, 28, struct.unpack_from("<I", d, 28)[0] | 8)
struct.pack_into("<I", d, 84, 0)
open(sys.argv[2], "wb").write(d)' "$T/dfs/nullb0/ring" "$T/dfsmo/nullmo/ring"
	(cd "$T" && IOTRACE_DEBUGFS="$T/dfsmo" timeout 30 "$ROOT/$BIN" \
		record nullmo -o "$T/mo.trace" --duration 0.2) > "$T/out" 2> "$T/err"
	[ $? = 1 ] && grep -q 'nullmo keeps in-kernel metrics only' "$T/err"
	result $? "record_metrics_only_ring_refused$SFX" "$T/err"
	"$BIN" record nullb0 sda -o "$T/rec2.trace" --size 1 2> "$T/err"
	"$BIN" stats "$T/rec2.trace" > "$T/out" 2>> "$T/err"
	grep -q 'nullb0' "$T/out" && grep -q 'sda' "$T/out"
	result $? "record_two_disks_size_limit$SFX" "$T/err"
	# stacked devices (issue 49): record saves the tables it reads (a
	# stack chunk), show --stack maps every record through them, as a
	# live show --stack maps the ring's; no key of a crypt table is
	# saved; a reader that does not ask skips the chunk
	IOTRACE_SYSFS=$SYS "$BIN" record nullb0 sda -o "$T/stack.trace" --duration 0.2 2> "$T/err"
	result $? "record_stack_fixture$SFX" "$T/err"
	golden show_stack.txt show --stack stack.trace
	IOTRACE_SYSFS=$SYS "$BIN" record nullb0 -o "$T/stack1.trace" --duration 0.2 2> "$T/err" &&
	"$BIN" show --stack "$T/stack1.trace" > "$T/a" 2>> "$T/err" &&
	IOTRACE_SYSFS=$SYS "$BIN" show --stack nullb0 > "$T/b" 2>> "$T/err" &&
	diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "show_stack_file_like_live$SFX" "$T/diff"
	! grep -q "$STACK_KEY" "$T/stack.trace" &&
	! grep -q "$(printf '%s' "$STACK_KEY" | cut -c1-16)" "$T/stack.trace" &&
	grep -q 'STCK' "$T/stack.trace"
	result $? "record_stack_chunk_has_no_key$SFX"
	IOTRACE_SYSFS=$T/sys0 "$BIN" record nullb0 sda -o "$T/stack0.trace" --duration 0.2 2> "$T/err" &&
	! grep -q 'STCK' "$T/stack0.trace" &&
	"$BIN" show "$T/stack.trace" > "$T/a" 2>> "$T/err" &&
	"$BIN" show "$T/stack0.trace" > "$T/b" 2>> "$T/err" &&
	diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "show_skips_stack_chunk_no_chunk_without_stack$SFX" "$T/diff"
	"$BIN" show --stack "$T/stack0.trace" > "$T/a" 2> "$T/err" &&
	grep -q 'no device stack saved' "$T/err" &&
	[ "$(awk 'NR > 1 && $8 != "-"' "$T/a" | wc -l)" = 0 ]
	result $? "show_stack_without_tables_says_so$SFX" "$T/err"
	refuse show_stack_json "only the normal output" show --stack -o json stack.trace
	# stats --stack: a table per logical device after the disks', its
	# requests by op those show --stack maps to it (the topmost device)
	"$BIN" stats --stack -o json "$T/stack.trace" > "$T/a" 2> "$T/err" &&
	"$BIN" show --stack "$T/stack.trace" > "$T/b" 2>> "$T/err" &&
	python3 - "$T/a" "$T/b" > "$T/diff" 2>&1 <<'PYEOF'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
got = {d["logical"]: {op: v["count"] for op, v in d["ops"].items()}
       for d in doc if "logical" in d}
want = collections.defaultdict(collections.Counter)
for line in open(sys.argv[2]).readlines()[1:]:
    f = line.split()
    if f[7] != "-":
        want[f[7]][f[4].split("+")[0]] += 1
assert len(doc) == 2 + len(got), len(doc)
assert sorted(got) == sorted(want) and len(got) >= 3, (sorted(got), sorted(want))
for d in want:
    assert got[d] == dict(want[d]), (d, got[d], dict(want[d]))
PYEOF
	result $? "stats_stack_logical_tables_are_show_stacks_mapping$SFX" "$T/diff"
	"$BIN" stats --stack "$T/stack.trace" > "$T/a" 2> "$T/err" &&
	grep -q ':vg1-home (logical): [0-9]* records' "$T/a" &&
	"$BIN" stats --stack -o csv "$T/stack.trace" > "$T/b" 2>> "$T/err" &&
	grep -q '^md0,' "$T/b" &&
	"$BIN" stats --stack "$T/stack0.trace" > "$T/a" 2> "$T/err" &&
	grep -q 'no device stack saved' "$T/err" && ! grep -q '(logical)' "$T/a"
	result $? "stats_stack_text_csv_and_without_tables$SFX" "$T/err"
	refuse stats_stack_interval "not with --interval" stats --stack --interval 1 stack.trace
	"$BIN" info "$T/stack.trace" > "$T/out" 2> "$T/err" &&
	grep -q '^  vg0-data         dm-0, dev 253:0, dm, 70000000 sectors$' "$T/out" &&
	grep -q '^    linear    sectors 40000000+30000000 on sda1 (8:1) from 0$' "$T/out" &&
	grep -q '^    raid1     sectors 0+39990000 on sda2 (8:2) from 4096$' "$T/out" &&
	"$BIN" info -o json "$T/stack.trace" > "$T/out" 2>> "$T/err" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["stack"][0]["devices"]
c = [x for x in d if x["name"] == "luks-test"][0]["segments"][0]
assert c == {"type": "crypt", "start": 0, "len": 40000000, "lower": "252:0",
	     "lower_name": "nullb0", "lower_start": 50000000}, c' "$T/out" 2>> "$T/err" &&
	"$BIN" info -o json "$T/stack0.trace" > "$T/out" 2>> "$T/err" &&
	! grep -q '"stack"' "$T/out"
	result $? "info_lists_the_stack_tables$SFX" "$T/err"
	# SIGTERM finishes the file: the last records and the trailer
	"$BIN" record nullb0 -o "$T/term.trace" 2> "$T/err" &
	rpid=$!
	follower_ready $rpid /dev/null "$IOTRACE_DEBUGFS/nullb0/ring"
	sleep 0.7
	kill -TERM $rpid
	wait $rpid
	rc=$?
	"$BIN" info "$T/term.trace" > "$T/out" 2>> "$T/err"
	rc2=$?
	[ $rc = 0 ] && [ $rc2 = 0 ] && grep -q '^end:      [0-9]' "$T/out" &&
		! grep -q '^salvaged' "$T/out" &&
		grep -q '^nullb0: 256 records written' "$T/err"
	result $? "record_sigterm_writes_the_trailer$SFX (exit $rc, info $rc2)" "$T/err"
	# SIGKILL: what was synced (--sync-interval) is read, said, exit 3
	# (killed once the file holds every record: a loaded machine may
	# take longer than any fixed wait to read and sync them; the file of
	# the previous binary's pass removed first, or that is what is seen)
	rm -f "$T/kill.trace"
	"$BIN" record nullb0 -o "$T/kill.trace" --sync-interval 50ms 2> "$T/err" &
	rpid=$!
	for _ in $(seq 1200); do
		"$BIN" show "$T/kill.trace" 2>&1 > /dev/null |
			grep -q '; 256 records read in 2 chunks;' && break
		sleep 0.1
	done
	kill -KILL $rpid
	wait $rpid
	"$BIN" show "$T/kill.trace" > "$T/a" 2> "$T/e2"
	rc=$?
	"$BIN" show nullb0 > "$T/b" 2>> "$T/err"
	cat "$T/e2" >> "$T/err"
	[ $rc = 3 ] && diff -u "$T/a" "$T/b" >> "$T/err" 2>&1 &&
		[ "$(cat "$T/e2")" = "iotracectl: $T/kill.trace: truncated trace file: the recording did not finish (no trailer): the file ends after a complete chunk; 256 records read in 2 chunks; with no trailer, what was recorded after that is unknown" ]
	result $? "record_sigkill_file_salvaged$SFX (exit $rc)" "$T/err"
	# 2.0 rings, as the module lays them out: record copies a chunk's
	# records as a run; a record still busy (~seq) or with another
	# number ends the run, is waited for while recording and counted
	# torn at the end, and the records after it are written (the file
	# shows what a snapshot of the ring shows); file chunks of 1024
	# records cut runs too
	mkdir -p "$T/dfs6/nullb0"
	for rg in "r2 488 0 2 0" "r2bad 484 4 5 3" "r2big 4996 4 6 2"; do
		set -- $rg
		cp "$T/$1.ring" "$T/dfs6/nullb0/ring"
		IOTRACE_DEBUGFS="$T/dfs6" "$BIN" record nullb0 -o "$T/$1.trace" --duration 0.2 2> "$T/err"
		rc=$?
		"$BIN" show "$T/$1.trace" > "$T/a" 2>> "$T/e2"
		"$BIN" show "$T/$1.ring" > "$T/b" 2>> "$T/e2"
		"$BIN" info "$T/$1.trace" > "$T/out" 2>> "$T/e2"
		[ $rc = 0 ] && diff -u "$T/a" "$T/b" >> "$T/err" 2>&1 &&
			grep -q "^nullb0: $2 records written, $3 lost (0 overwritten, $3 torn), 0 dropped" "$T/err" &&
			grep -q "^chunks: *$4 ($5 sequence gaps" "$T/out" ||
			{ cat "$T/out" >> "$T/err"; false; }
		result $? "record_v2_ring_runs_$1$SFX" "$T/err"
	done
	# a clear while record drains a pass, made deterministic by the
	# output: through a pipe of 4 KiB, the recorder is held in the write
	# of part 0's chunk, its records copied, part 1 not drained yet; the
	# ring is cleared then (gen clear: heads reset, generation moved on)
	# and gets 20 new records, and SIGINT makes the next pass the last.
	# Written: part 0's 1,024 records and the 20 new ones, each once,
	# nothing lost (not the new records under part 1's old cursor, then
	# again after the restart, with a lost count that wraps)
	rm -rf "$T/dfs9" && mkdir -p "$T/dfs9/nullb0" &&
		build/gen ring "$T/dfs9/nullb0/ring" 2200 2 1024
	IOTRACE_DEBUGFS="$T/dfs9" timeout 120 python3 - "$BIN" "$T/dfs9/nullb0/ring" \
		"$T/clr.trace" "$T/clr.err" > "$T/err" 2>&1 <<'EOF'
import fcntl, os, signal, struct, subprocess, sys
binary, ring, out, errf = sys.argv[1:5]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)	# F_SETPIPE_SZ
p = subprocess.Popen([binary, "record", "nullb0", "-o", "-"], stdout=w,
		     stderr=open(errf, "w"))
os.close(w)
buf = b""
def need(n):
	global buf
	while len(buf) < n:
		b = os.read(r, 4096)
		if not b:
			sys.exit("record ended early: %d bytes" % len(buf))
		buf += b
need(16)
off = struct.unpack_from("<I", buf, 12)[0]
while True:	# to the first records chunk's header
	need(off + 40)
	magic, hsz, psz, disk, part, nrec, first, crc, rs = \
		struct.unpack_from("<IIQHHIQII", buf, off)
	if magic == 0x4b4e4843:	# IOTRACE_CHUNK_RECORDS
		break
	off += hsz + psz
assert part == 0 and nrec == 1024 and psz == nrec * rs, (part, nrec, psz, rs)
subprocess.check_call(["build/gen", "clear", ring])
subprocess.check_call(["build/gen", "push", ring, "20"])
p.send_signal(signal.SIGINT)
while True:
	b = os.read(r, 65536)
	if not b:
		break
	buf += b
rc = p.wait()
open(out, "wb").write(buf)
sys.exit(rc)
EOF
	rc=$?
	cat "$T/clr.err" >> "$T/err"
	"$BIN" show -o csv "$T/clr.trace" > "$T/out" 2>> "$T/err"
	dups=$(sort "$T/out" | uniq -d | wc -l)
	echo "$dups rows more than once" >> "$T/err"
	"$BIN" stats "$T/clr.trace" 2>&1 | grep "loss:" >> "$T/err"
	[ $rc = 0 ] && [ "$dups" = 0 ] &&
		[ "$(wc -l < "$T/out")" = $((1 + 1044)) ] &&
		grep -q '^nullb0: 1044 records written, 0 lost (0 overwritten, 0 torn), 0 dropped by the kernel$' "$T/clr.err" &&
		grep -q 'recorded 1044, written 1044, lost 0' "$T/err"
	result $? "record_clear_mid_pass_once_no_wrap$SFX (exit $rc)" "$T/err"
	rm -rf "$T/dfs9"
	# --size on a backlog (4996 records, 700 KB): the file stops within
	# a record and a chunk header of it, plus the trailer (not after the
	# whole backlog of a part); whole, its counts add up
	mkdir -p "$T/dfs8/nullb0" && cp "$T/r2big.ring" "$T/dfs8/nullb0/ring"
	IOTRACE_DEBUGFS="$T/dfs8" "$BIN" record nullb0 -o "$T/sz.trace" --size 16K 2> "$T/err"
	rc=$?
	sz=$(wc -c < "$T/sz.trace")
	"$BIN" info "$T/sz.trace" > "$T/out" 2>> "$T/err"
	rc2=$?
	"$BIN" stats -o json "$T/sz.trace" > "$T/st.json" 2>> "$T/err"
	rc3=$?
	[ $rc = 0 ] && [ $rc2 = 0 ] && [ $rc3 = 0 ] &&
		[ "$sz" -le $((16384 + 4096)) ] && [ "$sz" -ge 16384 ] &&
		! grep -q '^salvaged' "$T/out" &&
		python3 -c 'import json, sys
l = json.load(open(sys.argv[1]))[0]["loss"]
assert l["written"] > 100 and l["recorded"] == l["written"] + l["lost"], l' "$T/st.json" >> "$T/err" 2>&1
	result $? "record_size_limit_on_a_backlog$SFX ($sz bytes, exit $rc)" "$T/err"
	rm -rf "$T/dfs8"
	"$BIN" stats --interval 0.05 --count 3 nullb0 > "$T/out" 2> "$T/err"
	[ $? = 0 ] && [ "$(grep -c '^ *[0-9.]* - ' "$T/out")" = 3 ] &&
		head -1 "$T/out" | grep -q 'P99_US'
	result $? "stats_interval_three_reports$SFX" "$T/out"
	"$BIN" stats --interval 0.05 --count 2 -o json nullb0 > "$T/out" 2> "$T/err"
	[ $? = 0 ] && python3 -c 'import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$T/out" && [ "$(wc -l < "$T/out")" = 2 ]
	result $? "stats_interval_json$SFX" "$T/out"
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
	j = json.loads(l)
	assert isinstance(j["time_ns"], int) and j["lost"] == 0, j
	assert j["interval_ns"] == 50000000 and j["source"] == "nullb0", j' "$T/out" > "$T/err" 2>&1
	result $? "stats_interval_json_time_and_loss_fields$SFX" "$T/err"
	"$BIN" stats --interval 0.05 --count 2 -o csv nullb0 > "$T/out" 2> "$T/err"
	[ $? = 0 ] && python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(set(r["time_ns"] for r in rows)) == 2, rows
for r in rows:
	assert r["disk"] == "nullb0" and r["interval_ns"] == "50000000", r
	assert r["queue_depth"] == "" and r["lost"] == "0", r
	assert int(r["total_n"]) + int(r["total_no_queue"]) == int(r["count"]), r' "$T/out" >> "$T/err" 2>&1
	result $? "stats_interval_csv_live$SFX" "$T/err"
	# show -f: a live ring's requests as they complete (a copy of the
	# fake debugfs, whose ring gen push writes into)
	rm -rf "$T/dfs2" && cp -r "$T/dfs" "$T/dfs2" && rm -f "$T/fo"
	IOTRACE_DEBUGFS="$T/dfs2" timeout 60 "$BIN" show -f -o csv --op read --count 5 nullb0 > "$T/fo" 2> "$T/err" &
	fpid=$!
	follower_ready $fpid "$T/fo"
	build/gen push "$T/dfs2/nullb0/ring" 40
	wait $fpid
	rc=$?
	[ $rc = 0 ] && python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 5 and all(r["op"] == "read" for r in rows), rows
assert all(int(r["complete_ns"]) > 2000000000 for r in rows), "only new records"
t = [int(r["complete_ns"]) for r in rows]' "$T/fo" 2>> "$T/err"
	result $? "show_follow_new_records_filtered_count$SFX" "$T/err"
	rm -f "$T/fo"
	IOTRACE_DEBUGFS="$T/dfs2" "$BIN" show -f -o json nullb0 > "$T/fo" 2> "$T/err" &
	fpid=$!
	# JSON lines have no header to say the reader took the ring's
	# position: a record at a time until it shows one, then its count
	# once two looks 0.5 s apart agree, then 30 more
	follower_ready $fpid "$T/fo" "$T/dfs2/nullb0/ring"
	for _ in $(seq 100); do
		[ -s "$T/fo" ] && break
		build/gen push "$T/dfs2/nullb0/ring" 1
		sleep 0.2
	done
	n0=-1
	for _ in $(seq 20); do
		sleep 0.5
		n1=$(wc -l < "$T/fo")
		[ "$n1" = "$n0" ] && break
		n0=$n1
	done
	build/gen push "$T/dfs2/nullb0/ring" 30
	lines_at_least $((n0 + 30)) "$T/fo"
	sleep 0.2
	kill -INT $fpid
	wait $fpid
	rc=$?
	[ $rc = 0 ] && python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert int(sys.argv[2]) > 0 and len(rows) == int(sys.argv[2]) + 30, (len(rows), sys.argv[2])' "$T/fo" "$n0" 2>> "$T/err"
	result $? "show_follow_json_lines_until_sigint$SFX" "$T/err"
	# show -f and stats --interval on a ring that turns DETACHED (its
	# disk removed, or a resize replaced it), as record sees it: the
	# records it holds, then said on standard error, exit 0
	for c in "show -f -o csv" "stats --interval 0.05 -o json"; do
		rm -rf "$T/dfs7" "$T/fo" && cp -r "$T/dfs" "$T/dfs7"
		IOTRACE_DEBUGFS="$T/dfs7" timeout 60 "$BIN" $c nullb0 > "$T/fo" 2> "$T/err" &
		fpid=$!
		# ready when it has printed (show's CSV header, stats' first
		# report): both come after it took the ring's position, which
		# its mapping alone does not say
		follower_ready $fpid "$T/fo"
		build/gen push "$T/dfs7/nullb0/ring" 30
		python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b")
f.seek(28)	# struct iotrace_ring_hdr.flags, in place (the mapping sees it)
fl = struct.unpack("<I", f.read(4))[0]
f.seek(28)
f.write(struct.pack("<I", fl | 2))	# IOTRACE_RING_DETACHED' "$T/dfs7/nullb0/ring"
		wait $fpid
		rc=$?
		cmd=${c%% *}
		what="following it ends here"
		[ "$cmd" = stats ] && what="its reports end here"
		[ $rc = 0 ] &&
			[ "$(cat "$T/err")" = "$cmd: nullb0: the ring was detached (disk removed or ring resized): $what" ] &&
			python3 -c 'import csv, json, sys
if sys.argv[2] == "show":
	n = len(list(csv.DictReader(open(sys.argv[1]))))
else:
	n = sum(json.loads(l)["records"] for l in open(sys.argv[1]))
assert n == 30, n' "$T/fo" "$cmd" >> "$T/err" 2>&1
		result $? "${cmd}_live_ends_when_the_ring_is_detached$SFX (exit $rc)" "$T/err"
	done
	rm -rf "$T/dfs7"
	# stats' total latency (queue + device) in text, JSON and CSV, and
	# the requests without a queue time left out, against the records
	# (tests/totalcheck.py): e.trace has some without, m.trace two disks
	: > "$T/err"
	for src in e.trace m.trace r.ring; do
		"$BIN" export -f csv "$T/$src" > "$T/tx.csv" 2>> "$T/err" &&
		"$BIN" stats -o json "$T/$src" > "$T/ts.json" 2>> "$T/err" &&
		"$BIN" stats -o csv "$T/$src" > "$T/ts.csv" 2>> "$T/err" &&
		"$BIN" stats "$T/$src" > "$T/ts.txt" 2>> "$T/err" &&
		python3 tests/totalcheck.py "$T/tx.csv" "$T/ts.json" \
			"$T/ts.csv" "$T/ts.txt" > "$T/tc.$src" 2>&1 ||
			{ echo "$src:"; cat "$T/tc.$src"; } >> "$T/err"
	done
	[ ! -s "$T/err" ] && grep -q ', [1-9][0-9]* requests left out' "$T/tc.e.trace"
	result $? "stats_total_latency_against_records$SFX" "$T/err"
	# and per interval of stats --interval (text, JSON, CSV)
	: > "$T/err"
	for src in e.trace r.ring; do
		"$BIN" export -f csv "$T/$src" > "$T/tx.csv" 2>> "$T/err" &&
		"$BIN" stats --interval 1ms -o json "$T/$src" > "$T/ts.json" 2>> "$T/err" &&
		"$BIN" stats --interval 1ms -o csv "$T/$src" > "$T/ts.csv" 2>> "$T/err" &&
		"$BIN" stats --interval 1ms "$T/$src" > "$T/ts.txt" 2>> "$T/err" &&
		python3 tests/totalcheck.py --interval "$T/tx.csv" "$T/ts.json" \
			"$T/ts.csv" "$T/ts.txt" > "$T/tc.$src" 2>&1 ||
			{ echo "$src:"; cat "$T/tc.$src"; } >> "$T/err"
	done
	[ ! -s "$T/err" ] && grep -q ', [1-9][0-9]* requests left out' "$T/tc.e.trace"
	result $? "stats_interval_total_latency_against_records$SFX" "$T/err"
	# stats --interval over a recording: the time series
	golden stats_file_interval.txt stats --interval 1ms f2.trace
	golden stats_ring_interval.json stats --interval 2ms -o json r.ring
	"$BIN" stats --interval 500us -o json "$T/r.ring" > "$T/ts.json" 2> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/recs.json" 2>> "$T/err" &&
	python3 -c 'import json, math, sys
ts = json.load(open(sys.argv[1]))
recs = json.load(open(sys.argv[2]))
w = 500000
t0 = min(r["issue_ns"] for r in recs)
t1 = max(r["complete_ns"] for r in recs if r["complete_ns"] is not None)
# the grid from the first request; the last interval is over what the
# trace covers of it, to the last completion, and so are its rates
assert ts[0]["start_ns"] == t0
assert [x["time_ns"] for x in ts] == [t0 + (k + 1) * w for k in range(len(ts))]
assert ts[-1]["start_ns"] + ts[-1]["interval_ns"] == t1
assert 0 < ts[-1]["interval_ns"] < w
assert all(x["interval_ns"] == w for x in ts[:-1])
for a, b in zip(ts, ts[1:]):
	assert b["start_ns"] == a["time_ns"]
for x in ts:
	for o in x["ops"].values():
		assert abs(o["iops"] - o["count"] / (x["interval_ns"] / 1e9)) < 0.01
assert sum(x["records"] for x in ts) == len(recs), "every record once"
# queue depth: the time in flight, spread over the intervals
lat = sum(r["latency_ns"] for r in recs if r["latency_ns"] is not None)
qd = sum(x["queue_depth"] * x["interval_ns"] for x in ts)
assert abs(qd - lat) <= len(ts) * w * 0.0005 + 1, (qd, lat)
# and per operation
for op in set(r["op"] for r in recs):
	lat = sum(r["latency_ns"] for r in recs
		  if r["latency_ns"] is not None and r["op"] == op)
	qd = sum(x["ops"][op]["queue_depth"] * x["interval_ns"] for x in ts
		 if op in x["ops"])
	assert abs(qd - lat) <= len(ts) * w * 0.0005 + 1, (op, qd, lat)
def pct(v, p):
	# the one method of every report: the nearest rank ceil(p/100 n),
	# reported as the log-linear histogram does (stats.c): the first and
	# last rank exact, else the midpoint of its bucket (2048 exact
	# values, then 1024 per power of two), clamped to min and max
	v = sorted(v)
	x = p / 100.0 * len(v)
	r = min(max(int(x) + (int(x) < x), 1), len(v))
	if r in (1, len(v)) or v[r - 1] < 2048:
		return v[r - 1]
	e = v[r - 1].bit_length() - 1
	w = 1 << (e - 10)
	return min(max(v[r - 1] // w * w + w // 2, v[0]), v[-1])
# p50 and p99 per interval and op: the method of every report, within
# 1/2048 of the exact nearest rank
for i, x in enumerate(ts):
	lo, hi = x["start_ns"], x["start_ns"] + x["interval_ns"]
	for op, o in x["ops"].items():
		v = sorted(r["latency_ns"] for r in recs if r["op"] == op and
			   r["latency_ns"] is not None and
			   lo <= r["complete_ns"] < hi + (i == len(ts) - 1))
		assert o["count"] >= len(v) and o["lat_ns"]["n"] == len(v)
		for p in (50, 99):
			if not v:
				break
			want = v[max(1, math.ceil(p / 100 * len(v))) - 1]
			got = o["lat_ns"]["p%d" % p]
			assert got == pct(v, p), (x["time_ns"], op, p, got, pct(v, p))
			assert abs(got - want) <= want / 2048, (got, want)' "$T/ts.json" "$T/recs.json" 2>> "$T/err"
	result $? "stats_file_interval_counts_depth_percentiles$SFX" "$T/err"
	# a --from/--to window: the intervals from --from, none past --to,
	# the first and last over the part the trace covers
	"$BIN" stats --interval 1ms --from 1.0015 --to 1.0062 -o json \
		"$T/r.ring" > "$T/ts.json" 2> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/recs.json" 2>> "$T/err" &&
	python3 -c 'import json, sys
ts = json.load(open(sys.argv[1]))
recs = json.load(open(sys.argv[2]))
t1 = max(r["complete_ns"] for r in recs if r["complete_ns"] is not None)
a, b = 1001500000, min(1006200000, t1)
assert ts[0]["start_ns"] == a, ts[0]
assert ts[-1]["start_ns"] + ts[-1]["interval_ns"] == b, (ts[-1], b)
assert [x["time_ns"] for x in ts] == [a + (k + 1) * 1000000
	for k in range(len(ts))]
n = sum(1 for r in recs if r["complete_ns"] is not None and
	a <= r["complete_ns"] < 1006200000)
assert sum(x["records"] for x in ts) == n, (sum(x["records"] for x in ts), n)
for x in ts:
	for o in x["ops"].values():
		assert abs(o["iops"] - o["count"] / (x["interval_ns"] / 1e9)) < 0.01' \
		"$T/ts.json" "$T/recs.json" >> "$T/err" 2>&1
	result $? "stats_file_interval_window_from_to$SFX" "$T/err"
	# nothing matches: no interval (a header; an empty JSON array)
	(cd "$T" && "$ROOT/$BIN" stats --interval 1ms --from 50 r.ring &&
		"$ROOT/$BIN" stats --interval 1ms --from 50 -o json r.ring) \
		> "$T/out" 2> "$T/err"
	rc=$?
	[ $rc = 0 ] && [ "$(sed -n 2p "$T/out")" = "[]" ] &&
		[ "$(head -c 6 "$T/out")" = "TIME_S" ] && [ "$(wc -l < "$T/out")" = 2 ]
	rc=$?
	cat "$T/out" >> "$T/err"
	result $rc "stats_file_interval_nothing_matches_no_interval$SFX" "$T/err"
	# sub-millisecond intervals: TIME_S tells them apart; ns taken; the
	# QD of a line is its operation's (as -o json's)
	(cd "$T" && "$ROOT/$BIN" stats --interval 250us r.ring) \
		> "$T/out" 2> "$T/err" &&
	(cd "$T" && "$ROOT/$BIN" stats --interval 250000ns -o json r.ring) \
		> "$T/ts.json" 2>> "$T/err" &&
	python3 -c 'import json, sys
text = [l.split() for l in open(sys.argv[1]).read().split("\n")[1:] if l]
ts = json.load(open(sys.argv[2]))
times = sorted(set(r[0] for r in text))
assert len(times) == len(ts), (len(times), len(ts))
assert all(len(t.split(".")[1]) == 6 for t in times), times[:3]
for x in ts:
	t = "%.6f" % (x["time_ns"] / 1e9)
	for op, o in x["ops"].items():
		row = [r for r in text if r[0] == t and r[1] == op]
		assert len(row) == 1, (t, op)
		assert abs(float(row[0][9]) - o["queue_depth"]) <= 0.006, (row, o)' \
		"$T/out" "$T/ts.json" >> "$T/err" 2>&1
	result $? "stats_file_interval_sub_ms_and_qd_per_op$SFX" "$T/err"
	# requests in flight for 30 to 48 minutes, over an --interval of
	# 20 ms (145,000 intervals, three requests in four through 90,000
	# or more): what is held is a slot per interval and those with a
	# request beginning, ending or completing in them, not 1.7 KB per
	# interval (250 MB here; the plain build's peak RSS, ASan's is no
	# figure);
	# --count N prints the first N intervals of the same, and holds
	# those only: a grid of more than 1,000,000 intervals is refused,
	# but not with a --count that cuts it
	[ -s "$T/ll.trace" ] || build/gen longlat "$T/ll.trace" 2000 1800000000000
	python3 - "$BIN" "$T/ll.trace" "$SFX" > "$T/why" 2>&1 <<'EOF_PY'
import os, subprocess, sys
b, f, sfx = sys.argv[1:]
pid = os.fork()
if not pid:
	fd = os.open("/dev/null", os.O_WRONLY)
	os.dup2(fd, 1)
	os.execv(b, [b, "stats", "--interval", "20ms", f])
_, st, ru = os.wait4(pid, 0)
mb = ru.ru_maxrss / 1024
print("# stats --interval 20ms: peak RSS %.0f MB" % mb)
assert os.waitstatus_to_exitcode(st) == 0, st
assert sfx or mb < 48, "peak RSS %.0f MB (limit 48)" % mb
full = subprocess.run([b, "stats", "--interval", "20ms", "-o", "csv", f],
		      capture_output=True, check=True).stdout.split(b"\n")
assert len(full) > 280000, len(full)
n = 0
for c in ("1", "1000"):
	out = subprocess.run([b, "stats", "--interval", "20ms", "-o", "csv",
			      "--count", c, f], capture_output=True, check=True)
	got = out.stdout.split(b"\n")[:-1]
	assert got == full[:len(got)], "--count %s: not the first lines" % c
	assert len(set(r.split(b",")[1] for r in got[1:])) == int(c), c
r = subprocess.run([b, "stats", "--interval", "1us", f], capture_output=True)
assert r.returncode == 2 and b"more than 1000000 intervals over the" in r.stderr, r
r = subprocess.run([b, "stats", "--interval", "1us", "--count", "3", "-o",
		    "json", f], capture_output=True, text=True)
assert r.returncode == 0 and r.stdout.count("time_ns") == 3, r
EOF_PY
	rc=$?
	grep '^#' "$T/why"
	result $rc "stats_file_interval_long_requests_held_by_interval$SFX" "$T/why"
	"$BIN" plot "$T/f2.trace" -o "$T/ts.svg" 2> "$T/err" &&
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
s = open(sys.argv[1]).read()
for t in ("IOPS over time", "Throughput over time", "p99 latency over time",
	  "Requests in flight over time"):
	assert t in s, t
# a line per disk and operation in every panel: 2 disks x 4 ops
n = s.count("<polyline")
assert n >= 3 * 8, n' "$T/ts.svg" 2>> "$T/err"
	result $? "plot_time_series_panels_per_disk_and_op$SFX" "$T/err"
	# btt's breakdown in stats, against the records
	"$BIN" stats -o json "$T/r.ring" > "$T/bt.json" 2> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/recs.json" 2>> "$T/err" &&
	python3 -c 'import json, math, sys
st = json.load(open(sys.argv[1]))[0]
b = st["btt"]
recs = [r for r in json.load(open(sys.argv[2])) if r["latency_ns"] is not None]
def pct(v, p):
	# the one method of every report: the nearest rank ceil(p/100 n),
	# reported as the log-linear histogram does (stats.c): the first and
	# last rank exact, else the midpoint of its bucket (2048 exact
	# values, then 1024 per power of two), clamped to min and max
	v = sorted(v)
	x = p / 100.0 * len(v)
	r = min(max(int(x) + (int(x) < x), 1), len(v))
	if r in (1, len(v)) or v[r - 1] < 2048:
		return v[r - 1]
	e = v[r - 1].bit_length() - 1
	w = 1 << (e - 10)
	return min(max(v[r - 1] // w * w + w // 2, v[0]), v[-1])
def rank(v, p):
	v = sorted(v)
	return v[max(1, math.ceil(p * len(v) / 100)) - 1]
for by, key in (("ops", "op"), ("hwq", "hwq"), ("cpu", "issue_cpu")):
	keys = set(str(r[key]) for r in recs)
	assert set(b[by]) == keys, (by, set(b[by]), keys)
	for k, g in b[by].items():
		mine = [r for r in recs if str(r[key]) == k]
		assert g["count"] == len(mine)
		for p in (50, 90, 99):
			for f, c in (("d2c_ns", "latency_ns"), ("q2d_ns", "queue_ns")):
				v = [r[c] for r in mine]
				got, exact = g[f]["p%d" % p], rank(v, p)
				assert got == pct(v, p), (by, k, f, p, got, pct(v, p))
				assert abs(got - exact) <= exact / 2048, (got, exact)
# one report, one method: the main table says what the breakdown says
for op, o in st["ops"].items():
	for p in (50, 90, 99):
		assert o["lat_ns"]["p%d" % p] == b["ops"][op]["d2c_ns"]["p%d" % p], (op, p)
	v = [r["latency_ns"] for r in recs if r["op"] == op]
	for p in (50, 90, 99, 99.9):
		assert o["lat_ns"]["p%g" % p] == pct(v, p), (op, p, o["lat_ns"], pct(v, p))
	if math.ceil(0.999 * len(v)) >= len(v):
		assert o["lat_ns"]["p99.9"] == o["lat_ns"]["max"], (op, o["lat_ns"])
s = sorted((r for r in recs if r["sector"] is not None and r["bytes"]),
	   key=lambda r: (r["issue_ns"], r["sector"]))
d = [abs(y["sector"] - (x["sector"] + x["bytes"] // 512)) for x, y in zip(s, s[1:])]
assert b["seek"]["n"] == len(d) and b["seek"]["sequential"] == d.count(0)
assert b["seek"]["p50_sectors"] == pct(d, 50), (b["seek"], pct(d, 50))
assert abs(b["seek"]["mean_sectors"] - sum(d) / len(d)) < 0.1' "$T/bt.json" "$T/recs.json" 2>> "$T/err"
	result $? "stats_btt_breakdown_against_records$SFX" "$T/err"
	# a ring whose records are all in flight (none completed): nothing
	# for btt's breakdown, an empty table and no seeks (UBSan: btt.c
	# gave qsort() its NULL array)
	build/gen ring2 "$T/infl.ring" 8 1 32 1 i0,i1,i2,i3,i4,i5,i6,i7 2> "$T/err" &&
	"$BIN" stats "$T/infl.ring" > "$T/out" 2>> "$T/err" &&
	"$BIN" stats -o json "$T/infl.ring" > "$T/bt.json" 2>> "$T/err" &&
	grep -q "/infl.ring: 8 records, 8 incomplete" "$T/out" &&
	grep -q "^seeks (issue order, sectors): 0, " "$T/out" &&
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))[0]["btt"]
assert b["ops"] == {} and b["hwq"] == {} and b["cpu"] == {}, b
assert b["seek"]["n"] == 0, b' "$T/bt.json" >> "$T/err" 2>&1
	rc=$?
	cat "$T/out" >> "$T/err"
	result $rc "stats_btt_without_completed_requests$SFX" "$T/err"
	# show and export -f csv stream a trace file larger than their
	# reordering window (16384 records): in order, every record once
	[ -s "$T/big.trace" ] || build/gen file "$T/big.trace" 200000 2
	"$BIN" show -o csv "$T/big.trace" > "$T/big.csv" 2> "$T/err" &&
	"$BIN" export -f csv "$T/big.trace" -o "$T/bigx.csv" 2>> "$T/err" &&
	[ ! -s "$T/err" ] && python3 -c 'import sys
def rows(f):
	it = iter(open(f))
	h = next(it).rstrip("\n").split(",")
	return h, [l.split(",") for l in it]
h, a = rows(sys.argv[1])
_, b = rows(sys.argv[2])
assert len(a) == len(b) == 400000, (len(a), len(b))
ci, ii = h.index("complete_ns"), h.index("issue_ns")
ka = [(int(r[ci]), int(r[ii])) for r in a]
assert ka == sorted(ka), "show: completion order"
kb = [int(r[ii]) for r in b]
assert kb == sorted(kb), "export: start order"' "$T/big.csv" "$T/bigx.csv" 2>> "$T/err"
	result $? "show_export_csv_stream_a_file_beyond_the_window$SFX" "$T/err"
	# a trace file cut by another process while export reads it (export
	# blocked on a pipe half-way): said truncated, exit 1, no SIGBUS
	[ -s "$T/big.trace" ] || build/gen file "$T/big.trace" 200000 2
	cp "$T/big.trace" "$T/cut.trace"
	{ "$BIN" export -f csv "$T/cut.trace" 2> "$T/err"; echo $? > "$T/rc"; } |
		{ head -c 1 > /dev/null; truncate -s 100000 "$T/cut.trace"; cat > /dev/null; }
	rc=$(cat "$T/rc")
	[ "$rc" = 1 ] &&
		grep -q "^iotracectl: $T/cut.trace: truncated trace file: cut while it was read ([0-9]* bytes when opened, 100000 now) (something truncated" "$T/err"
	result $? "export_of_a_file_cut_while_read_says_it$SFX (exit $rc)" "$T/err"
	# the readers stream in bounded memory: on a 700000-record file
	# (90 MB; holding its records takes more than 100 MB), every one
	# peaks below 64 MB of RSS (the plain build only: ASan's shadow
	# memory is no figure of the reader's); stats too (its btt
	# breakdown kept every request: some 100 MB here)
	if [ -z "$SFX" ]; then
		build/gen bigissue "$T/huge.trace" 700000 &&
		mkdir -p "$T/hbt" && python3 -c 'import os, sys
bin, f, d = sys.argv[1:4]
runs = [["show", "-o", "csv", f], ["export", "-f", "csv", f],
	["export", "-f", "fio", f], ["export", "-f", "perfetto", f],
	["export", "-f", "pftrace", f, "-o", "/dev/null"],
	["export", "-f", "blktrace", f, "-o", d + "/b"],
	["stats", f], ["stats", "-o", "json", f]]
bad = []
for a in runs:
	pid = os.fork()
	if not pid:
		fd = os.open("/dev/null", os.O_WRONLY)
		os.dup2(fd, 1)
		os.dup2(fd, 2)
		os.execv(bin, [bin] + a)
	_, st, ru = os.wait4(pid, 0)
	mb = ru.ru_maxrss / 1024
	print("#", " ".join(a[:3]), "peak RSS %.0f MB" % mb)
	if st or mb > 64:
		bad.append("%s: exit %d, peak RSS %.0f MB (limit 64)" %
			   (" ".join(a[:3]), st, mb))
assert not bad, bad' "$BIN" "$T/huge.trace" "$T/hbt" > "$T/rss" 2>&1
		rc=$?
		grep '^#' "$T/rss"
		result $rc "readers_stream_in_bounded_memory" "$T/rss"
		# beyond 262144 requests stats' btt breakdown comes from
		# histograms: its percentiles the main table's method, within
		# 1/2048 of the exact ones (nearest rank over the records show
		# prints), counts, maxima, the seeks' count, sequential count
		# and mean exact
		"$BIN" stats -o json "$T/huge.trace" > "$T/hs.json" 2> "$T/err" &&
		"$BIN" show -o csv "$T/huge.trace" > "$T/h.csv" 2>> "$T/err" &&
		python3 -c 'import csv, json, math, sys
st = json.load(open(sys.argv[1]))[0]
b = st["btt"]
assert b["exact"] is False, b.get("exact")
g = {"ops": {}, "hwq": {}, "cpu": {}}
recs = []
for r in csv.DictReader(open(sys.argv[2])):
	if r["latency_ns"] == "":
		continue
	d2c = int(r["latency_ns"])
	q2d = int(r["queue_ns"]) if r["queue_ns"] != "" else None
	for by, k in (("ops", r["op"]), ("hwq", r["hwq"]), ("cpu", r["issue_cpu"])):
		x = g[by].setdefault(k, ([], []))
		x[0].append(d2c)
		if q2d is not None:
			x[1].append(q2d)
	if r["sector"] != "" and int(r["bytes"]):
		recs.append((int(r["issue_ns"]), int(r["sector"]), int(r["bytes"])))
def rank(v, p):
	return v[min(max(math.ceil(p * len(v) / 100), 1), len(v)) - 1]
def pct(v, p):
	# the one method of every report: the nearest rank ceil(p/100 n),
	# reported as the log-linear histogram does (stats.c): the first and
	# last rank exact, else the midpoint of its bucket (2048 exact
	# values, then 1024 per power of two), clamped to min and max
	v = sorted(v)
	x = p / 100.0 * len(v)
	r = min(max(int(x) + (int(x) < x), 1), len(v))
	if r in (1, len(v)) or v[r - 1] < 2048:
		return v[r - 1]
	e = v[r - 1].bit_length() - 1
	w = 1 << (e - 10)
	return min(max(v[r - 1] // w * w + w // 2, v[0]), v[-1])
def near(a, e):
	assert abs(a - e) <= e / 2048, (a, e)
for by in g:
	assert sorted(g[by]) == sorted(b[by]), (by, sorted(b[by]))
	for k, (d, q) in g[by].items():
		j = b[by][k]
		d.sort()
		q.sort()
		assert j["count"] == len(d) == j["d2c_ns"]["n"], (by, k)
		assert j["d2c_ns"]["max"] == d[-1] and j["q2d_ns"]["max"] == q[-1]
		for p in (50, 90, 99):
			near(j["d2c_ns"]["p%d" % p], rank(d, p))
			near(j["q2d_ns"]["p%d" % p], rank(q, p))
			assert j["d2c_ns"]["p%d" % p] == pct(d, p), (by, k, p)
			assert j["q2d_ns"]["p%d" % p] == pct(q, p), (by, k, p)
			if by == "ops":
				assert st["ops"][k]["lat_ns"]["p%d" % p] == j["d2c_ns"]["p%d" % p], (k, p)
recs.sort()
dist, end = [], None
for t, s, n in recs:
	if end is not None:
		dist.append(abs(s - end))
	end = s + n // 512
sk = b["seek"]
assert sk["n"] == len(dist) and sk["sequential"] == dist.count(0), sk
assert abs(sk["mean_sectors"] - sum(dist) / len(dist)) < 0.1, sk
dist.sort()
near(sk["p50_sectors"], rank(dist, 50))
near(sk["p90_sectors"], rank(dist, 90))' "$T/hs.json" "$T/h.csv" 2>> "$T/err"
		result $? "stats_btt_beyond_exact_one_method_within_1_2048" "$T/err"
		rm -rf "$T/huge.trace" "$T/hbt" "$T/hs.json" "$T/h.csv"
	fi
	# diff A B
	golden diff_file_ring.txt diff f.trace r.ring
	golden diff_file_ring.json diff -o json f.trace r.ring
	"$BIN" diff -o json "$T/f2.trace" "$T/r.ring" > "$T/d.json" 2> "$T/err" &&
	"$BIN" diff -o json "$T/r.ring" "$T/r.ring" > "$T/dd.json" 2>> "$T/err" &&
	"$BIN" show -o json "$T/f2.trace" > "$T/a.json" 2>> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/b.json" 2>> "$T/err" &&
	python3 -c 'import json, math, sys
d = json.load(open(sys.argv[1]))
same = json.load(open(sys.argv[2]))
A = json.load(open(sys.argv[3]))
B = json.load(open(sys.argv[4]))
for r in same["rows"]:
	assert r["ks"] == {"d": 0, "p": 1}, r
def cls(n):
	return "all" if n is None else n
def group(recs, op, lo, hi):
	return sorted(r["latency_ns"] for r in recs if r["op"] == op and
		      r["latency_ns"] is not None and
		      (lo is None or lo <= r["bytes"] <= hi))
def ks(a, b):
	v = sorted(set(a + b))
	import bisect
	return max(abs(bisect.bisect_right(a, x) / len(a) -
		       bisect.bisect_right(b, x) / len(b)) for x in v)
def q(l):
	s, fac, prev = 0, 2, 0
	if l < 1e-3:
		return 1
	for j in range(1, 101):
		t = fac * math.exp(-2 * j * j * l * l)
		s += t
		if abs(t) <= 0.001 * prev or abs(t) <= 1e-8 * s:
			return min(1, max(0, s))
		fac, prev = -fac, abs(t)
	return 1
n = 0
for r in d["rows"]:
	a = group(A, r["op"], r["size_min"], r["size_max"])
	b = group(B, r["op"], r["size_min"], r["size_max"])
	assert r["a"]["lat_ns"]["n"] == len(a) and r["b"]["lat_ns"]["n"] == len(b), r
	if not a or not b:
		assert r["ks"] is None
		continue
	D = ks(a, b)
	ne = len(a) * len(b) / (len(a) + len(b))
	p = q((math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * D)
	assert abs(r["ks"]["d"] - D) < 1e-6 and abs(r["ks"]["p"] - p) <= 1e-5 * max(p, 1e-3), (r, D, p)
	for k, v in (("a", a), ("b", b)):
		assert r[k]["lat_ns"]["p50"] == v[math.ceil(0.5 * len(v)) - 1]
	n += 1
assert n > 10, n' "$T/d.json" "$T/dd.json" "$T/a.json" "$T/b.json" 2>> "$T/err"
	result $? "diff_ks_and_percentiles_against_records$SFX" "$T/err"
	# diff's numbers and B's change relative to A (-o json's change_pct,
	# the text's CHANGE), computed from the records (tests/diffcheck.py)
	"$BIN" export -f csv "$T/f2.trace" > "$T/da.csv" 2> "$T/err" &&
	"$BIN" export -f csv "$T/r.ring" > "$T/db.csv" 2>> "$T/err" &&
	"$BIN" diff -o json "$T/f2.trace" "$T/r.ring" > "$T/d.json" 2> /dev/null &&
	"$BIN" diff "$T/f2.trace" "$T/r.ring" > "$T/d.txt" 2> /dev/null &&
	python3 tests/diffcheck.py "$T/da.csv" "$T/db.csv" "$T/d.json" \
		"$T/d.txt" >> "$T/err" 2>&1
	result $? "diff_change_column_against_records$SFX" "$T/err"
	# diff A:DISK B:DISK: one disk of each side (its --disk), the rows of
	# that disk's records; sides of other disks are said on standard
	# error, but for disks given with both sides (asked for)
	: > "$T/err"
	"$BIN" diff -o json "$T/f2.trace:disk0" "$T/f2.trace:disk1" > "$T/d.json" 2> "$T/e1" &&
	"$BIN" show -o json "$T/f2.trace" > "$T/a.json" 2>> "$T/err" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
recs = json.load(open(sys.argv[2]))
for side, disk in (("a", "disk0"), ("b", "disk1")):
	mine = [r for r in recs if r["disk"] == disk]
	assert d[side]["records"] == len(mine) > 0, (side, d[side], len(mine))
	rows = [x for x in d["rows"] if x["size"] == "all"]
	assert rows, d["rows"]
	for x in rows:
		n = sum(1 for r in mine if r["op"] == x["op"])
		assert x[side]["count"] == n, (side, x, n)' "$T/d.json" "$T/a.json" >> "$T/err" 2>&1 &&
	[ ! -s "$T/e1" ] &&
	"$BIN" diff "$T/f2.trace:disk0" "$T/r.ring" > /dev/null 2> "$T/e2" &&
	[ "$(cat "$T/e2")" = "iotracectl: diff: warning: A and B are of different disks (A: disk0; B: nullb0): the changes are the disks' as much as the runs'" ] &&
	"$BIN" diff "$T/f2.trace" "$T/f2.trace" > /dev/null 2> "$T/e3" && [ ! -s "$T/e3" ] ||
		{ cat "$T/e1" "$T/e2" "$T/e3" >> "$T/err" 2> /dev/null; false; }
	result $? "diff_per_side_disk_other_disks_said$SFX" "$T/err"
	# -o json is one document; --jsonl its items one per line
	: > "$T/err"
	for a in "show -o json $T/f.trace" "show -o json $T/r.ring" \
		 "stats -o json $T/f2.trace" "list -o json" \
		 "inflight -o json nullb0"; do
		# shellcheck disable=SC2086
		"$BIN" $a 2>> "$T/err" | python3 -m json.tool > /dev/null 2>> "$T/err" ||
			echo "not one JSON document: $a" >> "$T/err"
	done
	[ ! -s "$T/err" ]
	result $? "output_json_is_one_document$SFX" "$T/err"
	# list: an NVMe multipath head's paths right after it, indented;
	# their head in CSV and JSON ("head"); a path whose head is not
	# listed stays in name order, unindented
	rm -rf "$T/dfs6" && mkdir "$T/dfs6" &&
	for d in nvme1n1 nvme1c0n1 nvme1c2n1 nvme0n1 nvme3c1n1 sda nvme1n10; do
		mkdir "$T/dfs6/$d" && cp "$T/dfs/sda/ring" "$T/dfs6/$d/ring" &&
		printf 'enabled: 1\nrecorded: 5\n' > "$T/dfs6/$d/stats" || break
	done &&
	IOTRACE_DEBUGFS="$T/dfs6" "$BIN" list > "$T/l6.txt" 2> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs6" "$BIN" list -o csv > "$T/l6.csv" 2>> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs6" "$BIN" list -o json > "$T/l6.json" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
txt = [l.rstrip("\n") for l in open(sys.argv[1])][1:]
names = [l.split()[0] for l in txt]
want = ["nvme0n1", "nvme1n1", "nvme1c0n1", "nvme1c2n1", "nvme1n10", "nvme3c1n1", "sda"]
assert names == want, names
ind = [l.split()[0] for l in txt if l.startswith("  ")]
assert ind == ["nvme1c0n1", "nvme1c2n1"], ind
heads = {r["disk"]: r["head"] for r in csv.DictReader(open(sys.argv[2]))}
assert heads == {"nvme0n1": "", "nvme1n1": "", "nvme1c0n1": "nvme1n1", "nvme1c2n1": "nvme1n1", "nvme1n10": "", "nvme3c1n1": "nvme3n1", "sda": ""}, heads
js = {r["disk"]: r["head"] for r in json.load(open(sys.argv[3]))}
assert js == {k: (v or None) for k, v in heads.items()}, js' \
		"$T/l6.txt" "$T/l6.csv" "$T/l6.json" >> "$T/err" 2>&1
	result $? "list_nvme_multipath_paths_beneath_their_head$SFX" "$T/err"
	# list and inflight: a disk name that needs escapes round-trips
	# through JSON and CSV; every column but op (and the name) is a
	# number or null, whatever debugfs holds; no media address: null
	rm -rf "$T/dfs5" && cp -r "$T/dfs" "$T/dfs5" &&
	wd='we"ird\disk' && mkdir "$T/dfs5/$wd" &&
	cp "$T/dfs/sda/ring" "$T/dfs5/$wd/ring" &&
	printf 'enabled: 1\nrecorded: 12abc\npresent: -\ndropped: 7\n' > "$T/dfs5/$wd/stats" &&
	printf 'ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID\n5000 1.5 drv_in 18446744073709551615 512 ? 2 0 -\n6000 0.5 read 8 4096 1 3 -1 4242\n' > "$T/dfs5/$wd/inflight" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" list -o json > "$T/l.json" 2> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" list -o json --jsonl > "$T/l.jsonl" 2>> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" list -o csv > "$T/l.csv" 2>> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" inflight -o json "$wd" > "$T/i.json" 2>> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" inflight -o json --jsonl "$wd" > "$T/i.jsonl" 2>> "$T/err" &&
	IOTRACE_DEBUGFS="$T/dfs5" "$BIN" inflight -o csv "$wd" > "$T/i.csv" 2>> "$T/err" &&
	python3 -m json.tool "$T/l.json" > /dev/null 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
name = sys.argv[1]
def load(p):
	return json.load(open(p))
def lines(p):
	return [json.loads(l) for l in open(p)]
def rows(p):
	return list(csv.DictReader(open(p)))
def cell(v):
	return "" if v is None else str(v)
l = load(sys.argv[2])
assert l == lines(sys.argv[3]), "list: the document and JSON Lines differ"
d = [x for x in l if x["disk"] == name]
assert len(d) == 1, [x["disk"] for x in l]
for x in l:
	for k, v in x.items():
		if k not in ("disk", "triggers"):
			assert v is None or type(v) is int, (x["disk"], k, v)
assert d[0]["enabled"] == 1 and d[0]["recorded"] is None and \
	d[0]["present"] is None and d[0]["dropped"] == 7, d[0]
c = rows(sys.argv[4])
assert [r["disk"] for r in c] == [x["disk"] for x in l], c
for r, x in zip(c, l):
	assert r == {k: cell(v) for k, v in x.items()}, (r, x)
i = load(sys.argv[5])
assert i == lines(sys.argv[6]) and len(i) == 2, i
for x in i:
	for k, v in x.items():
		if k in ("op", "command"):
			assert type(v) is str, (k, v)
		elif k == "age_us":
			assert type(v) is float, (k, v)
		else:
			assert v is None or type(v) is int, (k, v)
assert i[0]["op"] == "drv_in" and i[0]["sector"] is None and \
	i[0]["hwq"] is None and i[0]["bytes"] == 512 and \
	i[0]["pid"] is None and i[0]["command"] == "-", i[0]
assert i[1]["sector"] == 8 and i[1]["cpu"] is None and \
	i[1]["pid"] == 4242, i[1]
c = rows(sys.argv[7])
assert len(c) == 2, c
for r, x in zip(c, i):
	assert r == {k: "%.1f" % v if k == "age_us" else cell(v)
		     for k, v in x.items()}, (r, x)' "$wd" "$T/l.json" "$T/l.jsonl" \
		"$T/l.csv" "$T/i.json" "$T/i.jsonl" "$T/i.csv" 2>> "$T/err"
	result $? "list_inflight_json_csv_names_escaped_numbers_typed$SFX" "$T/err"
	rm -rf "$T/dfs5"
	"$BIN" show -o json --jsonl "$T/f2.trace" > "$T/jl" 2> "$T/err" &&
	"$BIN" stats -o json --jsonl "$T/f2.trace" > "$T/sl" 2>> "$T/err" &&
	"$BIN" show -o json "$T/f2.trace" > "$T/j" 2>> "$T/err" &&
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
b = [json.loads(l) for l in open(sys.argv[2])]
assert a == b and len(a) == 80, (len(a), len(b))
s = [json.loads(l) for l in open(sys.argv[3])]
assert [x["source"][-6:] for x in s] == [":disk0", ":disk1"], s
assert all("filtered" in x["loss"] for x in s), s' "$T/j" "$T/jl" "$T/sl" 2>> "$T/err"
	result $? "output_jsonl_same_items_one_per_line$SFX" "$T/err"
	# one record schema: show -o csv, show -o json and export -f csv
	"$BIN" show -o csv "$T/r.ring" > "$T/c" 2> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/j" 2>> "$T/err" &&
	"$BIN" export -f csv "$T/r.ring" > "$T/x" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
c = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
x = list(csv.DictReader(open(sys.argv[3])))
assert open(sys.argv[1]).readline() == open(sys.argv[3]).readline()
assert len(c) == len(j) == len(x) > 0
for a, b in zip(c, j):
	assert list(a) == list(b), (list(a), list(b))
	for k in a:
		v = b[k]
		assert a[k] == ("" if v is None else str(v)), (k, a[k], v)
key = lambda r: (r["disk"], r["complete_cpu"], r["seq"], r["issue_ns"])
assert sorted(map(key, c)) == sorted(map(key, x))' "$T/c" "$T/j" "$T/x" 2>> "$T/err"
	result $? "output_one_record_schema_csv_json_export$SFX" "$T/err"
	: > "$T/dfs/nullb0/enable"
	"$BIN" enable nullb0 && [ "$(cat "$T/dfs/nullb0/enable")" = 1 ]
	result $? "enable_writes_1$SFX"
	# export and plot
	golden export_file.csv export -f csv f.trace
	golden export_file.perfetto export -f perfetto f.trace
	golden export_file.fio export -f fio f.trace
	golden export_multidisk.fio3 export -f fio3 f2.trace
	# a request without a media address (a flush, sector ~0): offset 0
	# in the iolog (fio's sync ignores it), sector 0 in blktrace's
	rm -rf "$T/bte" && mkdir "$T/bte" &&
	"$BIN" export -f fio "$T/e.trace" > "$T/e.fio" 2> "$T/err" &&
	"$BIN" export -f blktrace -o "$T/bte/e" "$T/e.trace" 2>> "$T/err" &&
	blkparse -i e -D "$T/bte" > "$T/bte/bp" 2>> "$T/err" &&
	grep -q '^/dev/disk0 sync 0 0$' "$T/e.fio" &&
	! awk '$3 + 0 >= 2^63' "$T/e.fio" | grep -q . &&
	! grep -q '18446744073709551' "$T/e.fio" "$T/bte/bp"
	rc=$?
	grep 'sync\|18446744073709551' "$T/e.fio" "$T/bte/bp" | head -5 >> "$T/err"
	result $rc "export_fio_blktrace_no_media_address_is_sector_0$SFX" "$T/err"
	nrec=$("$BIN" show -o csv "$T/r.ring" | tail -n +2 | wc -l)
	rm -rf "$T/bt" && mkdir "$T/bt" &&
	"$BIN" export -f blktrace -o "$T/bt/r" "$T/r.ring" 2> "$T/err" &&
	blkparse -i r -D "$T/bt" > "$T/bp" 2>> "$T/err"
	# blkparse's own counts: every record issued (D) and completed (C)
	nd=$(awk '$6 == "D"' "$T/bp" | wc -l)
	nc=$(awk '$6 == "C"' "$T/bp" | wc -l)
	[ "$nrec" -gt 0 ] && [ "$nd" = "$nrec" ] && [ "$nc" = "$nrec" ] &&
		grep -q 'Skips: 0 forward' "$T/bp"
	result $? "export_blktrace_blkparse_counts$SFX ($nrec records, $nd D, $nc C)" "$T/err"
	# btt's D2C mean = iotrace's mean latency (btt leaves out flushes)
	(cd "$T/bt" && blkparse -q -i r -d r.bin -O > /dev/null &&
	 btt -i r.bin > btt.out) 2>> "$T/err"
	d2c=$(awk '$1 == "D2C" { print $3 }' "$T/bt/btt.out")
	mean=$("$BIN" export -f csv "$T/r.ring" |
		awk -F, 'NR > 1 && $7 != "flush" && $6 != "" { s += $6; n++ }
			 END { if (n) printf "%.9f", s / n / 1e9 }')
	[ -n "$d2c" ] && [ -n "$mean" ] &&
		awk -v a="$d2c" -v b="$mean" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'
	result $? "export_blktrace_btt_d2c_is_mean_latency$SFX ($d2c s, $mean s)" "$T/bt/btt.out"
	# btt counts every request, those without a queue time too (their Q
	# at their issue)
	rm -rf "$T/btq" && mkdir "$T/btq" &&
	"$BIN" export -f blktrace -o "$T/btq/e" "$T/e.trace" 2> "$T/err" &&
	(cd "$T/btq" && blkparse -q -i e -d e.bin -O > /dev/null &&
	 btt -i e.bin > btt.out) 2>> "$T/err"
	n=$(awk '$1 == "D2C" { print $5 }' "$T/btq/btt.out")
	want=$("$BIN" export -f csv "$T/e.trace" 2>> "$T/err" |
		awk -F, 'NR > 1 && $6 != "" && !($7 == "flush" && $10 == 0) { n++ }
			 NR > 1 && $5 == "" { q++ } END { if (q) print n }')
	[ -n "$n" ] && [ "$n" = "$want" ]
	result $? "export_blktrace_btt_counts_every_request$SFX (D2C N $n of $want)" "$T/err"
	"$BIN" export -f perfetto "$T/r.ring" > "$T/p.json" 2> "$T/err" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert not [e for e in ev if e["ph"] == "X"], "no complete events"
b = {e["id"]: e for e in ev if e["ph"] == "b"}
e = {e["id"]: e for e in ev if e["ph"] == "e"}
assert len(b) == len(e) == int(sys.argv[2]), (len(b), len(e), sys.argv[2])
for i, x in b.items():
	y = e[i]
	assert (y["name"], y["cat"], y["pid"]) == (x["name"], x["cat"], x["pid"])
	assert y["ts"] >= x["ts"]
	assert x["name"] == "hwq %d" % x["args"]["hwq"]
# one track per (disk, hwq): the async slices of one name in a process
tracks = set((x["pid"], x["name"]) for x in b.values())
hwqs = set((x["pid"], x["args"]["hwq"]) for x in b.values())
assert len(tracks) == len(hwqs) == 2, (tracks, hwqs)' "$T/p.json" "$nrec" 2>> "$T/err"
	result $? "export_perfetto_one_track_per_hwq_async_slices$SFX" "$T/err"
	# export -f pftrace, Perfetto's protobuf, read back with protoc
	# --decode_raw against the field numbers of Perfetto's schema and the
	# records of export -f csv (tests/pftrace_check.py): three disks,
	# every operation, errors and overlapping requests; the edge cases
	# (no completion, latency 0, no queue time, no media address); one
	# disk of several (--disk); disk names to escape; a ring
	if command -v protoc > /dev/null; then
		[ -s "$T/pfops.trace" ] || build/gen ops "$T/pfops.trace" 1000 3
		[ -s "$T/pfnames.trace" ] || build/gen names "$T/pfnames.trace" 100 2
		pfcheck() { # pfcheck NAME DISKS ARGS...
			pfn=$1
			pfd=$2
			shift 2
			"$BIN" export -f pftrace -o "$T/pf.pftrace" "$@" 2> "$T/err" &&
			protoc --decode_raw < "$T/pf.pftrace" > "$T/pf.raw" 2>> "$T/err" &&
			"$BIN" export -f csv -o "$T/pf.csv" "$@" 2>> "$T/err" &&
			python3 tests/pftrace_check.py "$T/pf.raw" "$T/pf.csv" \
				"$pfd" >> "$T/err" 2>&1
			result $? "export_pftrace_$pfn$SFX" "$T/err"
			[ -n "$SFX" ] || echo "# export_pftrace_$pfn: $(tail -1 "$T/err")"
		}
		pfcheck ops_3_disks "disk0/disk1/disk2" "$T/pfops.trace"
		pfcheck edges disk0 "$T/e.trace"
		pfcheck one_disk disk1 --disk disk1 "$T/pfops.trace"
		pfcheck names "$(printf 'd"i\\s,k\t0/d"i\\s,k\t1')" "$T/pfnames.trace"
		pfcheck ring "$("$BIN" show -o csv "$T/r.ring" | tail -n +2 |
			cut -d, -f1 | sort -u | tr '\n' / | sed 's|/$||')" "$T/r.ring"
		# the tables of interned names and strings full: the others
		# written out (build/iotracectl-mq-san keeps 2 and 3, tools/Makefile)
		if [ -n "$SFX" ]; then
			pfbin=$BIN
			BIN=build/iotracectl-mq-san
			pfcheck tables_full "disk0/disk1/disk2" "$T/pfops.trace"
			BIN=$pfbin
		fi
		# no -f: an OUT named *.pftrace or *.perfetto-trace says it
		rm -f "$T/pf2.pftrace" "$T/pf2.perfetto-trace"
		"$BIN" export -f pftrace "$T/f2.trace" > "$T/pf1" 2> "$T/err" &&
		"$BIN" export -o "$T/pf2.pftrace" "$T/f2.trace" 2>> "$T/err" &&
		"$BIN" export -o "$T/pf2.perfetto-trace" "$T/f2.trace" 2>> "$T/err" &&
		cmp "$T/pf1" "$T/pf2.pftrace" && cmp "$T/pf1" "$T/pf2.perfetto-trace" &&
		[ ! -s "$T/err" ]
		result $? "export_pftrace_by_output_name$SFX" "$T/err"
		# binary onto a terminal: refused, exit 2
		python3 -c 'import os, pty, subprocess, sys
m, s = pty.openpty()
r = subprocess.run(sys.argv[1:], stdout=s, stderr=subprocess.PIPE)
os.close(s)
sys.stderr.write(r.stderr.decode())
sys.exit(r.returncode != 2 or b"-o FILE.pftrace" not in r.stderr)' \
			"$BIN" export -f pftrace "$T/f2.trace" 2> "$T/err"
		result $? "export_pftrace_not_onto_a_terminal$SFX" "$T/err"
	else
		echo "# SKIP export_pftrace: no protoc (Debian: protobuf-compiler)"
	fi
	"$BIN" plot "$T/r.ring" -o "$T/p.svg" 2> "$T/err" &&
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "{http://www.w3.org/2000/svg}svg"
s = open(sys.argv[1]).read()
assert "href" not in s and "<script" not in s' "$T/p.svg" 2>> "$T/err"
	result $? "plot_svg_well_formed_self_contained$SFX" "$T/err"
	# plot's latency histogram has the bins and counts of stats
	"$BIN" stats -o json "$T/r.ring" > "$T/st.json" 2>> "$T/err" &&
	python3 -c 'import json, re, sys
st = json.load(open(sys.argv[1]))[0]
b = [0] * 64
for o in st["ops"].values():
	for k, n in enumerate(o.get("lat_log2_us", [])):
		b[k] += n
nz = [k for k in range(64) if b[k]]
want = b[nz[0]:nz[-1] + 1]
svg = open(sys.argv[2]).read()
svg = svg[svg.index("Latency histogram"):]
got = [int(n) for n in re.findall(r"<title>[^<]* to [^<]*: (\d+) requests</title>", svg)]
assert got == want, ("plot", got, "stats", want)' "$T/st.json" "$T/p.svg" 2>> "$T/err"
	result $? "plot_histogram_bins_are_stats_bins$SFX" "$T/err"
	if command -v rsvg-convert > /dev/null; then
		rsvg-convert "$T/p.svg" -o "$T/p.png" 2> "$T/err" &&
			[ "$(head -c 4 "$T/p.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ]
		result $? "plot_svg_renders_png$SFX" "$T/err"
	fi
	# plot on records the ABI allows that are no common case: one issued
	# a day after its completion; passthrough ones (no media address:
	# sector UINT64_MAX), one of 4096 bytes (its end would wrap): exit
	# 0, every cell in its panel, the seek panel's sector axis that of
	# the records with a sector, their points on rows apart
	: > "$T/err"
	build/gen set "$T/f.trace" "$T/late.trace" 5 issue_ns=100000000000000 &&
	build/gen set "$T/f.trace" "$T/pt1.trace" 3 sector=0xffffffffffffffff bytes=0 &&
	build/gen set "$T/pt1.trace" "$T/pt.trace" 7 sector=0xffffffffffffffff bytes=4096 ||
		echo "gen set failed" >> "$T/err"
	for f in late pt; do
		"$BIN" plot "$T/$f.trace" -o "$T/$f.svg" 2>> "$T/err"
		rc=$?
		[ $rc = 0 ] || { echo "$f: exit $rc" >> "$T/err"; continue; }
		"$BIN" show -o csv "$T/$f.trace" > "$T/$f.csv" 2>> "$T/err"
		python3 -c 'import csv, re, sys, xml.etree.ElementTree as E
svg, rows = sys.argv[1], list(csv.DictReader(open(sys.argv[2])))
E.parse(svg)
s = open(svg).read()
heat = s[s.index("Device latency over time"):s.index("Start sector (LBA)")]
seek = s[s.index("Start sector (LBA)"):s.index("IOPS over time")]
rect = r"<rect x=\"([-0-9.e+]+)\" y=\"([-0-9.e+]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\""
# heat map cells in its plot area (x 100 to 900, y 0 to 220)
for m in re.finditer(rect, heat):
	x, y, w, h = map(float, m.groups())
	assert 99 <= x and x + w <= 901 and -1 <= y and y + h <= 221, m.group(0)
# seek cells in the plot area of their strip (a frame: fill none)
frames = [tuple(map(float, m.groups())) for m in re.finditer(rect + " fill=\"none\"", seek)]
assert frames, "no seek strip"
for m in re.finditer(rect + " fill-opacity", seek):
	x, y, w, h = map(float, m.groups())
	assert any(f[0] <= x and x + w <= f[0] + f[2] and f[1] <= y and
		   y + h <= f[1] + f[3] for f in frames), m.group(0)
# the sector axis (bytes, a strip per disk and operation): its ticks up
# to the end of the highest request
units = {"": 0, "B": 1, "KiB": 2, "MiB": 3, "GiB": 4, "TiB": 5, "PiB": 6}
ticks = [float(v) * 1024 ** (units[u] - 1) * (u != "")
	 for v, u in re.findall(r"class=\"r\">([0-9.]+) ?([KMGTP]?i?B|)</text>", seek)]
ends = [(int(r["sector"]) + int(r["bytes"]) // 512) * 512 for r in rows if r["sector"]]
assert len(ends) < len(rows) or sys.argv[3] == "late", "no passthrough record"
assert max(ends) / 2 <= max(ticks) <= max(ends), (max(ticks), max(ends))
ys = set(re.findall(r"<rect x=\"[-0-9.]+\" y=\"([-0-9.]+)\" width=\"[0-9.]+\" height=\"[0-9.]+\" fill-opacity", seek))
assert len(ys) >= 10, "%d rows of the seek panel used" % len(ys)' \
			"$T/$f.svg" "$T/$f.csv" $f >> "$T/err" 2>&1 ||
			echo "$f: above" >> "$T/err"
	done
	[ ! -s "$T/err" ]
	result $? "plot_late_issue_and_passthrough_records$SFX" "$T/err"
	# plot's layout, as librsvg renders it (tests/plotcheck.py: no two
	# texts overlap, each legend swatch beside its label, no legend or
	# title on a plot area, nothing outside the canvas, no 7e+04): on
	# several disks, every operation, a few records, latencies from
	# 0 to 40 s, bursts, two disks of other sizes and latencies, and 5 M
	# records (the cells' density)
	if [ -z "$SFX" ]; then
		PYGI=""
		for py in /usr/bin/python3 python3; do
			if "$py" -c 'import gi; gi.require_version("Rsvg", "2.0")
from gi.repository import Rsvg' 2> /dev/null; then
				PYGI=$py
				break
			fi
		done
		if [ -z "$PYGI" ]; then
			N=$((N + 1))
			echo "ok $N plot_layout_librsvg_geometry # SKIP python3-gi or gir1.2-rsvg-2.0 is not installed"
		else
			: > "$T/err"
			build/gen set "$T/m.trace" "$T/slow.trace" 150 complete_ns=40000000000 &&
			build/gen spread "$T/spread.trace" 20000 &&
			build/gen mixed "$T/mixed.trace" 20000 2 &&
			build/gen big "$T/big.trace" 5000000 ||
				echo "gen failed" >> "$T/err"
			for f in m.trace ops.trace s.trace e.trace r.ring slow.trace \
				 spread.trace g.trace mixed.trace big.trace; do
				"$BIN" plot "$T/$f" -o "$T/lay-$f.svg" 2>> "$T/err" ||
					echo "$f: exit $?" >> "$T/err"
			done
			rm -f "$T/big.trace"
			"$PYGI" tests/plotcheck.py "$T"/lay-*.svg >> "$T/err" 2>&1
			[ ! -s "$T/err" ]
			result $? "plot_layout_librsvg_geometry" "$T/err"
		fi
	fi
	# the p99 panel's lines (a log scale) where stats puts the p99:
	# gen big repeats its records every 1,024, so every interval's p99
	# is the whole file's (stats' P99_US per operation)
	if [ -z "$SFX" ]; then
		build/gen big "$T/p99.trace" 200000 > "$T/err" 2>&1 &&
		"$BIN" plot "$T/p99.trace" -o "$T/p99.svg" 2>> "$T/err" &&
		"$BIN" stats -o json "$T/p99.trace" > "$T/p99.json" 2>> "$T/err" &&
		python3 -c 'import json, math, re, statistics, sys
s = open(sys.argv[1]).read()
s = s[s.index("p99 latency over time"):s.index("Requests in flight over time")]
unit = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}
ticks = [(float(y) - 4, math.log10(float(v) * unit[u])) for y, v, u in
	 re.findall(r"y=\"([0-9.]+)\" class=\"r\">([0-9.]+) (\S+)</text>", s)]
(y0, l0), (y1, l1) = ticks[0], ticks[-1]
lines = re.findall(r"<polyline[^>]*stroke=\"(#[0-9a-f]+)\"[^>]*points=\"([^\"]+)\"", s)
legend = dict(re.findall(r"stroke=\"(#[0-9a-f]+)\" stroke-width=\"2\"[^>]*/><text[^>]*>\S+ (\w+)</text>", s))
st = json.load(open(sys.argv[2]))[0]["ops"]
assert len(lines) == len(st) == 4, (len(lines), list(st))
for col, pts in lines:
	ys = [float(p.split(",")[1]) for p in pts.split()]
	got = 10 ** (l0 + (statistics.median(ys) - y0) * (l1 - l0) / (y1 - y0))
	want = st[legend[col]]["lat_ns"]["p99"]
	assert abs(got / want - 1) < 0.02, (legend[col], got, want)' \
			"$T/p99.svg" "$T/p99.json" >> "$T/err" 2>&1
		result $? "plot_p99_lines_at_stats_p99" "$T/err"
		rm -f "$T/p99.trace"
	fi
	# passthrough records are blktrace "pc" events with the CDB as payload
	python3 -c 'import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
f = struct.unpack_from("<IHHIIIIIIQQQQ", b, 0)
rs, nparts, prec, do, ps = f[4], f[5], f[6], f[10], f[11]
n = 0
for p in range(nparts):
	for i in range(prec):
		o = do + p * ps + i * rs
		if b[o + 60] == 2:	# cmd_type SCSI
			rf = struct.unpack_from("<H", b, o + 46)[0] | 0x10
			struct.pack_into("<H", b, o + 46, rf)
			b[o + 58] = 12 if b[o + 58] == 0 else 13
			n += 1
open(sys.argv[2], "wb").write(b)
print(n)' "$T/r.ring" "$T/pc.ring" > "$T/npc" 2> "$T/err"
	rm -rf "$T/pc" && mkdir "$T/pc" &&
	"$BIN" export -f blktrace -o "$T/pc/pc" "$T/pc.ring" 2>> "$T/err" &&
	blkparse -i pc -D "$T/pc" > "$T/pc.txt" 2>> "$T/err"
	npc=$(cat "$T/npc")
	pd=$(awk '$6 == "D" && / \((88|8a|35|42) /' "$T/pc.txt" | wc -l)
	pcc=$(awk '$6 == "C" && / \((88|8a|35|42) /' "$T/pc.txt" | wc -l)
	[ "${npc:-0}" -gt 0 ] && [ "$pd" = "$npc" ] && [ "$pcc" = "$npc" ]
	result $? "export_blktrace_passthrough_cdb_payload$SFX ($npc records, $pd D, $pcc C)" "$T/err"
	# fio parses and replays both iolog versions (on a sparse file)
	for v in fio fio3; do
		"$BIN" export -f $v --op read,write "$T/r.ring" > "$T/r.$v" 2> "$T/err"
		rm -f "$T/fio.dat" && truncate -s 80G "$T/fio.dat" &&
		fio --name=replay --read_iolog="$T/r.$v" --ioengine=psync \
			--replay_redirect="$T/fio.dat" \
			--output-format=json --output="$T/fio.json" >> "$T/err" 2>&1 &&
		want=$(awk '$(NF - 2) == "read" { r++ } $(NF - 2) == "write" { w++ }
			    END { print r + 0, w + 0 }' "$T/r.$v") &&
		got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"], j["write"]["total_ios"])' "$T/fio.json") &&
		[ "$want" = "$got" ] && [ "$want" != "0 0" ]
		result $? "export_${v}_replayed_by_fio$SFX (${want:-?} / ${got:-?})" "$T/err"
		rm -f "$T/fio.dat"
	done
	# an fsync's empty PREFLUSH write (WRITE, 0 bytes, NO_ISSUE |
	# PREFLUSH): left out and counted (fio aborts on a line of length 0:
	# "Assertion `fio_file_open(f)' failed"), the rest replayed
	"$BIN" export -f fio --disk disk0 -o "$T/one.fio" "$T/f.trace" 2> /dev/null &&
	build/gen set "$T/f.trace" "$T/pf.trace" 0 op=1 bytes=0 rflags=4225 \
		sector=0 2> "$T/err" &&
	"$BIN" export -f fio --disk disk0 -o "$T/pf.fio" "$T/pf.trace" 2> "$T/pf.err" &&
	grep -qx 'iotracectl: export: 1 reads or writes of no data (an fsync.s empty PREFLUSH writes: their flushes are sync lines) left out' "$T/pf.err" &&
	! grep -qE ' (read|write) [0-9]+ 0$' "$T/pf.fio" &&
	[ "$(grep -cE ' (read|write) ' "$T/pf.fio")" = $(($(grep -cE ' (read|write) ' "$T/one.fio") - 1)) ] &&
	rm -f "$T/fio.dat" && truncate -s 80G "$T/fio.dat" &&
	fio --name=replay --read_iolog="$T/pf.fio" --ioengine=psync \
		--replay_redirect="$T/fio.dat" \
		--output-format=json --output="$T/fio.json" >> "$T/err" 2>&1 &&
	want=$(awk '$2 == "read" { r++ } $2 == "write" { w++ }
		    END { print r + 0, w + 0 }' "$T/pf.fio") &&
	got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"], j["write"]["total_ios"])' "$T/fio.json") &&
	[ "$want" = "$got" ]
	result $? "export_fio_empty_preflush_write_left_out$SFX (${want:-?} / ${got:-?})" "$T/err"
	rm -f "$T/fio.dat"
	# the log names /dev/DISK: export says once to replay with
	# --replay_redirect (and the trims' line names it once more)
	"$BIN" export -f fio "$T/r.ring" > /dev/null 2> "$T/err"
	[ "$(grep -c -- 'replay with fio --read_iolog=LOG --replay_redirect=' "$T/err")" = 1 ] &&
		[ "$(grep -v trims "$T/err" | grep -c -- '--replay_redirect=')" = 1 ]
	result $? "export_fio_says_replay_redirect$SFX" "$T/err"
	# fio reads a line's file name up to the first blank: a disk name
	# with a blank or a control character, outside ASCII or with a ".."
	# (the log would name another file than /dev/DISK) is refused before
	# any output (an earlier -o file is left as it was), exit 1, saying
	# the disk (escaped) and what to do; its other disk is exported
	: > "$T/err"
	for n in 'd k' "$(printf 'd\tk')" "$(printf 'd\nk')" "$(printf 'd\033[2Jk')" \
		 "$(printf 'd\303\251')" '../../tmp/x' '..'; do
		build/gen rename "$T/f2.trace" "$T/fion.trace" disk0 "$n" ||
			echo "gen rename failed" >> "$T/err"
		t=$(printf '%s' "$n" | python3 -c 'import sys
print("".join(("\\\\" if c == 92 else chr(c)) if 32 <= c < 127 else
	      "\\x%02x" % c for c in sys.stdin.buffer.read()))')
		for v in fio fio3; do
			echo keep > "$T/fion.out"
			"$BIN" export -f $v -o "$T/fion.out" "$T/fion.trace" > "$T/out" 2> "$T/fion.err"
			rc=$?
			"$BIN" export -f $v "$T/fion.trace" > "$T/out2" 2> /dev/null
			rc2=$?
			[ $rc = 1 ] && [ $rc2 = 1 ] && [ ! -s "$T/out" ] && [ ! -s "$T/out2" ] &&
				[ "$(cat "$T/fion.out")" = keep ] &&
				[ "$(wc -l < "$T/fion.err")" = 1 ] &&
				grep -qF "iotracectl: export -f $v: $T/fion.trace holds a disk named $t, whose name " "$T/fion.err" &&
				grep -qF -- 'no iolog written; export another of its disks with --disk NAME, or this one with -f blktrace' "$T/fion.err" ||
				{ echo "$v of '$t': exit $rc, $rc2; -o file: $(head -c 80 "$T/fion.out")" &&
				  head -c 300 "$T/fion.err" "$T/out2" && echo; } >> "$T/err"
		done
		"$BIN" export -f fio --disk disk1 "$T/fion.trace" > "$T/out" 2> /dev/null &&
			[ "$(awk '{ print $1 }' "$T/out" | sort -u | tr '\n' ' ')" = "/dev/disk1 fio " ] ||
			echo "--disk disk1 of '$t': exit $?" >> "$T/err"
	done
	[ ! -s "$T/err" ]
	result $? "export_fio_refuses_a_disk_name_fio_cannot_read_back$SFX" "$T/err"
	# trims: as many as the log holds, said once on one line with the
	# fio versions that replay them and the route for the others
	"$BIN" export -f fio "$T/r.ring" > "$T/r.fio" 2> "$T/err"
	ntrim=$(awk '$2 == "trim"' "$T/r.fio" | wc -l)
	[ "$ntrim" -gt 0 ] && [ "$(grep -c 'trims' "$T/err")" = 1 ] &&
		grep "export: $ntrim trims" "$T/err" |
		grep -F 'fio 3.34 and newer replay them; 3.33 and older do not ("bad ddir: 2")' |
		grep -F 'writes through the page cache' |
		grep -F 'export -f blktrace --disk DISK -o PREFIX FILE' |
		grep -F 'blkparse -i PREFIX -d PREFIX.bin -O' |
		grep -qF 'fio --name=replay --read_iolog=PREFIX.bin --replay_redirect=/dev/SCRATCH --ioengine=psync --direct=1'
	result $? "export_fio_trims_counted$SFX ($ntrim trims)" "$T/err"
	# no trim, no trims' line
	"$BIN" export -f fio --op read,write "$T/r.ring" > /dev/null 2> "$T/err"
	! grep -q 'trims' "$T/err"
	result $? "export_fio_no_trims_no_trim_line$SFX" "$T/err"
	# iolog v3 times are microseconds (as fio writes them), from 1
	"$BIN" export -f fio3 --op read,write "$T/r.ring" > "$T/r.fio3" 2> /dev/null
	"$BIN" export -f csv --op read,write "$T/r.ring" > "$T/r.csv" 2>> "$T/err"
	span=$(python3 -c 'import csv, sys
s = [int(r["complete_ns"] if int(r["rflags"]) & 0x80 else r["issue_ns"])
     for r in csv.DictReader(open(sys.argv[1]))]
print(1 + (max(s) - min(s)) // 1000)' "$T/r.csv")
	got=$(awk '$3 == "read" || $3 == "write" { t = $1 } END { print t }' "$T/r.fio3")
	first=$(awk '$3 == "read" || $3 == "write" { print $1; exit }' "$T/r.fio3")
	[ "$span" -gt 1000 ] && [ "$got" = "$span" ] && [ "$first" = 1 ]
	result $? "export_fio3_times_in_us$SFX (last $got, span $span us)" "$T/r.fio3"
	# a request issued before all others but more than the window
	# (16384 records) late in the file comes out of order: fio3's times
	# never go back (fio replays the lines in order) and perfetto's are
	# never negative; neither wraps.  Record 30000 of 40000, issued at
	# 0.5 s, the others from 1.01 s
	[ -s "$T/late0.trace" ] || build/gen big "$T/late0.trace" 40000
	build/gen set "$T/late0.trace" "$T/lbig.trace" 30000 issue_ns=500000000 &&
	"$BIN" export -f csv "$T/lbig.trace" > "$T/lbig.csv" 2> "$T/err" &&
	"$BIN" export -f fio3 "$T/lbig.trace" > "$T/lbig.fio3" 2>> "$T/err" &&
	"$BIN" export -f perfetto "$T/lbig.trace" > "$T/lbig.json" 2>> "$T/err" &&
	[ "$(grep -c 'came more than 16384 records late' "$T/err")" = 3 ] &&
	python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
st = [int(r["complete_ns"] if int(r["rflags"]) & 0x80 else r["issue_ns"]) for r in rows]
end = [int(r["complete_ns"]) if r["latency_ns"] else s for r, s in zip(rows, st)]
assert min(st) == 500000000 and st.index(min(st)) > 0, "not out of order"
span = max(st) - st[0]
t = [int(l.split()[0]) for l in open(sys.argv[2]) if l[0].isdigit()]
assert all(b >= a for a, b in zip(t, t[1:])), "fio3: a time goes back"
assert max(t) == 1 + span // 1000, ("fio3", max(t), 1 + span // 1000)
ev = json.load(open(sys.argv[3]))["traceEvents"]
ts = [e["ts"] for e in ev if "ts" in e]
assert min(ts) >= 0 and max(ts) <= (max(end) - st[0]) / 1000, ("perfetto", min(ts), max(ts))
b = {e["id"]: e["ts"] for e in ev if e["ph"] == "b"}
assert all(e["ts"] >= b[e["id"]] for e in ev if e["ph"] == "e")' \
		"$T/lbig.csv" "$T/lbig.fio3" "$T/lbig.json" >> "$T/err" 2>&1
	result $? "export_fio3_perfetto_late_request_no_wrap$SFX" "$T/err"
	# a filter that keeps nothing: every format still valid
	rm -rf "$T/e" && mkdir "$T/e" &&
	"$BIN" export -f blktrace --op zopen -o "$T/e/e" "$T/r.ring" 2> "$T/err" &&
	blkparse -i e -D "$T/e" 2>> "$T/err" | grep -q 'Events (e): 0 entries' &&
	"$BIN" export -f perfetto --op zopen "$T/r.ring" 2>> "$T/err" |
		python3 -c 'import json, sys; json.load(sys.stdin)' 2>> "$T/err" &&
	[ "$("$BIN" export -f csv --op zopen "$T/r.ring" | wc -l)" = 1 ] &&
	[ ! -s "$T/err" ]
	result $? "export_empty_selection$SFX" "$T/err"
	# plot draws no seven empty panels: it says that nothing matched,
	# exit 1, and writes no image (no OUT file made)
	rm -f "$T/empty.svg"
	"$BIN" plot --comm nosuch "$T/r.ring" > "$T/out" 2> "$T/err"
	rc=$?
	"$BIN" plot --op zopen -o "$T/empty.svg" "$T/r.ring" 2>> "$T/err"
	rc2=$?
	echo "exit $rc, $rc2" >> "$T/err"
	[ $rc = 1 ] && [ $rc2 = 1 ] && [ ! -s "$T/out" ] && [ ! -e "$T/empty.svg" ] &&
		[ "$(grep -c "plot: no request of $T/r.ring to draw (none there, or none that the filters and --disk keep): no image written" "$T/err")" = 2 ]
	result $? "plot_empty_selection_said_no_image$SFX" "$T/err"
	# an output file that is the input is refused before anything is
	# written to it (it was cut to 0 bytes while mapped: SIGBUS, or a
	# trace replaced by its plot): every export format, the blktrace
	# files, plot; under another name (a hard link) and from standard
	# input too.  The input is left as it was, exit 1, both named.
	: > "$T/why"
	rm -rf "$T/same" && mkdir "$T/same" && cp "$T/f.trace" "$T/same/a.trace" &&
	ln "$T/same/a.trace" "$T/same/link.trace" &&
	cp "$T/f.trace" "$T/same/b.blktrace.0"
	for c in "export -f csv a.trace -o a.trace" \
		 "export -f fio a.trace -o a.trace" \
		 "export -f fio3 a.trace -o ./a.trace" \
		 "export -f perfetto a.trace -o link.trace" \
		 "export -f csv - -o a.trace" \
		 "export -f blktrace b.blktrace.0 -o b" \
		 "plot a.trace -o a.trace" "plot - -o link.trace"; do
		case $c in
		*blktrace*) in=b.blktrace.0 out=b.blktrace.0 ;;
		*-\ -o*) in="standard input" out=${c##* } ;;
		*) in=$(echo "$c" | awk '{ print $(NF - 2) }') out=${c##* } ;;
		esac
		(cd "$T/same" && "$ROOT/$BIN" $c < a.trace) > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc != 1 ] || [ -s "$T/out" ] ||
		   ! cmp -s "$T/f.trace" "$T/same/a.trace" ||
		   ! cmp -s "$T/f.trace" "$T/same/b.blktrace.0" ||
		   ! grep -qxF "iotracectl: the output file $out is the input $in: it is not written (that would destroy the input); give another output file" "$T/err"; then
			echo "$c: exit $rc, $(wc -c < "$T/same/a.trace") bytes left of $(wc -c < "$T/f.trace"):" >> "$T/why"
			cat "$T/err" >> "$T/why"
			cp "$T/f.trace" "$T/same/a.trace"
			cp "$T/f.trace" "$T/same/b.blktrace.0"
		fi
	done
	[ ! -s "$T/why" ]
	result $? "refuse_output_that_is_the_input$SFX" "$T/why"
	# export -f blktrace holds no file open per CPU: CPU 999 of a file
	# of 1000 CPUs under "ulimit -n 64" (1000 files, blkparse reads the
	# last one's events); a record of a CPU its disk's ring does not have
	# (65535 of 2) is left out and said, not 65536 files made; an export
	# that fails leaves none of the files it made
	: > "$T/why"
	rm -rf "$T/cpus" && mkdir -p "$T/cpus/hi" "$T/cpus/bad" "$T/cpus/fail/b.blktrace.1" &&
	build/gen wide "$T/cpus/hi.trace" 2000 1000 4 1000 &&
	build/gen badcpu "$T/cpus/bad.trace" 40 1 || echo "gen failed" >> "$T/why"
	(ulimit -n 64 && exec "$BIN" export -f blktrace -o "$T/cpus/hi/b" "$T/cpus/hi.trace") 2> "$T/err" ||
		{ echo "1000 CPUs: exit $?" && head -3 "$T/err"; } >> "$T/why"
	n=$(ls "$T/cpus/hi" | wc -l)
	c999=$(blkparse -i b -D "$T/cpus/hi" 2> /dev/null | awk '$2 == 999 && $6 == "C"' | wc -l)
	[ "$n" = 1000 ] && [ "$c999" = 2 ] ||
		echo "1000 CPUs: $n files, $c999 completions on CPU 999" >> "$T/why"
	(ulimit -n 64 && exec "$BIN" export -f blktrace -o "$T/cpus/bad/b" "$T/cpus/bad.trace") 2> "$T/err" ||
		{ echo "CPU 65535: exit $?" && head -3 "$T/err"; } >> "$T/why"
	n=$(ls "$T/cpus/bad" | wc -l)
	nc=$(blkparse -i b -D "$T/cpus/bad" 2> /dev/null | awk '$6 == "C"' | wc -l)
	[ "$n" = 2 ] && [ "$nc" = 39 ] &&
		grep -qx "iotracectl: $T/cpus/bad.trace: 1 record names a CPU its disk's ring does not have (CPU 65535 of disk0's 2): left out (a damaged record)" "$T/err" ||
		{ echo "CPU 65535: $n files, $nc completions:" && cat "$T/err"; } >> "$T/why"
	"$BIN" export -f blktrace -o "$T/cpus/fail/b" "$T/f.trace" 2> "$T/err"
	rc=$?
	[ $rc = 1 ] && [ "$(ls "$T/cpus/fail")" = b.blktrace.1 ] &&
		grep -qx "iotracectl: cannot create $T/cpus/fail/b.blktrace.1: Is a directory" "$T/err" ||
		{ echo "CPU 1 a directory: exit $rc, left:" $(ls "$T/cpus/fail") && cat "$T/err"; } >> "$T/why"
	[ ! -s "$T/why" ]
	result $? "export_blktrace_many_cpus_few_fds_bad_cpu_no_leftovers$SFX" "$T/why"
	# an export into the prefix of an earlier one of more CPUs: the
	# earlier CPU files past the CPUs written now are removed (blkparse
	# read them with the new ones); other names are left alone
	: > "$T/why"
	rm -rf "$T/stale" && mkdir "$T/stale" &&
	build/gen wide "$T/stale.trace" 800 8 4 8 &&
	"$BIN" export -f blktrace -o "$T/stale/b" "$T/stale.trace" 2>> "$T/why" &&
	for f in b.blktrace.01 b.blktrace.9x b.blktrace.5.bak xb.blktrace.5 c.blktrace.5 b.blktrace; do
		echo keep > "$T/stale/$f"
	done &&
	"$BIN" export -f blktrace -o "$T/stale/b" "$T/f.trace" 2>> "$T/why" ||
		echo "export failed" >> "$T/why"
	left=$(cd "$T/stale" && echo *)
	nc=$(blkparse -i b -D "$T/stale" 2> /dev/null | awk '$6 == "C"' | wc -l)
	[ "$left" = "b.blktrace b.blktrace.0 b.blktrace.01 b.blktrace.1 b.blktrace.5.bak b.blktrace.9x c.blktrace.5 xb.blktrace.5" ] &&
		[ "$nc" = 40 ] ||
		echo "left: $left; blkparse: $nc completions (f.trace has 40 records)" >> "$T/why"
	# the input is not removed, though its name is that of a CPU file
	cp "$T/f.trace" "$T/stale/b.blktrace.9" &&
	(cd "$T/stale" && "$ROOT/$BIN" export -f blktrace -o b b.blktrace.9) 2> "$T/err" &&
		cmp -s "$T/f.trace" "$T/stale/b.blktrace.9" &&
		grep -qx "iotracectl: ./b.blktrace.9, a name of this export's CPU files, is the input: not removed" "$T/err" ||
		{ echo "input b.blktrace.9:" && cat "$T/err"; } >> "$T/why"
	[ ! -s "$T/why" ]
	result $? "export_blktrace_removes_earlier_cpu_files_past_its_own$SFX" "$T/why"
	# a failed write: said once, the same way by every command, exit 1
	wfull() { # wfull NAME WHAT ARGS... (stdout to /dev/full)
		name=$1
		what=$2
		shift 2
		(cd "$T" && "$ROOT/$BIN" "$@") > /dev/full 2> "$T/err"
		rc=$?
		if [ $rc = 1 ] &&
		   [ "$(grep -c 'writing' "$T/err")" = 1 ] &&
		   grep -qx "iotracectl: writing $what: No space left on device" "$T/err"; then
			result 0 "write_error_$name$SFX"
		else
			echo "exit $rc, wanted 1 and one 'writing $what: No space left on device':" > "$T/why"
			cat "$T/err" >> "$T/why"
			result 1 "write_error_$name$SFX" "$T/why"
		fi
	}
	wfull stats_file "standard output" stats f.trace
	wfull stats_json "standard output" stats -o json r.ring
	wfull stats_interval "standard output" stats --interval 0.05 --count 3 nullb0
	wfull show_ring "standard output" show r.ring
	wfull show_file "standard output" show f.trace
	wfull show_csv "standard output" show -o csv f.trace
	wfull show_json "standard output" show -o json f.trace
	wfull show_hex "standard output" show -o hex f.trace
	wfull show_binary "standard output" show -o binary f.trace
	wfull show_trace "standard output" show -o trace f.trace
	wfull info_file "standard output" info f.trace
	wfull diff_files "standard output" diff f.trace r.ring
	wfull list "standard output" list
	wfull inflight "standard output" inflight nullb0
	wfull export_csv "standard output" export -f csv r.ring
	wfull export_fio "standard output" export -f fio r.ring
	wfull export_perfetto_file /dev/full export -f perfetto -o /dev/full r.ring
	wfull export_pftrace "standard output" export -f pftrace r.ring
	wfull export_pftrace_file /dev/full export -f pftrace -o /dev/full r.ring
	wfull plot "standard output" plot r.ring
	wfull plot_file /dev/full plot -o /dev/full r.ring
	wfull record_file /dev/full record nullb0 -o /dev/full --duration 0.1
	wfull stats_interval_file "standard output" stats --interval 1ms f2.trace
	wfull stats_interval_file_json "standard output" stats --interval 1ms -o json f2.trace
	wfull export_csv_file /dev/full export -f csv -o /dev/full r.ring
	# the reason of a write that failed inside stdio, the last of the
	# run (stdio dropped its buffer: nothing left to flush, errno long
	# gone): at every output length, one line more each time, so that
	# the last line crosses the buffer's end in one of them
	: > "$T/why"
	for k in $(seq 1 48); do
		(cd "$T" && "$ROOT/$BIN" stats --interval 100us --count $k f2.trace) > /dev/full 2> "$T/err"
		rc=$?
		[ $rc = 1 ] && [ "$(grep -c 'writing' "$T/err")" = 1 ] &&
			grep -qx "iotracectl: writing standard output: No space left on device" "$T/err" ||
			{ echo "--count $k: exit $rc" && cat "$T/err"; } >> "$T/why"
	done
	[ ! -s "$T/why" ]
	result $? "write_error_reason_at_every_length$SFX" "$T/why"
	# the blktrace export's CPU files on a full device: every one, and
	# only CPU 1's (CPU 0's is written, the failure still said, exit 1)
	rm -rf "$T/full" && mkdir -p "$T/full/all" "$T/full/one" &&
	for i in $(seq 0 63); do ln -s /dev/full "$T/full/all/b.blktrace.$i"; done &&
	ln -s /dev/full "$T/full/one/b.blktrace.1"
	for w in all one; do
		(cd "$T" && "$ROOT/$BIN" export -f blktrace r.ring -o full/$w/b) > "$T/out" 2> "$T/err"
		rc=$?
		c=1
		[ $w = all ] && c=0
		if [ $rc = 1 ] && [ ! -s "$T/out" ] &&
		   [ "$(grep -c 'writing' "$T/err")" = 1 ] &&
		   grep -qx "iotracectl: writing full/$w/b.blktrace.$c: No space left on device" "$T/err"; then
			result 0 "write_error_export_blktrace_${w}$SFX"
		else
			echo "exit $rc, wanted 1 and one 'writing full/$w/b.blktrace.$c: No space left on device':" > "$T/why"
			cat "$T/err" "$T/out" >> "$T/why"
			result 1 "write_error_export_blktrace_${w}$SFX" "$T/why"
		fi
	done
	# show -f in every output format to a full device: said once, exit 1
	# (before the records come, or with them)
	for fmt in normal csv json hex binary; do
		rm -rf "$T/dfs3" && cp -r "$T/dfs" "$T/dfs3"
		IOTRACE_DEBUGFS="$T/dfs3" timeout 30 "$BIN" show -f -o $fmt --count 3 nullb0 > /dev/full 2> "$T/err" &
		fpid=$!
		# new records until it stops (it reads only those after it began)
		for k in $(seq 1 50); do
			kill -0 $fpid 2> /dev/null || break
			sleep 0.1
			build/gen push "$T/dfs3/nullb0/ring" 10
		done
		wait $fpid
		rc=$?
		if [ $rc = 1 ] &&
		   [ "$(grep -c 'writing' "$T/err")" = 1 ] &&
		   grep -qx "iotracectl: writing standard output: No space left on device" "$T/err"; then
			result 0 "write_error_show_follow_${fmt}$SFX"
		else
			echo "exit $rc, wanted 1 and one 'writing standard output: No space left on device':" > "$T/why"
			cat "$T/err" >> "$T/why"
			result 1 "write_error_show_follow_${fmt}$SFX" "$T/why"
		fi
	done
	# a reader that goes away (SIGPIPE, Documentation/iotracectl.rst,
	# EXIT STATUS): a command that reads and prints ends by SIGPIPE,
	# quietly, as cat does (exit 141; if this shell was started with
	# SIGPIPE ignored, so is the command: EPIPE, said, exit 1); one that
	# runs until stopped says it and exits 1, whatever the disposition
	ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status 2> /dev/null)
	ign=$(( 0x${ign:-0} & 0x1000 ))
	pipe_ok() { # pipe_ok filter|stream: $T/rc and $T/err as they must be
		if [ "$1" = filter ] && [ "$ign" = 0 ]; then
			[ "$(cat "$T/rc")" = 141 ] && [ ! -s "$T/err" ] && return 0
			echo "exit $(cat "$T/rc"), wanted 141 (SIGPIPE) and nothing said:" > "$T/why"
		else
			[ "$(cat "$T/rc")" = 1 ] &&
				[ "$(grep -c 'writing' "$T/err")" = 1 ] &&
				grep -qx "iotracectl: writing standard output: Broken pipe" "$T/err" &&
				return 0
			echo "exit $(cat "$T/rc"), wanted 1 and one 'writing standard output: Broken pipe':" > "$T/why"
		fi
		cat "$T/err" >> "$T/why"
		return 1
	}
	# (more than a pipe's 64 KiB: it is still writing when head exits)
	: > "$T/rc"
	{ (cd "$T" && "$ROOT/$BIN" show -o json m.trace) 2> "$T/err"; echo $? > "$T/rc"; } |
		head -c 10 > /dev/null
	pipe_ok filter
	result $? "closed_pipe_show_file_sigpipe$SFX" "$T/why"
	# (a pipe whose reader is gone before record starts: with head, a
	# loaded machine could let the 0.5 s end before head closed it)
	python3 -c '
import os, signal, sys
r, w = os.pipe()
os.close(r)
if os.fork() == 0:
    os.dup2(w, 1)
    os.close(w)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL if sys.argv[1] == "0" else signal.SIG_IGN)
    os.execvp(sys.argv[2], sys.argv[2:])
os.close(w)
st = os.wait()[1]
print(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
' "$ign" "$BIN" record nullb0 -o - --duration 0.5 2> "$T/err" > "$T/rc"
	pipe_ok stream
	result $? "closed_pipe_record_said$SFX" "$T/why"
	: > "$T/rc"
	{ timeout 30 "$BIN" stats --interval 0.05 --count 100 nullb0 2> "$T/err"; echo $? > "$T/rc"; } |
		head -c 1 > /dev/null
	pipe_ok stream
	result $? "closed_pipe_stats_interval_live_said$SFX" "$T/why"
	# show -f: the CSV header comes at once, the records as they come
	rm -rf "$T/dfs3" && cp -r "$T/dfs" "$T/dfs3" && : > "$T/rc"
	{ IOTRACE_DEBUGFS="$T/dfs3" timeout 30 "$BIN" show -f -o csv nullb0 2> "$T/err"; echo $? > "$T/rc"; } |
		head -c 1 > /dev/null &
	for k in $(seq 1 100); do
		[ -s "$T/rc" ] && break
		sleep 0.1
		build/gen push "$T/dfs3/nullb0/ring" 10
	done
	wait
	pipe_ok stream
	result $? "closed_pipe_show_follow_said$SFX" "$T/why"
	rm -rf "$T/dfs3" "$T/full"
	# every command has its own --help (and help COMMAND)
	cmdlist=$("$BIN" --help | awk '/^commands:/ { c = 1; next } /^$/ { c = 0 } c { print $1 }')
	: > "$T/why"
	for c in $cmdlist; do
		"$BIN" $c --help > "$T/out" 2>> "$T/why" &&
			head -1 "$T/out" | grep -q "^usage: iotracectl $c " &&
			grep -q -- '-h, --help' "$T/out" &&
			"$BIN" help $c | cmp -s - "$T/out" ||
			echo "$c --help:" "$(head -1 "$T/out")" >> "$T/why"
	done
	[ -n "$cmdlist" ] && [ ! -s "$T/why" ]
	result $? "every_command_has_its_help$SFX" "$T/why"
	# an option shared by commands is described as each takes it:
	# exporter's --interval is --textfile's period, stats' a report's
	: > "$T/why"
	for c in $cmdlist; do
		"$BIN" $c --help | sed -n '/^options:/,$p' |
			awk '$1 ~ /^--/ { print $1 } $2 ~ /^--/ { print $2 }' |
			sort | uniq -d | sed "s/^/$c: twice: /" >> "$T/why"
	done
	"$BIN" exporter --help | grep -q -- '--interval S *with --textfile: rewrite the file every S' ||
		echo "exporter --help: $("$BIN" exporter --help | grep -- --interval)" >> "$T/why"
	"$BIN" stats --help | grep -q -- '--interval S *report every S seconds' ||
		echo "stats --help: $("$BIN" stats --help | grep -- --interval)" >> "$T/why"
	[ ! -s "$T/why" ]
	result $? "help_says_each_option_as_its_command_takes_it$SFX" "$T/why"
	# --op other: what stats counts in its "other" row
	"$BIN" show --op other "$T/r.ring" > /dev/null 2> "$T/err" &&
		"$BIN" stats --op other,read "$T/r.ring" > /dev/null 2>> "$T/err"
	result $? "op_other_accepted$SFX" "$T/err"
	# and it selects them: the records of an unknown operation, which
	# stats counts in its "other" row, and no others
	"$BIN" show -o csv "$T/ops.trace" > "$T/a" 2> "$T/err" &&
	"$BIN" show -o csv --op other "$T/ops.trace" > "$T/b" 2>> "$T/err" &&
	"$BIN" stats -o json --op other "$T/ops.trace" > "$T/c" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
every = list(csv.DictReader(open(sys.argv[1])))
shown = list(csv.DictReader(open(sys.argv[2])))
ops = json.load(open(sys.argv[3]))[0]["ops"]
unknown = [r for r in every if r["op"] == "unknown"]
assert unknown and shown == unknown, (len(unknown), len(shown))
assert list(ops) == ["other"] and ops["other"]["count"] == len(unknown), ops' \
		"$T/a" "$T/b" "$T/c" >> "$T/err" 2>&1
	result $? "op_other_selects_unknown_operations$SFX" "$T/err"
	# - reads a trace file or ring from standard input
	"$BIN" show "$T/f.trace" > "$T/a" 2>&1
	"$BIN" show - < "$T/f.trace" > "$T/b" 2>&1
	cat "$T/r.ring" | "$BIN" stats - > "$T/c" 2>&1
	diff -u "$T/a" "$T/b" > "$T/diff" 2>&1 && grep -q '^standard input: ' "$T/c"
	result $? "show_stdin$SFX" "$T/diff"
	# a pipe on standard input is read once: stats --interval and show
	# --around-trigger, which read the source twice, read it in memory
	# (not a second, empty, read of the pipe)
	[ -s "$T/trig.trace" ] || build/gen trig "$T/trig.trace" 200 2
	: > "$T/diff"
	for c in "stats --interval 1ms" "stats --interval 1ms -o json --jsonl --disk disk1" \
		 "show --around-trigger=5" "show -o csv --around-trigger=5 --disk disk1"; do
		f=f2.trace
		case $c in show*) f=trig.trace ;; esac
		(cd "$T" && "$ROOT/$BIN" $c $f) 2>&1 | sed "s|$f|F|g" > "$T/a"
		cat "$T/$f" | "$BIN" $c - 2>&1 | sed 's|standard input|F|g' > "$T/b"
		[ "$(wc -l < "$T/a")" -gt 2 ] ||
			echo "$c $f: $(head -2 "$T/a")" >> "$T/diff"
		diff -u "$T/a" "$T/b" >> "$T/diff" 2>&1 ||
			echo "$c: differs on standard input" >> "$T/diff"
	done
	[ ! -s "$T/diff" ]
	result $? "stdin_pipe_read_once_stats_interval_around_trigger$SFX" "$T/diff"
	: > "$T/diff"
	# a trace file is read with pread(), a piece at a time (chunks bigger
	# than a piece; more parts than get a whole piece each; a damaged
	# byte in a big chunk, and in a chunk header): what is read is what
	# the same bytes from a pipe (up to 24 MB: read in memory) give
	build/gen wide "$T/w1.trace" 12000 1 5000 &&
	build/gen wide "$T/w2.trace" 140000 700 200 &&
	python3 - "$T" <<'EOF_PY' || echo "damaging w1, w2 failed" > "$T/diff"
import struct, sys
for f, where in (("w1", "payload"), ("w2", "header")):
	d = bytearray(open(f"{sys.argv[1]}/{f}.trace", "rb").read())
	o = len(d) // 2 // 8 * 8
	while struct.unpack_from("<I", d, o)[0] != 0x4b4e4843:
		o += 8
	d[o + (1000 if where == "payload" else 8)] ^= 0x40
	open(f"{sys.argv[1]}/{f}d.trace", "wb").write(d)
EOF_PY
	for f in w1 w2 w1d w2d; do
		for c in "show -o csv" "stats -o json" "export -f csv" \
			 "export -f perfetto"; do
			"$BIN" $c "$T/$f.trace" 2>&1 | sed "s|$T/$f.trace|F|g" > "$T/a"
			cat "$T/$f.trace" | "$BIN" $c - 2>&1 | sed 's|standard input|F|g' > "$T/b"
			[ "$(wc -c < "$T/a")" -gt 500 ] ||
				echo "$f $c: $(head -2 "$T/a")" >> "$T/diff"
			diff "$T/a" "$T/b" | head -5 >> "$T/diff"
		done
	done
	[ ! -s "$T/diff" ] && grep -q 'damaged' "$T/a"
	result $? "file_read_in_pieces_as_in_memory$SFX" "$T/diff"
	# a pipe longer than 24 MB is copied to an unlinked file of $TMPDIR
	# and read from there: the peak RSS of show -o csv and stats on a
	# 69 MB pipe stays within 40 MB of theirs on the file (it was the
	# file's size more: read whole), the output is the file's, and
	# nothing is left in $TMPDIR; a $TMPDIR that is not there is said.
	# diff FILE FILE stays within 48 MB of show's peak RSS (4 MB plain)
	# (a file of its own: big.trace is another test's, of other records)
	[ -s "$T/pipe.trace" ] || build/gen big "$T/pipe.trace" 600000
	rm -rf "$T/tmpd" && mkdir "$T/tmpd"
	TMPDIR="$T/tmpd" python3 - "$BIN" "$T/pipe.trace" > "$T/why" 2>&1 <<'EOF_PY'
import os, subprocess, sys
b, f = sys.argv[1:]
# the peak RSS of the command (wait4; measured first, while this process
# is small: a forked child counts what it shares), its output to OUT
def measured(args, pipe, out):
	src = subprocess.Popen(["cat", f], stdout=subprocess.PIPE) if pipe else None
	pid = os.fork()
	if pid == 0:
		if pipe:
			os.dup2(src.stdout.fileno(), 0)
		fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
		os.dup2(fd, 1)
		os.dup2(fd, 2)
		os.execv(b, [b] + args + ["-" if pipe else f])
	if pipe:
		src.stdout.close()
	_, st, ru = os.wait4(pid, 0)
	if pipe:
		src.wait()
	return os.waitstatus_to_exitcode(st), ru.ru_maxrss
size = os.path.getsize(f)
assert size > 60 << 20, size
res = []
for args in (["show", "-o", "csv"], ["stats"]):
	out = os.environ["TMPDIR"] + "/../pipe-" + args[0]
	cf, kf = measured(args, False, out + ".f")
	cp, kp = measured(args, True, out + ".p")
	res.append((args, cf, kf, cp, kp, out))
for args, cf, kf, cp, kp, out in res:
	print(args, "exit", cf, cp, "RSS file", kf, "KB, pipe", kp, "KB, file size", size >> 10, "KB")
	assert cf == 0 and cp == 0, (cf, cp)
	assert kp - kf < 40 << 10, ("the pipe took", kp - kf, "KB more")
	a = open(out + ".f", "rb").read().replace(f.encode(), b"F")
	p = open(out + ".p", "rb").read().replace(b"standard input", b"F")
	assert a == p, (args, "other output on the pipe")
	os.unlink(out + ".f")
	os.unlink(out + ".p")
# diff FILE FILE: counts and histograms beyond 524,288 latencies, not
# every record (it was the file's size more, twice)
out = os.environ["TMPDIR"] + "/../pipe-diff"
cd, kd = measured(["diff", f], False, out)
ks = res[0][2]
print("diff FILE FILE: exit", cd, "RSS", kd, "KB; show -o csv FILE", ks, "KB")
# (ASan's allocator and quarantine keep 30 MB more than the plain build)
assert cd == 0 and kd - ks < 48 << 10, ("diff took", kd - ks, "KB more than show")
os.unlink(out)
left = os.listdir(os.environ["TMPDIR"])
assert not left, left
r = subprocess.run("cat %s | TMPDIR=%s/nosuch %s stats -" % (f, os.environ["TMPDIR"], b),
		   shell=True, capture_output=True)
assert r.returncode == 1 and b"standard input: cannot make a temporary file in" in r.stderr, r
EOF_PY
	result $? "stdin_pipe_read_in_bounded_memory$SFX" "$T/why"
	# plot and stats --interval read a trace file twice (the scales, then
	# the requests in completion order) and keep intervals, cells and one
	# interval's latencies, not the records: their peak RSS on the 65 MB
	# file and on a pipe stays within 24 MB of show -o csv's on the same
	# (48 MB under ASan: its allocator and quarantine; it was the records,
	# 83 MB more), and the pipe's output is the file's
	TMPDIR="$T/tmpd" python3 - "$BIN" "$T/pipe.trace" "$SFX" > "$T/why" 2>&1 <<'EOF_PY'
import os, subprocess, sys
b, f, sfx = sys.argv[1:]
def measured(args, pipe, out):
	src = subprocess.Popen(["cat", f], stdout=subprocess.PIPE) if pipe else None
	pid = os.fork()
	if pid == 0:
		if pipe:
			os.dup2(src.stdout.fileno(), 0)
		fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
		os.dup2(fd, 1)
		os.dup2(fd, 2)
		os.execv(b, [b] + args + ["-" if pipe else f])
	if pipe:
		src.stdout.close()
	_, st, ru = os.wait4(pid, 0)
	if pipe:
		src.wait()
	return os.waitstatus_to_exitcode(st), ru.ru_maxrss
out = os.environ["TMPDIR"] + "/../bm"
_, ksf = measured(["show", "-o", "csv"], False, out)
_, ksp = measured(["show", "-o", "csv"], True, out)
room = (48 if sfx else 24) << 10
bad = []
for args in (["stats", "--interval", "10ms"], ["stats", "--interval", "1s", "-o", "json"],
	     ["plot", "-o", out + ".svg"]):
	cf, kf = measured(args, False, out + ".f")
	if args[0] == "plot":
		os.rename(out + ".svg", out + ".f")
	cp, kp = measured(args, True, out + ".p")
	if args[0] == "plot":
		os.rename(out + ".svg", out + ".p")
	print(" ".join(args), "exit", cf, cp, "RSS file", kf, "KB, pipe", kp,
	      "KB; show -o csv", ksf, ksp, "KB")
	a = open(out + ".f", "rb").read().replace(f.encode(), b"F")
	p = open(out + ".p", "rb").read().replace(b"standard input", b"F")
	if cf or cp or a != p or len(a) < 1000:
		bad.append((args, "exit", cf, cp, "output", len(a), len(p)))
	if kf - ksf > room or kp - ksp > room:
		bad.append((args, "took", kf - ksf, kp - ksp, "KB more than show"))
	os.unlink(out + ".f")
	os.unlink(out + ".p")
os.unlink(out)
assert not bad, bad
EOF_PY
	result $? "plot_stats_interval_bounded_memory$SFX" "$T/why"
	# the merge (show, export) finds each part's chunks with one scan of
	# the chunk headers, not one per part: 2000 chunks of part 0 in a file
	# of 64 parts (63 empty), or dealt to the 64 in turn, take about the
	# reads (pread64, counted by strace; the plain build) of the same
	# chunks in a file of 1 part, not 64 times as many; the output is that
	# of the 1-part file
	if [ -z "$SFX" ] && command -v strace > /dev/null &&
	   strace -qq -c -o "$T/st" true 2> /dev/null; then
		: > "$T/diff"
		: > "$T/why"
		build/gen wide "$T/p1.trace" 8000 1 4 &&
		build/gen wide "$T/p64.trace" 8000 64 4 1 &&
		build/gen wide "$T/p64d.trace" 8000 64 4 ||
			echo "gen wide failed" > "$T/diff"
		for c in "show -o csv" "export -f csv"; do
			for f in p1 p64 p64d; do
				strace -f -qq -c -e trace=pread64 -o "$T/st" \
					"$BIN" $c "$T/$f.trace" > "$T/$f.out" 2>> "$T/diff"
				n=$(awk '$NF == "pread64" { n = $4 } END { print n + 0 }' "$T/st")
				case $f in
				p1) r1=$n ;;
				p64) r64=$n ;;
				*) r64d=$n ;;
				esac
			done
			echo "$c: $r1, $r64, $r64d reads (1 part; 64, 1 used; 64 used)" >> "$T/why"
			[ "$r1" -ge 2000 ] && [ "$r64" -le $((r1 + 128)) ] &&
				[ "$r64d" -le $((r1 + 512)) ] ||
				echo "$c: $r1, $r64, $r64d reads (1 part; 64, 1 used; 64 used)" >> "$T/diff"
			cmp -s "$T/p1.out" "$T/p64.out" ||
				echo "$c: 64 parts, output differs" >> "$T/diff"
		done
		[ ! -s "$T/diff" ]
		result $? "file_merge_reads_linear_in_chunks_not_parts ($(tail -n1 "$T/why"))" "$T/diff"
	elif [ -z "$SFX" ]; then
		N=$((N + 1))
		echo "ok $N file_merge_reads_linear_in_chunks_not_parts # SKIP strace is not installed or cannot trace"
	fi
	# export -f blktrace against its definition (tests/btorder.py) on
	# records whose completions come up to 100 ms after their start, tie
	# with other events and crowd together: the buckets of its queue of
	# events widen, fill and overflow into the heap
	rm -rf "$T/sp" && mkdir "$T/sp" &&
	build/gen spread "$T/sp.trace" 60000 &&
	"$BIN" export -f csv "$T/sp.trace" > "$T/sp.csv" 2> "$T/why" &&
	"$BIN" export -f blktrace -o "$T/sp/b" "$T/sp.trace" 2>> "$T/why" &&
	[ ! -s "$T/why" ] &&
	python3 tests/btorder.py "$T/sp.csv" "$T/sp/b" > "$T/why" 2>&1
	result $? "export_blktrace_order_vs_definition$SFX ($(tail -n1 "$T/why"))" "$T/why"
	golden info_file.txt info f.trace
	golden info_multidisk.json info -o json f2.trace
	# stats -o csv: a row per disk and operation, the numbers of -o json,
	# the counts and bytes of the records show reads
	: > "$T/err"
	for f in "m.trace" "--disk disk1 m.trace" "--from +1ms r.ring" \
		 "--op write e.trace"; do
		a=${f% *}
		[ "$a" = "$f" ] && a=
		"$BIN" stats -o csv $a "$T/${f##* }" > "$T/s.csv" 2>> "$T/err" &&
		"$BIN" stats -o json $a "$T/${f##* }" > "$T/s.json" 2>> "$T/err" &&
		"$BIN" show -o json $a "$T/${f##* }" > "$T/recs.json" 2>> "$T/err" &&
		python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
st = json.load(open(sys.argv[2]))
recs = json.load(open(sys.argv[3]))
want = []
for s in st:
	disk = s["source"].split(":")[-1] if ":" in s["source"] else None
	for op, o in s["ops"].items():
		want.append((disk, op, o))
assert len(rows) == len(want) > 0, (len(rows), len(want))
for r, (disk, op, o) in zip(rows, want):
	assert r["op"] == op and (disk is None or r["disk"] == disk), (r, disk, op)
	n = sum(1 for x in recs if x["disk"] == r["disk"] and x["op"] == op)
	b = sum(x["bytes"] for x in recs if x["disk"] == r["disk"] and x["op"] == op)
	assert int(r["count"]) == o["count"] == n, (r, o, n)
	assert int(r["bytes"]) == o["bytes"] == b, (r, o, b)
	assert float(r["iops"]) == o["iops"] and float(r["mbps"]) == o["mbps"], (r, o)
	l = o["lat_ns"]
	assert int(r["lat_n"]) == l["n"], (r, l)
	if l["n"]:
		for k in ("min", "p50", "p90", "p99", "p99.9", "max"):
			assert int(r["lat_%s_ns" % k]) == l[k], (k, r, l)
		assert float(r["lat_avg_ns"]) == l["avg"], (r, l)
	q = o["queue_ns"]
	assert int(r["queue_n"]) == q["n"], (r, q)
	assert int(r["span_ns"]) == s["span_ns"] or len(st) > 1' \
			"$T/s.csv" "$T/s.json" "$T/recs.json" >> "$T/err" 2>&1 ||
			{ echo "stats $f" >> "$T/err"; break; }
	done
	[ -z "$(grep -v '^$' "$T/err")" ]
	result $? "stats_csv_rows_per_disk_and_op$SFX" "$T/err"
	# stats --interval -o csv: a row per interval, disk and operation, the
	# numbers of -o json (an interval without a request: one row, its op
	# empty); LOST empty over a file
	: > "$T/err"
	for a in "--interval 1ms f2.trace" "--interval 500us --disk disk1 f2.trace" \
		 "--interval 2ms r.ring" "--interval 250us --op read r.ring"; do
		"$BIN" stats -o csv ${a% *} "$T/${a##* }" > "$T/i.csv" 2>> "$T/err" &&
		"$BIN" stats -o json ${a% *} "$T/${a##* }" > "$T/i.json" 2>> "$T/err" &&
		python3 -c 'import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = []
for x in json.load(open(sys.argv[2])):
	disk = x["source"].rsplit(":", 1)[1]
	for op, o in (x["ops"] or {"": None}).items():
		want.append((disk, x, op, o))
assert len(rows) == len(want) > 3, (len(rows), len(want))
for r, (disk, x, op, o) in zip(rows, want):
	assert r["disk"] == disk and r["op"] == op, (r, disk, op)
	for k in ("time_ns", "start_ns", "interval_ns"):
		assert int(r[k]) == x[k], (k, r, x)
	assert r["lost"] == "", r
	if o is None:
		assert r["count"] == "0" and r["lat_n"] == "0", r
		assert float(r["queue_depth"]) == x["queue_depth"], (r, x)
		continue
	for k in ("count", "bytes"):
		assert int(r[k]) == o[k], (k, r, o)
	for k in ("iops", "mbps", "queue_depth"):
		assert float(r[k]) == o[k], (k, r, o)
	l = o["lat_ns"]
	assert int(r["lat_n"]) == l["n"], (r, l)
	if l["n"]:
		assert float(r["lat_avg_ns"]) == l["avg"], (r, l)
		for k in ("p50", "p99", "max"):
			assert int(r["lat_%s_ns" % k]) == l[k], (k, r, l)
	else:
		assert r["lat_p50_ns"] == "", r' "$T/i.csv" "$T/i.json" >> "$T/err" 2>&1 ||
			{ echo "stats -o csv $a" >> "$T/err"; break; }
	done
	[ -z "$(grep -v '^$' "$T/err")" ]
	result $? "stats_interval_csv_rows_are_the_json_intervals$SFX" "$T/err"
	# --from/--to +T: after the trace's start (a file's header start, a
	# ring's first record's start), the same as the times they make, in
	# show, stats, export and plot; diff takes each side's own start
	: > "$T/err"
	for src in m.trace r.ring; do
		"$BIN" show -o json "$T/$src" > "$T/recs.json" 2>> "$T/err" || break
		"$BIN" info -o json "$T/$src" > "$T/i.json" 2> /dev/null
		t0=$(python3 -c 'import json, sys
recs = json.load(open(sys.argv[1]))
try:
	print(json.load(open(sys.argv[2]))["start_mono_ns"])
except ValueError:
	print(min(r["complete_ns"] if r["rflags"] >> 7 & 1 or not r["issue_ns"] else r["issue_ns"] for r in recs))' "$T/recs.json" "$T/i.json")
		a=$(python3 -c "print('%.9f' % ((int('$t0') + 1000000) / 1e9))")
		b=$(python3 -c "print('%.9f' % ((int('$t0') + 3500000) / 1e9))")
		for cmd in "show -o csv" "stats -o json" "export -f csv" \
			   "plot -o $T/p.svg"; do
			"$BIN" $cmd --from +1ms --to +3.5ms "$T/$src" > "$T/rel" 2>> "$T/err" &&
			{ [ "${cmd%% *}" != plot ] || mv "$T/p.svg" "$T/rel"; } &&
			"$BIN" $cmd --from $a --to $b "$T/$src" > "$T/abs" 2>> "$T/err" &&
			{ [ "${cmd%% *}" != plot ] || mv "$T/p.svg" "$T/abs"; } &&
			[ "$(wc -c < "$T/rel")" -gt 200 ] &&
			cmp "$T/rel" "$T/abs" >> "$T/err" 2>&1 ||
				{ echo "$cmd $src: +1ms +3.5ms is not $a $b" >> "$T/err"; break 2; }
		done
		"$BIN" stats --from +0.001 --to +0.0035s "$T/$src" > "$T/rel" 2>> "$T/err" &&
		"$BIN" stats --from +1000000ns --to +3500us "$T/$src" > "$T/abs" 2>> "$T/err" &&
		cmp "$T/rel" "$T/abs" >> "$T/err" 2>&1 || { echo "units" >> "$T/err"; break; }
		echo "$t0" > "$T/t0_${src%.*}"
	done
	# (other disks: said)
	"$BIN" diff -o json --from +1ms --to +3.5ms "$T/m.trace" "$T/r.ring" > "$T/d.json" 2> "$T/dw" &&
	grep -v "^iotracectl: diff: warning: A and B are of different disks" "$T/dw" >> "$T/err";
	[ -s "$T/d.json" ] &&
	"$BIN" show -o json "$T/m.trace" > "$T/a.json" 2>> "$T/err" &&
	"$BIN" show -o json "$T/r.ring" > "$T/b.json" 2>> "$T/err" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for side, f, t0 in (("a", sys.argv[2], sys.argv[4]), ("b", sys.argv[3], sys.argv[5])):
	t0 = int(open(t0).read())
	n = sum(1 for r in json.load(open(f)) if r["complete_ns"] is not None
		and t0 + 1000000 <= r["complete_ns"] < t0 + 3500000)
	assert n and d[side]["records"] == n, (side, d[side]["records"], n)' \
		"$T/d.json" "$T/a.json" "$T/b.json" "$T/t0_m" "$T/t0_r" >> "$T/err" 2>&1
	[ $? = 0 ] && [ -z "$(grep -v '^$' "$T/err")" ]
	result $? "from_to_after_the_trace_start$SFX" "$T/err"
	refuse from_rel_bad "not a time after the trace's start" stats --from +1x r.ring
	refuse from_wall_bad "not a wall-clock time" show --from 2023-13-14T22:13:20Z f.trace
	# --from/--to as wall-clock times (UTC): the trace file's anchor
	# (CLOCK_REALTIME 1700000000 s at CLOCK_MONOTONIC 1 s) makes them the
	# same window as its monotonic times, for show, stats and export
	: > "$T/err"
	for c in "show -o csv" "stats -o json" "export -f csv -o -"; do
		a=$("$BIN" $c --from 1.001 --to 1.0025 "$T/f.trace" 2>> "$T/err" | md5sum)
		b=$("$BIN" $c --from 2023-11-14T22:13:20.001Z --to '2023-11-14 22:13:20.0025' "$T/f.trace" 2>> "$T/err" | md5sum)
		n=$("$BIN" $c --from 1.001 --to 1.0025 "$T/f.trace" 2>> "$T/err" | wc -l)
		[ "$a" = "$b" ] && [ "$n" -ge 1 ] || echo "$c: wall-clock window differs ($n lines)" >> "$T/err"
	done
	[ ! -s "$T/err" ]
	result $? "from_to_wall_clock_is_the_monotonic_window$SFX" "$T/err"
	# info: per disk, the records in the file (as show reads them) and
	# the losses (as stats says them); a file without trailer: unknown
	for src in f2.trace g.trace; do
		"$BIN" info -o json "$T/$src" > "$T/i.json" 2> "$T/err" &&
		"$BIN" stats -o json "$T/$src" > "$T/s.json" 2>> "$T/err" &&
		"$BIN" show -o json "$T/$src" > "$T/recs.json" 2>> "$T/err" &&
		"$BIN" info "$T/$src" > "$T/i.txt" 2>> "$T/err" &&
		python3 -c 'import json, sys
i, s, recs = (json.load(open(f)) for f in sys.argv[1:4])
txt = open(sys.argv[4]).read()
assert len(i["disks"]) == len(s), (i["disks"], len(s))
for d, st in zip(i["disks"], s):
	assert "records" in d, ("no per-disk counts", d)
	n = sum(1 for r in recs if r["disk"] == d["name"])
	assert d["records"] == n == st["records"], (d["name"], d["records"], n)
	for k, v in d["loss"].items():
		assert st["loss"][k] == v, (d["name"], k, v, st["loss"][k])
	assert (d["gaps"], d["gap_records"]) == (st["loss"]["gaps"], st["loss"]["gap_records"])
	assert "    records %d, lost %d " % (n, st["loss"]["lost"]) in txt, txt' \
			"$T/i.json" "$T/s.json" "$T/recs.json" "$T/i.txt" >> "$T/err" 2>&1
		result $? "info_per_disk_records_and_losses_${src%.*}$SFX" "$T/err"
	done
	"$BIN" info -o json "$T/trunc.trace" > "$T/i.json" 2> "$T/err"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["disks"]
assert d and all(x["loss"] is None for x in d), d' "$T/i.json" >> "$T/err" 2>&1
	result $? "info_per_disk_loss_unknown_without_trailer$SFX" "$T/err"
	# names JSON and CSV must escape (", \\, a comma, a tab) in the
	# header: info's JSON (the output layer's writer), show's CSV and
	# JSON give them back as they are
	build/gen names "$T/names.trace" 10 2 &&
	"$BIN" info -o json "$T/names.trace" > "$T/i.json" 2> "$T/err" &&
	"$BIN" show -o csv "$T/names.trace" > "$T/n.csv" 2>> "$T/err" &&
	"$BIN" show -o json "$T/names.trace" > "$T/n.json" 2>> "$T/err" &&
	python3 -c 'import csv, json, sys
d = json.load(open(sys.argv[1]))
names = ["d\"i\\s,k\t0", "d\"i\\s,k\t1"]
assert d["host"] == "test\\host,\"x\"", d["host"]
assert d["release"] == "6.12.0-\"test\"\t\\", d["release"]
assert [x["name"] for x in d["disks"]] == names, d["disks"]
c = sorted(set(r["disk"] for r in csv.DictReader(open(sys.argv[2]))))
j = sorted(set(r["disk"] for r in json.load(open(sys.argv[3]))))
assert c == j == names, (c, j)' "$T/i.json" "$T/n.csv" "$T/n.json" 2>> "$T/err"
	result $? "info_show_names_needing_escapes$SFX" "$T/err"
	# names are bytes (a command name 16 of them, cut anywhere): the JSON
	# outputs are UTF-8, the valid sequences in them as they are, control
	# characters escaped, every other byte U+FFFD.  Host "h\xf4te" +
	# \xff, disk "d\xe9", fio with stray and surrogate bytes, dd
	# "caf\xe9\u20ac" cut in an "\xe9", the third with controls, a C1
	# and an overlong "/"
	build/gen rename "$T/f.trace" "$T/u1.trace" testhost "$(printf 'h\303\264te\377')" &&
	build/gen rename "$T/u1.trace" "$T/u2.trace" disk0 "$(printf 'd\303\251')" &&
	build/gen rename "$T/u2.trace" "$T/u3.trace" fio "$(printf 'f\377o\303\355\240\200')" &&
	build/gen rename "$T/u3.trace" "$T/u4.trace" dd "$(printf 'caf\303\251\342\202\254\303')" &&
	build/gen rename "$T/u4.trace" "$T/utf.trace" 'my,app "x"' "$(printf 'a\033[31m\n\302\205\300\257"')" ||
		echo "gen rename failed" > "$T/err"
	"$BIN" show -o json "$T/utf.trace" > "$T/u.show" 2> "$T/err" &&
	"$BIN" show -o json --jsonl "$T/utf.trace" > "$T/u.jsonl" 2>> "$T/err" &&
	"$BIN" stats -o json "$T/utf.trace" > "$T/u.stats" 2>> "$T/err" &&
	"$BIN" info -o json "$T/utf.trace" > "$T/u.info" 2>> "$T/err" &&
	"$BIN" export -f perfetto "$T/utf.trace" > "$T/u.pf" 2>> "$T/err" &&
	python3 -c 'import json, sys
want = {4000: "f\ufffdo\ufffd\ufffd\ufffd\ufffd", 4001: "caf\u00e9\u20ac\ufffd",
	4002: "a\x1b[31m\n\x85\ufffd\ufffd\""}
disk, host = "d\u00e9", "h\u00f4te\ufffd"
def load(f, lines=False):
	t = open(f, "rb").read().decode("utf-8")	# strict: valid UTF-8
	return [json.loads(l) for l in t.splitlines()] if lines else json.loads(t)
for f, lines in ((sys.argv[1], False), (sys.argv[2], True)):
	recs = load(f, lines)
	assert {r["disk"] for r in recs} == {disk}, {r["disk"] for r in recs}
	got = {r["pid"]: r["comm"] for r in recs if r["pid"] in want}
	assert got == want, (f, got)
p = {x["pid"]: x["comm"] for x in load(sys.argv[3])[0]["processes"]}
assert all(p[k] == v for k, v in want.items()), p
assert load(sys.argv[3])[0]["source"].endswith(":" + disk)
i = load(sys.argv[4])
assert i["host"] == host and i["disks"][0]["name"] == disk, (i["host"], i["disks"])
ev = load(sys.argv[5])["traceEvents"]
assert ev[0]["args"]["name"] == disk, ev[0]
s = {e["args"]["submitter_pid"]: e["args"]["submitter"] for e in ev if e["ph"] == "b"}
assert all(s[k] == v for k, v in want.items()), s' \
		"$T/u.show" "$T/u.jsonl" "$T/u.stats" "$T/u.info" "$T/u.pf" >> "$T/err" 2>&1
	result $? "json_names_utf8_passed_invalid_bytes_replaced$SFX" "$T/err"
	# a command name is any bytes a process chose (prctl(PR_SET_NAME)),
	# a disk name or host what the file holds: the text outputs print a
	# byte outside printable ASCII as \xNN and "\" as "\\" (no forged
	# line, no terminal escape, a column a byte), CSV keeps the bytes and
	# quotes a field with a comma, quote, newline or carriage return
	: > "$T/err"
	build/gen rename "$T/f2.trace" "$T/c1.trace" testhost "$(printf 'h\033[2Jx')" &&
	build/gen rename "$T/c1.trace" "$T/c2.trace" disk0 "$(printf 'd\033]0;pwn\007\\k')" &&
	build/gen rename "$T/c2.trace" "$T/c3.trace" dd "$(printf '\n   9.9 FAKE\033[31m')" &&
	build/gen rename "$T/c3.trace" "$T/c4.trace" fio "$(printf 'x\ry')" &&
	build/gen rename "$T/c4.trace" "$T/ctl.trace" 'my,app "x"' "$(printf 'caf\303\251,"q"')" ||
		echo "gen rename failed" >> "$T/err"
	for c in show stats info "stats --interval 1ms" "show -o csv" "export -f csv" \
		 "plot"; do
		"$BIN" $c "$T/ctl.trace" > "$T/ctl.$(echo $c | tr -d ' -')" 2>> "$T/err" ||
			echo "$c: exit $?" >> "$T/err"
	done
	python3 -c 'import csv, sys, xml.etree.ElementTree as E
d = sys.argv[1] + "/ctl."
comm = {"4000": r"x\x0dy", "4001": r"\x0a   9.9 FAKE\x1b[31", "4002": "caf\\xc3\\xa9,\"q\""}
raw = {"4000": "x\ry", "4001": "\n   9.9 FAKE\x1b[31", "4002": "caf\u00e9,\"q\""}
disk = {"d\x1b]0;pwn\x07\\k": r"d\x1b]0;pwn\x07\\k", "disk1": "disk1"}
host = r"h\x1b[2Jx"
for f in ("show", "stats", "info", "statsinterval1ms"):
	b = open(d + f, "rb").read()
	bad = [c for c in b if c != 10 and not 32 <= c < 127]
	assert not bad, (f, "a byte to a terminal", bad[:5])
def load(f):
	return list(csv.DictReader(open(d + f, newline="")))
rows, x = load("showocsv"), load("exportfcsv")
key = lambda r: tuple(r.values())
assert sorted(map(key, rows)) == sorted(map(key, x)), "show and export differ"
assert len(rows) == 80 and {r["comm"] for r in rows if r["comm"]} == set(raw.values()), \
	("csv", len(rows), {r["comm"] for r in rows})
assert {r["disk"] for r in rows} == set(disk), {r["disk"] for r in rows}
for r in rows:
	assert not r["comm"] or r["comm"] == raw[r["pid"]], r
# show: a line per record; the comm column as the header puts it (after
# the disk column, 12 wide: a longer name shifts the rest)
t = open(d + "show").read().split("\n")
assert t[-1] == "" and len(t) == 1 + 80 + 1, len(t)
h = t[0]
c0, c1 = h.index("COMM"), h.index("DEVSTATUS")
n = 0
for l in t[1:-1]:
	dk = l[h.index("DISK"):].split(" ")[0]
	assert dk in disk.values(), (dk, l)
	sh = max(0, len(dk) - 12)
	pid = l[c0 + sh - 8:c0 + sh - 1].strip()
	if pid in comm:
		want = comm[pid].ljust(c1 - c0 - 1) + " "
		assert l[c0 + sh:c0 + sh + len(want)] == want, (l, want)
		n += 1
assert n > 20, n
s = open(d + "stats").read()
for p, v in comm.items():
	assert "%8s %-16s " % (p, v) in s, (p, v)
assert ":" + disk["d\x1b]0;pwn\x07\\k"] + ": " in s
i = open(d + "info").read()
assert "host:     " + host + "\n" in i and "  " + disk["d\x1b]0;pwn\x07\\k"] + " " in i
assert r"d\x1b]0;pwn\x07\\k" in open(d + "statsinterval1ms").read()
E.parse(d + "plot")' "$T" >> "$T/err" 2>&1
	result $? "text_outputs_escape_names_csv_quotes_them$SFX" "$T/err"
	# the messages on stderr name disks as the text outputs do: a disk
	# name a trace file holds (any bytes), or one a ring's header holds
	# (the kernel's), with a newline, a carriage return and terminal
	# escapes, forges no line and sends the terminal nothing: --disk of a
	# disk the file does not hold, show -o binary of two disks, export -f
	# blktrace of a record of a CPU the disk has not, record's counts
	: > "$T/err"
	bad=$(printf 'd\033]0;pwn\007\nFAKE\r')
	badtext='d\x1b]0;pwn\x07\x0aFAKE\x0d'
	rm -rf "$T/dfsn" "$T/ebt" && cp -r "$T/dfs" "$T/dfsn" && mkdir "$T/ebt" &&
	build/gen rename "$T/f2.trace" "$T/en.trace" disk0 "$bad" &&
	build/gen badcpu "$T/ebc.trace" 40 1 &&
	build/gen rename "$T/ebc.trace" "$T/ebn.trace" disk0 "$bad" &&
	python3 -c 'import sys
f = open(sys.argv[1], "r+b")
f.seek(104)	# the ring header name
f.write(sys.argv[2].encode().ljust(32, b"\0"))' "$T/dfsn/nullb0/ring" "$bad" ||
		echo "inputs failed" >> "$T/err"
	: > "$T/emsg"
	for c in "show --disk nosuch" "stats --disk nosuch" \
		 "export -f csv --disk nosuch" "show -o binary"; do
		"$BIN" $c "$T/en.trace" > "$T/out" 2>> "$T/emsg"
		rc=$?
		[ $rc = 2 ] && [ ! -s "$T/out" ] || echo "$c: exit $rc" >> "$T/err"
	done
	"$BIN" export -f blktrace -o "$T/ebt/b" "$T/ebn.trace" 2>> "$T/emsg" ||
		echo "export -f blktrace: exit $?" >> "$T/err"
	IOTRACE_DEBUGFS="$T/dfsn" "$BIN" record nullb0 -o "$T/ern.trace" --duration 0.2 2>> "$T/emsg" ||
		echo "record: exit $?" >> "$T/err"
	python3 - "$T/emsg" "$T/en.trace" "$T/ebn.trace" "$badtext" >> "$T/err" 2>&1 <<'EOF_PY'
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in b if c != 10 and not 32 <= c < 127]
assert not bad, ("a byte to a terminal", bad[:8], b)
t, n, nb, name = b.decode().split("\n"), sys.argv[2], sys.argv[3], sys.argv[4]
held = "iotracectl: %s holds no disk named nosuch (it holds: %s, disk1)" % (n, name)
want = [held, held, held,
	"iotracectl: show -o binary: %s holds 2 disks (%s, disk1) and a raw record" % (n, name),
	"iotracectl: %s: 1 record names a CPU its disk's ring does not have (CPU 65535 of %s's 2)" % (nb, name),
	"%s: 256 records written, 0 lost" % name, ""]
assert len(t) == len(want), ("lines", t)
for got, w in zip(t, want):
	assert got.startswith(w), (got, w)
EOF_PY
	[ ! -s "$T/err" ]
	result $? "error_messages_escape_names_of_files_and_disks$SFX" "$T/err"
	# a file cut at every byte (the plain build; the sanitized one at
	# and around every chunk boundary and every 37th byte): exit 3, one
	# warning, exactly the records of the chunks whole before the cut
	python3 - "$BIN" "$T/s.trace" "$T/cut" "${SFX:+sample}" > "$T/err" 2>&1 <<'EOF_PY'
import concurrent.futures as cf, csv, io, os, struct, subprocess, sys
bin, path, tmp, sample = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
data = open(path, "rb").read()
hs = struct.unpack_from("<I", data, 12)[0]
# the chunks: (end, records (disk, part, seq)) up to the trailer
chunks, off = [], hs
while off + 40 <= len(data):
	magic, hsz, psz, disk, part, nrec, first = struct.unpack_from("<IIQHHIQ", data, off)
	if magic == 0x524c5254:
		break
	recs = [(disk, part, first + i) for i in range(nrec)] if magic == 0x4b4e4843 else []
	chunks.append((off + hsz + psz, recs))
	off += hsz + psz
cuts = range(len(data) + 1)
if sample:
	s = set(range(0, len(data) + 1, 37)) | {len(data)}
	for e, _ in chunks + [(hs, [])]:
		s |= {e + d for d in (-41, -40, -9, -8, -1, 0, 1, 8, 39, 40, 41)}
	cuts = sorted(c for c in s if 0 <= c <= len(data))
os.makedirs(tmp, exist_ok=True)
def check(cut):
	f = "%s/c%d" % (tmp, cut)
	open(f, "wb").write(data[:cut])
	p = subprocess.run([bin, "show", "-o", "csv", f], capture_output=True, text=True)
	os.unlink(f)
	err = p.stderr.splitlines()
	if cut < hs:
		ok = p.returncode == 1 and not p.stdout and len(err) == 1 and \
			(cut < 8 or "truncated trace file" in err[0] or "empty file" in err[0])
		return None if ok else "cut %d (in the header): exit %d %s" % (cut, p.returncode, err)
	want = sorted(r for e, recs in chunks if e <= cut for r in recs)
	rows = list(csv.DictReader(io.StringIO(p.stdout)))
	got = sorted((int(r["disk"] != "disk0"), int(r["complete_cpu"]), int(r["seq"])) for r in rows)
	if cut == len(data):
		return None if p.returncode == 0 and not err and got == want else \
			"whole file: exit %d, %s, %d rows" % (p.returncode, err, len(got))
	if p.returncode != 3 or len(err) != 1 or not err[0].startswith(
			"iotracectl: %s: truncated trace file: the recording did not finish" % f):
		return "cut %d: exit %d, stderr %s" % (cut, p.returncode, err)
	if "%d records read" % len(want) not in err[0] and not (len(want) == 1 and "1 record read" in err[0]):
		return "cut %d: %s (want %d records)" % (cut, err[0], len(want))
	if got != want:
		return "cut %d: %d records shown, %d whole before the cut" % (cut, len(got), len(want))
	return None
with cf.ThreadPoolExecutor(4) as ex:
	bad = [r for r in ex.map(check, cuts) if r]
print("# %d cuts of a %d-byte file, %d chunks, %d wrong" % (len(cuts), len(data), len(chunks), len(bad)))
for b in bad[:10]:
	print(b)
sys.exit(1 if bad else 0)
EOF_PY
	rc=$?
	head -1 "$T/err"
	result $rc "salvage_file_cut_at_every_byte$SFX" "$T/err"
	# a damaged chunk in the middle: skipped, said, the others read
	nall=$("$BIN" show -o csv "$T/m.trace" | tail -n +2 | wc -l)
	(cd "$T" && "$ROOT/$BIN" show -o csv flip.trace) > "$T/out" 2> "$T/err"
	rc=$?
	(cd "$T" && "$ROOT/$BIN" stats flip.trace) > "$T/st" 2>> "$T/err"
	rc2=$?
	[ $rc = 3 ] && [ $rc2 = 3 ] && [ "$(grep -c . "$T/err")" = 2 ] &&
		[ "$(sort -u "$T/err")" = "iotracectl: flip.trace: damaged trace file: 1 damaged chunk skipped (3112 bytes, the first at offset $flipoff); 368 records read in 15 chunks, 1 sequence gap (32 records missing); the trailer says 400 were written: 32 missing" ] &&
		[ "$(tail -n +2 "$T/out" | wc -l)" = $((nall - 32)) ] &&
		grep -qF 'dropped by kernel 2; 1 sequence gap between chunks: 32 records missing; 32 written records not read (damaged chunks)' "$T/st"
	result $? "salvage_damaged_chunk_skipped_and_said$SFX ($nall records, 32 damaged)" "$T/err"
	# bytes after the trailer: not read, said, exit 3 (--strict: refused);
	# another trace file appended (cat a b) is named as such
	cat "$T/f.trace" "$T/f2.trace" > "$T/cat.trace"
	{ cat "$T/f.trace" && head -c 100 /dev/zero; } > "$T/tail.trace"
	fsz=$(wc -c < "$T/f.trace")
	f2sz=$(wc -c < "$T/f2.trace")
	"$BIN" show -o csv "$T/f.trace" > "$T/a" 2> "$T/err"
	(cd "$T" && "$ROOT/$BIN" show -o csv cat.trace) > "$T/b" 2> "$T/e2"
	rc=$?
	(cd "$T" && "$ROOT/$BIN" info cat.trace) > "$T/out" 2>> "$T/e2"
	rc2=$?
	(cd "$T" && "$ROOT/$BIN" info -o json cat.trace) > "$T/i.json" 2>> "$T/e2"
	rc3=$?
	(cd "$T" && "$ROOT/$BIN" stats tail.trace) > /dev/null 2> "$T/e3"
	rc4=$?
	(cd "$T" && "$ROOT/$BIN" show --strict cat.trace) > "$T/s" 2> "$T/e4"
	rc5=$?
	cat "$T/e2" "$T/e3" "$T/e4" "$T/out" >> "$T/err"
	echo "exit $rc $rc2 $rc3 $rc4 $rc5" >> "$T/err"
	want="damaged trace file: $f2sz bytes after the trailer (from offset $fsz) not read: they begin with another trace file (files joined end to end are not one trace: read each on its own); 40 records read in 2 chunks"
	[ $rc = 3 ] && [ $rc2 = 3 ] && [ $rc3 = 3 ] && [ $rc4 = 3 ] && [ $rc5 = 1 ] &&
		diff -u "$T/a" "$T/b" >> "$T/err" 2>&1 &&
		[ "$(sort -u "$T/e2")" = "iotracectl: cat.trace: $want" ] &&
		[ "$(grep -c . "$T/e2")" = 3 ] &&
		grep -qxF "salvaged: $want" "$T/out" &&
		python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["salvaged"] == sys.argv[2]' "$T/i.json" "$want" >> "$T/err" 2>&1 &&
		[ "$(cat "$T/e3")" = "iotracectl: tail.trace: damaged trace file: 100 bytes after the trailer (from offset $fsz) not read: a trace file ends at its trailer; 40 records read in 2 chunks" ] &&
		[ ! -s "$T/s" ] &&
		[ "$(cat "$T/e4")" = "iotracectl: cat.trace: $want; without --strict, what it holds is read" ]
	result $? "salvage_bytes_after_the_trailer_said$SFX" "$T/err"
	# provable loss: a gap between two chunks of a part
	"$BIN" stats "$T/g.trace" > "$T/out" 2> "$T/err" &&
		grep -q '^loss: .*, lost 5 (overwritten 5, torn 0), dropped by kernel 2; 1 sequence gap between chunks: 5 records missing$' "$T/out" &&
		"$BIN" info "$T/g.trace" > "$T/out" 2>> "$T/err" &&
		grep -q '^chunks:   8 (1 sequence gap: 5 records missing)$' "$T/out" &&
		"$BIN" stats -o json "$T/g.trace" 2>> "$T/err" |
		python3 -c 'import json, sys
l = json.load(sys.stdin)[0]["loss"]
assert (l["gaps"], l["gap_records"], l["unread"], l["trailer"]) == (1, 5, 0, 1), l' 2>> "$T/err" &&
		[ ! -s "$T/err" ]
	result $? "sequence_gaps_in_stats_and_info$SFX" "$T/err"
	# error paths free what they allocated (LeakSanitizer in the _san build)
	: > "$T/why"
	for args in "show trunc.trace" "stats corrupt.trace" "info major3.trace" \
		    "show --disk nosuch f2.trace" "stats --disk nosuch f2.trace" \
		    "export -f csv --disk nosuch f2.trace" "plot -o /nonexistent/p.svg r.ring" \
		    "export -f blktrace -o /nonexistent/bt r.ring" "record nullb0 nosuch -o rl.trace" \
		    "show foreign" "show empty" "inflight nosuch" "info r.ring"; do
		(cd "$T" && "$ROOT/$BIN" $args) > /dev/null 2> "$T/err"
		grep -q 'LeakSanitizer' "$T/err" && echo "leak: $args" >> "$T/why"
	done
	[ ! -s "$T/why" ]
	result $? "error_paths_do_not_leak$SFX" "$T/why"
	refuse export_format "unknown format" export -f tar r.ring
	refuse export_blktrace_no_out "give their prefix" export -f blktrace r.ring
	refuse plot_format "use svg" plot -f png r.ring
	refuse f_elsewhere "stats does not take -f (export does" stats -f csv r.ring
	refuse follow_file "not a live disk" show -f r.ring
	refuse count_without_follow "needs --follow" show --count 3 nullb0
	# each command its own options: what it does not take is refused
	refuse show_interval "show does not take --interval" show f.trace --interval 1
	refuse show_duration "show does not take --duration" show f.trace --duration 5
	refuse inflight_count "inflight does not take --count" inflight nullb0 --count 3
	refuse export_count "export does not take --count" export -f csv --count 3 f.trace
	refuse list_op "list does not take --op" list --op read
	refuse record_format "record does not take -f" record nullb0 -o x.trace -f csv
	refuse unknown_option "show: unknown option --bogus" show --bogus r.ring
	refuse missing_argument "needs an argument" show r.ring --op
	refuse stats_count_alone "give both" stats --count 3 r.ring
	refuse realtime_json "only the normal output" show --realtime -o json f.trace
	refuse realtime_ring "not a trace file" show --realtime r.ring
	refuse info_ring "not a trace file" info r.ring
	refuse disk_nosuch "holds no disk named nosuch (it holds: disk0, disk1)" show --disk nosuch f2.trace
	refuse disk_nosuch_export "(it holds: disk0, disk1)" export -f csv --disk nosuch f2.trace
	# a --disk the DISK or FILE does not hold is a usage error, exit 2
	# (EXIT STATUS, DESCRIPTION), in every command and mode that takes it
	[ -s "$T/trig.trace" ] || build/gen trig "$T/trig.trace" 200 2
	: > "$T/why"
	for c in "show f2.trace" "show -o csv f2.trace" "stats f2.trace" \
		 "stats --interval 1ms f2.trace" "export -f csv f2.trace" \
		 "export -f fio f2.trace" "export -f perfetto f2.trace" \
		 "export -f blktrace -o $T/dn f2.trace" "plot f2.trace" \
		 "diff f2.trace f.trace" "diff f.trace f2.trace" \
		 "show --around-trigger trig.trace" "show -f nullb0" \
		 "stats --interval 1 nullb0"; do
		(cd "$T" && timeout 30 "$ROOT/$BIN" $c --disk nosuch) > "$T/out" 2> "$T/err"
		rc=$?
		[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "holds no disk named nosuch (it holds: " "$T/err" ||
			{ echo "$c --disk nosuch: exit $rc:" && cat "$T/err"; } >> "$T/why"
	done
	[ ! -s "$T/why" ]
	result $? "disk_not_held_is_a_usage_error_exit_2$SFX" "$T/why"
	refuse truncated_what_to_do "copy the file again" show --strict trunc.trace
	refuse corrupt_what_to_do "the file is damaged" stats corrupt.trace
	refuse foreign "not an iotrace" show foreign
	refuse truncated "truncated trace file" stats --strict trunc.trace
	refuse truncated_info "the recording did not finish" info --strict trunc.trace
	refuse truncated_export "truncated trace file" export -f csv --strict trunc.trace
	refuse damaged_strict "damaged trace file: 1 damaged chunk skipped" show --strict flip.trace
	refuse truncated_header "truncated trace file: 300 bytes, the header alone is" show head.trace
	refuse major3 "version 3.0 is not supported" show major3.trace
	refuse empty "empty file" show empty
	refuse no_disk "no traced disk of that name" show nosuchdisk
	# a name that is neither a file nor a traced disk: both said (a
	# mistyped file name is not only "no traced disk")
	rm -rf "$T/nf" && mkdir -p "$T/nf/adir" && : > "$T/why"
	for c in "show missing.trace" "stats missing.trace" "export -f csv missing.trace" \
		 "info missing.trace" "diff f.trace missing.trace" "show adir"; do
		(cd "$T/nf" && cp ../f.trace . && "$ROOT/$BIN" $c) > "$T/out" 2> "$T/err"
		rc=$?
		case $c in
		*adir) want="iotracectl: adir is a directory, not a trace file, and adir: no traced disk of that name (neither $T/dfs/adir/ring nor /dev/iotrace/adir exists): is the iotrace module loaded? 'iotracectl list' shows the traced disks" ;;
		*) want="iotracectl: no file named missing.trace (No such file or directory), and missing.trace: no traced disk of that name (neither $T/dfs/missing.trace/ring nor /dev/iotrace/missing.trace exists): is the iotrace module loaded? 'iotracectl list' shows the traced disks" ;;
		esac
		[ $rc = 1 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "$want" ] ||
			{ echo "$c: exit $rc:" && cat "$T/err"; } >> "$T/why"
	done
	[ ! -s "$T/why" ]
	result $? "error_names_neither_file_nor_disk$SFX" "$T/why"
	refuse directory "directory" show "$T/dfs/"
	refuse nonexistent_path "nosuch/x.trace: No such file or directory" show nosuch/x.trace
	# a path that is not there: stat() failed, its struct is not read
	# (valgrind, the plain build: an uninitialised st_mode could say
	# "is a directory")
	if [ -z "$SFX" ] && command -v valgrind > /dev/null; then
		(cd "$T" && valgrind -q --error-exitcode=99 "$ROOT/$BIN" show nosuch/x.trace) > "$T/out" 2> "$T/err"
		rc=$?
		[ $rc = 1 ] && [ ! -s "$T/out" ] &&
			[ "$(cat "$T/err")" = "iotracectl: nosuch/x.trace: No such file or directory" ]
		result $? "nonexistent_path_no_uninitialised_read (exit $rc)" "$T/err"
	elif [ -z "$SFX" ]; then
		N=$((N + 1))
		echo "ok $N nonexistent_path_no_uninitialised_read # SKIP valgrind is not installed"
	fi
	refuse unknown_cmd "unknown command" frobnicate
	refuse bad_format "not a format of this command" stats -o hex r.ring
	refuse bad_op "unknown operation" show --op bogus r.ring
	refuse bad_sector "START-END" show --sector 5 r.ring
	refuse lat_min_huge "lat-min 1e20: out of range" show --lat-min 1e20 r.ring
	refuse lat_min_inf "lat-min inf: out of range" stats --lat-min inf r.ring
	refuse lat_min_negative "out of range" export -f csv --lat-min -5 r.ring
	refuse from_huge "from 1e30: out of range" show --from 1e30 r.ring
	refuse to_nan "not a number" show --to nan r.ring
	refuse duration_inf "duration inf: out of range" events --duration inf
	refuse size_overflow "size" record nullb0 -o rx.trace --size 99999999999G
	refuse resize_overflow "64K to 1G" resize nullb0 17179869184G
	refuse interval_too_many "give a longer interval" stats --interval 0.000000001 r.ring
	refuse interval_unit "not a duration" stats --interval 1d r.ring
	refuse diff_one_argument "needs two arguments" diff r.ring
	refuse record_no_out "record needs" record nullb0
	refuse pid_not_a_number "is not a process id" show --pid 12,x f.trace
	refuse pid_too_large "is not a process id" show --pid 4294967296 f.trace
	refuse comm_too_long "a command name of 1 to 15 characters" show --comm 0123456789abcdef f.trace
	refuse cgroup_not_cgroup2 "is not a cgroup v2 directory" show --cgroup /tmp f.trace
	refuse cgroup_missing "give a cgroup v2 directory" show --cgroup /nonexistent/cg f.trace
	refuse top_too_many "from 0 to 1000" stats --top 1001 f.trace
	refuse top_on_show "show does not take --top" show --top 3 f.trace
	# options that mean nothing in the mode given are refused
	refuse jsonl_without_json "with -o json" show --jsonl f.trace
	refuse jsonl_list_normal "with -o json" list --jsonl
	refuse top_with_interval "not with --interval" stats --top 3 --interval 1 f.trace
	refuse top_with_kernel "not with --kernel" stats --top 3 --kernel nullb0
	refuse export_no_format "export needs -f FORMAT" export f.trace
	refuse disk_nosuch_follow "holds no disk named nosuch" show -f --disk nosuch nullb0
	refuse disk_nosuch_live_interval "holds no disk named nosuch" stats --interval 1 --disk nosuch nullb0
	refuse disk_nosuch_series "(it holds: disk0, disk1)" stats --interval 1 --disk nosuch f2.trace
	refuse live_interval_too_short "at least 0.001 seconds" stats --interval 1us nullb0
	refuse exporter_interval_too_short "at least 0.001 seconds" exporter --textfile . --interval 1e-9
done
for f in foreign trunc.trace major3.trace; do
	iotracectl/iotracectl show "$T/$f" 2>&1 | head -1 | sed 's/^/# /'
done

# the in-kernel metrics on canned replies: stats --kernel, the exporter's
# exposition (golden, promtool), HTTP refusals, fuzzing, idle connections
for BIN in iotracectl/iotracectl build/iotracectl-san; do
	SFX=""
	[ "$BIN" = build/iotracectl-san ] && SFX="_san"
	up=""
	[ $UPDATE = 1 ] && [ "$BIN" = iotracectl/iotracectl ] && up=--update
	python3 tests/exporter_test.py "$BIN" "$GOLD" $up > "$T/exp.out" 2>&1
	rc=$?
	while read -r st name rest; do
		case $st in
		PASS) result 0 "$name$SFX" ;;
		FAIL) echo "$rest" > "$T/why"; result 1 "$name$SFX" "$T/why" ;;
		esac
	done < "$T/exp.out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$T/exp.out"; then
		result 1 "exporter_test$SFX exit $rc" "$T/exp.out"
	fi
done

# the merge with its queue pool full: file.c's pool has MQ_MAX (65,536)
# entries, build/iotracectl-mq-san 3 (tools/Makefile, MQ_TEST), so that
# files of a few thousand chunks fill it and a part's cursor whose chunk
# cannot be queued walks the file itself, from its last chunk on, until
# it is ahead of the shared scan again.  On chunks as they fill, a part's
# after the previous part's, the last part's first, and the second of
# these damaged in a chunk header: show -o csv and export -f csv (merged
# by start time) of that build, from the file and from standard input,
# print iotracectl's output on the same file (a pool large enough), and
# the three orders give the same records
: > "$T/diff"
for o in turn parts rparts; do
	build/gen wide "$T/mq-$o.trace" 20000 8 4 4 $o ||
		echo "gen wide 20000 8 4 4 $o failed" >> "$T/diff"
done
python3 - "$T" <<'EOF_PY' || echo "damaging mq-parts failed" >> "$T/diff"
import struct, sys
d = bytearray(open(f"{sys.argv[1]}/mq-parts.trace", "rb").read())
o = len(d) // 2 // 8 * 8
while struct.unpack_from("<I", d, o)[0] != 0x4b4e4843:
	o += 8
d[o + 8] ^= 0x40
open(f"{sys.argv[1]}/mq-partsd.trace", "wb").write(d)
EOF_PY
for f in turn parts rparts partsd; do
	for c in "show -o csv" "export -f csv"; do
		iotracectl/iotracectl $c "$T/mq-$f.trace" > "$T/a" 2>&1
		echo "exit $?" >> "$T/a"
		build/iotracectl-mq-san $c "$T/mq-$f.trace" > "$T/b" 2>&1
		echo "exit $?" >> "$T/b"
		cat "$T/mq-$f.trace" | build/iotracectl-mq-san $c - > "$T/c" 2>&1
		echo "exit $?" >> "$T/c"
		sed -i "s|$T/mq-$f.trace|F|g; s|standard input|F|g" \
			"$T/a" "$T/b" "$T/c"
		[ "$(wc -l < "$T/a")" -gt 10000 ] ||
			echo "$f, $c: $(head -2 "$T/a")" >> "$T/diff"
		for x in b c; do
			cmp -s "$T/a" "$T/$x" && continue
			how="$f, $c"
			[ $x = b ] || how="$how (standard input)"
			echo "$how: differs with a pool of 3:" >> "$T/diff"
			diff "$T/a" "$T/$x" | head -5 >> "$T/diff"
		done
		case $f in
		turn) cp "$T/a" "$T/mq-${c%% *}.ref" ;;
		partsd) grep -q damaged "$T/a" ||
				echo "$f, $c: not said damaged" >> "$T/diff" ;;
		*) cmp -s "$T/a" "$T/mq-${c%% *}.ref" ||
				echo "$f, $c: other records than turn's" >> "$T/diff" ;;
		esac
	done
done
[ ! -s "$T/diff" ]
result $? file_merge_pool_full_fallback_same_records "$T/diff"

# stats --interval and plot hold the latencies of the interval that
# completes now, up to 65,536 per disk and operation, then a histogram
# that gives the same P50 and P99 (iot_pct_sorted()): build/iotracectl-mq-san
# switches at 64 (SERIES_TEST).  Its output is iotracectl's, on files whose
# intervals hold thousands of requests, from the file and from standard
# input
build/gen spread "$T/sq.trace" 60000 && build/gen file "$T/sq2.trace" 3000 2 > /dev/null 2>&1
: > "$T/diff"
for f in sq sq2; do
	for c in "stats --interval 1s" "stats --interval 10ms -o json" \
		 "stats --interval 1ms --op read" "plot"; do
		iotracectl/iotracectl $c "$T/$f.trace" > "$T/a" 2>&1
		echo "exit $?" >> "$T/a"
		build/iotracectl-mq-san $c "$T/$f.trace" > "$T/b" 2>&1
		echo "exit $?" >> "$T/b"
		cat "$T/$f.trace" | build/iotracectl-mq-san $c - > "$T/c" 2>&1
		echo "exit $?" >> "$T/c"
		sed -i "s|$T/$f.trace|F|g; s|standard input|F|g" "$T/a" "$T/b" "$T/c"
		[ "$(wc -c < "$T/a")" -gt 300 ] ||
			echo "$f, $c: $(head -2 "$T/a")" >> "$T/diff"
		for x in b c; do
			cmp -s "$T/a" "$T/$x" && continue
			echo "$f, $c ($x): differs with histograms from 64 latencies:" >> "$T/diff"
			diff "$T/a" "$T/$x" | head -5 >> "$T/diff"
		done
	done
done
[ ! -s "$T/diff" ]
result $? series_histogram_same_percentiles_as_held_latencies "$T/diff"

# diff keeps every latency exactly up to 524,288 (two per request), then
# log-linear histograms (256 buckets per power of two) in memory that
# does not grow with the files: build/iotracectl-mq-san switches at 64.
# Against the exact values (Python, from show -o csv): counts and
# maxima equal, p50/p90/p99 within 1/512 of them, KS_D that of the
# buckets (below the exact one by at most the largest share of a
# bucket); iotracectl's own (exact) rows equal Python's
build/gen spread "$T/dA.trace" 20000 && build/gen spread "$T/dB.trace" 30000 &&
	build/gen file "$T/dC.trace" 200 2 > /dev/null 2>&1
: > "$T/why"
for p in "dA dB" "dC dB" "dA dA"; do
	set -- $p
	iotracectl/iotracectl diff -o json "$T/$1.trace" "$T/$2.trace" > "$T/dx.json" 2>> "$T/why"
	build/iotracectl-mq-san diff -o json "$T/$1.trace" "$T/$2.trace" > "$T/dh.json" 2>> "$T/why"
	iotracectl/iotracectl show -o csv "$T/$1.trace" > "$T/d1.csv" 2>> "$T/why"
	iotracectl/iotracectl show -o csv "$T/$2.trace" > "$T/d2.csv" 2>> "$T/why"
	python3 - "$T" >> "$T/why" 2>&1 <<'EOF_PY' || echo "$p: failed" >> "$T/why"
import csv, json, math, sys
t = sys.argv[1]
def groups(f):
	g = {}
	for r in csv.DictReader(open(f)):
		op = r["op"] if r["op"] in ("read", "write", "flush", "discard") else "other"
		b = int(r["bytes"])
		lo = 1 << (b.bit_length() - 1) if b else 0
		size = "all"
		for k in ((op, "all"), (op, lo)):
			e = g.setdefault(k, [0, []])
			e[0] += 1
			if r["latency_ns"] != "":
				e[1].append(int(r["latency_ns"]))
	for e in g.values():
		e[1].sort()
	return g
def rank(v, p):
	return v[min(max(math.ceil(p / 100 * len(v)), 1), len(v)) - 1]
def bucket(v):
	if v < 512:
		return v
	s = v.bit_length() - 1 - 8
	return (s << 8) + (v >> s)
def ks(a, b, key=lambda v: v):
	pts = sorted(set(map(key, a)) | set(map(key, b)))
	import bisect
	ka = [key(v) for v in a]
	kb = [key(v) for v in b]
	return max(abs(bisect.bisect_right(ka, x) / len(a) - bisect.bisect_right(kb, x) / len(b)) for x in pts)
def share(v):
	n = {}
	for x in v:
		n[bucket(x)] = n.get(bucket(x), 0) + 1
	return max(n.values()) / len(v)
ga, gb = groups(t + "/d1.csv"), groups(t + "/d2.csv")
worst = 0
for which in ("dx", "dh"):
	j = json.load(open(t + "/" + which + ".json"))
	seen = set()
	for row in j["rows"]:
		size = row["size"] if row["size"] == "all" else row["size_min"]
		k = (row["op"], size)
		seen.add(k)
		for side, g in (("a", ga), ("b", gb)):
			n, v = g.get(k, [0, []])
			got = row[side]
			assert got["count"] == n and got["lat_ns"]["n"] == len(v), (which, k, side, got, n, len(v))
			if not v:
				continue
			assert got["lat_ns"]["max"] == v[-1], (which, k, side, got)
			for p in (50, 90, 99):
				want, have = rank(v, p), got["lat_ns"]["p%d" % p]
				if which == "dx":
					assert have == want, (which, k, side, p, have, want)
				else:
					assert abs(have - want) <= want / 512 + 1, (k, side, p, have, want)
					worst = max(worst, abs(have - want) / want if want else 0)
		va, vb = ga.get(k, [0, []])[1], gb.get(k, [0, []])[1]
		if not va or not vb:
			assert row["ks"] is None, (which, k, row["ks"])
			continue
		d = row["ks"]["d"]
		exact = ks(va, vb)
		if which == "dx":
			assert abs(d - exact) < 2e-6, (which, k, d, exact)
		else:
			dh = ks(va, vb, bucket)
			assert abs(d - dh) < 2e-6, (k, d, dh)
			assert exact - max(share(va), share(vb)) - 2e-6 <= d <= exact + 2e-6, (k, d, exact)
	assert seen == set(ga) | set(gb), (which, seen ^ (set(ga) | set(gb)))
print("largest percentile error of the histograms: %.4f%%" % (100 * worst))
EOF_PY
done
# (the files are of other disks, which diff says on stderr)
grep -v -e '^largest' -e '^iotracectl: diff: warning: A and B are of different disks' \
	"$T/why" > "$T/why2"
[ ! -s "$T/why2" ] && grep -q '^largest' "$T/why"
result $? "diff_histograms_against_exact_values" "$T/why"

# iotracectl watch and snapshot (issue 21) on the fake debugfs
for BIN in iotracectl/iotracectl build/iotracectl-san; do
	SFX=""
	[ "$BIN" = build/iotracectl-san ] && SFX="_san"
	. tests/watch-tests.sh
done
# the systemd units as make install writes them: systemd-analyze verify
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$T/units"
	sed -e "s|@SBINDIR@|$ROOT/iotracectl|" -e 's|@SYSCONFDIR@|/etc|g' \
		systemd/iotrace.service.in > "$T/units/iotrace.service"
	sed "s|@SBINDIR@|$ROOT/iotracectl|" systemd/iotrace-exporter.service.in \
		> "$T/units/iotrace-exporter.service"
	systemd-analyze verify --man=no "$T/units/iotrace.service" \
		"$T/units/iotrace-exporter.service" > "$T/why" 2>&1 &&
		[ ! -s "$T/why" ]
	result $? systemd_units_verify "$T/why"
else
	N=$((N + 1))
	echo "ok $N systemd_units_verify # SKIP systemd-analyze is not installed"
fi

# the watcher's exit status when refused for want of privilege at start
# (WATCH_EXIT_PRIVILEGE): the unit does not restart it (restarted, it
# would be refused again, every RestartSec=), and the man page says it
st=$(sed -n 's/^#define WATCH_EXIT_PRIVILEGE[[:space:]]*\([0-9]*\).*/\1/p' iotracectl/service/watch.h)
{
	echo "WATCH_EXIT_PRIVILEGE: '$st'"
	grep -n '^Restart' systemd/iotrace.service.in
} > "$T/why"
[ -n "$st" ] && [ "$st" != 1 ] && [ "$st" != 2 ] && [ "$st" != 3 ] &&
	grep -qx 'Restart=on-failure' systemd/iotrace.service.in &&
	grep -qx "RestartPreventExitStatus=$st" systemd/iotrace.service.in &&
	tr '\n' ' ' < ../Documentation/iotracectl.rst |
	grep -q "$st when \*\*watch\*\* is *refused for want of privilege"
result $? systemd_unit_no_restart_when_refused_for_privilege "$T/why"

# a configuration error exits 2 before anything is touched (no module
# needed to see it): the unit does not restart it either (restarted, it
# would read the same file every RestartSec=, for ever)
printf '[disk nullb0]\ntrigger = bogus\n' > "$T/bad.conf"
IOTRACE_RUN_DIR=$T/wrun ./iotracectl/iotracectl watch --config "$T/bad.conf" \
	--dir "$T/wsnap" > "$T/why" 2>&1
st=$?
echo "exit $st" >> "$T/why"
[ "$st" = 2 ] && grep -qx 'RestartPreventExitStatus=2' systemd/iotrace.service.in
result $? systemd_unit_no_restart_on_configuration_error "$T/why"

# 4. documentation: every fio replay example redirects the replay
grep -n -- '--read_iolog' ../README ../Documentation/*.rst | grep -v -- '--replay_redirect' > "$T/replay"
[ ! -s "$T/replay" ]
result $? doc_fio_replay_examples_redirect "$T/replay"

# the man page documents every command of the dispatch table, with a
# SYNOPSIS line and a section, and every option of every command where
# that command is (tests/doccheck.py)
B=iotracectl/iotracectl
for c in $($B --help | awk '/^commands:/ { c = 1; next } /^$/ { c = 0 } c { print $1 }'); do
	echo "$c" $($B $c --help | sed -n '/^options:/,$p' |
		    grep -o -- '^  -[a-z], --[a-z][a-z-]*\|--[a-z][a-z-]*' |
		    sed 's/^  //; s/, /=/' | sort -u)
done > "$T/opts"
python3 tests/doccheck.py ../Documentation/iotracectl.rst "$T/opts" > "$T/undoc" 2>&1
result $? doc_man_page_has_every_command_and_option "$T/undoc"

# 4b. iotracectl previous: persistent regions made from abi.rst's layout
# (tests/pregcheck.py): a region, the same in an ELF core, regions refused
for BIN in iotracectl/iotracectl build/iotracectl-san; do
	SFX=
	[ "$BIN" = build/iotracectl-san ] && SFX="_san"
	mkdir -p "$T/preg$SFX"
	python3 tests/pregcheck.py "$BIN" "$T/r2.ring" "$T/preg$SFX" \
		> "$T/preg.out" 2>&1
	rc=$?
	while read -r st name rest; do
		case $st in
		PASS) result 0 "$name$SFX" ;;
		FAIL) echo "$rest" > "$T/why"; result 1 "$name$SFX" "$T/why" ;;
		esac
	done < "$T/preg.out"
	[ $rc = 0 ] || result 1 "pregcheck$SFX" "$T/preg.out"
done

# 5. the reStructuredText documentation parses without a warning
if python3 -c 'import docutils' 2> /dev/null; then
	for f in ../Documentation/*.rst; do
		python3 - "$f" > "$T/rst" 2>&1 <<'EOF_PY'
import sys
import docutils.core
docutils.core.publish_string(open(sys.argv[1]).read(), writer_name='null',
			     settings_overrides={'report_level': 2,
						 'halt_level': 2})
EOF_PY
		result $? "doc_rst_$(basename "$f" .rst)" "$T/rst"
	done
else
	N=$((N + 1))
	echo "ok $N doc_rst # SKIP python3-docutils is not installed"
fi

echo "1..$N"
[ $FAILS = 0 ]
