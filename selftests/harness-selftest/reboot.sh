#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# reboot: the harness's warm reboots and memory dumps (what the crash
# survival tests stand on).  A random mark is written through /dev/mem
# into RAM that memmap= keeps from the kernel; QEMU's dump of the running
# guest must hold it at that physical address; after a panic (phase 2)
# and after a reset without sync (phase 3) the next boot, another boot id,
# must read the mark of the boot before.
# VM-REBOOTS: 2
# VM-DUMP: yes
# VM-MEM: 1024
# VM-CMDLINE: memmap=1M$0x30000000
# VM-TIMEOUT: 400
# VM-CHECK: all
# (make check-all only: persist_core, a core test, reboots its guest with
#   vm_reboot on every kernel in make check)
# VM-BATCH: no

. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

ADDR=$((0x30000000))
st=$IOTRACE_OUT/reboot-selftest

# mark read|write [HEX] - the 32 bytes at ADDR, through /dev/mem
mark() {
	/usr/bin/python3 - "$ADDR" "$@" <<'EOF'
import mmap
import os
import sys

addr = int(sys.argv[1])
fd = os.open("/dev/mem", os.O_RDWR | os.O_SYNC)
m = mmap.mmap(fd, mmap.PAGESIZE, offset=addr)
if sys.argv[2] == "write":
    m[0:32] = bytes.fromhex(sys.argv[3])
print(m[0:32].hex())
EOF
}

# core_at FILE - the 32 bytes at physical ADDR in the ELF core FILE (its
# PT_LOAD segments' physical addresses)
core_at() {
	/usr/bin/python3 - "$1" "$ADDR" <<'EOF'
import struct
import sys

addr = int(sys.argv[2])
with open(sys.argv[1], "rb") as f:
    eh = f.read(64)
    if eh[:4] != b"\x7fELF" or eh[4] != 2:
        sys.exit("not a 64-bit ELF file")
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        typ, _, off, _, paddr, filesz = struct.unpack("<IIQQQQ", f.read(40))
        if typ == 1 and paddr <= addr and addr + 32 <= paddr + filesz:
            f.seek(off + addr - paddr)
            print(f.read(32).hex())
            sys.exit(0)
sys.exit("no segment holds %#x" % addr)
EOF
}

vm_phase
boot_id=$(cat /proc/sys/kernel/random/boot_id)
case "$VM_PHASE" in
1)
	ktap_header 9
	grep -q 'memmap=1M\$0x30000000' /proc/cmdline || die "no memmap= on the command line"
	m1=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	got=$(mark write "$m1") || die "cannot write /dev/mem at $ADDR"
	ktap_check "the mark is in reserved RAM" test "$got" = "$m1"
	vm_dump phase1
	core=$IOTRACE_OUT/phase1.core
	ktap_check "QEMU's dump is an ELF core of the guest's memory ($(stat -c %s "$core") bytes)" \
		test "$(head -c 4 "$core" | od -An -c | tr -d ' ')" = '177ELF'
	got=$(core_at "$core")
	ktap_check "the dump holds the mark at its physical address" test "$got" = "$m1"
	rm -f "$core"
	echo "$boot_id $m1" > "$st"
	vm_reboot panic
	;;
2)
	read -r id1 m1 < "$st"
	ktap_check "after the panic, another boot ($boot_id)" test "$boot_id" != "$id1"
	ktap_check "the planned panic is in no kernel log of this boot" \
		test "$(dmesg | grep -c 'IOTRACE-VM: planned')" = 0
	got=$(mark read)
	ktap_check "the first boot's mark survived the panic" test "$got" = "$m1"
	m2=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	got=$(mark write "$m2")
	ktap_check "a second mark written" test "$got" = "$m2"
	echo "$boot_id $m2" > "$st"
	vm_reboot reset
	;;
3)
	read -r id2 m2 < "$st"
	ktap_check "after the reset, another boot ($boot_id)" test "$boot_id" != "$id2"
	got=$(mark read)
	ktap_check "the second boot's mark survived the reset" test "$got" = "$m2"
	;;
*)
	die "phase $VM_PHASE: the test asked for two reboots"
	;;
esac
ktap_finish
