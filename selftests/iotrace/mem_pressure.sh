#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mem_pressure: a ring never costs the host its processes, and a disk
# without memory for its ring does not cost the others their tracing.
#
# The guest's memory is taken by a tmpfs file (no swap: it stays) until
# about 160 MiB is available, then:
#
# - iotrace is loaded with disks=all and buf_size=256M, a ring larger than
#   what is left for every disk: the load succeeds, every disk is
#   disabled, the kernel log names each one ("not enabled: -12") and
#   counts them, and the OOM killer was never called (the kernel log has
#   no "invoked oom-killer");
# - with the memory given back, a resize to 1M and an enable work, and a
#   dd's reads are recorded (the ring's count against /sys/block stat);
# - with the memory taken again, a resize of that disk to 512M fails with
#   ENOMEM (netlink's error, said by iotracectl), the disk stays enabled
#   with its 1 MiB ring and its records, and again nothing was killed.
#
# Without the fix the load's first ring (vmalloc_user(), GFP_KERNEL) has
# the OOM killer kill processes for it, and an enable that fails fails
# the whole load.
# VM-CHECK: all
# VM-MEM: 1024
# VM-SMP: 2
# VM-TIMEOUT: 600
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 9
out=$(mktemp -d)
swapoff -a 2> /dev/null
nullb_mod nr_devices=2 gb=1
quiet_disk nullb0
udevadm control --stop-exec-queue 2> /dev/null

# avail - MemAvailable in MiB
avail() {
	awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo
}

# take - fill a tmpfs until about 160 MiB is available; give - free it
mkdir "$out/fill"
mount -t tmpfs -o size=100% none "$out/fill" || die "cannot mount a tmpfs"
take() {
	local n
	n=$(($(avail) - 160))
	[ "$n" -gt 0 ] || return 0
	dd if=/dev/zero of="$out/fill/f" bs=1M count="$n" conv=notrunc \
		oflag=append status=none || log "the fill stopped early"
	log "memory taken: $(avail) MiB available"
}
give() {
	rm -f "$out/fill/f"
}

# oom - the kernel log's OOM killer lines
oom() {
	dmesg | grep -E 'invoked oom-killer|Out of memory|oom-kill:'
}

dmesg -C
take
# every traceable disk: vda or sda, nullb0, nullb1
insmod "$IOTRACE_KO" buf_size=256M
rc=$?
ktap_check "disks=all with rings larger than the memory available loads (insmod exit $rc)" \
	test "$rc" = 0
dmesg | grep 'iotrace' | sed 's/^/# dmesg: /'
n_dis=0 n_all=0
for d in "$IOT"/*/; do
	d=$(basename "$d")
	[ -e "$IOT/$d/enable" ] || continue
	n_all=$((n_all + 1))
	[ "$(cat "$IOT/$d/enable")" = 0 ] && n_dis=$((n_dis + 1))
done
ktap_check "every disk is left disabled ($n_dis of $n_all)" \
	test "$n_all" -ge 2 -a "$n_dis" = "$n_all"
ktap_check "the kernel log names nullb0 and nullb1 and counts $n_all" \
	sh -c "dmesg | grep -q 'iotrace: nullb0: not enabled: -12' &&
	       dmesg | grep -q 'iotrace: nullb1: not enabled: -12' &&
	       dmesg | grep -q 'iotrace: disks=all: $n_all disk(s) not enabled, 0 enabled'"
oom | sed 's/^/# oom: /'
ktap_check "the OOM killer was not called" test -z "$(oom)"

give
"$IOTRACECTL" resize nullb0 1M > "$out/resize1" 2>&1
rc1=$?
echo 1 > "$IOT/nullb0/enable"
s0=$(blk_ios nullb0)
dd if=/dev/nullb0 of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
s1=$(blk_ios nullb0)
c=$(iot_stat nullb0 completed)
ktap_check "memory given back: resize to 1M (exit $rc1) and enable work, the ring counts $c of /sys/block's $((s1 - s0))" \
	test "$rc1" = 0 -a "$c" = $((s1 - s0)) -a "$c" -ge 200
"$IOTRACECTL" show -o csv nullb0 > "$out/before.csv" 2> /dev/null

take
"$IOTRACECTL" resize nullb0 512M > "$out/resize2" 2>&1
rc2=$?
sed 's/^/# resize 512M: /' "$out/resize2"
ktap_check "resize to 512M with the memory taken fails (exit $rc2), saying ENOMEM" \
	sh -c "[ $rc2 != 0 ] && grep -q -i 'cannot allocate memory\|ENOMEM' '$out/resize2'"
"$IOTRACECTL" show -o csv nullb0 > "$out/after.csv" 2> /dev/null
ktap_check "the disk keeps its 1 MiB ring, enabled, with its records ($("$IOTRACECTL" state nullb0 | sed -n "s/^buf_size: //p"), $(wc -l < "$out/after.csv") lines)" \
	sh -c "[ \"\$(cat $IOT/nullb0/enable)\" = 1 ] &&
	       \"$IOTRACECTL\" state nullb0 | grep -q '^buf_size: 1048576\$' &&
	       cmp -s '$out/before.csv' '$out/after.csv' &&
	       [ \$(wc -l < '$out/after.csv') -gt 200 ]"
oom | sed 's/^/# oom: /'
ktap_check "the OOM killer was not called" test -z "$(oom)"
give
umount "$out/fill"
unload_iotrace
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel splat" no_kernel_splat
ktap_finish
