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
build/gen debugfs "$T/dfs" || { result 1 gen_inputs; echo "1..$N"; exit 1; }
head -c 1000 "$T/f.trace" > "$T/trunc.trace"
printf 'hello, this is not a trace\n' > "$T/foreign"
: > "$T/empty"
cp "$T/f.trace" "$T/major2.trace"
printf '\002\000\000\000' | dd of="$T/major2.trace" bs=1 seek=8 conv=notrunc 2>/dev/null
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

# refuse NAME WORD ARGS...: must fail cleanly (exit 1 or 2) saying WORD
refuse() {
	name=$1
	word=$2
	shift 2
	(cd "$T" && "$ROOT/$BIN" "$@") > "$T/out" 2> "$T/err"
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

mkdir -p "$GOLD"
for BIN in iotracectl/iotracectl build/iotracectl-san; do
	SFX=""
	[ "$BIN" = build/iotracectl-san ] && SFX="_san"
	golden show_ring.txt show r.ring
	golden show_ring_hex.txt show -o hex r.ring
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
	golden stats_filter_read.txt stats --op read r.ring
	golden list.txt list
	golden list.json list -o json
	golden inflight.txt inflight nullb0
	golden inflight.csv inflight -o csv nullb0
	golden show_live_disk.txt show nullb0
	(cd "$T" && "$ROOT/$BIN" show f.trace) > "$T/a" 2>&1
	(cd "$T" && "$ROOT/$BIN" show n.trace) > "$T/b" 2>&1
	diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "newer_minor_file_reads_like_current$SFX" "$T/diff"
	"$BIN" show -o binary "$T/r.ring" > "$T/bin" 2> "$T/err"
	sz=$(wc -c < "$T/bin")
	[ "$sz" = $((256 * 128)) ]
	result $? "show_binary_is_256_records$SFX" "$T/err"
	# record the fake live disks; the file shows what the disk shows
	"$BIN" record nullb0 -o "$T/rec.trace" --duration 0.2 2> "$T/err"
	rc=$?
	"$BIN" show "$T/rec.trace" > "$T/a" 2>> "$T/err"
	"$BIN" show nullb0 > "$T/b" 2>> "$T/err"
	[ $rc = 0 ] && diff -u "$T/a" "$T/b" > "$T/diff" 2>&1
	result $? "record_file_shows_like_disk$SFX" "$T/diff"
	"$BIN" stats "$T/rec.trace" 2>&1 | grep -q 'recorded 256, written 256, lost 0'
	result $? "record_trailer_counts$SFX"
	"$BIN" record nullb0 sda -o "$T/rec2.trace" --size 1 2> "$T/err"
	"$BIN" stats "$T/rec2.trace" > "$T/out" 2>> "$T/err"
	grep -q 'nullb0' "$T/out" && grep -q 'sda' "$T/out"
	result $? "record_two_disks_size_limit$SFX" "$T/err"
	"$BIN" stats --interval 0.05 --count 3 nullb0 > "$T/out" 2> "$T/err"
	[ $? = 0 ] && [ "$(grep -c '^ *[0-9.]* - ' "$T/out")" = 3 ] &&
		head -1 "$T/out" | grep -q 'P99_US'
	result $? "stats_interval_three_reports$SFX" "$T/out"
	"$BIN" stats --interval 0.05 --count 2 -o json nullb0 > "$T/out" 2> "$T/err"
	[ $? = 0 ] && python3 -c 'import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$T/out" && [ "$(wc -l < "$T/out")" = 2 ]
	result $? "stats_interval_json$SFX" "$T/out"
	: > "$T/dfs/nullb0/enable"
	"$BIN" enable nullb0 && [ "$(cat "$T/dfs/nullb0/enable")" = 1 ]
	result $? "enable_writes_1$SFX"
	# export and plot
	golden export_file.csv export -f csv f.trace
	golden export_file.fio export -f fio f.trace
	golden export_multidisk.fio3 export -f fio3 f2.trace
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
	"$BIN" export -f perfetto "$T/r.ring" > "$T/p.json" 2> "$T/err" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
assert len(x) == int(sys.argv[2]), (len(x), sys.argv[2])
tracks = {}
for e in sorted(x, key=lambda e: e["ts"]):
	k = (e["pid"], e["tid"])
	assert e["ts"] >= tracks.get(k, 0), "slices overlap on a track"
	tracks[k] = e["ts"] + e["dur"]' "$T/p.json" "$nrec" 2>> "$T/err"
	result $? "export_perfetto_one_slice_per_request$SFX" "$T/err"
	"$BIN" plot "$T/r.ring" -o "$T/p.svg" 2> "$T/err" &&
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "{http://www.w3.org/2000/svg}svg"
s = open(sys.argv[1]).read()
assert "href" not in s and "<script" not in s' "$T/p.svg" 2>> "$T/err"
	result $? "plot_svg_well_formed_self_contained$SFX" "$T/err"
	if command -v rsvg-convert > /dev/null; then
		rsvg-convert "$T/p.svg" -o "$T/p.png" 2> "$T/err" &&
			[ "$(head -c 4 "$T/p.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ]
		result $? "plot_svg_renders_png$SFX" "$T/err"
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
		"$BIN" export -f $v --op read,write "$T/r.ring" 2> "$T/err" |
			sed "s|/dev/nullb0|$T/fio.dat|" > "$T/r.$v"
		rm -f "$T/fio.dat" && truncate -s 80G "$T/fio.dat" &&
		fio --name=replay --read_iolog="$T/r.$v" --ioengine=psync \
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
	# a filter that keeps nothing: every format still valid
	rm -rf "$T/e" && mkdir "$T/e" &&
	"$BIN" export -f blktrace --op zopen -o "$T/e/e" "$T/r.ring" 2> "$T/err" &&
	blkparse -i e -D "$T/e" 2>> "$T/err" | grep -q 'Events (e): 0 entries' &&
	"$BIN" export -f perfetto --op zopen "$T/r.ring" 2>> "$T/err" |
		python3 -c 'import json, sys; json.load(sys.stdin)' 2>> "$T/err" &&
	"$BIN" plot --op zopen "$T/r.ring" 2>> "$T/err" |
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.stdin)' 2>> "$T/err" &&
	[ "$("$BIN" export -f csv --op zopen "$T/r.ring" | wc -l)" = 1 ] &&
	[ ! -s "$T/err" ]
	result $? "export_plot_empty_selection$SFX" "$T/err"
	refuse export_format "unknown format" export -f tar r.ring
	refuse export_blktrace_no_out "give their prefix" export -f blktrace r.ring
	refuse plot_format "use svg" plot -f png r.ring
	refuse f_elsewhere "no -f option" show -f csv r.ring
	refuse foreign "not an iotrace" show foreign
	refuse truncated "truncated trace file" stats trunc.trace
	refuse major2 "version 2.0 is not supported" show major2.trace
	refuse empty "empty file" show empty
	refuse no_disk "no traced disk of that name" show nosuchdisk
	refuse directory "directory" show "$T/dfs/"
	refuse unknown_cmd "unknown command" frobnicate
	refuse bad_format "not a format of this command" stats -o hex r.ring
	refuse bad_op "unknown operation" show --op bogus r.ring
	refuse bad_sector "START-END" show --sector 5 r.ring
	refuse interval_on_file "needs a live DISK" stats --interval 1 r.ring
	refuse record_no_out "record needs" record nullb0
done
for f in foreign trunc.trace major2.trace; do
	iotracectl/iotracectl show "$T/$f" 2>&1 | head -1 | sed 's/^/# /'
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
