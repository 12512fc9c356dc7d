#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_nvme_addr: no bus address reaches a controller ring through the
# command-specific fields of an admin command.  nvme-pci's
# nvme_set_host_mem() puts the Host Memory Buffer descriptor list's bus
# address in CDW13-14 of Set Features FID 0x0d; QEMU's controller has no
# Host Memory Buffer, so the command is sent here with admin-passthru and
# chosen dwords (the controller refuses it; it is captured at setup all
# the same): bytes 52-59 must be zero in the record, the other dwords as
# sent, and every controller record has MPTR and DPTR (16-39) zero.
# VM-DEVICES: nvme
# VM-TIMEOUT: 200
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd nvme python3
ktap_header 4

tmp=$(mktemp -d)
load_iotrace
ctrl=$(ls /sys/class/nvme 2> /dev/null | head -n 1)
[ -n "$ctrl" ] || skip "no NVMe controller in the guest"
log "controller $ctrl"
cmd_enable "$ctrl"
# Set Features (0x09), Host Memory Buffer (FID 0x0d), EHM 0 (disable).
# NVME_IOCTL_ADMIN_CMD on the controller opened read-write: 6.12 refuses a
# command that transfers to the device on a read-only open (nvme-cli's).
python3 - /dev/$ctrl > "$tmp/sf.out" 2>&1 <<'PY'
import fcntl, os, struct, sys
NVME_IOCTL_ADMIN_CMD = 0xc0484e41   # _IOWR('N', 0x41, 72 bytes)
cmd = struct.pack('<BBHIIIQQII6III', 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  0x0d, 0, 0x0c0c0c0c, 0xdeadbeef, 0xfeedface, 0x0f0f0f0f,
                  0, 0)
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    print('status', fcntl.ioctl(fd, NVME_IOCTL_ADMIN_CMD, bytearray(cmd)))
except OSError as e:
    print('ioctl:', e)
PY
log "admin Set Features FID 0x0d: $(tr '\n' ' ' < "$tmp/sf.out")"
# Get Features (0x0a), HMB: CDW13-14 are not an address there
nvme admin-passthru /dev/$ctrl --opcode=0x0a --namespace-id=0 \
	--cdw10=0x0d --cdw13=0x0d0d0d0d --cdw14=0x0e0e0e0e > "$tmp/gf.out" 2>&1
cmd_disable "$ctrl"
cmd_dump "$ctrl" > "$tmp/recs" || die "cannot decode the ring of $ctrl"
log "$(wc -l < "$tmp/recs") admin records"
sed 's/^/# /' "$tmp/recs" | grep ' 64 ' | cut -c1-200 | head -5
if grep -q 'Permission denied' "$tmp/sf.out"; then
	# Debian's 6.12 refuses this passthrough command (EACCES) before
	# nvme_setup_cmd: nothing to capture
	ktap_skip "Set Features HMB recorded (the kernel refused to send it)"
	ktap_skip "its CDW13-14 zero (the kernel refused to send it)"
else
	ktap_check "Set Features HMB recorded" \
		rec_match "$tmp/recs" "len(c) == 64 and c[0] == 0x09 and le(c[40:44]) & 0xff == 0x0d"
	ktap_check "its CDW13-14 (bytes 52-59, the descriptor list address) zero" \
		rec_match "$tmp/recs" "len(c) == 64 and c[0] == 0x09 and le(c[40:44]) & 0xff == 0x0d and c[52:60] == bytes(8) and le(c[48:52]) == 0x0c0c0c0c and le(c[60:64]) == 0x0f0f0f0f"
fi
ktap_check "Get Features HMB keeps its CDW13-14 (not an address)" \
	rec_match "$tmp/recs" "len(c) == 64 and c[0] == 0x0a and le(c[52:56]) == 0x0d0d0d0d and le(c[56:60]) == 0x0e0e0e0e"
ktap_check "no controller record with MPTR or DPTR (bytes 16-39) set" \
	sh -c "! python3 -c \"
import sys
for l in open('$tmp/recs'):
    f = l.split()
    c = bytes.fromhex(f[10]) if f[10] != '-' else b''
    if len(c) == 64 and c[16:40] != bytes(24):
        sys.exit(0)
sys.exit(1)\""
unload_iotrace
rm -rf "$tmp"
ktap_finish
