#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export_fio: "iotracectl export -f fio" of a traced fio run is an iolog
# that fio --read_iolog --replay_redirect replays: the replay, traced again, issues the same
# sequence of operation, offset and length.
#
# Oracles: fio's own counts of the replay (reads, writes and bytes it
# submitted, from its JSON report; fio cannot write an iolog while it
# reads one), the trace of the replay (what reached the device), and the
# kernel's /sys/block/<disk>/stat delta of the first run.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 7
out=$(mktemp -d)
disk=nullb0
nullb_mod nr_devices=1 irqmode=1 submit_queues=2 gb=1
quiet_disk $disk
load_iotrace disks=$disk buf_size=4194304
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/enable"
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
fio --name=orig --filename=/dev/$disk --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=randrw --bssplit=4k/50:16k/30:128k/20 \
	--number_ios=800 --size=512m --output="$out/fio.out" ||
	die "fio failed: $(tail -n 5 "$out/fio.out")"
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"

# data lines of an iolog: op offset length
ops() {
	awk '$2 ~ /^(read|write|trim|sync)$/ { print $2, $3, $4 }' "$1"
}

"$IOTRACECTL" export -f fio -o "$out/orig.iolog" $disk
ktap_check "export -f fio" test $? -eq 0
head -n 4 "$out/orig.iolog" | sed 's/^/# iolog: /'
n=$(ops "$out/orig.iolog" | wc -l)
ktap_check "the iolog holds every request of the run ($n, stat delta $((after - before)))" \
	test "$n" -eq $((after - before)) -a "$n" -ge 800
ktap_check "the iolog starts with fio's version 2 header" \
	test "$(head -n 1 "$out/orig.iolog")" = "fio version 2 iolog"

echo 1 > "$IOT/$disk/clear"
echo 1 > "$IOT/$disk/enable"
# the log names /dev/$disk; --replay_redirect names the target, as a
# replay onto a scratch device would (here the same null_blk disk)
fio --name=replay --read_iolog="$out/orig.iolog" --replay_redirect=/dev/$disk \
	--direct=1 --ioengine=psync --output-format=json --output="$out/replay.json"
rc=$?
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
[ $rc -eq 0 ] || tail -n 5 "$out/replay.json" | sed 's/^/# fio: /'
ktap_check "fio --read_iolog --replay_redirect replays the export" test $rc -eq 0

ops "$out/orig.iolog" > "$out/a"
want=$(awk '{ n[$1]++; b[$1] += $3 }
	    END { printf "%d %d %d %d", n["read"], b["read"], n["write"], b["write"] }' "$out/a")
got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"], j["read"]["io_bytes"], j["write"]["total_ios"], j["write"]["io_bytes"])' \
	"$out/replay.json")
log "export: reads, bytes, writes, bytes: $want; fio's report of the replay: $got"
ktap_check "fio replayed every read and write of the export, byte for byte" \
	test "$want" = "$got"

"$IOTRACECTL" export -f fio -o "$out/replay.iolog" $disk
ops "$out/replay.iolog" > "$out/c"
diff "$out/a" "$out/c" > "$out/d2"
rc=$?
head -n 6 "$out/d2" | sed 's/^/# trace diff: /'
ktap_check "the replay's trace has the same op/offset/length sequence ($(wc -l < "$out/c") I/Os)" \
	test $rc -eq 0
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
