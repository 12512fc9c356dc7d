#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault_nvme: nvme-core unloaded and reloaded under load.
#
# FAULT_NVME_LOOPS (default 3, 1 on a debug kernel; make soak: 20) rounds: fio runs on nullb0 (a
# reader validates its ring all along); the NVMe namespace is traced, a
# second reader maps its ring, it has just done I/O, and nvme and nvme-core
# are unloaded and loaded again.  fio runs on the NVMe disk too (unless
# FAULT_NVME_FIO=0): it holds the disk open, so the controller's
# PCI function is removed first (that fio dies with it) and the bus
# rescanned after the reload.  The NVMe ring goes with its disk (the
# mapping stays valid, DETACHED, intact), the command probes leave
# nvme-core, and after the reload the namespace has a new ring that counts
# a dd exactly against /sys/block/<disk>/stat, with the NVMe command
# captured and the probes attached.  nullb0's ring accounts for every
# request fio completed on it.
# VM-DEVICES: nvme
# VM-TIMEOUT: 900
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/fault_lib.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd fio python3
loops=${FAULT_NVME_LOOPS:-$(kdebug_or 3 1)}
# FAULT_NVME_FIO=0: no fio on the NVMe disk (plain unload and reload)
nvme_fio=${FAULT_NVME_FIO:-1}
ns=$(first_disk 'nvme*n1') || skip "no NVMe namespace in the guest"
grep -q '^nvme_core ' /proc/modules || skip "nvme-core is not a module"
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
quiet_disk nullb0
load_iotrace buf_size=64K
wait_for "$IOT/nullb0/ring" 10 || die "no ring for nullb0"
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/nullb0/clear"
b0=$(blk_ios nullb0)
"$RINGCHECK" watch "$IOT/nullb0/ring" "$out/stop" > "$out/watch" &
watcher=$!
fault_fio steady nullb0 0

removed=0 gone=0 held=0 back=0 exact=0 captured=0 unhooked=0
for i in $(seq "$loops"); do
	wait_for "$IOT/$ns/ring" 30 || { log "round $i: no ring for $ns"; break; }
	quiet_disk "$ns"
	"$RINGCHECK" hold "$IOT/$ns/ring" "$out/go.$i" > "$out/hold.$i" &
	holder=$!
	fault_wait_line "$out/hold.$i" '^mapped: 1' 30
	if [ "$nvme_fio" = 1 ]; then
		fio --name=nv$i --filename=/dev/"$ns" --direct=1 \
		    --ioengine=libaio --iodepth=8 --rw=randrw --bs=4k \
		    --size=256m --time_based --runtime=100000 \
		    --cpus_allowed=1 --allow_file_create=0 \
		    --output=/dev/null 2> /dev/null &
		nvfio=$!
		sleep 2
		# fio holds the disk open, so the driver is in use: the
		# controller's PCI function goes first, then the modules.
		pci=$(readlink -f "/sys/class/nvme/${ns%n*}/device")
		echo 1 > "$pci/remove" || log "round $i: cannot remove $pci"
		fault_wait_gone $nvfio 60 ||
			log "round $i: fio on $ns outlived its disk"
		wait $nvfio
		log "round $i: fio on $ns exited with $? after the removal"
	else
		dd if=/dev/"$ns" of=/dev/null bs=4k count=2000 iflag=direct \
			2> /dev/null
	fi
	if modprobe -r nvme && { ! grep -q '^nvme_core ' /proc/modules ||
				  rmmod nvme_core; }; then
		removed=$((removed + 1))
	else
		log "round $i: nvme/nvme-core would not unload"
	fi
	[ -e "$IOT/$ns" ] || gone=$((gone + 1))
	touch "$out/go.$i"
	if wait "$holder" && grep -q '^detached: 1' "$out/hold.$i"; then
		held=$((held + 1))
	else
		sed "s/^/# round $i: reader: /" "$out/hold.$i"
	fi
	grep -q '^cmd_probe nvme_setup_cmd: not attached' "$IOT/status" &&
		unhooked=$((unhooked + 1))
	modprobe nvme || { log "round $i: modprobe nvme failed"; break; }
	[ "$nvme_fio" = 1 ] && echo 1 > /sys/bus/pci/rescan
	udevadm control --start-exec-queue 2> /dev/null
	wait_for /dev/"$ns" 30 && settle
	udevadm control --stop-exec-queue 2> /dev/null
	if ! wait_for "$IOT/$ns/ring" 30; then
		log "round $i: $ns came back without a ring"
		continue
	fi
	if [ ! -b /dev/"$ns" ]; then
		log "round $i: /dev/$ns came back, but not as a block device"
		continue
	fi
	back=$((back + 1))
	quiet_disk "$ns"
	echo 1 > "$IOT/$ns/clear"
	s0=$(blk_ios "$ns")
	dd if=/dev/"$ns" of=/dev/null bs=4k skip=256 count=50 iflag=direct \
		2> "$out/dd.$i"
	s1=$(blk_ios "$ns")
	echo 0 > "$IOT/$ns/enable"
	c=$(iot_stat "$ns" completed)
	if [ "$c" -eq $((s1 - s0)) ] && [ "$c" -ge 50 ]; then
		exact=$((exact + 1))
	else
		log "round $i: $ns counted $c, /sys/block stat $((s1 - s0))"
		sed "s/^/# round $i: dd: /" "$out/dd.$i"
	fi
	cmd_dump "$ns" > "$out/recs.$i"
	rec_match "$out/recs.$i" "ctype == 1 and cmd[:2] == '02'" &&
		grep -q '^cmd_probe nvme_setup_cmd: attached' "$IOT/status" &&
		captured=$((captured + 1))
	echo 1 > "$IOT/$ns/enable"
done
fault_fio_stop
b1=$(blk_ios nullb0)
touch "$out/stop"
wait $watcher
wrc=$?
echo 0 > "$IOT/nullb0/enable"
udevadm control --start-exec-queue 2> /dev/null
ktap_check "nvme and nvme-core removed under fio $loops times ($removed)" \
	test "$removed" -eq "$loops"
ktap_check "the NVMe ring went with its disk ($gone)" test "$gone" -eq "$loops"
ktap_check "a reader's mapping outlived it: intact, DETACHED ($held)" \
	test "$held" -eq "$loops"
ktap_check "the command probes left nvme-core with it ($unhooked)" \
	test "$unhooked" -eq "$loops"
ktap_check "after each reload the namespace has a ring again ($back)" \
	test "$back" -eq "$loops"
ktap_check "that counts a dd exactly against /sys/block stat ($exact)" \
	test "$exact" -eq "$loops"
ktap_check "with the NVMe Read command captured, probes attached ($captured)" \
	test "$captured" -eq "$loops"
fault_steady_checks "$wrc" "$b0" "$b1"
unload_iotrace
ktap_check "module unloads" test ! -e /sys/module/iotrace
ktap_check "no oops, WARN, BUG or corruption report in the kernel log" fault_splat
rm -rf "$out"
ktap_finish
