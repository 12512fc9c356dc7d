#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the fault-matrix tests (fault_*.sh; sourced, not run).

. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

# Readers run as long as the longest (soak) case needs.
export RINGCHECK_MAX_S=36000

# fault_splat - print the kernel log lines of an oops, BUG, WARN, lockdep
# or RCU report, refcount or list corruption, UBSAN/KASAN; true if none
# (kernel_splats: a debug kernel's own reports are not the test's).
fault_splat() {
	kernel_splats 'WARNING:|BUG:|Oops|general protection|RCU stall|rcu_.*detected stall|refcount_t|list_del corruption|list_add corruption|UBSAN|KASAN|possible recursive locking|circular locking|hung task|soft lockup'
}

# fault_wait_line FILE REGEX [SECONDS] - wait until FILE has a matching line.
# The limits are deadlines on the clock ($SECONDS), not counts of polls: a
# slow guest forks each poll's sleep slowly.
fault_wait_line() {
	local end=$((SECONDS + ${3:-30}))
	until grep -q -- "$2" "$1" 2> /dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# fault_wait_gone PID [SECONDS] - wait until process PID has exited; on a
# time-out show it (task_show), kill it (SIGKILL) and fail.
fault_wait_gone() {
	wait_gone "$@" && return 0
	kill -KILL "$1" 2> /dev/null
	return 1
}

# fault_fio NAME DISK CPU [fio options...] - start a background fio job on
# /dev/DISK pinned to CPU, time based (stopped with fault_fio_stop); its
# JSON output goes to $out/fio.NAME.  Appends its pid to fault_fio_pids.
# Every fio on a disk that may go away runs with --allow_file_create=0:
# after a removal fio reopens its file, and without it would create a
# regular file in /dev under the disk's name, which then hides the node
# of the disk that comes back (and is what later I/O reads).
fault_fio_pids=()
fault_fio() {
	local name=$1 disk=$2 cpu=$3
	shift 3
	fio --name="$name" --filename="/dev/$disk" --direct=1 \
	    --ioengine=libaio --iodepth=8 --rw=randrw --bs=4k --size=256m \
	    --time_based --runtime=100000 --cpus_allowed="$cpu" \
	    --allow_file_create=0 \
	    --output-format=json --output="$out/fio.$name" "$@" &
	fault_fio_pids+=($!)
}

# fault_fio_stop - stop the background fio jobs, wait for them.
fault_fio_stop() {
	local p
	for p in "${fault_fio_pids[@]}"; do
		kill -INT "$p" 2> /dev/null
	done
	for p in "${fault_fio_pids[@]}"; do
		wait "$p" 2> /dev/null
	done
	fault_fio_pids=()
}

# fault_steady_checks READER_RC BLK0 BLK1 - six checks of nullb0, the disk
# fio job "steady" ran on through a fault loop while a reader (exit status
# READER_RC, output in $out/watch) followed its ring: the reader accepted no
# invalid record, the ring is intact, and completed equals the /sys/block
# stat delta BLK1 - BLK0, fio's own count and present + overwritten +
# dropped + filtered.
fault_steady_checks() {
	local wrc=$1 b0=$2 b1=$3 rc fio_n

	sed 's/^/# nullb0 reader: /' "$out/watch"
	ktap_check "nullb0's reader accepted no invalid record" test "$wrc" -eq 0
	"$RINGCHECK" check "$IOT/nullb0/ring" > "$out/check"
	rc=$?
	c() { kv "$out/check" "$1"; }
	sed 's/^/# nullb0: /' "$out/check"
	ktap_check "nullb0's ring intact" test $rc -eq 0
	ktap_check "nullb0: completed ($(c completed)) = /sys/block stat delta ($((b1 - b0)))" \
		test "$(c completed)" -eq $((b1 - b0))
	fio_n=$(fault_fio_ios steady)
	ktap_check "nullb0: completed = fio's own count ($fio_n)" \
		test "$(c completed)" -eq "$fio_n"
	ktap_check "nullb0: completed = present + overwritten + dropped + filtered" \
		test "$(c completed)" -eq $(($(c present) + $(c overwritten) + \
			$(c dropped) + $(c filtered)))
}

# fault_fio_ios NAME... - fio's own count of completed requests (JSON).
fault_fio_ios() {
	local f args=()
	for f in "$@"; do
		args+=("$out/fio.$f")
	done
	python3 - "${args[@]}" <<'PY'
import json, sys
n = 0
for f in sys.argv[1:]:
    t = open(f).read()
    t = t[t.index('{'):]          # fio may print notes before the JSON
    for j in json.loads(t)['jobs']:
        for d in ('read', 'write', 'trim'):
            n += j[d]['total_ios']
print(n)
PY
}
