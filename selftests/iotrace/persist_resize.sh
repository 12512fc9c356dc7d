#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_resize: a crash in the middle of a resize keeps the ring the disk
# was recording into.  A resize makes its new ring in the region, empty,
# before it puts it in place; the next boot's reader takes a disk's
# newest ring, so that one must not look like a ring until the swap.
# Phase 1: nullb0's ring in the region, 13 reads in it; a resize to 2M
# waits 60 s before its swap (debug_resize_delay_ms, debug builds); the
# guest resets in that wait.
# Phase 2: the previous trace gives nullb0's 13 reads exactly.
# VM-REBOOTS: 1
# VM-CMDLINE: memmap=64M$0x10000000 nokaslr
# VM-TIMEOUT: 600
# VM-BATCH: no
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
vm_phase
st=$IOTRACE_OUT/persist_resize
mkdir -p "$st"
PERSIST=64M@0x10000000

quiet_nullb0
case "$VM_PHASE" in
1)
	ktap_header 5
	load_iotrace persist=$PERSIST disks=nullb0 buf_size=1M
	delay=/sys/module/iotrace/parameters/debug_resize_delay_ms
	[ -w $delay ] || die "no $delay: not a debug build (IOTRACE_DEBUG)"
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=13 skip=100 \
		iflag=direct 2> /dev/null
	"$RINGCHECK" dump "$IOT/nullb0/ring" | sort > "$st/want"
	ktap_check "13 reads in the ring" test "$(wc -l < "$st/want")" = 13
	echo 60000 > $delay
	dmesg -C
	"$IOTRACECTL" resize nullb0 2M > "$st/resize.out" 2>&1 &
	for _ in $(seq 300); do
		dmesg | grep -q 'debug: the resize waits' && break
		sleep 0.1
	done
	log "$(dmesg | grep 'iotrace' | tail -n 2)"
	ktap_check "the resize waits with its new ring made" \
		sh -c "dmesg | grep -q 'nullb0: debug: the resize waits 60000 ms'"
	vm_reboot reset
	;;
2)
	load_iotrace persist=$PERSIST disks=nullb0 buf_size=1M
	"$IOTRACECTL" previous --rings "$st/prev" > "$st/prev.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$st/prev.txt"
	ktap_check "previous reads the region" test $rc = 0
	# nullb0.ring, or nullb0.N.ring for a ring a resize was replacing
	: > "$st/got"
	set -- "$st"/prev/nullb0*.ring
	log "nullb0's rings written: $*"
	[ $# = 1 ] && [ -f "$1" ] && "$RINGCHECK" dump "$1" | sort > "$st/got"
	log "nullb0's previous ring: $(wc -l < "$st/got") records"
	ktap_check "nullb0's previous ring holds the 13 reads, not the resize's empty ring" \
		cmp -s "$st/want" "$st/got"
	echo 1 > "$IOT/previous_release"
	unload_iotrace
	ktap_check "no kernel warnings" no_kernel_splat
	;;
*)
	die "phase $VM_PHASE: the test asked for one reboot"
	;;
esac
ktap_finish
