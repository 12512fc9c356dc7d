#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_scsi: SCSI CDBs and status/sense in each record.
#
# Oracles: the CDB bytes handed to sg_raw, sg_raw's own decoding of the
# status and sense the device returned, and scsi_debug's documented medium
# error (opts=2: reads of sectors 0x1234.. fail with MEDIUM ERROR,
# UNRECOVERED READ ERROR) and recovered error (opts=8: the data and
# RECOVERED ERROR, which is no error).
# VM-DEVICES: virtio-scsi
# VM-TIMEOUT: 360
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd sg_raw python3
ktap_header 11

tmp=$(mktemp -d)
load_iotrace

# disk_by_model PATTERN - first sd* disk whose SCSI model matches PATTERN.
disk_by_model() {
	local d
	settle
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		grep -q "$1" "$d/device/model" && { basename "$d"; return 0; }
	done
	return 1
}

sd=$(disk_by_model QEMU) || skip "no virtio-scsi disk in the guest"
log "virtio-scsi disk $sd"
cmd_enable "$sd"
sg_raw -R -r 4096 /dev/$sd 28 00 00 00 00 10 00 00 08 00 > "$tmp/r10" 2>&1 ||
	log "sg_raw READ(10): $(cat "$tmp/r10")"
sg_raw -R -r 4096 /dev/$sd 88 00 00 00 00 00 00 00 00 20 00 00 00 08 00 00 \
	> "$tmp/r16" 2>&1 || log "sg_raw READ(16): $(cat "$tmp/r16")"
sg_raw -R /dev/$sd 00 00 00 00 00 00 > "$tmp/tur" 2>&1 ||
	log "sg_raw TEST UNIT READY: $(cat "$tmp/tur")"
# Vendor-specific opcode: the device refuses it with sense data.
sg_raw -R /dev/$sd c7 00 00 00 00 00 > "$tmp/bad" 2>&1
log "sg_raw c7: $(tr '\n' ' ' < "$tmp/bad")"
cmd_disable "$sd"
cmd_dump "$sd" > "$tmp/recs" || die "cannot decode the ring of $sd"
log "$(wc -l < "$tmp/recs") records"

ktap_check "READ(10) CDB recorded byte for byte, GOOD status" \
	rec_match "$tmp/recs" 'ctype == 2 and clen == 10 and cmd == "28000000001000000800" and st == 0 and rf & 0x200'
ktap_check "READ(16) CDB recorded byte for byte" \
	rec_match "$tmp/recs" 'ctype == 2 and clen == 16 and cmd == "88000000000000000020000000080000"'
ktap_check "TEST UNIT READY recorded (6-byte CDB, no data)" \
	rec_match "$tmp/recs" 'ctype == 2 and clen == 6 and cmd == "000000000000" and nbytes == 0'

# sg_raw's decoding of what the device said about opcode 0xc7.
if grep -qi 'Check Condition' "$tmp/bad" && grep -qi 'Illegal Request' "$tmp/bad" &&
   grep -qi 'Invalid command operation code' "$tmp/bad"; then
	# CHECK CONDITION (0x02), ILLEGAL REQUEST (5), ASC 0x20 ASCQ 0.
	ktap_check "refused opcode records CHECK CONDITION, ILLEGAL REQUEST, ASC 0x20" \
		rec_match "$tmp/recs" 'ctype == 2 and cmd[:2] == "c7" and st == 0x200502 and rf & 2'
else
	ktap_fail "sg_raw did not report CHECK CONDITION/ILLEGAL REQUEST for opcode c7"
fi

# scsi_debug with an injected medium error.
modprobe scsi_debug dev_size_mb=8 opts=2 || die "modprobe scsi_debug failed"
dbg=$(disk_by_model scsi_debug) || die "no scsi_debug disk appeared"
log "scsi_debug disk $dbg"
cmd_enable "$dbg"
dd if=/dev/$dbg of=/dev/null bs=512 skip=$((0x1234)) count=1 iflag=direct \
	2> "$tmp/dd" && ktap_fail "read of the injected bad sector succeeded" ||
	ktap_ok "read of the injected bad sector fails ($(tail -n 1 "$tmp/dd"))"
sg_raw -R -r 512 /dev/$dbg 28 00 00 00 12 34 00 00 01 00 > "$tmp/sgmed" 2>&1
log "sg_raw on the bad sector: $(tr '\n' ' ' < "$tmp/sgmed")"
cmd_disable "$dbg"
cmd_dump "$dbg" > "$tmp/recs2" || die "cannot decode the ring of $dbg"
grep -qi 'Medium Error' "$tmp/sgmed" ||
	ktap_fail "sg_raw did not report a medium error (oracle missing)"
# status 0x02, key 3 (MEDIUM ERROR), ASC 0x11, ASCQ 0 -> 0x00110302
ktap_check "block read of the bad sector: CHECK CONDITION, MEDIUM ERROR, ASC 0x11" \
	rec_match "$tmp/recs2" 'ctype == 2 and sector == 4660 and st == 0x110302 and rf & 2'
ktap_check "sg_raw READ(10) of the bad sector: same status and sense" \
	rec_match "$tmp/recs2" 'ctype == 2 and cmd == "28000000123400000100" and st == 0x110302'

# A command the device never answers: scsi_debug opts=4 with every_nth=1
# ignores every command.  SG_IO passthrough is not retried, so the request
# completes from the error handler after its 3 s timeout.  Every command
# is ignored while the device is silent, so nothing else may reach it then.
# Each sg_raw here opens its disk read-only: after a close that could have
# written, udev re-reads the partition table (BLKRRPART), and if that runs
# in the silent window the disk's revalidation waits out READ CAPACITY
# time-outs for minutes, holding the disk's open mutex that sg_raw's close
# needs (seen on 6.1: "task sg_raw blocked for more than 120 seconds" in
# blkdev_put).  udev is also let finish what it had queued.  If the command
# is not back within a minute, what the kernel is doing is shown, and the
# device answers again so that error recovery can end.
sdbg=/sys/bus/pseudo/drivers/scsi_debug
echo 0 > $sdbg/opts || die "cannot reset scsi_debug opts"
cmd_enable "$dbg"
settle
echo 1 > $sdbg/every_nth && echo 4 > $sdbg/opts ||
	die "cannot make scsi_debug ignore commands"
sg_raw -R -t 3 /dev/$dbg 00 00 00 00 00 00 > "$tmp/to" 2>&1 &
topid=$!
tohung=0
if ! wait_gone $topid 60; then
	tohung=1
	host=$(basename "$(readlink -f /sys/block/$dbg/device/../..)")
	log "sg_raw to the silent device still waits after 60 s:" \
	    "device $(cat /sys/block/$dbg/device/state)," \
	    "$host $(cat /sys/class/scsi_host/$host/state 2> /dev/null)," \
	    "in flight $(tr -s " " < /sys/block/$dbg/inflight)"
	log "commands sent $(cat /sys/block/$dbg/device/iorequest_cnt)," \
	    "timed out $(cat /sys/block/$dbg/device/iotmo_cnt)"
fi
echo 0 > $sdbg/opts
echo 0 > $sdbg/every_nth
[ $tohung = 0 ] || wait_gone $topid 120 || kill -KILL $topid
wait $topid
torc=$?
log "sg_raw to the silent device (rc $torc): $(tr '\n' ' ' < "$tmp/to")"
cmd_disable "$dbg"
cmd_dump "$dbg" > "$tmp/recs3" || die "cannot decode the ring of $dbg"
ktap_check "TEST UNIT READY to a silent device: sg_raw reports DID_TIME_OUT" \
	sh -c "[ $tohung = 0 ] && [ $torc -ne 0 ] && grep -q DID_TIME_OUT '$tmp/to'"
ktap_check "its record is flagged TIMEOUT and ERROR" \
	rec_match "$tmp/recs3" 'ctype == 2 and cmd == "000000000000" and rf & 0x6 == 0x6'

# A recovered error: scsi_debug opts=8 with every_nth=1 answers a READ
# with CHECK CONDITION, RECOVERED ERROR, ASC 0x5d (threshold exceeded)
# and its data; the SCSI layer completes the request without error.  The
# record keeps the status and sense, without ERROR.
settle
cmd_enable "$dbg"
echo 1 > $sdbg/every_nth && echo 8 > $sdbg/opts ||
	die "cannot make scsi_debug answer with recovered errors"
dd if=/dev/$dbg of=/dev/null bs=4096 skip=16 count=1 iflag=direct \
	2> "$tmp/ddrec"
rc=$?
echo 0 > $sdbg/opts
echo 0 > $sdbg/every_nth
cmd_disable "$dbg"
cmd_dump "$dbg" > "$tmp/recs4" || die "cannot decode the ring of $dbg"
awk '$3 == 128' "$tmp/recs4" | sed 's/^/# recovered: /'
ktap_check "a read answered with RECOVERED ERROR succeeds (dd rc $rc)" \
	test $rc = 0
ktap_check "its record: CHECK CONDITION, RECOVERED ERROR, ASC 0x5d; no error" \
	rec_match "$tmp/recs4" 'ctype == 2 and sector == 128 and st & 0xffffff == 0x5d0102 and err == 0 and not rf & 2'
unload_iotrace
rmmod scsi_debug 2> /dev/null
rm -rf "$tmp"
ktap_finish
