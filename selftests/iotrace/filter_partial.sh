#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# filter_partial: a disk's filter judges a request as it was issued, as its
# record gives it, not by what is left of it at its final completion.
# scsi_debug's medium error (opts=2: sectors 0x1234 on fail with MEDIUM
# ERROR) in the middle of a 128 KiB direct read: SCSI completes the 112 KiB
# before the bad sector, then fails the 16 KiB left.  With the filter
# min-bytes=64K the read (128 KiB) is recorded, with its sector, its bytes
# and its error; a 4 KiB read is filtered out (the filter works).
# Oracle: scsi_debug's documented medium error and dd's request.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
out=$(mktemp -d)
unload_iotrace
rmmod scsi_debug 2> /dev/null
modprobe scsi_debug dev_size_mb=8 opts=2 || die "modprobe scsi_debug failed"
sd=
for _ in $(seq 50); do
	for d in /sys/block/sd*; do
		grep -qs scsi_debug "$d/device/model" && sd=$(basename "$d")
	done
	[ -n "$sd" ] && break
	sleep 0.2
done
[ -n "$sd" ] || die "no scsi_debug disk appeared"
settle
quiet_disk "$sd"

ktap_header 5
load_iotrace disks="$sd" buf_size=1M
"$IOTRACECTL" filter "$sd" min-bytes=64K > "$out/filter" 2>&1 ||
	die "iotracectl filter: $(cat "$out/filter")"
# 0x1234 - 224 = 4436: 224 good sectors, then the bad one
dd if=/dev/$sd of=/dev/null bs=131072 count=1 skip=$((4436 * 512)) \
	iflag=direct,skip_bytes 2> "$out/dd"
rc=$?
log "128 KiB read over the bad sector: rc $rc, $(tail -n 1 "$out/dd")"
ktap_check "the read over the bad sector fails" test $rc != 0
f0=$(iot_stat "$sd" filtered)
dd if=/dev/$sd of=/dev/null bs=4096 count=1 iflag=direct 2> /dev/null
ktap_check "a 4 KiB read is filtered out" \
	test "$(iot_stat "$sd" filtered)" = $((f0 + 1))
"$RINGCHECK" dumpx "$IOT/$sd/ring" > "$out/recs"
sed 's/^/# /' "$out/recs"
ktap_check "the failed read is recorded: 128 KiB at its sector, with an error" \
	sh -c "awk '\$1 == \"read\" && \$2 == 4436 && \$3 == 131072 && \$6 != 0' '$out/recs' | grep -q ."
ktap_check "and nothing else" test "$(wc -l < "$out/recs")" = 1
unload_iotrace
rmmod scsi_debug 2> /dev/null
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
