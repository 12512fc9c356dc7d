#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scsi_passthru: SCSI passthrough requests are recorded as drv_in/drv_out
# with the passthrough flag on every kernel, also before 5.14 where the
# block layer calls them REQ_OP_SCSI_IN/REQ_OP_SCSI_OUT (issue 48: 5.10
# recorded them as op unknown), and the metrics count them as
# passthrough.
#
# On a SATA disk (AHCI, libata's SCSI translation): three SG_IO commands
# sent by sg_raw through the disk's bsg node (TEST UNIT READY and
# INQUIRY: no data or data in; a WRITE(10) of one block: data out; the
# bsg node, because opening /dev/sdX makes 6.x's sd revalidate the disk
# and rescan its partitions), then sd's own commands as it revalidates
# the disk (READ CAPACITY, MODE SENSE, ...: a rescan).
# Oracle: the commands sg_raw sent, in number and direction.
# VM-DEVICES: ahci
# VM-TIMEOUT: 600
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd sg_raw python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 7
out=$(mktemp -d)
NLM="python3 $IOTRACE_SRC/selftests/iotrace/nlmetrics.py"
sata=
for i in $(seq 50); do
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] && grep -q '^ATA' "$d/device/vendor" &&
			sata=$(basename "$d")
	done
	[ -n "$sata" ] && break
	sleep 0.2
done
[ -n "$sata" ] || die "no SATA disk"
# the disk's bsg node (not sg: before 5.15 sg's requests name sg's own
# gendisk, so they belong to no disk iotrace traces)
sg=bsg/$(basename "$(readlink -f "/sys/block/$sata/device")")
[ -c "/dev/$sg" ] || skip "no bsg node for $sata (/dev/$sg)"
settle
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace buf_size=1M "disks=$sata"

# records OUT - the ring's records as "OP PASSTHRU COMMAND" lines
records() {
	"$IOTRACECTL" show -o json "$sata" > "$out/show.json" 2> "$out/show.err"
	python3 - "$out/show.json" > "$1" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["op"], 1 if r["rflags"] & 0x10 else 0, r.get("command") or "-")
EOF
	sed 's/^/# /' "$1"
}

echo 1 > "$IOT/$sata/clear"
$NLM reset "$sata" > /dev/null
s0=$(awk '{ print $1, $5 }' "/sys/block/$sata/stat")
head -c 512 /dev/zero > "$out/zero"
sg_raw /dev/$sg 00 00 00 00 00 00 > "$out/tur" 2>&1 || log "TUR: $(cat "$out/tur")"
sg_raw -r 36 /dev/$sg 12 00 00 00 24 00 > "$out/inq" 2>&1 || log "INQUIRY: $(cat "$out/inq")"
sg_raw -s 512 -i "$out/zero" /dev/$sg 2a 00 00 00 00 10 00 00 01 00 \
	> "$out/wr" 2>&1 || log "WRITE(10): $(cat "$out/wr")"
sleep 0.5
s1=$(awk '{ print $1, $5 }' "/sys/block/$sata/stat")
records "$out/sg"
$NLM get "$sata" > "$out/sg.m"
nin=$(awk '$1 == "drv_in" && $2 == 1' "$out/sg" | wc -l)
nout=$(awk '$1 == "drv_out" && $2 == 1' "$out/sg" | wc -l)
nunk=$(awk '$1 == "unknown"' "$out/sg" | wc -l)
ktap_check "sg_raw's TEST UNIT READY and INQUIRY: 2 drv_in passthrough records ($nin)" \
	test "$nin" -eq 2
ktap_check "sg_raw's WRITE(10): 1 drv_out passthrough record ($nout)" \
	test "$nout" -eq 1
ktap_check "no record of op unknown ($nunk), nothing else ($(wc -l < "$out/sg") records)" \
	test "$nunk" -eq 0 -a "$(wc -l < "$out/sg")" -eq 3
ktap_check "the metrics: 3 passthrough requests ($(kv "$out/sg.m" passthrough.requests))" \
	test "$(kv "$out/sg.m" passthrough.requests)" -eq 3
# shellcheck disable=SC2086
set -- $s0 $s1
log "the stat file counted $(($3 - $1)) reads, $(($4 - $2)) writes meanwhile (bsg's requests name no disk)"

# sd's own commands, sent without a disk in the request before 5.15
echo 1 > "$IOT/$sata/clear"
echo 1 > "/sys/block/$sata/device/rescan"
sleep 1
records "$out/sd"
npt=$(awk '$2 == 1' "$out/sd" | wc -l)
nbad=$(awk '($1 == "drv_in" || $1 == "drv_out") != ($2 == 1) || $1 == "unknown"' "$out/sd" | wc -l)
ktap_check "sd's revalidation: passthrough records ($npt)" test "$npt" -gt 0
ktap_check "each is drv_in/drv_out with the passthrough flag, and only they ($nbad not)" \
	test "$nbad" -eq 0
unload_iotrace
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
