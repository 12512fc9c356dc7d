#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# filter_partial: a disk's filter judges a request as it was issued, as its
# record gives it, not by what is left of it at its final completion.
# A null_blk disk with a bad block and badblocks_partial_io (null_blk moves
# the data up to the first bad block, completes that part, then fails the
# rest; where null_blk has it: 7.3 here, not 6.12): a 128 KiB direct
# read with the bad sector 112 KiB into it.  With the filter min-bytes=64K
# the read (128 KiB) is recorded, with its sector, its bytes and its
# error; a 4 KiB read is filtered out (the filter works).
# Oracle: null_blk's configured bad block and dd's request.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
out=$(mktemp -d)
unload_iotrace
rmmod null_blk 2> /dev/null
modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
mkdir /sys/kernel/config/nullb/probe || die "no null_blk configfs"
has=0
[ -e /sys/kernel/config/nullb/probe/badblocks_partial_io ] && has=1
rmdir /sys/kernel/config/nullb/probe
[ $has = 1 ] || skip "null_blk has no badblocks_partial_io on $(uname -r)"
nb=$(nullb_create nbpart size=64 memory_backed=1 irqmode=0 \
	badblocks_partial_io=1)
# sector 24 + 224: 112 KiB good, then the bad block
echo "+248-255" > /sys/kernel/config/nullb/nbpart/badblocks ||
	die "cannot set the bad block"
quiet_disk "$nb"

ktap_header 5
load_iotrace disks="$nb" buf_size=1M
"$IOTRACECTL" filter "$nb" min-bytes=64K > "$out/filter" 2>&1 ||
	die "iotracectl filter: $(cat "$out/filter")"
dd if=/dev/$nb of=/dev/null bs=131072 count=1 skip=$((24 * 512)) \
	iflag=direct,skip_bytes 2> "$out/dd"
rc=$?
log "128 KiB read over the bad sector: rc $rc, $(tail -n 1 "$out/dd")"
ktap_check "the read over the bad sector fails" test $rc != 0
f0=$(iot_stat "$nb" filtered)
dd if=/dev/$nb of=/dev/null bs=4096 count=1 iflag=direct 2> /dev/null
ktap_check "a 4 KiB read is filtered out" \
	test "$(iot_stat "$nb" filtered)" = $((f0 + 1))
"$RINGCHECK" dumpx "$IOT/$nb/ring" > "$out/recs"
sed 's/^/# ring: /' "$out/recs"
ktap_check "the failed read is recorded: 128 KiB at its sector, with an error" \
	sh -c "awk '\$1 == \"read\" && \$2 == 24 && \$3 == 131072 && \$6 != 0' '$out/recs' | grep -q ."
ktap_check "and nothing else" test "$(wc -l < "$out/recs")" = 1
unload_iotrace
nullb_destroy nbpart
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
