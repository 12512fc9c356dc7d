#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_devmem: persist=SIZE@ADDR refuses a range that a driver claimed
# in /proc/iomem, which the module would zero: a device's resource over
# the memmap= "Reserved" range (as x86 lists the PCI configuration space,
# ECAM, over the firmware's reservation), and a claim inside it (a child
# of "Reserved").  The claims are made by iores_claim.ko (kmod/).  The
# range loads once nothing claims it.
# VM-CMDLINE: memmap=16M$0x10000000 nokaslr
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

RANGE=16M@0x10000000
CLAIM=$IOTRACE_SRC/build/$(uname -r)/testmod/iores_claim.ko
[ -f "$CLAIM" ] || die "no $CLAIM (selftests/vm/build-module)"

# refused DESC - insmod with persist=$RANGE fails, says why, leaves nothing
refused() {
	local rc msg

	dmesg -C
	insmod "$IOTRACE_KO" persist=$RANGE disks=none 2> /dev/null
	rc=$?
	[ $rc = 0 ] && unload_iotrace
	msg=$(dmesg | grep 'iotrace: persist' | head -n 2)
	log "insmod: rc $rc; $msg"
	ktap_check "$1: refused, in the log" \
		sh -c "[ $rc != 0 ] && [ ! -e /sys/module/iotrace ] &&
		       echo \"\$0\" | grep -q 'or a range a driver claimed'" "$msg"
}

# claim START SIZE - iores_claim.ko claims the range; its place in the tree
claim() {
	insmod "$CLAIM" start=$(($1)) size=$(($2)) ||
		die "insmod iores_claim start=$1 size=$2 failed"
	grep -B1 -A1 iores_claim /proc/iomem | sed 's/^/# iomem: /'
}

ktap_header 6
unload_iotrace
grep -E '^ *10000000-10ffffff : Reserved' /proc/iomem > /dev/null ||
	die "no memmap= Reserved range at 0x10000000 in /proc/iomem"
claim 0x10000000 0x1000000
ktap_check "a claim over the range becomes its parent" \
	sh -c "grep -A1 '^10000000-10ffffff : iores_claim' /proc/iomem |
	       grep -q '^  10000000-10ffffff : Reserved'"
refused "a device's resource over the Reserved range"
rmmod iores_claim || die "rmmod iores_claim failed"
claim 0x10400000 0x100000
ktap_check "a claim inside the range becomes its child" \
	sh -c "grep -q '^  10400000-104fffff : iores_claim' /proc/iomem"
refused "a driver's claim inside the Reserved range"
rmmod iores_claim || die "rmmod iores_claim failed"
dmesg -C
insmod "$IOTRACE_KO" persist=$RANGE disks=none
rc=$?
log "$(dmesg | grep 'iotrace: persist' | head -n 2)"
ktap_check "unclaimed, the range loads" \
	sh -c "[ $rc = 0 ] && dmesg | grep -q 'iotrace: persist: rings and in-flight tables in'"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
