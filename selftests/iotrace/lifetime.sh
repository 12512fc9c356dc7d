#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lifetime: disks and readers coming and going.
#
# hotplug: a null_blk disk created (configfs) after the module loaded gets a
# ring and is traced; deleting it while traced, under I/O and while a reader
# holds its mapping: no oops, the debugfs directory goes, the mapping stays
# readable (and marked detached) until the reader closes it.
#
# unload: rmmod while a reader holds a mapping of a ring is refused (the
# mapping keeps the module); it succeeds once the reader is gone.  The ring
# file refuses writable opens and mappings; read() gives the mapped bytes.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header

# ---- hotplug -----------------------------------------------------
hotplug() {
	out=$(mktemp -d)
	nullb_mod nr_devices=0
	load_iotrace
	ls /sys/block > "$out/before"
	nullb_create nullb1 size=256 submit_queues=2 irqmode=1 > /dev/null
	settle
	disk=$(ls /sys/block | comm -13 "$out/before" - | head -1)
	log "new disk: $disk"
	ktap_check "a disk created after load has a ring" wait_for "$IOT/$disk/ring" 10
	ktap_check "and is enabled (disks=all)" test "$(iot_stat $disk enabled)" = 1

	udevadm control --stop-exec-queue 2> /dev/null
	echo 1 > "$IOT/$disk/clear"
	before=$(blk_ios $disk)
	dd if=/dev/$disk of=/dev/null bs=4k count=500 iflag=direct 2> /dev/null
	after=$(blk_ios $disk)
	udevadm control --start-exec-queue 2> /dev/null
	ktap_check "its I/O is recorded exactly ($((after - before)) requests)" \
		test "$(iot_stat $disk completed)" -eq $((after - before))

	"$RINGCHECK" hold "$IOT/$disk/ring" "$out/go" > "$out/hold" &
	holder=$!
	for i in $(seq 50); do
		grep -q '^mapped: 1' "$out/hold" && break
		sleep 0.1
	done
	dd if=/dev/$disk of=/dev/null bs=4k count=1000000 iflag=direct \
		2> /dev/null &
	reader=$!
	sleep 1
	nullb_destroy nullb1
	wait $reader
	ktap_check "debugfs directory removed with the disk" test ! -e "$IOT/$disk"
	ktap_check "module lists no disk" test "$(iot_status disks)" = 0
	ktap_check "no probe left attached" test "$(iot_status probes)" = 0
	touch "$out/go"
	wait $holder
	hrc=$?
	cat "$out/hold"
	ktap_check "mapping still readable and intact after the deletion" test $hrc -eq 0
	ktap_check "ring marked detached" grep -q '^detached: 1' "$out/hold"
	unload_iotrace
	ktap_check "no kernel warnings" no_kernel_splat
	rm -rf "$out"
}

# ---- unload ------------------------------------------------------
unload() {
	out=$(mktemp -d)
	nullb_mod nr_devices=1 irqmode=0
	disk=nullb0
	load_iotrace disks=$disk
	dd if=/dev/$disk of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
	echo 0 > "$IOT/$disk/enable"
	"$RINGCHECK" rdonly "$IOT/$disk/ring"
	ktap_check "ring is read-only; read() equals the mapping" test $? -eq 0

	"$RINGCHECK" hold "$IOT/$disk/ring" "$out/go" > "$out/hold" &
	holder=$!
	for i in $(seq 50); do
		grep -q '^mapped: 1' "$out/hold" && break
		sleep 0.1
	done
	rmmod iotrace 2> "$out/rmmod"
	rc=$?
	cat "$out/rmmod" | sed 's/^/# /'
	ktap_check "rmmod refused while mapped" test $rc -ne 0
	ktap_check "module still loaded" test -d /sys/module/iotrace
	touch "$out/go"
	wait $holder
	ktap_check "mapping intact until closed" test $? -eq 0
	ktap_check "rmmod succeeds after the reader closed" rmmod iotrace
	ktap_check "no kernel warnings" no_kernel_splat
	rm -rf "$out"
}

hotplug
unload
ktap_finish
