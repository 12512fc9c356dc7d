#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_kaslr: with KASLR on, the next kernel may be placed over the
# region (the kernel's documentation of reserve_mem= warns of it): what the
# next boot's module finds is either the boot before's trace, whole (the
# reads dd did, exactly), or refused in one log line -- never records that
# nobody did.  Three warm resets, each boot writing a known pattern of
# reads (a boot-specific count and offset) before it resets.
# VM-REBOOTS: 3
# VM-MEM: 1024
# VM-CMDLINE: memmap=64M$0x30000000 reserve_mem=64M:4096:iotrace
# VM-TIMEOUT: 900
# VM-CHECK: all
# VM-BATCH: no
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
vm_phase
st=$IOTRACE_OUT/persist_kaslr
mkdir -p "$st"
grep -qw nokaslr /proc/cmdline && die "this test needs KASLR on"
if grep -qw reserve_mem_find_by_name /proc/kallsyms; then
	PERSIST=iotrace
else
	PERSIST=64M@0x30000000
fi
[ "$VM_PHASE" = 1 ] && ktap_header 7

quiet_nullb0
dmesg -C
load_iotrace persist=$PERSIST disks=nullb0 buf_size=1M
msg=$(dmesg | grep 'iotrace: persist' | head -n 1)
echo "$msg" > "$st/msg"
log "phase $VM_PHASE, kernel at $(grep -m1 ' _text$' /proc/kallsyms | cut -d' ' -f1): $msg"
if [ "$VM_PHASE" -gt 1 ]; then
	read -r n skip < "$st/reads"
	if [ -e "$IOT/previous" ]; then
		"$IOTRACECTL" previous --rings "$st/p$VM_PHASE" > "$st/p$VM_PHASE.txt" 2>&1 ||
			die "previous: $(cat "$st/p$VM_PHASE.txt")"
		"$RINGCHECK" dump "$st/p$VM_PHASE/nullb0.ring" | sort > "$st/got"
		for i in $(seq 0 $((n - 1))); do
			echo "read $(((skip + i) * 8)) 4096"
		done | sort > "$st/want"
		ktap_check "boot $VM_PHASE: the boot before's trace, whole: its $n reads exactly" \
			cmp -s "$st/want" "$st/got"
	else
		log "boot $VM_PHASE: the region was refused or lost: $msg"
		ktap_check "boot $VM_PHASE: nothing offered, said in one line" \
			grep -q 'refused\|no previous' "$st/msg"
	fi
fi
if [ "$VM_PHASE" -le 3 ]; then
	n=$((VM_PHASE * 7 + 3))
	skip=$((VM_PHASE * 1000))
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=$n skip=$skip iflag=direct 2> /dev/null
	echo "$n $skip" > "$st/reads"
	ktap_check "boot $VM_PHASE: $n reads in the ring" \
		test "$("$RINGCHECK" dump "$IOT/nullb0/ring" | wc -l)" = "$n"
	vm_reboot reset
fi
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
