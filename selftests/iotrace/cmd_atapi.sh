#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_atapi: an ATAPI drive on libata (AHCI + ide-cd, sr) is told SCSI
# commands inside PACKET taskfiles: its records hold the CDB and the SCSI
# status with its sense, as on a SCSI disk, not the PACKET taskfile and
# the ATA registers; an ATA PASS-THROUGH sent to it too.
#
# Oracles: the CDBs given to sg_raw; the block dd read (sr reads in
# 2,048-byte blocks: READ(10) of LBA sector / 4); the status and sense
# sg_raw decodes for an opcode the drive refuses.
# VM-DEVICES: ahci-cd
# VM-CHECK: all
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd sg_raw python3
ktap_header 8

tmp=$(mktemp -d)
load_iotrace
sr=
settle
for _ in $(seq 50); do
	for d in /sys/block/sr*; do
		[ -e "$d" ] && { sr=$(basename "$d"); break; }
	done
	[ -n "$sr" ] && break
	sleep 0.2
done
[ -n "$sr" ] || skip "no ATAPI drive (sr) in the guest"
log "ATAPI drive $sr: $(tr -s ' ' < "/sys/block/$sr/device/vendor")" \
    "$(tr -s ' ' < "/sys/block/$sr/device/model")"
cmd_enable "$sr"
# READ(10) of LBA 16, one 2,048-byte block
sg_raw -R -r 2048 /dev/$sr 28 00 00 00 00 10 00 00 01 00 > "$tmp/r10" 2>&1 ||
	log "sg_raw READ(10): $(tr '\n' ' ' < "$tmp/r10")"
dd if=/dev/$sr of=/dev/null bs=2048 skip=32 count=1 iflag=direct \
	2> "$tmp/dd" || log "dd: $(tr '\n' ' ' < "$tmp/dd")"
# an opcode no drive has: CHECK CONDITION, ILLEGAL REQUEST
sg_raw -R /dev/$sr ff 00 00 00 00 00 00 00 00 00 00 00 > "$tmp/bad" 2>&1
log "sg_raw ff: $(tr '\n' ' ' < "$tmp/bad")"
# ATA PASS-THROUGH(16), non-data, command 0xff: no such command
sg_raw -R /dev/$sr 85 06 20 00 00 00 00 00 00 00 00 00 00 00 ff 00 \
	> "$tmp/pt" 2>&1
log "sg_raw ATA 0xff: $(tr '\n' ' ' < "$tmp/pt")"
timeouts=$(python3 "$IOTRACE_SRC/selftests/iotrace/nlmetrics.py" get "$sr" |
	   sed -n 's/^timeouts: //p')
cmd_disable "$sr"
cmd_dump "$sr" > "$tmp/recs" || die "cannot decode the ring of $sr"
log "$(wc -l < "$tmp/recs") records:"
grep -v ' 18446744073709551615 .* 0x0 0x0 2 ' "$tmp/recs" | sed 's/^/#   /'
cp "$tmp/recs" "$IOTRACE_OUT/cmd_atapi.recs" 2> /dev/null

ktap_check "sg_raw READ(10): its CDB byte for byte, GOOD status" \
	rec_match "$tmp/recs" 'ctype == 2 and cmd == "28000000001000000100" and st == 0 and rf & 0x200 and not rf & 2'
ktap_check "dd at 64 KiB: a read of sector 128 whose CDB is READ(10) of LBA 32" \
	rec_match "$tmp/recs" 'op == 0 and sector == 128 and nbytes == 2048 and ctype == 2 and c[0] == 0x28 and int.from_bytes(c[2:6], "big") == 32 and int.from_bytes(c[7:9], "big") == 1'
no_packet() { ! rec_match "$tmp/recs" 'ctype == 3 and c[0] == 0xa0'; }
ktap_check "no PACKET taskfile (0xa0) recorded" no_packet
if grep -qi 'Illegal Request' "$tmp/bad"; then
	asc=$(grep -io 'asc=[0-9a-f]*' "$tmp/bad" | head -n 1 | cut -d= -f2)
	if grep -qi 'Invalid command operation code' "$tmp/bad"; then
		asc=20
	fi
	log "sg_raw: ILLEGAL REQUEST, ASC 0x${asc:-?}"
	ktap_check "refused opcode: its CDB, CHECK CONDITION, ILLEGAL REQUEST${asc:+, ASC 0x$asc}" \
		rec_match "$tmp/recs" "ctype == 2 and cmd[:2] == 'ff' and st & 0xffff == 0x0502 and ('$asc' == '' or st >> 16 & 0xff == 0x${asc:-0}) and rf & 0x202 == 0x202"
else
	ktap_fail "sg_raw did not report ILLEGAL REQUEST for opcode ff"
fi
ktap_check "ATA PASS-THROUGH: its CDB, holding command 0xff" \
	rec_match "$tmp/recs" "ctype == 2 and cmd == '8506200000000000000000000000ff00'"
# the sense sg_raw gets is libata's own for a pass-through (ABORTED
# COMMAND on 5.10), not the drive's: only the status byte is compared
ktap_check "ATA PASS-THROUGH: CHECK CONDITION, an error" \
	rec_match "$tmp/recs" "ctype == 2 and cmd[:2] == '85' and rf & 0x202 == 0x202 and st & 0xff == 2"
# libata's error handler takes each through the block layer's timeout
# handler: neither timed out
no_timeout() { ! rec_match "$tmp/recs" 'rf & 0x4'; }
ktap_check "no record says IOTRACE_RF_TIMEOUT" no_timeout
ktap_check "the metrics count no timeout (${timeouts:-none})" \
	test "${timeouts:-x}" = 0
unload_iotrace
rm -rf "$tmp"
ktap_finish
