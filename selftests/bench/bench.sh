#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench: the cost of tracing on null_blk, measured in one boot under
# QEMU instruction counting (guest time = executed instructions, so IOPS
# measured in the guest are a repeatable inverse of instructions per I/O;
# cache effects are not modelled).
#
# fio 4 KiB random reads, libaio, iodepth 32, 2 jobs on null_blk
# (irqmode=0, 2 submit queues, no scheduler), once per configuration,
# interleaved round-robin for BENCH_ROUNDS rounds:
#   none      iotrace not loaded, nothing traced
#   loaded    iotrace loaded, the disk not enabled
#   metricsonly  iotrace enabled, no ring (resize to 0): slots and metrics
#   nosub     iotrace loaded with submitter=N, enabled (default ring): no
#             block_io_start probe (issue 22's per-feature line)
#   nometrics iotrace loaded with metrics=N, enabled (default ring): no
#             in-kernel metrics (issue 22's per-feature line)
#   lean      iotrace loaded with submitter=N metrics=N, enabled (default
#             ring): the least iotrace does per request
#   enabled   iotrace enabled (default ring)
#   persist   as enabled, with persist= (ring, in-flight copy in memmap=)
#   triggers  as enabled, with every trigger armed on the disk and none
#             firing (issue 21's cost: no more than 10 instructions more)
#   record    iotrace enabled, iotracectl record streaming to tmpfs
#   blktrace  blktrace -b 1024 writing to tmpfs
#   bpftrace  a bpftrace script pairing issue and completion per request,
#             one printf per request, into tmpfs
#   ftrace    block_rq_issue + block_rq_complete events into the ftrace ring
#   floor0..floor6  the floor module (selftests/bench/floor/floor.c,
#             its levels) on iotrace's tracepoints instead of iotrace
# then 16 null_blk disks at once (none16 / enabled16); then the cheapest
# submission path, polled io_uring (BENCH_URING_CONFIGS, runs named
# uring-<config>): null_blk with 2 poll queues, fio io_uring with
# registered files and buffers, --hipri, batched submission and reaping;
# then, with the profiling build, the probes' profile on the guest's
# emulated NVMe namespace, where iotrace also captures every command
# (nvme_setup_cmd) and status (nvme_complete_rq); and the records/s of
# "iotracectl stats" on a large trace file.
#
# Nothing is asserted: the test fails only when a measurement could not be
# taken.  Raw results go to $IOTRACE_OUT/runs/<config>.<round>/ (fio JSON,
# the tools' own loss reports, a meta file of key=value lines, /proc/stat
# and /proc/softirqs before and after the fio run); the host
# side (selftests/bench/run) turns them into the table and JSON.
# Parameters come from $IOTRACE_SRC/build/bench/params.env when present
# (written by selftests/bench/run): BENCH_RUNTIME and BENCH_RAMP (guest
# time per run, fio units), BENCH_ROUNDS, BENCH_CONFIGS, BENCH_MULTI (0
# skips the 16-disk case), BENCH_URING_CONFIGS (configurations of the
# io_uring pass, empty to skip it), BENCH_BPF_SESSION (1: one bpftrace
# process for all its rounds, run after the others), BENCH_STATS_RECORDS,
# BENCH_PROF, BENCH_FIO_OPTS (extra options for every fio run).
# VM-ACCEL: icount
# VM-CPU: max,-cx16
# VM-CMDLINE: sysctl.kernel.hung_task_timeout_secs=0 memmap=64M$0x30000000
# VM-TIMEOUT: 2400
# VM-MEM: 3072
# VM-SMP: 2
# VM-DEVICES: nvme
# No CX16: QEMU 7.2's single-threaded TCG now and then leaves the guest an
# impossible EFLAGS right after a CMPXCHG16B (SLUB's per-CPU fast path);
# without it the kernel takes its fallback (benchmark.rst, "The guest CPU
# of the benchmark").  No hung-task detector: guest time jumps while the
# guest waits for the host (9p under host load), and it fires on slow 9p
# lookups.
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

BENCH_RUNTIME=3
BENCH_RAMP=500ms
BENCH_ROUNDS=3
BENCH_CONFIGS="none loaded nosub nometrics lean enabled persist triggers record blktrace bpftrace ftrace floor0 floor1 floor2 floor3 floor4 floor5 floor6"
BENCH_MULTI=1
BENCH_URING_CONFIGS="none loaded nosub nometrics lean enabled record ftrace floor0 floor1 floor2 floor3 floor4 floor5 floor6"
BENCH_STATS_RECORDS=1000000
BENCH_BPF_SESSION=1
params=$IOTRACE_SRC/build/bench/params.env
# shellcheck disable=SC1090
[ -f "$params" ] && . "$params"

require_cmd fio blktrace bpftrace
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
case " $BENCH_CONFIGS $BENCH_URING_CONFIGS " in
*" floor"[0-6]" "*)
	[ -f "${IOTRACE_FLOOR_KO:-}" ] ||
		die "no floor module (selftests/bench/run builds it: IOTRACE_BUILD_FLOOR=1)" ;;
esac
GEN=$IOTRACE_SRC/tools/build/gen
TR=/sys/kernel/tracing
runs=$IOTRACE_OUT/runs
mkdir -p "$runs"
scratch=/tmp/bench
mkdir -p $scratch
bpf_out=/tmp/bpftrace.out
bpf_pid=
bpf_session=0
# The triggers configuration's: every kind armed, none to fire on null_blk
# in a run (latencies of an hour, no errors, no device status, no timeout
# or requeue, in flight for 10 minutes: one scan when armed, the next
# after 5 minutes of guest time).
TRIGGERS="read-lat=3600s write-lat=3600s flush-lat=3600s discard-lat=3600s other-lat=3600s"
TRIGGERS="$TRIGGERS error devstatus timeout requeues=255 stuck=600s"

# The module measured is the build users run (no IOTRACE_DEBUG assertions),
# when run-test has one; make check's debug build otherwise.
BENCH_KO=${IOTRACE_RELEASE_KO:-$IOTRACE_KO}
log "iotrace module measured: ${BENCH_KO##*/}"
log "kernel $(uname -r), fio runtime $BENCH_RUNTIME x $BENCH_ROUNDS rounds: $BENCH_CONFIGS"
{
	echo "kernel=$(uname -r)"
	echo "runtime=$BENCH_RUNTIME"
	echo "ramp=$BENCH_RAMP"
	echo "bpf_session=$BENCH_BPF_SESSION"
	echo "rounds=$BENCH_ROUNDS"
	echo "configs=$BENCH_CONFIGS"
	echo "uring_configs=$BENCH_URING_CONFIGS"
	echo "module=${BENCH_KO##*/}"
	echo "triggers=$TRIGGERS"
	echo "nproc=$(nproc)"
	echo "fio=$(fio --version)"
	echo "blktrace=$(blktrace -v 2>&1 | head -n1)"
	echo "bpftrace=$(bpftrace --version 2>&1 | head -n1)"
} > "$IOTRACE_OUT/bench.env"

# bench_has CONFIG - true when CONFIG is among BENCH_CONFIGS
bench_has() {
	case " $BENCH_CONFIGS " in *" $1 "*) return 0 ;; esac
	return 1
}

# read_ios DISK... - reads completed on the disks, per /sys/block stat.
read_ios() {
	local d n=0
	for d in "$@"; do
		n=$((n + $(awk '{ print $1 }' "/sys/block/$d/stat")))
	done
	echo $n
}

# The fio engine of the runs: libaio (the main pass), or polled io_uring
# (the uring pass: registered files and buffers, --hipri on null_blk's
# poll queues, up to 8 submitted per call and reaped per poll).
LIBAIO_ENGINE="--ioengine=libaio"
ENGINE=$LIBAIO_ENGINE
URING_ENGINE="--ioengine=io_uring --hipri --fixedbufs --registerfiles"
URING_ENGINE="$URING_ENGINE --iodepth_batch_submit=8 --iodepth_batch_complete_min=1"
URING_ENGINE="$URING_ENGINE --iodepth_batch_complete_max=8"

# run_fio DIR DISK... - the workload; fio's JSON in DIR/fio.json.
run_fio() {
	local dir=$1 files
	shift
	files=$(printf '/dev/%s:' "$@")
	# shellcheck disable=SC2086
	fio --name=bench --filename="${files%:}" --direct=1 $ENGINE \
		--iodepth=32 --numjobs=2 --rw=randread --bs=4k --norandommap \
		--randrepeat=0 --time_based --runtime="$BENCH_RUNTIME" \
		--ramp_time="$BENCH_RAMP" --group_reporting --output-format=json \
		--output="$dir/fio.json" ${BENCH_FIO_OPTS:-} > "$dir/fio.err" 2>&1 ||
		die "fio failed: $(tail -n 5 "$dir/fio.err")"
}

floor_unload() {
	grep -q '^iotrace_floor ' /proc/modules || return 0
	rmmod iotrace_floor || die "rmmod iotrace_floor failed"
}

iot_unload() {
	grep -q '^iotrace ' /proc/modules || return 0
	rmmod iotrace || die "rmmod iotrace failed"
}

iot_load() { # DISKS [SUBMITTER [METRICS]: Y (default) or N [PERSIST]]
	local sub=${2:-Y} met=${3:-Y} per=${4:-} p=/sys/module/iotrace/parameters

	if grep -q '^iotrace ' /proc/modules; then
		[ "$(cat $p/submitter)" = "$sub" ] &&
			[ "$(cat $p/metrics 2> /dev/null)" = "$met" ] &&
			[ "$(cat $p/persist 2> /dev/null)" = "$per" ] &&
			return 0
		iot_unload
	fi
	insmod "$BENCH_KO" disks="$1" submitter="$sub" metrics="$met" \
		${per:+persist=$per} ||
		die "insmod $BENCH_KO disks=$1 submitter=$sub metrics=$met ${per:+persist=$per} failed"
	# a module without a parameter ignores it: nosub would measure Y
	[ "$(cat $p/submitter 2> /dev/null)" = "$sub" ] &&
		[ "$(cat $p/metrics 2> /dev/null)" = "$met" ] ||
		die "$BENCH_KO has no submitter or metrics parameter (an older build?)"
}

# nvme_layout - give the module nvme_core's status layout (from BTF), so
# that NVMe records carry their status as well as their command; said in
# the log when the kernel has no BTF for nvme_core.
nvme_layout() {
	"$IOTRACECTL" nvme-layout --quiet ||
		log "iotracectl nvme-layout failed: NVMe records without status"
}

# triggers_arm on|off DISK... - arm $TRIGGERS on the disks, or disarm them
# (arming starts the trigger counters again).
triggers_arm() {
	local how=$1 d
	shift
	for d in "$@"; do
		if [ "$how" = on ]; then
			# shellcheck disable=SC2086
			"$IOTRACECTL" trigger "$d" $TRIGGERS
		else
			"$IOTRACECTL" trigger "$d" off
		fi || die "iotracectl trigger $d $how failed"
	done
}

# trigger_hits DISK... - completions that fired a trigger since armed, summed
trigger_hits() {
	local d n=0 h
	for d in "$@"; do
		h=$("$IOTRACECTL" state "$d" | sed -n 's/^trigger_hits: //p')
		n=$((n + ${h:-0}))
	done
	echo $n
}

# ring_record_size DISK - record_size from the ring header (offset 12).
ring_record_size() {
	od -An -t u4 -j 12 -N 4 "$IOT/$1/ring" | tr -d ' '
}

# iot_meta DISK... - iotrace counters summed over the disks, as meta lines.
iot_meta() {
	local d rec=0 ow=0 dr=0 comp=0 present=0
	for d in "$@"; do
		rec=$((rec + $(iot_stat "$d" recorded)))
		ow=$((ow + $(iot_stat "$d" overwritten)))
		dr=$((dr + $(iot_stat "$d" dropped)))
		comp=$((comp + $(iot_stat "$d" completed)))
		present=$((present + $(iot_stat "$d" present)))
	done
	echo "iot_recorded=$rec"
	echo "iot_overwritten=$ow"
	echo "iot_dropped=$dr"
	echo "iot_completed=$comp"
	echo "iot_present=$present"
	echo "lost=$((ow + dr))"
	echo "record_size=$(ring_record_size "$1")"
	echo "ring_size=$(iot_stat "$1" ring_size)"
	# ABI 2.0: a pool of nr_chunks x chunk_records; 1.x: parts
	if [ -n "$(iot_stat "$1" nr_chunks)" ]; then
		echo "ring_records=$(( $(iot_stat "$1" chunk_records) * $(iot_stat "$1" nr_chunks) ))"
	else
		echo "ring_records=$(( $(iot_stat "$1" part_records) * $(iot_stat "$1" nr_parts) ))"
	fi
}

BPF_PROG='
BEGIN { printf("ready\n"); }
tracepoint:block:block_rq_issue /args->dev == $1/ {
	@start[args->sector] = nsecs;
}
tracepoint:block:block_rq_complete /args->dev == $1 && @start[args->sector]/ {
	printf("%llu %u %llu\n", args->sector, args->nr_sector,
	       nsecs - @start[args->sector]);
	delete(@start[args->sector]);
}
END { clear(@start); }
'

# one_run CONFIG ROUND DISK... - set up CONFIG, run fio, tear down, record.
one_run() {
	local cfg=$1 round=$2 dir pid before after t0 t1 d devt
	shift 2
	dir=$runs/$PASS$cfg.$round
	mkdir -p "$dir"
	rm -rf "${scratch:?}"/*
	case "$cfg" in
	none | none16 | blktrace | bpftrace | ftrace | floor?) iot_unload ;;
	esac
	floor_unload
	case "$cfg" in
	loaded)
		iot_load none
		for d in "$@"; do echo 0 > "$IOT/$d/enable"; done ;;
	enabled | persist | triggers | record | enabled16 | metricsonly | nosub | nometrics | lean)
		case "$cfg" in
		persist) iot_load none Y Y 64M@0x30000000 ;;
		nosub) iot_load none N ;;
		nometrics) iot_load none Y N ;;
		lean) iot_load none N N ;;
		*) iot_load none ;;
		esac
		for d in "$@"; do
			echo 0 > "$IOT/$d/enable"
			[ "$cfg" = metricsonly ] &&
				{ "$IOTRACECTL" resize "$d" 0 ||
				  die "resize $d 0 failed"; }
			echo 1 > "$IOT/$d/clear"
			echo 1 > "$IOT/$d/enable"
		done
		[ "$cfg" = triggers ] && triggers_arm on "$@" ;;
	floor?)
		insmod "$IOTRACE_FLOOR_KO" level="${cfg#floor}" ||
			die "insmod $IOTRACE_FLOOR_KO level=${cfg#floor} failed" ;;
	esac
	before=$(read_ios "$@")
	case "$cfg" in
	record)
		"$IOTRACECTL" record "$@" -o $scratch/rec.trace \
			2> "$dir/record.err" &
		pid=$!
		sleep 1 ;;
	blktrace)
		mkdir -p $scratch/bt
		blktrace -d "/dev/$1" -b 1024 -D $scratch/bt -o bt \
			> "$dir/blktrace.out" 2>&1 &
		pid=$!
		sleep 2 ;;
	bpftrace)
		if [ -n "$bpf_pid" ]; then
			# one bpftrace for all rounds: starting it costs far
			# more than a run (LLVM under TCG)
			pid=$bpf_pid
			bpf_off=$(stat -c %s $bpf_out)
		else
		devt=$(( $(stat -c '%t' -L "/dev/$1" | sed 's/^/0x/') << 20 |
			 $(stat -c '%T' -L "/dev/$1" | sed 's/^/0x/') ))
		# line-buffered output, as to a terminal or a pipe read live
		t0=$(date +%s.%N)
		bpftrace -B line -e "$BPF_PROG" "$devt" > $bpf_out \
			2> "$runs/bpftrace.err" &
		pid=$!
		for _ in $(seq 600); do
			grep -q ready $bpf_out 2> /dev/null && break
			kill -0 $pid 2> /dev/null ||
				die "bpftrace exited: $(tail -n 5 "$runs/bpftrace.err")"
			sleep 1
		done
		grep -q ready $bpf_out || die "bpftrace never attached"
		log "bpftrace attached after $(echo "$(date +%s.%N) - $t0" | bc) guest s"
		[ "$bpf_session" = 1 ] && bpf_pid=$pid
		bpf_off=$(stat -c %s $bpf_out)
		fi
		;;
	ftrace)
		echo 0 > $TR/tracing_on
		echo 4096 > $TR/buffer_size_kb
		echo 1 > $TR/events/block/block_rq_issue/enable
		echo 1 > $TR/events/block/block_rq_complete/enable
		echo > $TR/trace
		echo 1 > $TR/tracing_on ;;
	esac
	# the guest's CPU time by state and its interrupts around the run,
	# to tell what else ran (Documentation/benchmark.rst, 7.3's baseline)
	cat /proc/stat /proc/softirqs > "$dir/stat.before"
	t0=$(date +%s.%N)
	run_fio "$dir" "$@"
	t1=$(date +%s.%N)
	cat /proc/stat /proc/softirqs > "$dir/stat.after"
	case "$cfg" in
	record | blktrace)
		kill -INT $pid
		wait $pid ;;
	bpftrace)
		sleep 1	# let bpftrace drain its buffers and report losses
		if [ -z "$bpf_pid" ]; then
			kill -INT $pid
			wait $pid
		fi ;;
	ftrace)
		echo 0 > $TR/tracing_on ;;
	esac
	after=$(read_ios "$@")
	{
		echo "config=$PASS$cfg"
		echo "round=$round"
		echo "disks=$#"
		echo "requests=$((after - before))"
		echo "fio_start=$t0"
		echo "fio_end=$t1"
		case "$cfg" in
		loaded) echo "probes=$(iot_status probes)" ;;
		floor?) echo "floor_level=$(cat /sys/module/iotrace_floor/parameters/level)" ;;
		enabled | persist | enabled16 | nosub | nometrics | lean) iot_meta "$@" ;;
		triggers)
			iot_meta "$@"
			echo "trigger_hits=$(trigger_hits "$@")" ;;
		record)
			iot_meta "$@" | grep -v '^lost='
			echo "file_bytes=$(stat -c %s $scratch/rec.trace)"
			# "N records written, L lost (...), D dropped by the kernel"
			sed -n 's/.*: \([0-9]*\) records written, \([0-9]*\) lost .*, \([0-9]*\) dropped by the kernel.*/rec_written=\1\nrec_lost=\2\nrec_kdropped=\3/p' \
				"$dir/record.err" | head -n 3
			;;
		blktrace)
			echo "file_bytes=$(du -sb $scratch/bt | cut -f1)"
			echo "bt_dropped=$(sed -n 's/.*(dropped \([0-9]*\)).*/\1/p' "$dir/blktrace.out" | tail -n 1)"
			;;
		bpftrace)
			tail -c +$((bpf_off + 1)) $bpf_out > $scratch/bpf.run
			echo "file_bytes=$(stat -c %s $scratch/bpf.run)"
			echo "bpf_lines=$(grep -c -v -e ready -e '^$' -e Lost $scratch/bpf.run)"
			echo "bpf_lost=$(sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' $scratch/bpf.run |
				awk '{ n += $1 } END { print n + 0 }')"
			grep -i lost $scratch/bpf.run > "$dir/bpf.lost" ;;
		ftrace)
			local c b=0 e=0 o=0
			for c in "$TR"/per_cpu/cpu*; do
				cat "$c/stats" > "$dir/$(basename "$c").stats"
				b=$((b + $(sed -n 's/^bytes: //p' "$c/stats")))
				e=$((e + $(sed -n 's/^entries: //p' "$c/stats")))
				o=$((o + $(sed -n 's/^overrun: //p' "$c/stats")))
			done
			echo "ft_bytes=$b"
			echo "ft_entries=$e"
			echo "ft_overrun=$o"
			echo "lost=$o"
			;;
		esac
	} > "$dir/meta"
	case "$cfg" in
	enabled | triggers | record | enabled16 | metricsonly | nosub | nometrics | lean)
		[ "$cfg" = triggers ] && triggers_arm off "$@"
		for d in "$@"; do
			echo 0 > "$IOT/$d/enable"
			[ "$cfg" = metricsonly ] &&
				"$IOTRACECTL" resize "$d" "$(iot_status buf_size)"
		done ;;
	ftrace)
		echo 0 > $TR/events/block/block_rq_issue/enable
		echo 0 > $TR/events/block/block_rq_complete/enable
		echo > $TR/trace
		echo 1408 > $TR/buffer_size_kb
		echo 1 > $TR/tracing_on ;;
	floor?) floor_unload ;;
	esac
	rm -rf "${scratch:?}"/*
	log "$PASS$cfg round $round: $(sed -n 's/.*"iops" : \([0-9.]*\).*/\1/p' "$dir/fio.json" | head -n 1) IOPS"
}

udevadm control --stop-exec-queue 2> /dev/null
PASS=
iot_unload
nullb_mod nr_devices=1 irqmode=0 submit_queues=2
disk=nullb0
quiet_disk $disk
main_configs=$BENCH_CONFIGS
bpf_after=0
if [ "$BENCH_BPF_SESSION" = 1 ] && bench_has bpftrace; then
	main_configs=$(echo " $BENCH_CONFIGS " | sed 's/ bpftrace / /')
	bpf_after=1
fi
for r in $(seq "$BENCH_ROUNDS"); do
	for c in $main_configs; do
		one_run "$c" "$r" $disk
	done
done
if [ "$bpf_after" = 1 ]; then
	# bpftrace's rounds in one bpftrace process, after the others
	bpf_session=1
	for r in $(seq "$BENCH_ROUNDS"); do
		one_run bpftrace "$r" $disk
	done
	kill -INT "$bpf_pid"
	wait "$bpf_pid"
	bpf_pid=
	bpf_session=0
fi
iot_unload

# The instructions per probe and part (module/prof.c), from the profiling
# build when make bench made one: whole probes (prof_parts=0), then parts
# (prof.0.txt, prof.1.txt); with the triggers configuration, the same with
# its triggers armed (prof-triggers.0.txt, prof-triggers.1.txt); with the
# nometrics one, the same loaded metrics=N (prof-nometrics.*.txt).
have_prof() {
	[ "${BENCH_PROF:-1}" = 1 ] && [ -n "${IOTRACE_PROF_KO:-}" ] &&
		[ -f "$IOTRACE_PROF_KO" ]
}

# prof_load DISK [PARAM...] - the profiling build loaded (PARAMs for
# insmod), DISK cleared and enabled; prof_unload DISK - and gone again.
prof_load() {
	local d=$1
	shift
	insmod "$IOTRACE_PROF_KO" disks=none "$@" ||
		die "insmod $IOTRACE_PROF_KO $* failed"
	echo 1 > "$IOT/$d/clear"
	echo 1 > "$IOT/$d/enable"
}

prof_unload() {
	echo 0 > "$IOT/$1/enable"
	iot_unload
}

# prof_run NAME DISK - the profile of fio on DISK (the profiling build
# loaded, the disk enabled) into $IOTRACE_OUT/NAME.0.txt and NAME.1.txt.
prof_run() {
	local p=$1 d=$2 parts
	for parts in 0 1; do
		mkdir -p "$runs/$p.$parts"
		echo "$parts" > /sys/module/iotrace/parameters/prof_parts
		echo 1 > "$IOT/prof"
		run_fio "$runs/$p.$parts" "$d"
		cat "$IOT/prof" > "$IOTRACE_OUT/$p.$parts.txt"
	done
}

if have_prof; then
	prof_load $disk
	profs=prof
	bench_has triggers && profs="prof prof-triggers"
	for p in $profs; do
		[ "$p" = prof-triggers ] && triggers_arm on $disk
		prof_run "$p" $disk
		if [ "$p" = prof-triggers ]; then
			echo "trigger_hits=$(trigger_hits $disk)" >> "$IOTRACE_OUT/$p.1.txt"
			triggers_arm off $disk
		fi
		log "probe profile ($p): $(tr '\n' ';' < "$IOTRACE_OUT/$p.0.txt")"
	done
	prof_unload $disk
	# with the nometrics configuration, the same with metrics=N
	if bench_has nometrics; then
		prof_load $disk metrics=N
		prof_run prof-nometrics $disk
		log "probe profile (prof-nometrics): $(tr '\n' ';' < "$IOTRACE_OUT/prof-nometrics.0.txt")"
		prof_unload $disk
	fi
fi

if [ "$BENCH_MULTI" = 1 ]; then
	nullb_mod nr_devices=16 irqmode=0 submit_queues=2
	disks=
	for i in $(seq 0 15); do
		quiet_disk "nullb$i"
		disks="$disks nullb$i"
	done
	for r in $(seq "$BENCH_ROUNDS"); do
		for c in none16 enabled16; do
			# shellcheck disable=SC2086
			one_run $c "$r" $disks
		done
	done
	iot_unload
fi

# The io_uring pass: the same configurations on the cheapest submission
# and completion path, where a tracer's cost is the largest share.
if [ -n "$BENCH_URING_CONFIGS" ]; then
	nullb_mod nr_devices=1 irqmode=0 submit_queues=2 poll_queues=2
	quiet_disk $disk
	[ "$(cat /sys/block/$disk/queue/io_poll)" = 1 ] ||
		die "null_blk has no poll queue (poll_queues=2)"
	ENGINE=$URING_ENGINE
	PASS=uring-
	for r in $(seq "$BENCH_ROUNDS"); do
		for c in $BENCH_URING_CONFIGS; do
			one_run "$c" "$r" $disk
		done
	done
	ENGINE=$LIBAIO_ENGINE
	PASS=
	iot_unload
fi
rmmod null_blk

# The profile on QEMU's NVMe namespace: the block probes with the command
# and the status captured, and the two NVMe hooks that capture them.  Only
# the profile: the emulated device completes in host time, which makes its
# IOPS under -icount no measure of guest instructions (fio's IOPS on it
# moved by up to a third between rounds of one configuration, 2026-11-27).
if have_prof && ns=$(first_disk 'nvme*n1'); then
	quiet_disk "$ns"
	prof_load "$ns"
	nvme_layout
	prof_run prof-nvme "$ns"
	# records that carry their command and their status (CSV columns
	# cmd_type and rflags' IOTRACE_RF_STATUS_VALID), of those present
	"$IOTRACECTL" show -o csv "$ns" | awk -F, '
		NR > 1 { n++; if ($19 != 0) c++; if (int($13 / 512) % 2) s++ }
		END { printf "records=%d\ncmd_records=%d\nstatus_records=%d\n",
			     n, c, s }' >> "$IOTRACE_OUT/prof-nvme.1.txt"
	log "probe profile (prof-nvme): $(tr '\n' ';' < "$IOTRACE_OUT/prof-nvme.0.txt")"
	prof_unload "$ns"
fi

# records/s of "iotracectl stats" on a large file (guest instructions)
if [ "${BENCH_STATS_RECORDS:-0}" -gt 0 ] && [ -x "$GEN" ]; then
	"$GEN" file $scratch/big.trace "$BENCH_STATS_RECORDS" 1 ||
		die "gen file failed"
	t0=$(date +%s.%N)
	"$IOTRACECTL" stats $scratch/big.trace > "$IOTRACE_OUT/stats-big.txt" ||
		die "iotracectl stats on a large file failed"
	t1=$(date +%s.%N)
	{
		echo "records=$BENCH_STATS_RECORDS"
		echo "file_bytes=$(stat -c %s $scratch/big.trace)"
		echo "start=$t0"
		echo "end=$t1"
	} > "$IOTRACE_OUT/stats-big.env"
	rm -f $scratch/big.trace
	log "iotracectl stats: $BENCH_STATS_RECORDS records in $(echo "$t1 - $t0" | bc) s"
fi
udevadm control --start-exec-queue 2> /dev/null
echo "done" > "$IOTRACE_OUT/complete"
exit 0
