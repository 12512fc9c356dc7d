#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# control: module parameters, probe attachment, in-flight view.
#
# badparams: an unparsable or out-of-range buf_size, or a bad disks= value,
# fails the load with a kernel log line naming the parameter, the value and
# (for buf_size) the range; nothing stays behind.  Good values load.  A
# refused load never showed iotrace's debugfs directory, a device or its
# netlink family, not even for a moment (loadwatch.py: inotify on debugfs
# and /dev, and nlctrl's notify group, around the insmod); the same watch
# sees all three of a load that succeeds.
#
# idle: with no disk enabled no probe is attached.  Observable independent of
# iotrace's own status file: the function tracer counts calls of iotrace's
# probe functions, which run for every request whenever they are attached
# (enabled or not for that disk).  Zero calls while idle, calls once a disk
# is enabled, zero again after it is disabled.  The same for the command
# probes (iotrace_scsi_cmd_start/done on scsi_mod's tracepoints, reached
# through the module notifier), with reads of a scsi_debug disk: they are
# attached with the first enabled disk of any kind and detached with the
# last.  The status file says whether NVMe status is recorded.
#
# inflight: requests held by null_blk (irqmode=2, 4 s completion latency)
# are listed in <disk>/inflight, oldest first: in fio's submission order
# (its iolog); once they complete the list is empty and every record's
# latency is at least null_blk's configured completion time.
# VM-TIMEOUT: 400
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header

# ---- badparams ---------------------------------------------------
badparams() {
	local out watch rc

	out=$(mktemp -d)
	nullb_mod nr_devices=1
	unload_iotrace
	bad=(buf_size=1k buf_size=63K buf_size=2G buf_size=12Q buf_size=-1
	     buf_size= buf_size=4M5 buf_size=17179869185G
	     buf_size=99999999999999999999 disks=nosuchdisk disks=nullb0,nosuchdisk
	     'disks=a/b' disks=,nullb0 disks=abcdefghijklmnopqrstuvwxyz0123456789
	     buf_size=000000000000000000000000000000004M)
	watch="$IOTRACE_SRC/selftests/iotrace/loadwatch.py"
	: > "$out/seen"
	for p in "${bad[@]}"; do
		dmesg -C
		python3 "$watch" insmod "$IOTRACE_KO" "$p" > "$out/seen.1" \
			2> "$out/err.1"
		rc=$?
		if [ $rc = 125 ]; then
			sed 's/^/# /' "$out/err.1"
			ktap_fail "insmod $p refused (the watch could not be set up)"
			continue
		fi
		if [ $rc = 0 ]; then
			ktap_fail "insmod $p refused"
			rmmod iotrace
			continue
		fi
		sed "s|^|$p: |" "$out/seen.1" >> "$out/seen"
		ktap_ok "insmod $p refused"
		key=${p%%=*}
		val=${p#*=}
		if dmesg | grep -F "iotrace: $key=$val" | grep -q -E 'range|bad|not a size|no traceable'; then
			ktap_ok "log names $key=$val and the reason"
		else
			dmesg | tail -3 | sed 's/^/# dmesg: /'
			ktap_fail "log names $key=$val and the reason"
		fi
	done
	ktap_check "range in the message" sh -c \
		"insmod $IOTRACE_KO buf_size=2G 2>/dev/null; dmesg | grep -q 'out of range 65536..1073741824'"
	ktap_check "nothing left behind" test ! -e /sys/module/iotrace -a ! -e "$IOT"
	# A refused load (here: disks= names a missing disk, refused after
	# every disk was attached) must not have shown a debugfs file, a
	# device or the netlink family even for a moment: one opened then
	# would run the module's code after the failed load freed it.
	sed 's/^/# /' "$out/seen"
	ktap_check "a refused load never showed a file, device or netlink family" \
		test ! -s "$out/seen"
	# The watch itself sees all three of a load that succeeds.
	python3 "$watch" insmod "$IOTRACE_KO" buf_size=64K disks=none \
		> "$out/seen.ok" 2> /dev/null
	sed 's/^/# loaded: /' "$out/seen.ok"
	ktap_check "the watch sees the files, device and family of a load" \
		sh -c "grep -qx 'debugfs iotrace' $out/seen.ok &&
		       grep -qx 'genl new iotrace' $out/seen.ok &&
		       grep -Eqx 'dev iotrace|dev/iotrace nullb0' $out/seen.ok"
	unload_iotrace
	load_iotrace buf_size=64K disks=none
	ktap_check "buf_size=64K disks=none loads, no probe attached" \
		test "$(iot_status probes)" = 0 -a "$(iot_stat nullb0 enabled)" = 0
	unload_iotrace
	load_iotrace buf_size=1m disks=nullb0
	ktap_check "buf_size=1m disks=nullb0 loads, nullb0 enabled" \
		test "$(iot_stat nullb0 enabled)" = 1 -a "$(iot_stat nullb0 buf_size)" = 1048576
	unload_iotrace
	# blanks around the list are not part of it: read back as the names
	load_iotrace 'disks=" nullb0 "'
	ktap_check "disks=\" nullb0 \" reads back as '$(cat /sys/module/iotrace/parameters/disks)', nullb0 enabled" \
		test "$(cat /sys/module/iotrace/parameters/disks)" = nullb0 -a \
		"$(iot_stat nullb0 enabled)" = 1
	unload_iotrace
	rm -rf "$out"
}

# ---- idle --------------------------------------------------------
idle() {
	T=/sys/kernel/debug/tracing
	[ -e $T/set_ftrace_filter ] || T=/sys/kernel/tracing
	if [ ! -e $T/set_ftrace_filter ]; then
		ktap_skip "idle: no function tracer"
		return
	fi
	nullb_mod nr_devices=2 irqmode=0
	load_iotrace disks=none
	if ! grep -q '^iotrace_probe_complete ' $T/available_filter_functions; then
		ktap_skip "idle: iotrace probes are not traceable functions"
		unload_iotrace
		return
	fi
	echo 'iotrace_probe_*' > $T/set_ftrace_filter
	scsi=
	if modprobe scsi_debug dev_size_mb=8 2> /dev/null; then
		settle
		for d in /sys/block/sd*; do
			grep -qs scsi_debug "$d/device/model" && scsi=${d##*/}
		done
	fi
	if [ -n "$scsi" ] &&
	   grep -q '^iotrace_scsi_cmd_start ' $T/available_filter_functions; then
		echo 'iotrace_scsi_cmd_*' >> $T/set_ftrace_filter
	else
		log "no scsi_debug disk: command probes not checked"
		scsi=
	fi
	echo function > $T/current_tracer

	# calls DISK [PATTERN] - iotrace probe calls (those matching PATTERN,
	# default all) seen during 200 reads of DISK.
	calls() {
		echo > $T/trace
		echo 1 > $T/tracing_on
		dd if=/dev/$1 of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
		echo 0 > $T/tracing_on
		grep -c "${2:-iotrace_probe_\|iotrace_scsi_cmd_}" $T/trace
	}
	# cmdp STATE - every cmd_probe line of status says STATE
	cmdp() {
		! grep '^cmd_probe ' "$IOT/status" | grep -v -q ": $1\$"
	}

	ktap_check "status: no probes with disks=none" test "$(iot_status probes)" = 0
	ktap_check "status: no command probe attached" cmdp "not attached"
	ktap_check "status: no NVMe status before a layout is given" \
		grep -qx 'nvme_status: not recorded: no layout given (iotracectl nvme-layout; needs /sys/kernel/btf/nvme_core)' "$IOT/status"
	n=$(calls nullb0)
	ktap_check "no probe call while idle ($n)" test "$n" -eq 0
	if [ -n "$scsi" ]; then
		n=$(calls $scsi)
		ktap_check "no probe call on $scsi while idle ($n)" test "$n" -eq 0
	fi
	echo 1 > "$IOT/nullb1/enable"
	ktap_check "status: probes once a disk is enabled" test "$(iot_status probes)" = 1
	n=$(calls nullb0)
	ktap_check "probes run (for any disk) once attached ($n calls)" test "$n" -ge 400
	ktap_check "the disabled disk records nothing" test "$(iot_stat nullb0 completed)" = 0
	if [ -n "$scsi" ]; then
		grep '^cmd_probe scsi' "$IOT/status" | sed 's/^/# /'
		n=$(calls $scsi iotrace_scsi_cmd_start)
		ktap_check "command probe runs once a disk is enabled ($n calls)" \
			test "$n" -ge 200
	fi
	echo 0 > "$IOT/nullb1/enable"
	n=$(calls nullb0)
	ktap_check "no probe call after the last disk is disabled ($n)" test "$n" -eq 0
	ktap_check "status: no probes" test "$(iot_status probes)" = 0
	ktap_check "status: no command probe attached after disable" \
		cmdp "not attached"
	if [ -n "$scsi" ]; then
		n=$(calls $scsi)
		ktap_check "no probe call on $scsi after disable ($n)" test "$n" -eq 0
	fi
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	unload_iotrace
	[ -n "$scsi" ] && rmmod scsi_debug 2> /dev/null
	return 0
}

# ---- fdpass ------------------------------------------------------
# A control file opened without CAP_SYS_ADMIN (uid 0, the capability out
# of the bounding set: the 0600 mode lets it open) and passed to a process
# that has it changes nothing, as over netlink; one opened with it works.
fdpass() {
	local fp="$IOTRACE_SRC/selftests/iotrace/fdpass.py" got
	local noadm=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin)

	if ! "${noadm[@]}" true 2> /dev/null; then
		ktap_skip "fdpass: setpriv cannot drop CAP_SYS_ADMIN"
		return
	fi
	nullb_mod nr_devices=1 irqmode=0
	load_iotrace disks=none
	got=$(python3 "$fp" "${noadm[@]}" -- "$IOT/nullb0/enable" 1)
	ktap_check "enable opened without CAP_SYS_ADMIN, written with it: $got" \
		test "$got" = EPERM -a "$(iot_stat nullb0 enabled)" = 0
	got=$(python3 "$fp" -- "$IOT/nullb0/enable" 1)
	ktap_check "enable opened and written with CAP_SYS_ADMIN: $got" \
		test "$got" = ok -a "$(iot_stat nullb0 enabled)" = 1
	dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct 2> /dev/null
	got=$(python3 "$fp" "${noadm[@]}" -- "$IOT/nullb0/clear" 1)
	ktap_check "clear opened without CAP_SYS_ADMIN, written with it: $got" \
		test "$got" = EPERM -a "$(iot_stat nullb0 completed)" -ge 8
	got=$(python3 "$fp" -- "$IOT/nullb0/clear" 1)
	ktap_check "clear opened and written with CAP_SYS_ADMIN: $got" \
		test "$got" = ok -a "$(iot_stat nullb0 completed)" = 0
	unload_iotrace
}

# ---- inflight ----------------------------------------------------
inflight() {
	out=$(mktemp -d)
	lat=4000000000
	# No udev probing of a disk this slow: events wait until it is gone.
	udevadm control --stop-exec-queue 2> /dev/null
	rmmod null_blk 2> /dev/null
	modprobe null_blk nr_devices=1 irqmode=2 completion_nsec=$lat \
		submit_queues=1 || die "modprobe null_blk failed"
	disk=nullb0
	quiet_disk $disk
	load_iotrace disks=$disk
	# Four random reads submitted one by one, all held by null_blk.
	fio --name=held --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --rw=randread --bs=4k --size=64m --number_ios=4 --iodepth=4 \
	    --iodepth_batch_submit=1 --write_iolog="$out/iolog" \
	    --output=/dev/null &
	pid=$!
	# Shell builtins only between "4 in flight" and the copy: no fork.
	for i in $(seq 20000); do
		n=0
		while read -r k v; do
			[ "$k" = inflight: ] && n=$v
		done < "$IOT/$disk/stats"
		[ "$n" -ge 4 ] && break
	done
	mapfile -t lines < "$IOT/$disk/inflight"
	printf '%s\n' "${lines[@]}" > "$out/inflight"
	wait $pid
	sed 's/^/# /' "$out/inflight"
	awk '$2 == "read" { print $3 / 512 } $3 == "read" { print $4 / 512 }' \
		"$out/iolog" | tr '\n' ' ' > "$out/order"
	log "fio submission order (sectors): $(cat "$out/order")"
	ktap_check "header line" test "$(head -1 "$out/inflight")" = \
		"ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID"
	ktap_check "stats: 4 in flight ($n)" test "$n" = 4
	ktap_check "inflight lists 4" test "$(wc -l < "$out/inflight")" = 5
	ktap_check "oldest first: fio's submission order" test \
		"$(awk 'NR > 1 { printf "%s ", $4 }' "$out/inflight")" = \
		"$(cat "$out/order")"
	ktap_check "issue times ascending" sh -c \
		"awk 'NR > 1 { print \$1 }' '$out/inflight' | sort -c -n"
	ktap_check "op and size" test \
		"$(awk 'NR > 1 { printf "%s/%s ", $3, $5 }' "$out/inflight")" = \
		"READ/4096 READ/4096 READ/4096 READ/4096 "
	ktap_check "nothing in flight afterwards" test "$(iot_stat $disk inflight)" = 0
	awk -v lat=$lat 'NR > 1 && $4 == "READ" { n++; if ($2 < lat) bad++ }
		END { print n + 0, bad + 0 }' "$IOT/$disk/trace" > "$out/lat"
	log "reads, below configured latency: $(cat "$out/lat")"
	ktap_check "every read's latency >= null_blk completion_nsec" \
		test "$(cat "$out/lat")" = "4 0"
	unload_iotrace
	rmmod null_blk
	udevadm control --start-exec-queue 2> /dev/null
	rm -rf "$out"
}

badparams
idle
fdpass
inflight
ktap_finish
