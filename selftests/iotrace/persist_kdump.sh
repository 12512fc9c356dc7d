#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_kdump: the persistent region read out of kdump's /proc/vmcore.
# Phase 1: the region (reserve_mem= where the kernel has it, the memmap=
# range before), a pattern of reads, a capture kernel loaded with
# kexec -p into crashkernel= memory, a panic.  Phase 2, in the capture
# kernel: "iotracectl previous /proc/vmcore" finds the region in the dump's
# memory and gives exactly those reads -- or, where the dump leaves the
# range out (an E820-reserved memmap= range may be), says it found no
# region; which of the two is reported.
# VM-REBOOTS: 1
# VM-MEM: 1024
# VM-CMDLINE: memmap=16M$0x30000000 reserve_mem=16M:4096:iotrace crashkernel=256M nokaslr
# VM-TIMEOUT: 900
# VM-CHECK: all
# VM-BATCH: no
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd kexec
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
. "$IOTRACE_SRC/selftests/vm/kernels.sh"
vm_phase
st=$IOTRACE_OUT/persist_kdump
mkdir -p "$st"
if grep -qw reserve_mem_find_by_name /proc/kallsyms; then
	PERSIST=iotrace
else
	PERSIST=16M@0x30000000
fi

case "$VM_PHASE" in
1)
	ktap_header 4
	quiet_nullb0
	load_iotrace persist=$PERSIST disks=nullb0 buf_size=1M
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=17 skip=300 \
		iflag=direct 2> /dev/null
	ktap_check "17 reads in the ring" \
		test "$("$RINGCHECK" dump "$IOT/nullb0/ring" | wc -l)" = 17
	img=$(kern_image "$(uname -r)") || die "no image of $(uname -r)"
	initrd=$IOTRACE_SRC/build/vm/$(uname -r)/initramfs.gz
	kexec -p "$img" --initrd="$initrd" --append="$(sed 's/crashkernel=[^ ]*//' /proc/cmdline) irqpoll nr_cpus=1 reset_devices" ||
		die "kexec -p failed (crashkernel= reserved: $(cat /sys/kernel/kexec_crash_size))"
	ktap_check "a capture kernel is loaded" \
		test "$(cat /sys/kernel/kexec_crash_loaded)" = 1
	echo "$PERSIST" > "$st/persist"
	vm_reboot panic
	;;
2)
	ktap_check "the capture kernel has /proc/vmcore" test -r /proc/vmcore
	"$IOTRACECTL" previous --rings "$st/v" /proc/vmcore > "$st/v.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$st/v.txt"
	if [ $rc = 0 ]; then
		"$RINGCHECK" dump "$st/v/nullb0.ring" | sort > "$st/got"
		seq 300 316 | while read -r i; do
			echo "read $((i * 8)) 4096"
		done | sort > "$st/want"
		ktap_check "persist=$(cat "$st/persist"): /proc/vmcore holds the region: the 17 reads, exactly" \
			cmp -s "$st/want" "$st/got"
	else
		log "persist=$(cat "$st/persist"): /proc/vmcore leaves the region out"
		ktap_check "persist=$(cat "$st/persist"): no region in /proc/vmcore, said so" \
			grep -q 'no iotrace persistent region in the core' "$st/v.txt"
	fi
	;;
esac
ktap_finish
