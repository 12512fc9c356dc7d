#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_nomem: a previous boot's trace the module cannot copy out of the
# region (more than the RAM left beside the memmap= range) fails the load
# and is left in the region as it was, not formatted over.
# Phase 1: a 440 MiB ring of nullb0 in a 448 MiB region (a guest of
# 896 MiB, 448 of them reserved), 10 reads recorded, a reset.
# Phase 2: the region's first 8 MiB (its header, tables and the ring's
# headers and first chunks) are hashed through /dev/mem before and after
# a load with persist=, which fails with ENOMEM saying why; the module
# then loads without persist=.
# VM-REBOOTS: 1
# VM-MEM: 896
# VM-CMDLINE: memmap=448M$0x8000000 nokaslr
# VM-TIMEOUT: 600
# VM-BATCH: no
# VM-CHECK: all
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

vm_phase
RANGE=448M@0x8000000
ADDR=$((0x8000000))
st=$IOTRACE_OUT/persist_nomem
mkdir -p "$st"

# region_hash - sha256 of the region's first 8 MiB, read through /dev/mem
region_hash() {
	python3 - "$ADDR" <<'EOF'
import hashlib, mmap, os, sys
fd = os.open("/dev/mem", os.O_RDONLY | os.O_SYNC)
m = mmap.mmap(fd, 8 << 20, mmap.MAP_SHARED, mmap.PROT_READ,
              offset=int(sys.argv[1]))
print(hashlib.sha256(m[:]).hexdigest())
EOF
}

case "$VM_PHASE" in
1)
	ktap_header 9
	nullb_mod nr_devices=1 submit_queues=1
	quiet_disk nullb0
	load_iotrace persist=$RANGE disks=nullb0 buf_size=440M
	ktap_check "a 440M ring in the 448M region" \
		sh -c "dmesg | grep -q 'iotrace: persist: rings and in-flight tables in'"
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=10 iflag=direct 2> /dev/null
	ktap_check "10 reads in the ring" \
		test "$(iot_stat nullb0 recorded)" -ge 10
	log "RAM: $(grep MemTotal /proc/meminfo)"
	vm_reboot reset
	;;
2)
	nullb_mod nr_devices=1 submit_queues=1
	quiet_disk nullb0
	before=$(region_hash) || die "cannot read the region through /dev/mem"
	log "region before the load: $before"
	dmesg -C
	insmod "$IOTRACE_KO" persist=$RANGE disks=nullb0 buf_size=1M 2> "$st/err"
	rc=$?
	[ $rc = 0 ] && unload_iotrace
	msg=$(dmesg | grep 'iotrace: persist' | head -3)
	log "insmod: rc $rc, $(cat "$st/err"); $msg"
	ktap_check "the load fails (its trace is larger than the RAM)" \
		test $rc != 0
	ktap_check "the log says why and what to do" \
		sh -c "echo \"\$0\" | grep -q 'cannot be copied out of the region (more than the memory available): not loaded, the region left as it is'" "$msg"
	ktap_check "nothing left behind" test ! -e /sys/module/iotrace
	after=$(region_hash)
	log "region after: $after"
	ktap_check "the region is as the previous boot left it" \
		test "$before" = "$after"
	load_iotrace disks=nullb0 buf_size=1M
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=10 iflag=direct 2> /dev/null
	ktap_check "without persist= the module loads and traces (10 reads)" \
		test "$(iot_stat nullb0 recorded)" = 10
	unload_iotrace
	ktap_check "still as it was after a load without persist=" \
		test "$(region_hash)" = "$before"
	ktap_check "no kernel warnings" no_kernel_splat
	;;
*)
	die "phase $VM_PHASE: the test asked for one reboot"
	;;
esac
ktap_finish
