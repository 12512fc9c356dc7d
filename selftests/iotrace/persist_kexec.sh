#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist_kexec: what of the persistent region a kexec reboot keeps.
# Phase 1: the region on the memmap= range (E820 reserved, not System
# RAM: kexec_load's user-space placement leaves it alone), a pattern of
# reads, kexec -l and kexec -e.  Phase 2: that boot's reads, exactly;
# then, where the kernel has reserve_mem= (a region inside System RAM),
# the same with kexec -s (kexec_file_load: the kernel places the
# segments, without regard to memblock reservations).  Phase 3: that
# region's reads exactly, or the region refused in one line (either is
# reported); never records nobody did.
# VM-REBOOTS: 2
# VM-MEM: 1024
# VM-CMDLINE: memmap=64M$0x30000000 reserve_mem=64M:4096:iotrace nokaslr
# VM-TIMEOUT: 900
# VM-CHECK: all
# VM-BATCH: no
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd kexec
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
. "$IOTRACE_SRC/selftests/vm/kernels.sh"
vm_phase
st=$IOTRACE_OUT/persist_kexec
mkdir -p "$st"
RANGE=64M@0x30000000
NEW=
grep -qw reserve_mem_find_by_name /proc/kallsyms && NEW=iotrace
[ "$VM_PHASE" = 1 ] && ktap_header 5

quiet_nullb0

# reads N SKIP - N direct 4 KiB reads from block SKIP on, noted for the
# next phase
reads() {
	dd if=/dev/nullb0 of=/dev/null bs=4096 count="$1" skip="$2" \
		iflag=direct 2> /dev/null
	echo "$1 $2" > "$st/reads"
}

# kexec_to OPTS - load this kernel and initramfs again ("-l", or "-s -l":
# kexec_file_load) and boot it; false (kexec's message logged) if refused
kexec_to() {
	local img initrd=$IOTRACE_SRC/build/vm/$(uname -r)/initramfs.gz

	img=$(kern_image "$(uname -r)") || die "no image of $(uname -r)"
	# shellcheck disable=SC2086
	kexec $1 "$img" --initrd="$initrd" --append="$(cat /proc/cmdline)" \
		> "$st/kexec.err" 2>&1 && vm_reboot kexec
	log "kexec $1 $img: $(tr '\n' ' ' < "$st/kexec.err")"
	return 1
}

# same_reads PERSIST WHAT - the boot before's reads in the offered region,
# exactly (one check); or, with "or-refused", the region refused
same_reads() {
	local n skip
	read -r n skip < "$st/reads"
	dmesg | grep 'iotrace: persist' | head -n 1 > "$st/msg"
	log "$2: $(cat "$st/msg")"
	if [ -e "$IOT/previous" ]; then
		"$IOTRACECTL" previous --rings "$st/p$VM_PHASE" > "$st/p.txt" 2>&1 ||
			die "previous: $(cat "$st/p.txt")"
		"$RINGCHECK" dump "$st/p$VM_PHASE/nullb0.ring" | sort > "$st/got"
		seq 0 $((n - 1)) | while read -r i; do
			echo "read $(((skip + i) * 8)) 4096"
		done | sort > "$st/want"
		ktap_check "$2: the boot before's $n reads, exactly" \
			cmp -s "$st/want" "$st/got"
	elif [ "${3:-}" = or-refused ]; then
		ktap_check "$2: not kept; refused in one line" \
			grep -q 'refused\|no previous' "$st/msg"
	else
		ktap_fail "$2: nothing offered ($(cat "$st/msg"))"
	fi
}

case "$VM_PHASE" in
1)
	load_iotrace persist=$RANGE disks=nullb0 buf_size=1M
	reads 13 500
	ktap_check "13 reads in the ring" \
		test "$("$RINGCHECK" dump "$IOT/nullb0/ring" | wc -l)" = 13
	kexec_to -l || die "kexec -l failed"
	;;
2)
	dmesg -C 2> /dev/null
	load_iotrace persist=$RANGE disks=nullb0 buf_size=1M
	same_reads $RANGE "kexec_load, memmap= range"
	unload_iotrace
	if [ -z "$NEW" ]; then
		ktap_skip "kexec_file_load, reserve_mem= region (no reserve_mem= before 6.11)"
		ktap_skip "its reads"
		ktap_check "no kernel warnings" no_kernel_splat
		ktap_finish
		exit
	fi
	load_iotrace persist=$NEW disks=nullb0 buf_size=1M
	reads 21 900
	ktap_check "21 reads in the reserve_mem= ring" \
		test "$("$RINGCHECK" dump "$IOT/nullb0/ring" | wc -l)" = 21
	if ! kexec_to "-s -l"; then
		# the kernel may refuse kexec_file_load (signature, lockdown)
		ktap_skip "kexec_file_load, reserve_mem= region: kexec -s refused: $(head -c 200 "$st/kexec.err" | tr '\n' ' ')"
		ktap_check "no kernel warnings" no_kernel_splat
		ktap_finish
		exit
	fi
	;;
3)
	load_iotrace persist=$NEW disks=nullb0 buf_size=1M
	same_reads $NEW "kexec_file_load, reserve_mem= region" or-refused
	ktap_check "no kernel warnings" no_kernel_splat
	;;
esac
ktap_finish
