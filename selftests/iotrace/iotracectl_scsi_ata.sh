#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iotracectl_scsi_ata: "iotracectl show" decodes the commands fio's reads
# and writes became on a SCSI disk (virtio-scsi: READ/WRITE CDBs) and on a
# libata disk (AHCI: ATA taskfiles), with their LBA and length.
#
# Oracles: fio's own I/O log and each disk's logical_block_size.
# VM-DEVICES: virtio-scsi ahci
# VM-CHECK: newest
# VM-TIMEOUT: 400
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 4
out=$(mktemp -d)
load_iotrace
settle
scsi= ata=
for i in $(seq 50); do
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] || continue
		if grep -q '^ATA' "$d/device/vendor"; then
			ata=$(basename "$d")
		else
			scsi=$(basename "$d")
		fi
	done
	[ -n "$scsi" ] && [ -n "$ata" ] && break
	sleep 0.2
done

# check DISK KIND - fio on DISK, then show's decoded commands against the iolog
check() {
	local disk=$1 kind=$2
	if [ -z "$disk" ]; then
		ktap_skip "$kind: no such disk in the guest"
		ktap_skip "$kind: decoded commands"
		return
	fi
	wait_for "$IOT/$disk/enable" 10 || die "iotrace did not pick up $disk"
	local lbs
	lbs=$(cat /sys/block/$disk/queue/logical_block_size)
	echo 2 > "/sys/block/$disk/queue/nomerges"
	echo 1 > "$IOT/$disk/enable"
	echo 1 > "$IOT/$disk/clear"
	fio --name=$kind --filename=/dev/$disk --direct=1 --ioengine=psync \
		--rw=randrw --bssplit=4k/50:16k/50 --number_ios=200 \
		--size=256m --randrepeat=1 --write_iolog="$out/$disk.iolog" \
		--output="$out/$disk.fio" ||
		die "fio failed: $(tail -n 5 "$out/$disk.fio")"
	echo 0 > "$IOT/$disk/enable"
	"$IOTRACECTL" show -o csv $disk > "$out/$disk.csv" ||
		die "show $disk failed"
	"$IOTRACECTL" show $disk | grep -m 3 -E 'READ|WRITE' | sed 's/^/# /'
	python3 - "$out/$disk" "$lbs" "$kind" > "$out/verdict" <<'EOF_PY'
import csv, re, sys
base, lbs, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fio = []
for line in open(base + '.iolog'):
    f = line.split()
    for i in range(len(f) - 2):
        if f[i] in ('read', 'write') and f[i + 1].isdigit():
            fio.append((f[i], int(f[i + 1]) // lbs, int(f[i + 2]) // lbs))
            break
seen = set()
for r in csv.DictReader(open(base + '.csv')):
    c = r['command']
    m = re.search(r'(READ|WRITE)\S*(?: DMA| FPDMA QUEUED| SECTORS| MULTIPLE)?'
                  r'(?: EXT| FUA EXT)? lba=(\d+) (?:len|count)=(\d+)', c)
    if m:
        seen.add((m.group(1).lower(), int(m.group(2)), int(m.group(3))))
bad = [x for x in fio if x not in seen]
print('%s %s: %d decoded READ/WRITE commands' %
      ('ok' if seen else 'FAIL', kind, len(seen)))
print('%s %s: every fio I/O decoded with its LBA and length '
      '(%d of %d not found, e.g. %s)' %
      ('ok' if fio and not bad else 'FAIL', kind, len(bad), len(fio), bad[:3]))
EOF_PY
	ktap_verdict "$out/verdict"
}

log "scsi disk: ${scsi:-none}, libata disk: ${ata:-none}"
check "$scsi" scsi
check "$ata" ata
unload_iotrace
rm -rf "$out"
ktap_finish
