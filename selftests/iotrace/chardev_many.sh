#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# chardev_many: /dev/iotrace/<disk> for every ring of a host with many
# disks, and iotrace takes nothing from the dynamic misc minors the other
# drivers share (128 in all on 5.10 and 6.1).
#
# 140 null_blk disks (configfs, 1 GiB each, no memory) with iotrace loaded
# (disks=none: devices, no rings).  Oracles: the kernel's /proc/misc and
# /sys/class/misc (no iotrace device in them), devtmpfs (a node per disk,
# mode 0400, its device number that of /sys/class/iotrace), and a driver
# that needs a dynamic misc minor (nvme-fabrics' /dev/nvme-fabrics) still
# loading; then disks removed and added while loaded: their nodes go and
# come, an enabled disk's node reads its ring (ringcheck), and the nodes
# go with the module.
# VM-CHECK: all
# VM-TIMEOUT: 600
# VM-SMP: 2
# VM-MEM: 2048
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3
ktap_header
out=$(mktemp -d)
N=140
DEV=/dev/iotrace

udevadm control --stop-exec-queue 2> /dev/null
modprobe -r nvme_fabrics 2> /dev/null
# their disk names (the configfs names on newer kernels, nullbN on 5.10)
names=()
for i in $(seq 0 $((N - 1))); do
	names+=("$(nullb_create "nbm$i" size=1024 memory_backed=0)")
done
settle
load_iotrace disks=none buf_size=64K
settle

# nodes - how many of the disks have a node in /dev/iotrace
nodes() {
	local x n=0

	for x in "${names[@]}"; do
		[ -c "$DEV/$x" ] && n=$((n + 1))
	done
	echo $n
}
nb=0
for x in "${names[@]}"; do
	[ -e "/sys/block/$x" ] && nb=$((nb + 1))
done
log "$nb null_blk disks, $(nodes) nodes in $DEV"
ktap_check "a node in $DEV for each of the $nb null_blk disks" \
	test "$nb" -ge "$N" -a "$(nodes)" = "$nb"
ktap_check "no iotrace device among the misc devices (/proc/misc, /sys/class/misc)" \
	sh -c "! grep -q iotrace /proc/misc && ! ls /sys/class/misc | grep -q iotrace"
disk=${names[0]}
ktap_check "$DEV/$disk: mode 0400 root, the device number of /sys/class/iotrace/iotrace-$disk" \
	sh -c "test \"\$(stat -c '%a %u %g' $DEV/$disk)\" = '400 0 0' &&
	       test \"\$(stat -c '%t:%T' $DEV/$disk | python3 -c 'import sys; a, b = sys.stdin.read().split(\":\"); print(\"%d:%d\" % (int(a, 16), int(b, 16)))')\" = \"\$(cat /sys/class/iotrace/iotrace-$disk/dev)\""
# a driver that registers a dynamic misc minor (all of them shared)
if modinfo nvme_fabrics > /dev/null 2>&1; then
	modprobe nvme_fabrics 2> "$out/fabrics.err"
	rc=$?
	sed 's/^/# modprobe: /' "$out/fabrics.err"
	dmesg | grep -i 'misc device' | tail -3 | sed 's/^/# dmesg: /'
	ktap_check "nvme-fabrics loads beside it (/dev/nvme-fabrics, a dynamic misc minor)" \
		test $rc -eq 0 -a -c /dev/nvme-fabrics
	modprobe -r nvme_fabrics 2> /dev/null
else
	ktap_skip "no nvme_fabrics module for this kernel"
fi

# ---- disks removed and added while loaded -----------------------------------
nullb_destroy nbm0
nullb_destroy nbm1
settle
ktap_check "two disks removed: their nodes gone ($(nodes) left)" \
	test "$(nodes)" = $((nb - 2)) -a ! -e "$DEV/${names[0]}" -a ! -e "$DEV/${names[1]}"
bd=$(nullb_create nbnew size=64 memory_backed=1 irqmode=0)
settle
ktap_check "a disk added: its node ($bd)" test -c "$DEV/$bd"
"$IOTRACECTL" enable "$bd" > /dev/null 2>&1 ||
	echo 1 > "$IOT/$bd/enable"
dd if=/dev/"$bd" of=/dev/null bs=4k count=64 iflag=direct status=none
"$RINGCHECK" check "$DEV/$bd" > "$out/check" 2>&1
rc=$?
sed 's/^/# ringcheck: /' "$out/check"
present=$(kv "$out/check" present)
ktap_check "its node reads its ring: the 64 reads ($present records present)" \
	test $rc -eq 0 -a "${present:-0}" -ge 64

unload_iotrace
ktap_check "the nodes go with the module" test "$(nodes)" = 0
nullb_destroy nbnew
for i in $(seq 2 $((N - 1))); do
	nullb_destroy "nbm$i"
done
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
