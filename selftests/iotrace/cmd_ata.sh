#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_ata: ATA taskfiles (AHCI + ide-hd, libata) and their status/error.
#
# Oracles: the offsets dd was told to read and write (the taskfile LBA and
# sector count must match them), and for a command the device refuses, the
# ATA status and error registers as libata returns them to sg_raw in the
# ATA Status Return sense descriptor.  The SCSI commands libata answers
# itself without a taskfile (INQUIRY, simulated; opcode 0xc0, refused with
# ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE) get no status: the
# disk is an ATA disk, whose status the ATA probes record.
# VM-DEVICES: ahci
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd sg_raw python3
ktap_header 9

tmp=$(mktemp -d)
load_iotrace
sd=
settle
for d in /sys/block/sd*; do
	[ -e "$d/device/vendor" ] && grep -q '^ATA' "$d/device/vendor" &&
		{ sd=$(basename "$d"); break; }
done
[ -n "$sd" ] || skip "no libata disk in the guest"
lbs=$(cat /sys/block/$sd/queue/logical_block_size)
log "libata disk $sd, logical block size $lbs"
cmd_enable "$sd"
dd if=/dev/$sd of=/dev/null bs=4096 skip=100 count=1 iflag=direct 2> /dev/null ||
	die "dd read failed"
dd if=/dev/zero of=/dev/$sd bs=8192 seek=100 count=1 oflag=direct 2> /dev/null ||
	die "dd write failed"
# ATA PASS-THROUGH(16), non-data, CK_COND, command 0xff: no such command,
# the device aborts it.
sg_raw /dev/$sd 85 06 20 00 00 00 00 00 00 00 00 00 00 00 ff 00 \
	> "$tmp/bad" 2>&1
log "sg_raw ATA 0xff: $(tr '\n' ' ' < "$tmp/bad")"
sg_raw -r 36 /dev/$sd 12 00 00 00 24 00 > "$tmp/inq" 2>&1
log "sg_raw INQUIRY: $(tr '\n' ' ' < "$tmp/inq" | cut -c 1-160)"
sg_raw /dev/$sd c0 00 00 00 00 00 > "$tmp/c0" 2>&1
log "sg_raw 0xc0: $(tr '\n' ' ' < "$tmp/c0")"
# Passthrough queue times: each INQUIRY an sg_raw sends is allocated and
# issued while that process runs, so its queue time is within the
# process's run (its record is the INQUIRY issued in that window; a
# read-only open leaves udev no change event to answer with its own).
# A second apart: a stamp left from the request's earlier use would be
# older than that.  Windows in CLOCK_REALTIME microseconds.
settle	# udev's answers to the writable opens above (scsi_id's INQUIRYs)
: > "$tmp/pt"
for _ in 1 2 3 4 5; do
	sleep 1
	t0=${EPOCHREALTIME/./}
	sg_raw -R -r 36 /dev/$sd 12 00 00 00 24 00 > /dev/null 2>&1
	echo "$t0 ${EPOCHREALTIME/./}" >> "$tmp/pt"
done
timeouts=$(python3 "$IOTRACE_SRC/selftests/iotrace/nlmetrics.py" get "$sd" |
	   sed -n 's/^timeouts: //p')
cmd_disable "$sd"
cmd_dump "$sd" > "$tmp/recs" || die "cannot decode the ring of $sd"
log "$(wc -l < "$tmp/recs") records"
cp "$tmp/recs" "$IOTRACE_OUT/cmd_ata.recs" 2> /dev/null

# ata_io OP SECTOR BLOCKS - a record of a libata READ/WRITE whose taskfile
# LBA is SECTOR and whose sector count is BLOCKS, with the block layer
# agreeing.  Reads: READ DMA (EXT), READ FPDMA QUEUED, READ SECTORS (EXT);
# writes likewise (NCQ keeps the count in the feature registers).
ata_io() {
	rec_match "$tmp/recs" "ctype == 3 and op == $1 and sector == $2 and \
le(c[8:16]) * $lbs // 512 == $2 and \
((c[0] in (0x60, 0x61) and le(c[1:3]) == $3) or \
 (c[0] in (0x25, 0x35, 0x24, 0x34) and le(c[6:8]) == $3) or \
 (c[0] in (0xc8, 0xca, 0x20, 0x30) and c[6] == $3)) and \
c[0] in ((0x60, 0x25, 0xc8, 0x24, 0x20) if $1 == 0 else \
	 (0x61, 0x35, 0xca, 0x34, 0x30))"
}
ktap_check "read at 400 KiB: READ taskfile with LBA 800, 8 sectors" \
	ata_io 0 $((100 * 4096 / 512)) $((4096 / lbs))
ktap_check "write at 800 KiB: WRITE taskfile with LBA 1600, 16 sectors" \
	ata_io 1 $((200 * 4096 / 512)) $((8192 / lbs))

# libata's ATA status return, as sg_raw decodes it: a descriptor
# ("status=0x.. error=0x..") or, in fixed format sense, the information
# field holding ERROR, STATUS, DEVICE, COUNT (SAT).
st=$(grep -o 'status=0x[0-9a-fA-F]*' "$tmp/bad" | head -n 1 | cut -d= -f2)
er=$(grep -o 'error=0x[0-9a-fA-F]*' "$tmp/bad" | head -n 1 | cut -d= -f2)
if [ -z "$st" ]; then
	info=$(grep -o 'Info fld=0x[0-9a-fA-F]*' "$tmp/bad" | head -n 1 | cut -d= -f2)
	if [ -n "$info" ]; then
		st=$(((info >> 16) & 0xff))
		er=$(((info >> 24) & 0xff))
	fi
fi
log "sg_raw says status=$st error=$er"
ktap_check "refused command 0xff: taskfile recorded" \
	rec_match "$tmp/recs" "ctype == 3 and cmd[:2] == 'ff'"
if [ -n "$st" ] && [ -n "$er" ]; then
	ktap_check "refused command 0xff: status/error registers as sg_raw saw them" \
		rec_match "$tmp/recs" "ctype == 3 and cmd[:2] == 'ff' and rf & 0x202 == 0x202 and st == ($st | $er << 8)"
else
	# 6.1's libata puts the registers where sg_raw does not print them
	# (fixed sense, command-specific bytes): fall back to what ACS
	# requires for an unsupported command, ERR in status, ABRT in error.
	ktap_check "refused command 0xff: status ERR and error ABRT (ACS)" \
		rec_match "$tmp/recs" "ctype == 3 and cmd[:2] == 'ff' and rf & 0x202 == 0x202 and st & 0x01 and st & 0x400"
fi

# libata's error handler takes the refused command through the block
# layer's timeout handler (blk_abort_request(), RQF_TIMED_OUT): it did
# not time out, the device answered at once.
ktap_check "refused command 0xff: no IOTRACE_RF_TIMEOUT" \
	rec_match "$tmp/recs" "ctype == 3 and cmd[:2] == 'ff' and not rf & 0x4"
ktap_check "the metrics count no timeout (${timeouts:-none})" \
	test "${timeouts:-x}" = 0
# the INQUIRY records issued in each sg_raw's window (issue_ns at 8,
# CLOCK_MONOTONIC; queue_ns at 32, rflags at 46)
CMD_DUMP_RAW=1 cmd_dump "$sd" > "$tmp/raw"
pt_queue() {
	python3 - "$tmp/raw" "$tmp/pt" <<'EOF_PY'
import struct, sys, time
off = time.time_ns() - time.monotonic_ns()
runs = [tuple(int(x) * 1000 - off for x in l.split())
        for l in open(sys.argv[2])]
seen = [0] * len(runs)
ok = True
for line in open(sys.argv[1]):
    b = bytes.fromhex(line.strip())
    issue, = struct.unpack_from('<Q', b, 8)
    q, = struct.unpack_from('<I', b, 32)
    rf, = struct.unpack_from('<H', b, 46)
    if b[64] != 0x12:
        continue
    for i, (t0, t1) in enumerate(runs):
        if t0 <= issue <= t1:
            seen[i] += 1
            good = not rf & 0x100 or q <= t1 - t0
            print("# run %d: queue %s ns, the process ran %d ns%s" %
                  (i, q if rf & 0x100 else "-", t1 - t0,
                   "" if good else " (!)"))
            ok = ok and good
sys.exit(0 if ok and seen == [1] * len(runs) else 1)
EOF_PY
}
ktap_check "sg_raw's INQUIRYs: each queue time within its process's run" \
	pt_queue
ktap_check "INQUIRY, answered by libata: recorded, no status" \
	rec_match "$tmp/recs" "ctype == 2 and cmd[:2] == '12' and not rf & 0x200"
ktap_check "opcode 0xc0, refused by libata: recorded, no status" \
	rec_match "$tmp/recs" "ctype == 2 and cmd[:2] == 'c0' and not rf & 0x200"
unload_iotrace
rm -rf "$tmp"
ktap_finish
