#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trigger_dev: the timeout trigger and the device-status trigger on NVMe
# and ATA (issue 21), against oracles iotrace does not write:
#
# timeout: scsi_debug ignores every second command (every_nth=2, opts 4,
#   SDEBUG_OPT_TIMEOUT) with the disk's timeout at 2 s; opts 1
#   (SDEBUG_OPT_NOISE) logs every CDB it receives, so a read whose CDB it
#   received twice is one that timed out and was sent again by the error
#   handler.  With "timeout rate=0": one event per such read, naming its
#   sector, every TIMEOUT record flagged and no other; iotmo_cnt (6.1+)
#   counts as many timeouts.  Without the timeout condition (a 5 s
#   latency threshold only) the same fault fires nothing.  iotracectl list
#   shows the armed triggers (CSV and JSON).
# NVMe device status: an io-passthru of opcode 0x83, which QEMU's
#   controller does not implement: with "devstatus" an event whose
#   dev_status is the status nvme-cli printed, the record of that command
#   flagged; a good passthrough read fires nothing; without "devstatus"
#   the bad command fires nothing.  Needs nvme_core's BTF (the status
#   layout, iotracectl nvme-layout): skipped without.
# ATA device status: ATA PASS-THROUGH(16) of command 0xff on an AHCI disk,
#   which the device aborts: an event whose dev_status holds the status
#   and error registers libata returned to sg_raw (cmd_ata.sh), the record
#   flagged; reads do not fire.
# VM-CHECK: newest
# VM-CHECK: alone
# VM-DEVICES: nvme ahci
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd dd python3
ktap_header 13
out=$(mktemp -d)
RF_TRIGGER=32768
RF_TIMEOUT=4
# shellcheck disable=SC2119
load_iotrace
# the QEMU disks, found before udev's queue stops (a settle would then
# wait for its timeout)
ns=$(first_disk 'nvme*n1')
ata=
for d in /sys/block/sd*; do
	[ -e "$d/device/vendor" ] && grep -q '^ATA' "$d/device/vendor" &&
		{ ata=$(basename "$d"); break; }
done
# no blkid reads of the test disks in the middle of a fault
udevadm control --stop-exec-queue 2> /dev/null

# listen FILE - start an event listener, wait until it listens
listen() {
	events_listen "$1" || { log "listener did not start"; return 1; }
}

# unlisten FILE - stop the listener (after the events had time to come)
unlisten() {
	sleep 1
	kill "$listener" 2> /dev/null
	wait "$listener" 2> /dev/null
	sed 's/^/# event: /' "$1" | head -n 20
}

# field LINE KEY - the value of KEY=VALUE in an event line
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# nrec FILE MASK [CMDHEX] - records of FILE (cmd_dump output) carrying
# every rflags bit of MASK (and whose command starts with CMDHEX)
nrec() {
	local n=0 rf cmd
	# shellcheck disable=SC2034
	while read -r _ _ _ _ _ rf _ _ _ _ cmd; do
		[ $((rf & $2)) -eq $(($2)) ] || continue
		[ -z "${3:-}" ] || [ "${cmd#"$3"}" != "$cmd" ] || continue
		n=$((n + 1))
	done < "$1"
	echo $n
}

# nflagged FILE - records of FILE with IOTRACE_RF_TRIGGER
nflagged() {
	nrec "$1" $RF_TRIGGER
}

# ---- timeout: scsi_debug ------------------------------------------------
sdbg=/sys/bus/pseudo/drivers/scsi_debug
scsi_debug_load 120 dev_size_mb=8

# tmo_faults TAG READS... - every second command ignored, one dd per
# 4 KiB index; dmesg of it in $out/log.TAG, the ring in $out/r.TAG
tmo_faults() {
	local tag=$1 i
	shift
	cmd_enable "$sd"
	dmesg -C
	echo 2 > $sdbg/every_nth
	echo 5 > $sdbg/opts
	for i in "$@"; do
		dd if=/dev/"$sd" of=/dev/null bs=4096 skip="$i" count=1 \
			iflag=direct 2> /dev/null || log "dd at $i failed"
	done
	echo 0 > $sdbg/opts
	echo 0 > $sdbg/every_nth
	dmesg > "$out/log.$tag"
	cmd_dump "$sd" > "$out/r.$tag"
}

# twice LOG READS... - the 512-byte sectors of the reads whose READ(10)
# scsi_debug received more than once (so: timed out, sent again)
twice() {
	python3 - "$@" <<'EOF'
import re, sys
log = open(sys.argv[1], errors='replace').read()
seen = {}
for m in re.finditer(r'scsi_debug: tag=0x[0-9a-f]+, cmd ((?:[0-9a-f]{2} )+)', log):
    b = bytes.fromhex(m.group(1).replace(' ', ''))
    seen[b] = seen.get(b, 0) + 1
for i in sys.argv[2:]:
    i = int(i)
    c = bytes([0x28, 0]) + (i * 8).to_bytes(4, 'big') + bytes([0, 0, 8, 0])
    if seen.get(c, 0) >= 2:
        print(i * 8)
EOF
}

# devcnt NAME - a SCSI device counter in decimal, -1 when absent (< 6.1)
devcnt() {
	local f=/sys/block/$sd/device/$1

	if [ -e "$f" ]; then printf '%d' "$(cat "$f")"; else echo -1; fi
}

if [ -n "$sd" ]; then
	log "scsi_debug disk $sd"
	echo 2 > /sys/block/"$sd"/device/timeout
	# without the timeout condition: nothing
	"$IOTRACECTL" trigger "$sd" read-lat=5s rate=0 ||
		ktap_fail "trigger read-lat=5s"
	listen "$out/ev.notmo"
	tmo_faults notmo 100 200
	unlisten "$out/ev.notmo"
	ntmo=$(nrec "$out/r.notmo" $RF_TIMEOUT)
	ktap_check "no timeout condition: $ntmo timed-out reads, no event, none flagged" \
		test "$ntmo" -ge 1 -a "$(grep -c "^trigger $sd " "$out/ev.notmo")" -eq 0 -a \
		"$(nflagged "$out/r.notmo")" -eq 0

	"$IOTRACECTL" trigger "$sd" timeout rate=0 || ktap_fail "trigger timeout"
	"$IOTRACECTL" state "$sd" | grep '^trigger_' | sed 's/^/# /'
	"$IOTRACECTL" list -o csv > "$out/list.csv"
	"$IOTRACECTL" list -o json > "$out/list.json"
	sed 's/^/# list: /' "$out/list.csv"
	ktap_check "list shows the armed triggers: $sd 'timeout rate=0', $ata none (CSV, JSON)" \
		python3 -c 'import csv, json, sys
c = {r["disk"]: r["triggers"] for r in csv.DictReader(open(sys.argv[1]))}
j = {r["disk"]: r["triggers"] for r in json.load(open(sys.argv[2]))}
assert c[sys.argv[3]] == j[sys.argv[3]] == "timeout rate=0", (c, j)
assert not sys.argv[4] or (c[sys.argv[4]] == "" and j[sys.argv[4]] is None), (c, j)' \
		"$out/list.csv" "$out/list.json" "$sd" "$ata"
	t0=$(devcnt iotmo_cnt)
	listen "$out/ev.tmo"
	tmo_faults tmo 300 400
	unlisten "$out/ev.tmo"
	t1=$(devcnt iotmo_cnt)
	sed 's/^/# ring: /' "$out/r.tmo"
	want=$(twice "$out/log.tmo" 300 400 | sort -n | tr '\n' ' ')
	grep "^trigger $sd " "$out/ev.tmo" > "$out/ev.tmo.sd"
	got=$(for l in $(tr ' ' '\n' < "$out/ev.tmo.sd" | sed -n 's/^sector=//p'); do echo "$l"; done | sort -n | tr '\n' ' ')
	log "reads scsi_debug received twice (sectors): '$want'; events at '$got'"
	ktap_check "timeout: one event per read that timed out ($want)" \
		test -n "$want" -a "$got" = "$want"
	ktap_check "timeout: every event says reason=timeout, op read" \
		test "$(wc -l < "$out/ev.tmo.sd")" -ge 1 -a \
		"$(grep -c ' reason=timeout op=read ' "$out/ev.tmo.sd")" -eq \
		"$(wc -l < "$out/ev.tmo.sd")"
	ntmo=$(nrec "$out/r.tmo" $RF_TIMEOUT)
	ftmo=$(nrec "$out/r.tmo" $((RF_TIMEOUT | RF_TRIGGER)))
	ktap_check "timeout: the TIMEOUT records flagged ($ftmo of $ntmo), no other" \
		test "$ntmo" -ge 1 -a "$ftmo" -eq "$ntmo" -a \
		"$(nflagged "$out/r.tmo")" -eq "$ntmo"
	if [ "$t0" -ge 0 ]; then
		ktap_check "timeout: iotmo_cnt counted as many ($t0 -> $t1)" \
			test $((t1 - t0)) -eq "$(wc -l < "$out/ev.tmo.sd")"
	else
		ktap_skip "timeout: no iotmo_cnt before 6.1"
	fi
	cmd_disable "$sd"
	rmmod scsi_debug 2> /dev/null
else
	for i in 1 2 3 4 5 6; do
		ktap_skip "timeout: no scsi_debug"
	done
fi

# ---- NVMe device status ---------------------------------------------------
if [ -n "$ns" ] && command -v nvme > /dev/null &&
	[ -e /sys/kernel/btf/nvme_core ] &&
	"$IOTRACECTL" nvme-layout > "$out/layout" 2>&1; then
	sed 's/^/# /' "$out/layout"
	lbs=$(cat /sys/block/"$ns"/queue/logical_block_size)
	# bad COUNT - COUNT passthrough commands of opcode 0x83
	bad() {
		local i
		for i in $(seq "$1"); do
			nvme io-passthru /dev/"$ns" --opcode=0x83 --namespace-id=1 \
				--cdw10=0xa5a5a5a5 > "$out/nvme.bad" 2>&1
		done
	}
	cmd_enable "$ns"
	"$IOTRACECTL" trigger "$ns" read-lat=5s rate=0 ||
		ktap_fail "trigger read-lat=5s"
	listen "$out/ev.nvme0"
	bad 1
	unlisten "$out/ev.nvme0"
	cmd_dump "$ns" > "$out/r.nvme0"
	ktap_check "NVMe: no devstatus condition, the bad command fires nothing" \
		test "$(grep -c "^trigger $ns " "$out/ev.nvme0")" -eq 0 -a \
		"$(nflagged "$out/r.nvme0")" -eq 0 -a \
		"$(nrec "$out/r.nvme0" 0 83)" -eq 1

	"$IOTRACECTL" trigger "$ns" devstatus rate=0 || ktap_fail "trigger devstatus"
	cmd_enable "$ns"
	listen "$out/ev.nvme"
	nvme io-passthru /dev/"$ns" --opcode=0x02 --namespace-id=1 --read \
		--data-len="$lbs" --cdw10=8 --raw-binary > /dev/null 2>&1 ||
		log "passthrough read failed"
	dd if=/dev/"$ns" of=/dev/null bs=4096 count=4 iflag=direct 2> /dev/null
	bad 1
	unlisten "$out/ev.nvme"
	cmd_dump "$ns" > "$out/r.nvme"
	sed 's/^/# ring: /' "$out/r.nvme"
	st=$(grep -o '(0x[0-9a-fA-F]*)' "$out/nvme.bad" | tail -n 1 | tr -d '()')
	log "nvme-cli on opcode 0x83: $(tr '\n' ' ' < "$out/nvme.bad")"
	ev=$(grep "^trigger $ns " "$out/ev.nvme")
	ktap_check "NVMe: one event, reason devstatus, dev_status as nvme-cli printed it ($st)" \
		test "$(echo "$ev" | grep -c .)" -eq 1 -a -n "$st" -a \
		"$(field "$ev" reason)" = devstatus -a \
		"$(field "$ev" dev_status)" = "$((st))"
	ktap_check "NVMe: the record of opcode 0x83 flagged, no other" \
		test "$(nflagged "$out/r.nvme")" -eq 1 -a \
		"$(nrec "$out/r.nvme" $RF_TRIGGER 83)" -eq 1
	"$IOTRACECTL" trigger "$ns" off
	cmd_disable "$ns"
else
	for i in 1 2 3; do
		ktap_skip "NVMe devstatus: no namespace, nvme-cli or nvme_core BTF"
	done
fi

# ---- ATA device status ---------------------------------------------------
if [ -n "$ata" ] && command -v sg_raw > /dev/null; then
	log "libata disk $ata"
	cmd_enable "$ata"
	"$IOTRACECTL" trigger "$ata" devstatus rate=0 || ktap_fail "trigger devstatus"
	listen "$out/ev.ata"
	dd if=/dev/"$ata" of=/dev/null bs=4096 count=4 iflag=direct 2> /dev/null
	# ATA PASS-THROUGH(16), non-data, CK_COND, command 0xff
	sg_raw /dev/"$ata" 85 06 20 00 00 00 00 00 00 00 00 00 00 00 ff 00 \
		> "$out/ata.bad" 2>&1
	dd if=/dev/"$ata" of=/dev/null bs=4096 count=4 skip=8 iflag=direct 2> /dev/null
	unlisten "$out/ev.ata"
	cmd_dump "$ata" > "$out/r.ata"
	sed 's/^/# ring: /' "$out/r.ata"
	log "sg_raw ATA 0xff: $(tr '\n' ' ' < "$out/ata.bad")"
	# the status and error registers as sg_raw decodes them (cmd_ata.sh)
	st=$(grep -o 'status=0x[0-9a-fA-F]*' "$out/ata.bad" | head -n 1 | cut -d= -f2)
	er=$(grep -o 'error=0x[0-9a-fA-F]*' "$out/ata.bad" | head -n 1 | cut -d= -f2)
	if [ -z "$st" ]; then
		info=$(grep -o 'Info fld=0x[0-9a-fA-F]*' "$out/ata.bad" | head -n 1 | cut -d= -f2)
		if [ -n "$info" ]; then
			st=$(((info >> 16) & 0xff))
			er=$(((info >> 24) & 0xff))
		fi
	fi
	ev=$(grep "^trigger $ata " "$out/ev.ata")
	ds=$(field "$ev" dev_status)
	log "sg_raw says status=$st error=$er; event dev_status=$ds"
	ktap_check "ATA: one event, reason devstatus" \
		test "$(echo "$ev" | grep -c .)" -eq 1 -a \
		"$(field "$ev" reason)" = devstatus
	if [ -n "$st" ] && [ -n "$er" ]; then
		ktap_check "ATA: dev_status holds the registers sg_raw saw ($st, $er)" \
			test -n "$ds" -a "$ds" = "$((st | er << 8))"
	else
		# ACS for an unsupported command: ERR in status, ABRT in error
		ktap_check "ATA: dev_status says ERR and ABRT ($ds)" \
			test -n "$ds" -a $((ds & 0x01)) -ne 0 -a $((ds & 0x400)) -ne 0
	fi
	ktap_check "ATA: the 0xff taskfile flagged, no read" \
		test "$(nflagged "$out/r.ata")" -eq 1 -a \
		"$(nrec "$out/r.ata" $RF_TRIGGER ff)" -eq 1
	"$IOTRACECTL" trigger "$ata" off
	cmd_disable "$ata"
else
	for i in 1 2 3; do
		ktap_skip "ATA devstatus: no libata disk or sg_raw"
	done
fi

unload_iotrace
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
