#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debugfs_off: iotrace without debugfs (debugfs=off on the kernel command
# line, as a hardened or a production kernel may have it).
#
# - premise: debugfs is off (no debugfs in /proc/filesystems' mounts, the
#   mount refused);
# - the module loads (it said "no debugfs" instead of refusing);
# - /dev/iotrace/<disk> exists; netlink LIST (iotracectl list) shows the
#   disk; enable, clear, disable work;
# - fio write_iolog oracle: every I/O fio logs is in the ring read through
#   the device (iotracectl show), with its op, sector and length, and
#   nothing else; the LIST totals equal the /sys/block stat delta;
# - rmmod works and the devices go with the module.
# VM-CMDLINE: debugfs=off
# VM-CHECK: all
# (a module option's path: make check-all only, to keep make check
#   within its hour)
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
DEV=/dev/iotrace

ktap_header
out=$(mktemp -d)

mount -t debugfs debugfs "$out" 2> /dev/null && umount "$out" &&
	skip "debugfs can be mounted: debugfs=off is not honoured by this kernel"
ktap_check "premise: debugfs is off (no mount of it)" \
	sh -c "! grep -q ' debugfs ' /proc/mounts"

nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
dmesg -C
insmod "$IOTRACE_KO" disks=none
rc=$?
dmesg | grep iotrace | sed 's/^/# dmesg: /'
ktap_check "insmod without debugfs" test $rc -eq 0
[ $rc -eq 0 ] || { ktap_finish; exit; }
ktap_check "the module said it has no debugfs" \
	sh -c "dmesg | grep -q 'iotrace: no debugfs'"
wait_for "$DEV/$disk" 10
ktap_check "$DEV/$disk exists" test -c "$DEV/$disk"

"$IOTRACECTL" list -o csv > "$out/list0" 2> "$out/list0.err"
rc=$?
sed 's/^/# list: /' "$out/list0" "$out/list0.err" | head -5
ktap_check "iotracectl list (netlink) shows $disk, disabled" \
	sh -c "test $rc -eq 0 && grep -q '^$disk,0,' '$out/list0'"
ktap_check "iotracectl enable $disk" "$IOTRACECTL" enable $disk
ktap_check "iotracectl clear $disk" "$IOTRACECTL" clear $disk

udevadm control --stop-exec-queue 2> /dev/null
before=$(blk_ios $disk)
fio --name=j --filename=/dev/$disk --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
	--number_ios=500 --size=256m --write_iolog="$out/iolog" \
	--output="$out/fio.out" || die "fio failed"
after=$(blk_ios $disk)
ktap_check "iotracectl disable $disk" "$IOTRACECTL" disable $disk

awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' \
	"$out/iolog" | sort > "$out/fio"
"$IOTRACECTL" show -o csv $disk > "$out/show.csv" 2> "$out/show.err"
sed 's/^/# show: /' "$out/show.err" | head -5
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	 { print $col["op"], $col["sector"], $col["bytes"] }' \
	"$out/show.csv" | sort > "$out/ring"
log "fio logged $(wc -l < "$out/fio") I/Os, the ring (through $DEV) holds $(wc -l < "$out/ring")"
ktap_check "fio did I/O" test "$(wc -l < "$out/fio")" -ge 400
ktap_check "the ring (read through $DEV/$disk) holds exactly fio's I/Os" \
	cmp -s "$out/fio" "$out/ring"
"$IOTRACECTL" state $disk > "$out/state"
total=$(kv "$out/state" total_completed)
log "LIST total_completed $total, /sys/block stat delta $((after - before))"
ktap_check "LIST total_completed = /sys/block stat delta" \
	test "${total:-x}" = "$((after - before))"
udevadm control --start-exec-queue 2> /dev/null

ktap_check "rmmod iotrace" rmmod iotrace
ktap_check "$DEV/$disk gone with the module" test ! -e "$DEV/$disk"
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
