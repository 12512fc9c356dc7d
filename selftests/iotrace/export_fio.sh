#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export_fio: "iotracectl export -f fio" of a traced fio run is an iolog
# that fio --read_iolog replays: the replay, traced again, issues the same
# sequence of operation, offset and length.
#
# Oracles: fio's own write_iolog of the replay (what fio submitted), the
# trace of the replay (what reached the device), and the kernel's
# /sys/block/<disk>/stat delta of the first run.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
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
fio --name=replay --read_iolog="$out/orig.iolog" --direct=1 \
	--ioengine=psync --write_iolog="$out/replay.fiolog" \
	--output="$out/replay.out"
rc=$?
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
[ $rc -eq 0 ] || tail -n 5 "$out/replay.out" | sed 's/^/# fio: /'
ktap_check "fio --read_iolog replays the export" test $rc -eq 0

ops "$out/orig.iolog" > "$out/a"
ops "$out/replay.fiolog" > "$out/b"
diff "$out/a" "$out/b" > "$out/d1"
rc=$?
head -n 6 "$out/d1" | sed 's/^/# fio log diff: /'
ktap_check "fio submitted the same sequence (its own write_iolog, $(wc -l < "$out/b") I/Os)" \
	test $rc -eq 0

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
