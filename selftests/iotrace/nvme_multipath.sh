#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nvme_multipath: a native NVMe multipath head (nvme0n1 over the hidden
# paths nvme0c0n1 and nvme0c1n1) is a disk of iotrace's by its own name:
# disks= selects it, it has a ring holding every request of the
# namespace whatever path served it, each record naming its path's
# controller and carrying the NVMe command, its in-kernel metrics count
# them all, and iotracectl list, stats and show know it, the exporter
# gives its series under its name, and the snapshot service given its
# serial (its paths' too) watches it and snapshots it on a trigger.
# With iopolicy=round-robin both paths serve requests.
#
# Oracles: fio's write_iolog (every I/O on the head; its records told
# from others' by the submitter's pid where the kernel names it), each
# path's /sys/block/<path>/stat delta (the requests it completed), the
# head's stat delta where the kernel counts its I/O (6.x), the path
# names the kernel gave (nvme<subsystem>c<controller>n<namespace>).
# VM-DEVICES: nvme-mpath
# VM-CHECK: newest
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
out=$(mktemp -d)
modprobe nvme 2> /dev/null
settle
find_mpath_head
log "head $head, paths $paths"
# udev's probes of the new disks are over before the workload
settle
udevadm control --stop-exec-queue 2> /dev/null
ktap_header 21
load_iotrace disks="$head"
ktap_check "$head has a ring" test -e "$IOT/$head/ring"
"$IOTRACECTL" list > "$out/list" 2>&1
sed 's/^/# list: /' "$out/list"
ktap_check "iotracectl list shows $head" grep -q "^$head\b" "$out/list"

subsys=$(basename "$(dirname "$(readlink -f "/sys/block/$head")")")
pol=/sys/class/nvme-subsystem/$subsys/iopolicy
if [ -w "$pol" ] && grep -q round-robin "$pol" 2> /dev/null ||
   echo round-robin > "$pol" 2> /dev/null; then
	log "iopolicy $(cat "$pol")"
else
	log "no iopolicy file at $pol"
fi

echo 1 > "$IOT/$head/clear"
# the head's in-kernel metrics (the exporter's disk="<head>" series):
# requests completed, all ops
mreq() {
	awk '$2 == "requests" { n += $3 } END { print n + 0 }' "$IOT/$head/metrics"
}
mbefore=$(mreq)
declare -A before
for p in $head $paths; do
	before[$p]=$(blk_ios "$p")
done
# fio writes through a node of its own: udevd's inotify watch on
# /dev/$head would probe the disk (read its partition table) after each
# close of a writer, whether its execution queue runs or not
mknod "$out/head" b "$(cut -d: -f1 "/sys/block/$head/dev")" \
	"$(cut -d: -f2 "/sys/block/$head/dev")" || die "mknod failed"
# one process (--thread): its pid tells its records from others'
fio --name=mp --filename="$out/head" --direct=1 --ioengine=libaio \
    --iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
    --number_ios=2000 --size=256m --write_iolog="$out/iolog" \
    --thread --output="$out/fio" &
fiopid=$!
wait $fiopid
declare -A delta
sum=0
for p in $head $paths; do
	delta[$p]=$(($(blk_ios "$p") - before[$p]))
	log "$p: stat delta ${delta[$p]}"
	[ "$p" = "$head" ] || sum=$((sum + delta[$p]))
done
mdelta=$(($(mreq) - mbefore))
echo 0 > "$IOT/$head/enable"
"$RINGCHECK" check "$IOT/$head/ring" > "$out/check"
rc=$?
"$RINGCHECK" dumpp "$IOT/$head/ring" > "$out/ringp"
# where the kernel names submitters (6.5+, block_io_start): fio's records
if awk -v p=$fiopid '$5 == p { f = 1 } END { exit !f }' "$out/ringp"; then
	log "records of other processes: $(awk -v p=$fiopid '$5 != p' "$out/ringp" | wc -l)"
	awk -v p=$fiopid '$5 == p { print $1, $2, $3 }' "$out/ringp" | sort > "$out/ring"
else
	awk '{ print $1, $2, $3 }' "$out/ringp" | sort > "$out/ring"
fi
"$RINGCHECK" dumpm "$IOT/$head/ring" > "$out/ringm"
udevadm control --start-exec-queue 2> /dev/null
cat "$out/check"
ktap_check "ring intact after the run" test $rc -eq 0
fio_log_vs_ring "$out" 2000 "$out/iolog"
ring_counts_vs_stat "$out/check" $sum
if [ "${delta[$head]}" -gt 0 ]; then
	ktap_check "the head's stat delta (${delta[$head]}) = records ($(wc -l < "$out/ringm"))" \
		test "${delta[$head]}" -eq "$(wc -l < "$out/ringm")"
else
	ktap_skip "the kernel counts no I/O on the head"
fi
ktap_check "the head's metrics count $mdelta requests, its paths completed $sum" \
	test "$mdelta" -eq "$sum"
# each record names its path by its controller's instance: nvmeXcNnY
nserved=0
for p in $paths; do
	c=${p#nvme*c}
	c=${c%%n*}
	n=$(awk -v c="$c" '$4 == c' "$out/ringm" | wc -l)
	ktap_check "records with path $p ($n) = its stat delta (${delta[$p]})" \
		test "$n" -eq "${delta[$p]}"
	[ "$n" -gt 0 ] && nserved=$((nserved + 1))
done
ktap_check "round-robin: both paths served requests" test $nserved -eq 2
ktap_check "every record has its NVMe command" \
	test "$(awk '$5 != 1' "$out/ringm" | wc -l)" -eq 0
"$IOTRACECTL" stats "$head" > "$out/stats" 2>&1
rc=$?
sed 's/^/# stats: /' "$out/stats" | head -20
ktap_check "iotracectl stats $head" test $rc -eq 0
"$IOTRACECTL" show "$head" > "$out/show" 2>&1
sed -n '1,4s/^/# show: /p' "$out/show"
ktap_check "iotracectl show $head names the paths" \
	grep -q "${paths%% *}" "$out/show"

# The exporter: the head's series under disk="$head", its requests what
# the head's metrics count, its identity the subsystem's serial
serial=$(tr -d ' \n' < "/sys/block/$head/device/serial" 2> /dev/null)
ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null
"$IOTRACECTL" exporter --listen 127.0.0.1:9662 2> "$out/exporter.log" &
exp_pid=$!
until_ok 30 sh -c "python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' \
	http://127.0.0.1:9662/metrics > $out/m.prom 2> /dev/null" ||
	log "the exporter did not answer"
kill $exp_pid 2> /dev/null
wait $exp_pid 2> /dev/null
sed 's/^/# exporter: /' "$out/exporter.log" | head -5
grep "disk=\"$head\"" "$out/m.prom" | grep -e '^iotrace_requests_total' -e '^iotrace_disk_info' |
	sed 's/^/# exporter: /'
nexp=$(awk -v d="disk=\"$head\"" 'index($0, d) && /^iotrace_requests_total\{/ { n += $NF }
	END { print n + 0 }' "$out/m.prom")
ktap_check "the exporter's iotrace_requests_total{disk=\"$head\"} ($nexp) = the head's metrics ($(mreq))" \
	test "$nexp" -eq "$(mreq)" -a "$nexp" -gt 0
ktap_check "the exporter's iotrace_disk_info of $head: serial \"$serial\"" \
	grep -q "^iotrace_disk_info{disk=\"$head\",.*serial=\"$serial\"" "$out/m.prom"

# The snapshot service given the head by its serial (the paths', too):
# it watches the head, and a read over the 1 us read threshold makes a
# snapshot of the head's ring
printf 'post = 0\n[disk serial=%s]\nring-size = 1M\ntrigger = read-lat=1us rate=0\n' \
	"$serial" > "$out/wconf"
IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" watch --config "$out/wconf" \
	--dir "$out/snap" 2> "$out/wlog" &
wpid=$!
until_ok 30 grep -q 'ready:' "$out/wlog" || log "the watcher did not start"
dd if="$out/head" of=/dev/null bs=4k count=50 iflag=direct 2> /dev/null
until_ok 30 sh -c "ls $out/snap/iotrace-*.iot > /dev/null 2>&1" ||
	log "no snapshot in 30 s"
sleep 1
kill -TERM $wpid 2> /dev/null
wait $wpid
sed 's/^/# watch: /' "$out/wlog" | grep -v 'joined$' | head -12
ktap_check "watch [disk serial=$serial] watches $head" \
	grep -q "watching $head (serial=$serial" "$out/wlog"
f=$(ls "$out/snap"/iotrace-*.iot 2> /dev/null | head -n 1)
"$IOTRACECTL" show -o csv "$f" > "$out/snap.csv" 2> /dev/null
ktap_check "its snapshot: $head's reads, each naming its path, one flagged as the trigger" \
	python3 -c 'import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["op"] == "read"]
assert len(rows) >= 1, len(rows)
assert all(r["disk"] == sys.argv[2] for r in rows), set(r["disk"] for r in rows)
assert any(int(r["rflags"], 0) & 0x8000 for r in rows), "no trigger flag"' \
	"$out/snap.csv" "$head"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
