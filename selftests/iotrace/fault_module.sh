#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault_module: the module loaded and unloaded, rings resized and cleared,
# all under fio.
#
# reload: FAULT_MODULE_LOOPS (default 4, 2 on a debug kernel; make soak: 50) times, iotrace is
# loaded while fio runs on nullb0 and nullb1 (all disks traced), a reader
# maps nullb0's ring and validates it: rmmod is refused while it is mapped
# and succeeds under fio once the reader has gone.  Each round, nullb1's
# ring, quiesced by disabling it, is intact with completed = present +
# overwritten + dropped + filtered, and a dd on the idle nullb2 is counted
# exactly against /sys/block/nullb2/stat.
#
# resize: FAULT_RESIZE_LOOPS (default 6, 2 on a debug kernel; make soak: 50) rounds of a resize
# and a clear (netlink, iotracectl) under two fio jobs, while a reader
# follows the ring (ringcheck follow: maps the new ring after a resize,
# starts again after a clear) and validates every record it copies.  Every
# third round the quiesced ring is intact and its counts consistent, also
# over netlink. Then, from an idle clear, a fixed fio run with two resizes
# in it: the netlink totals equal fio's own count and the /sys/block stat
# delta.
#
# unload race: FAULT_UNLOAD_LOOPS (default 4, 2 on a debug kernel; make
# soak: 50) rounds of rmmod retried in a tight loop while, under two fio
# jobs, two loops each resize one disk's ring over netlink (iotracectl
# resize), clear the other's through debugfs and read its state over
# netlink: rmmod waits for, or is refused by, whatever control operation
# is running and gets in between two; every round unloads, after at least
# one resize, and the storm's operations then fail with a message, not
# an oops.  The resize phase then loads the module again.
# VM-CHECK: all
# (make check-all only: a soak of its kind; lifetime, in the core set,
#   removes traced, mapped disks and unloads the module under a mapping
#   on every kernel in make check)
# VM-TIMEOUT: 1200
# VM-SMP: 2
# VM-ACCEL: single
. "$IOTRACE_SRC/selftests/iotrace/fault_lib.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
loops=${FAULT_MODULE_LOOPS:-$(kdebug_or 4 2)}
rloops=${FAULT_RESIZE_LOOPS:-$(kdebug_or 6 2)}
uloops=${FAULT_UNLOAD_LOOPS:-$(kdebug_or 4 2)}
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=3 submit_queues=2 irqmode=1 gb=1
for d in nullb0 nullb1 nullb2; do
	quiet_disk $d
done
udevadm control --stop-exec-queue 2> /dev/null

# ---- reload --------------------------------------------------------------
fault_fio l0 nullb0 0
fault_fio l1 nullb1 1
loaded=0 refused=0 valid=0 consistent=0 exact=0 unloaded=0
for i in $(seq "$loops"); do
	insmod "$IOTRACE_KO" buf_size=64K || { log "round $i: insmod failed"; continue; }
	loaded=$((loaded + 1))
	wait_for "$IOT/nullb0/ring" 10 && wait_for "$IOT/nullb2/ring" 10 ||
		log "round $i: rings missing"
	"$RINGCHECK" watch "$IOT/nullb0/ring" "$out/stop.$i" > "$out/w.$i" &
	watcher=$!
	fault_wait_line "$out/w.$i" '^mapped: 1' 30 ||
		log "round $i: reader did not map the ring"
	c0=$(iot_stat nullb2 completed)
	s0=$(blk_ios nullb2)
	dd if=/dev/nullb2 of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
	c1=$(iot_stat nullb2 completed)
	s1=$(blk_ios nullb2)
	if [ $((c1 - c0)) -eq $((s1 - s0)) ] && [ $((s1 - s0)) -ge 100 ]; then
		exact=$((exact + 1))
	else
		log "round $i: nullb2 counted $((c1 - c0)), /sys/block stat $((s1 - s0))"
	fi
	if rmmod iotrace 2> /dev/null; then
		log "round $i: rmmod succeeded while the ring was mapped"
		touch "$out/stop.$i"
		wait $watcher
		continue
	fi
	refused=$((refused + 1))
	touch "$out/stop.$i"
	if wait $watcher; then
		valid=$((valid + 1))
	else
		sed "s/^/# round $i: reader: /" "$out/w.$i"
	fi
	echo 0 > "$IOT/nullb1/enable"
	"$RINGCHECK" check "$IOT/nullb1/ring" > "$out/c.$i"
	rc=$?
	c() { kv "$out/c.$i" "$1"; }
	if [ $rc -eq 0 ] && [ "$(c completed)" -eq $(($(c present) + \
		$(c overwritten) + $(c dropped) + $(c filtered))) ] &&
	   [ "$(c completed)" -eq "$(iot_stat nullb1 completed)" ]; then
		consistent=$((consistent + 1))
	else
		sed "s/^/# round $i: nullb1: /" "$out/c.$i"
	fi
	if rmmod iotrace; then
		unloaded=$((unloaded + 1))
	else
		log "round $i: rmmod failed with no reader"
		break
	fi
done
fault_fio_stop
ktap_check "loaded $loops times under fio ($loaded)" test "$loaded" -eq "$loops"
ktap_check "rmmod refused while a reader mapped a ring ($refused)" \
	test "$refused" -eq "$loops"
ktap_check "the reader accepted no invalid record ($valid)" \
	test "$valid" -eq "$loops"
ktap_check "quiesced ring intact, completed = present + overwritten + dropped + filtered ($consistent)" \
	test "$consistent" -eq "$loops"
ktap_check "dd on the idle disk counted exactly against /sys/block stat ($exact)" \
	test "$exact" -eq "$loops"
ktap_check "rmmod succeeded under fio once the reader had gone ($unloaded)" \
	test "$unloaded" -eq "$loops"
ktap_check "fio kept running on both disks ($(fault_fio_ios l0), $(fault_fio_ios l1))" \
	test "$(fault_fio_ios l0)" -gt 0 -a "$(fault_fio_ios l1)" -gt 0

# ---- unload race ---------------------------------------------------------
# control_storm STOP LOG DISK OTHER - resize DISK over netlink, clear
# OTHER through debugfs and read its state over netlink until STOP exists;
# one line in LOG per resize accepted.
control_storm() {
	local i=0 sizes=(64K 128K 256K 32K)

	until [ -e "$1" ]; do
		"$IOTRACECTL" resize "$3" "${sizes[$((i % 4))]}" \
			> /dev/null 2>> "$2.err" && echo resized >> "$2"
		{ echo 1 > "$IOT/$4/clear"; } 2> /dev/null
		"$IOTRACECTL" state "$4" > /dev/null 2>> "$2.err"
		i=$((i + 1))
	done
}

fault_fio u0 nullb0 0
fault_fio u1 nullb1 1
urounds=0 raced=0
for i in $(seq "$uloops"); do
	insmod "$IOTRACE_KO" disks=nullb0,nullb1 buf_size=64K ||
		{ log "round $i: insmod failed"; continue; }
	wait_for "$IOT/nullb1/clear" 10 || log "round $i: nullb1 has no ring"
	control_storm "$out/ustop.$i" "$out/u.$i" nullb0 nullb1 &
	storm=$!
	control_storm "$out/ustop.$i" "$out/v.$i" nullb1 nullb0 &
	storm2=$!
	fault_wait_line "$out/u.$i" resized 30 ||
		log "round $i: no resize accepted in 30 s"
	tries=0
	until rmmod iotrace 2> /dev/null; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ] || break
		sleep 0.05
	done
	touch "$out/ustop.$i"
	wait $storm $storm2
	n=$(cat "$out/u.$i" "$out/v.$i" 2> /dev/null | grep -c resized)
	if [ -e /sys/module/iotrace ]; then
		log "round $i: rmmod still refused after $tries tries"
		sed "s/^/# round $i: storm: /" "$out/u.$i.err" | tail -n 5
		break
	fi
	urounds=$((urounds + 1))
	[ "$n" -gt 0 ] && raced=$((raced + 1))
	log "round $i: unloaded after $tries refusals, $n resizes;" \
	    "the storm's last message: $(tail -n 1 "$out/u.$i.err")"
done
fault_fio_stop
ktap_check "rmmod under a storm of resizes, clears and state reads: unloaded $urounds of $uloops" \
	test "$urounds" -eq "$uloops"
ktap_check "every round resized the ring before the unload ($raced)" \
	test "$raced" -eq "$uloops"
ktap_check "fio kept running on both disks ($(fault_fio_ios u0), $(fault_fio_ios u1))" \
	test "$(fault_fio_ios u0)" -gt 0 -a "$(fault_fio_ios u1)" -gt 0
ktap_check "no oops, WARN, BUG or corruption report after the unloads" fault_splat

# ---- resize --------------------------------------------------------------
disk=nullb0
load_iotrace disks=$disk buf_size=256K
st() { kv "$out/state" "$1"; }
fault_fio r0 $disk 0 --offset=0
fault_fio r1 $disk 1 --offset=256m
"$RINGCHECK" follow "$IOT/$disk/ring" "$out/stop" > "$out/follow" &
follower=$!
fault_wait_line "$out/follow" '^mapped: 1' 30
sizes=(64K 128K 1M 256K 512K)
resized=0 cleared=0 checks=0 good=0
for i in $(seq "$rloops"); do
	"$IOTRACECTL" resize $disk "${sizes[$((i % 5))]}" && resized=$((resized + 1))
	sleep 0.3
	"$IOTRACECTL" clear $disk && cleared=$((cleared + 1))
	sleep 0.3
	[ $((i % 3)) = 0 ] || continue
	checks=$((checks + 1))
	echo 0 > "$IOT/$disk/enable"
	"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
	rc=$?
	"$IOTRACECTL" state $disk > "$out/state"
	c() { kv "$out/check" "$1"; }
	if [ $rc -eq 0 ] && [ "$(c completed)" -eq $(($(c present) + \
		$(c overwritten) + $(c dropped) + $(c filtered))) ] &&
	   [ "$(st total_completed)" -eq $(($(st total_recorded) + \
		$(st total_dropped) + $(st total_filtered))) ] &&
	   [ "$(st buf_size)" -eq "$(iot_stat $disk buf_size)" ]; then
		good=$((good + 1))
	else
		sed "s/^/# round $i: /" "$out/check" "$out/state"
	fi
	echo 1 > "$IOT/$disk/enable"
done
fault_fio_stop
touch "$out/stop"
wait $follower
frc=$?
sed 's/^/# follower: /' "$out/follow"
ktap_check "$rloops resizes and clears under fio accepted ($resized, $cleared)" \
	test "$resized" -eq "$rloops" -a "$cleared" -eq "$rloops"
ktap_check "quiesced ring intact and consistent, also over netlink ($good of $checks)" \
	test "$good" -eq "$checks"
ktap_check "the following reader accepted no invalid record" test $frc -eq 0
ktap_check "and followed resizes and clears" \
	test "$(kv "$out/follow" follow_remaps)" -gt 0 -a \
	"$(kv "$out/follow" follow_generations)" -gt 0

"$IOTRACECTL" clear $disk
before=$(blk_ios $disk)
for cpu in 0 1; do
	fio --name=x$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=8 --rw=randrw --bs=4k --size=256m \
	    --offset=$((cpu * 256))m --io_size=80000k \
	    --cpus_allowed=$cpu --output-format=json \
	    --output="$out/fio.x$cpu" &
	fault_fio_pids+=($!)
done
ok=1
for s in 128K 64K; do
	sleep 1
	"$IOTRACECTL" resize $disk $s || ok=0
done
for p in "${fault_fio_pids[@]}"; do
	wait "$p"
done
fault_fio_pids=()
after=$(blk_ios $disk)
"$IOTRACECTL" state $disk > "$out/state"
sed 's/^/# /' "$out/state"
fios=$(fault_fio_ios x0 x1)
ktap_check "two resizes under a fixed fio run accepted" test $ok = 1
ktap_check "total_completed ($(st total_completed)) = /sys/block stat delta ($((after - before)))" \
	test "$(st total_completed)" -eq $((after - before))
ktap_check "total_completed = fio's own count ($fios)" \
	test "$(st total_completed)" -eq "$fios"
ktap_check "total_completed = total_recorded + total_dropped + total_filtered" \
	test "$(st total_completed)" -eq $(($(st total_recorded) + \
		$(st total_dropped) + $(st total_filtered)))

udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
ktap_check "module unloads" test ! -e /sys/module/iotrace
ktap_check "no oops, WARN, BUG or corruption report in the kernel log" fault_splat
rm -rf "$out"
ktap_finish
