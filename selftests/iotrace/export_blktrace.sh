#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export_blktrace: "iotracectl export -f blktrace" of a fio run on null_blk
# is read by blkparse and btt unmodified.
#
# Oracles: a real blktrace of the same run (issue and complete events,
# read by the same blkparse and btt), the kernel's /sys/block/<disk>/stat
# delta, and iotrace's own records (export -f csv).  Checked: blkparse
# counts one D and one C per request, as many as the real blktrace and the
# stat delta; btt's D2C average of the export is within 5% of iotrace's
# mean device latency; request by request, the export's D2C is the real
# blktrace's (d2ccmp.py: 80% within 5%, median difference within 3%; the
# averages are only logged, QEMU's first translation of either tracer's
# code moves them by milliseconds on a few requests).  The same
# records also go through -f perfetto (JSON, one slice per request) and
# plot -f svg (well-formed XML).
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 blktrace blkparse btt
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 9
out=$(mktemp -d)
disk=nullb0
nullb_mod nr_devices=1 irqmode=2 completion_nsec=100000 submit_queues=2 gb=1
quiet_disk $disk
load_iotrace disks=$disk buf_size=4194304
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
echo 1 > "$IOT/$disk/enable"
echo 1 > "$IOT/$disk/clear"
udevadm control --stop-exec-queue 2> /dev/null
mkdir -p "$out/real" "$out/exp"
# btt follows a request from its Q event: trace queue too
blktrace -d /dev/$disk -a queue -a issue -a complete -D "$out/real" -o real \
	> "$out/blktrace.log" 2>&1 &
btpid=$!
sleep 2
before=$(blk_ios $disk)
fio --name=exp --filename=/dev/$disk --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=randrw --bssplit=4k/60:16k/30:64k/10 \
	--number_ios=1500 --size=256m --output="$out/fio.out" ||
	die "fio failed: $(tail -n 5 "$out/fio.out")"
after=$(blk_ios $disk)
kill -INT $btpid
wait $btpid
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
ios=$((after - before))

"$IOTRACECTL" export -f csv $disk > "$out/recs.csv" || die "export -f csv failed"
nrec=$(($(wc -l < "$out/recs.csv") - 1))
over=$(iot_stat $disk overwritten)
log "stat delta $ios, iotrace records $nrec, overwritten ${over:-?}"
ktap_check "iotrace holds every request (records $nrec = stat delta $ios)" \
	test "$nrec" -eq "$ios"

"$IOTRACECTL" export -f blktrace -o "$out/exp/iot" $disk 2> "$out/export.err"
ktap_check "export -f blktrace" test $? -eq 0
cat "$out/export.err"
ls -l "$out/exp" | sed 's/^/# /'
blkparse -i iot -D "$out/exp" > "$out/exp.txt" 2> "$out/exp.err"
blkparse -i real -D "$out/real" > "$out/real.txt" 2> "$out/real.err"
tail -n 12 "$out/exp.txt" | sed 's/^/# export: /'
nd=$(awk '$6 == "D"' "$out/exp.txt" | wc -l)
nc=$(awk '$6 == "C"' "$out/exp.txt" | wc -l)
rc_=$(awk '$6 == "C"' "$out/real.txt" | wc -l)
log "blkparse: export D $nd, C $nc; real blktrace C $rc_"
ktap_check "blkparse reads one D and one C per record ($nd, $nc, $nrec)" \
	test "$nd" -eq "$nrec" -a "$nc" -eq "$nrec"
ktap_check "blkparse: no sequence skips in the export" \
	grep -q 'Skips: 0 forward' "$out/exp.txt"
ktap_check "as many completions as the real blktrace ($nc, $rc_)" \
	test "$nc" -eq "$rc_"

(cd "$out/exp" && blkparse -q -i iot -d iot.bin -O > /dev/null &&
	btt -i iot.bin > btt.txt) 2> "$out/btt.err"
(cd "$out/real" && blkparse -q -i real -d real.bin -O > /dev/null &&
	btt -i real.bin > btt.txt) 2>> "$out/btt.err"
d2c=$(awk '$1 == "D2C" { print $3; exit }' "$out/exp/btt.txt")
rd2c=$(awk '$1 == "D2C" { print $3; exit }' "$out/real/btt.txt")
mean=$(awk -F, 'NR > 1 && $7 != "flush" && $6 != "" { s += $6; n++ }
		END { if (n) printf "%.9f", s / n / 1e9 }' "$out/recs.csv")
[ -n "$rd2c" ] && [ -n "$d2c" ] || { cat "$out/btt.err"; head -n 12 "$out/real/btt.txt"; } | sed 's/^/# btt: /'
log "btt D2C avg: export ${d2c:-none} s, real blktrace ${rd2c:-none} s; iotrace mean latency ${mean:-none} s"
within() { # within A B PCT
	[ -n "$1" ] && [ -n "$2" ] &&
		awk -v a="$1" -v b="$2" -v p="$3" \
		    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'
}
ktap_check "btt D2C average of the export within 5% of iotrace's mean latency" \
	within "$d2c" "$mean" 5
python3 "$IOTRACE_SRC/selftests/iotrace/d2ccmp.py" "$out/exp.txt" \
	"$out/real.txt" 5
ktap_check "per request, D2C of the export within 5% of the real blktrace's" \
	test $? -eq 0

"$IOTRACECTL" export -f perfetto -o "$out/p.json" $disk &&
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
b = [e for e in d["traceEvents"] if e["ph"] == "b"]
e = [e for e in d["traceEvents"] if e["ph"] == "e"]
tracks = set((x["pid"], x["name"]) for x in b)
hwqs = set((x["pid"], x["args"]["hwq"]) for x in b)
print("# perfetto: %d async slices on %d tracks" % (len(b), len(tracks)))
sys.exit(len(b) != int(sys.argv[2]) or len(e) != len(b) or
	 len(tracks) != len(hwqs))' "$out/p.json" "$nrec"
ktap_check "perfetto JSON parses, one async slice per request, one track per hwq" test $? -eq 0
"$IOTRACECTL" plot -o "$out/p.svg" $disk &&
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$out/p.svg"
ktap_check "plot -f svg is well-formed XML" test $? -eq 0
unload_iotrace
rm -rf "$out"
ktap_finish
