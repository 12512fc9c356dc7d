#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_stale: a record without a command shows no command, even where the
# ring's slot held one before.  The completion leaves the command area of a
# record alone until a command hook has written a slot of the disk (the
# ring is zero until then); from then on it clears it.  Here every slot of
# a small ring first holds a SCSI READ CDB, then the device is taken
# offline and the SCSI midlayer fails every read before it is prepared: no
# CDB, no issue.  Every one of those records must say so, all 64 bytes
# of its command area zero.
#
# Oracles: the reads' own EIO (counted by the reader), the CDB opcode of a
# READ the disk is sent (0x28 or 0x88), /sys/block stat.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd python3
ktap_header 5
out=$(mktemp -d)

modprobe scsi_debug dev_size_mb=16 || skip "no scsi_debug module"
settle
dbg=
for d in /sys/block/sd*; do
	grep -qs scsi_debug "$d/device/model" && dbg=$(basename "$d")
done
[ -n "$dbg" ] || die "no scsi_debug disk appeared"
quiet_disk "$dbg"
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace buf_size=64K disks="$dbg"
recs=$(iot_stat "$dbg" chunk_records)
chunks=$(iot_stat "$dbg" nr_chunks)
cap=$((chunks * recs))
log "scsi_debug disk $dbg; buf_size=64K: $chunks chunks of $recs records"
cmd_enable "$dbg"

# reads DEV N STATE N2 - N O_DIRECT reads of 4 KiB, then with STATE set to
# offline N2 more on the same open file (an offline disk cannot be
# opened); prints "ok: N" and "eio: N2".  The caller sets STATE running
# again: that rescans the device (INQUIRY), out of the trace.
reads() {
	python3 - "$@" <<'EOF'
import errno, mmap, os, sys
dev, n, state, n2 = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
size = os.lseek(fd, 0, os.SEEK_END) // 4096
ok = eio = 0
for i in range(n):
    ok += os.preadv(fd, [buf], (i % size) * 4096) == 4096
open(state, 'w').write('offline\n')
for i in range(n2):
    try:
        os.preadv(fd, [buf], (i % size) * 4096)
    except OSError as e:
        if e.errno != errno.EIO:
            raise
        eio += 1
print('ok:', ok)
print('eio:', eio)
EOF
}

before=$(blk_ios "$dbg")
n=$((3 * cap))
reads "/dev/$dbg" $n "/sys/block/$dbg/device/state" $n > "$out/reads"
rc=$?
after=$(blk_ios "$dbg")
echo 0 > "$IOT/$dbg/enable"
echo running > "/sys/block/$dbg/device/state"
[ $rc = 0 ] || die "reads failed: $(cat "$out/reads")"
log "$(tr '\n' ' ' < "$out/reads") (ring of $cap, stat delta $((after - before)))"
ktap_check "$n reads succeed, then $n fail with EIO offline" \
	test "$(kv "$out/reads" ok) $(kv "$out/reads" eio)" = "$n $n"

CMD_DUMP_WHOLE=1 cmd_dump "$dbg" > "$out/recs" || die "cannot decode the ring of $dbg"
# seq op sector bytes error rflags dev_status dev_result cmd_type cmd_len cmdhex
awk '$5 == -5' "$out/recs" > "$out/eio"
neio=$(wc -l < "$out/eio")
# most of the pool: a CPU's current chunk may still hold reads from
# before, with their CDB, and the last chunks written may be partial
ktap_check "most of the ring is failed reads ($neio of $cap records; $(wc -l < "$out/recs") in all)" \
	test "$neio" -ge $((cap / 2))
# flagged FILE - every record of FILE has IOTRACE_RF_ERROR and _NO_ISSUE
flagged() {
	local f
	# shellcheck disable=SC2034
	while read -r _ _ _ _ _ f _; do
		[ $((f & 0x82)) = $((0x82)) ] || return 1
	done < "$1"
}
ktap_check "each failed read recorded with the error flag and no issue" \
	flagged "$out/eio"
zero=$(printf '0%.0s' $(seq 128))
awk -v z="$zero" '$9 != 0 || $10 != 0 || $11 != z' "$out/eio" > "$out/stale"
head -n 3 "$out/stale" | sed 's/^/# stale: /'
ktap_check "no failed read shows a command: type, length and 64 bytes zero ($(wc -l < "$out/stale") do)" \
	test ! -s "$out/stale"

# and the disk back online records its READ CDBs again
cmd_enable "$dbg"
reads "/dev/$dbg" 8 /dev/null 0 > /dev/null || die "reads back online failed"
echo 0 > "$IOT/$dbg/enable"
cmd_dump "$dbg" > "$out/recs2" || die "cannot decode the ring of $dbg"
ktap_check "back online, the reads carry their READ CDB again" \
	rec_match "$out/recs2" 'ctype == 2 and cmd[:2] in ("28", "88") and nbytes == 4096'
unload_iotrace
rmmod scsi_debug 2> /dev/null
udevadm control --start-exec-queue 2> /dev/null
ktap_finish
