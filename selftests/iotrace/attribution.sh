#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# attribution: every record names the process that submitted its request
# (pid: the thread group id) and the cgroup its bio was charged to, with
# and without an I/O scheduler and merging.  The oracles are the pids the
# shell got for each process and the cgroup's inode number
# (/sys/fs/cgroup/<name>).  The kernel's own I/O (ext4's journal, the
# flusher's writeback) is pid 0 with IOTRACE_RF_KERNEL, never a kernel
# thread's pid.  Kernels without block_io_start (before 6.5) record no
# submitter: every record has pid 0 and no IOTRACE_RF_KERNEL, which is
# checked instead.  The last round is recorded with iotracectl, whose
# file must say the same (and name the processes after they are gone),
# filter by pid, cgroup and name, and export pids and names that blkparse
# shows.  With ATTR_SUBMITTER=N (submitter_off.sh) the module is loaded
# with submitter=N and every check is the no-submitter one, on any kernel;
# a bad value of the parameter must fail the load first.
# VM-CHECK: newest
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio dd mkfs.ext4 python3 blkparse
sub_param=${ATTR_SUBMITTER:-}
if [ -n "$sub_param" ]; then ktap_header 23; else ktap_header 21; fi
out=$(mktemp -d)
RF_KERNEL=$((1 << 14))
# memory backed, for ext4 below (configfs: 5.10 has no module parameter)
rmmod null_blk 2> /dev/null
disk=$(nullb_create nbattr size=1024 memory_backed=1 submit_queues=2 \
	irqmode=1)
quiet_disk $disk
if [ -n "$sub_param" ]; then
	unload_iotrace
	ktap_check "submitter=maybe: the load fails" \
		sh -c "! insmod '$IOTRACE_KO' disks=$disk submitter=maybe 2> /dev/null &&
			dmesg | grep -q 'invalid for parameter .submitter'"
	load_iotrace disks=$disk submitter="$sub_param"
	ktap_check "the parameter reads back $sub_param" \
		test "$(cat /sys/module/iotrace/parameters/submitter)" = "$sub_param"
else
	load_iotrace disks=$disk
fi
udevadm control --stop-exec-queue 2> /dev/null
if [ "$sub_param" = N ]; then
	have_sub=0
	log "submitter=N: no submitter is recorded"
elif dmesg | grep -q 'iotrace: no block_io_start'; then
	have_sub=0
	log "this kernel has no block_io_start: no submitter is recorded"
else
	have_sub=1
fi
ktap_check "status says submitter: $have_sub" \
	grep -qx "submitter: $have_sub" "$IOT/status"

# The cgroup: its own io controller, so that its bios are charged to it.
io_cgroup iotrace-attr
log "cgroup $cg has id $cgid"

# Two fio processes (jobs as threads: the submitter is fio's own tgid), a
# dd, and a dd in the cgroup, each on its own region of the disk.
MB=2048		# sectors per MiB
run_load() {
	fio --thread --name=a --filename=/dev/$disk --direct=1 \
	    --ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k \
	    --offset=0 --size=64m --number_ios=600 --cpus_allowed=0 \
	    --output=/dev/null &
	pid_a=$!
	fio --thread --name=b --filename=/dev/$disk --direct=1 \
	    --ioengine=libaio --iodepth=8 --rw=read --bs=8k \
	    --offset=128m --size=64m --number_ios=600 --cpus_allowed=1 \
	    --output=/dev/null &
	pid_b=$!
	dd if=/dev/zero of=/dev/$disk bs=4k count=300 seek=$((256 * 256)) \
	   oflag=direct status=none &
	pid_c=$!
	sh -c "echo \$\$ > $cg/cgroup.procs && exec dd if=/dev/zero \
	       of=/dev/$disk bs=16k count=100 seek=$((384 * 64)) \
	       oflag=direct status=none" &
	pid_d=$!
	# these four only: a recorder may be running in the background
	wait $pid_a $pid_b $pid_c $pid_d
}

# owner SECTOR: the process whose region holds SECTOR
check_round() {
	local name=$1 f=$2
	awk -v a=$pid_a -v b=$pid_b -v c=$pid_c -v d=$pid_d -v mb=$MB \
	    -v cg=$cgid -v hs=$have_sub -v kf=$RF_KERNEL '
	{
		s = $2; pid = $5; cgr = $6; k = int($4 / kf) % 2
		if (s < 64 * mb) { want = a; r = "a" }
		else if (s >= 128 * mb && s < 192 * mb) { want = b; r = "b" }
		else if (s >= 256 * mb && s < 320 * mb) { want = c; r = "c" }
		else if (s >= 384 * mb && s < 448 * mb) { want = d; r = "d" }
		else { other++; next }
		n[r]++
		if (!hs) want = 0
		if (pid != want || k) { badpid[r]++; if (bp++ < 3)
			print "# " r ": sector " s " pid " pid " kernel " k \
			      " (want " want ")" }
		if ((r == "d") != (cgr == cg)) { badcg[r]++; if (bc++ < 3)
			print "# " r ": sector " s " cgroup " cgr \
			      " (test cgroup " cg ")" }
	}
	END {
		printf "n_a=%d n_b=%d n_c=%d n_d=%d other=%d badpid=%d badcg=%d\n",
		       n["a"], n["b"], n["c"], n["d"], other, bp, bc
	}' "$f"
}

for sched in none mq-deadline; do
	if ! echo $sched > /sys/block/$disk/queue/scheduler 2> /dev/null; then
		modprobe mq-deadline 2> /dev/null
		echo $sched > /sys/block/$disk/queue/scheduler 2> /dev/null
	fi
	if [ $sched = none ]; then
		echo 2 > /sys/block/$disk/queue/nomerges
	else
		echo 0 > /sys/block/$disk/queue/nomerges
	fi
	cur=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$disk/queue/scheduler)
	echo 1 > "$IOT/$disk/clear"
	# the last round is recorded by iotracectl too (its file: below)
	if [ $sched = mq-deadline ]; then
		"$IOTRACECTL" record $disk -o "$out/rec.trace" \
			2> "$out/record.err" &
		recpid=$!
		sleep 1
	fi
	run_load
	if [ $sched = mq-deadline ]; then
		kill -INT $recpid
		wait $recpid || log "record: $(cat "$out/record.err")"
	fi
	"$RINGCHECK" dumpp "$IOT/$disk/ring" > "$out/ring.$sched"
	res=$(check_round $sched "$out/ring.$sched")
	echo "$res" | grep '^#'
	sum=$(echo "$res" | grep -v '^#')
	log "scheduler $cur: $sum (pids a=$pid_a b=$pid_b c=$pid_c d=$pid_d)"
	eval "$sum"
	ktap_check "$cur: records of all four processes ($n_a, $n_b, $n_c, $n_d)" \
		test $n_a -ge 1 -a $n_b -ge 1 -a $n_c -ge 1 -a $n_d -ge 1
	if [ $have_sub = 1 ]; then
		ktap_check "$cur: every record names its submitter's pid" \
			test $badpid -eq 0
	else
		ktap_check "$cur: no submitter noted: every pid 0" \
			test $badpid -eq 0
	fi
	ktap_check "$cur: only the cgroup's process has the cgroup's id" \
		test $badcg -eq 0
	ktap_check "$cur: no record outside the four regions ($other)" \
		test $other -eq 0
done
ktap_check "without a scheduler every fio write is its own record" \
	test "$(awk '$2 < 64 * 2048' "$out/ring.none" | wc -l)" -eq 600

# A pid whose name changes (as at exec(), whose first reads of the program
# come before the task takes its name) and a pid used again by a program
# of another name, on the CPU that noted the first name: both are named
# as they are now.  python3 reads, renames itself, reads again; dd reads,
# then (ns_last_pid) a copy of dd named mydd gets dd's pid and reads.
python3 - "/dev/$disk" > "$out/renamed.pid" <<'EOF_PY'
import mmap, os, sys
os.sched_setaffinity(0, {0})
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
os.preadv(fd, [buf], 500 * 2048 * 512)
with open('/proc/self/comm', 'w') as f:
    f.write('iot-renamed')
os.preadv(fd, [buf], 501 * 2048 * 512)
print(os.getpid())
EOF_PY
pid_r=$(cat "$out/renamed.pid")
cp "$(command -v dd)" "$out/mydd"
taskset -c 0 dd if=/dev/$disk of=/dev/null bs=4k count=4 skip=$((502 * 256)) \
	iflag=direct status=none &
pid_e=$!
wait $pid_e
pid_f=
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	for _ in $(seq 20); do
		echo $((pid_e - 1)) > /proc/sys/kernel/ns_last_pid
		taskset -c 0 "$out/mydd" if=/dev/$disk of=/dev/null bs=4k \
			count=4 skip=$((503 * 256)) iflag=direct status=none &
		pid_f=$!
		wait $pid_f
		[ "$pid_f" = "$pid_e" ] && break
	done
fi
if [ "$pid_f" = "$pid_e" ]; then
	reused="grep -qx '$pid_e mydd' '$out/comms'"
else
	log "pid $pid_e was not used again (got ${pid_f:-none}): renaming only"
	reused=true
fi

# The command names, taken in the kernel when each pid was noted: the dd
# processes are gone by now.
cat "$IOT/comms" > "$out/comms"
sed 's/^/# comms: /' "$out/comms"
if [ $have_sub = 1 ]; then
	ktap_check "comms names the last round's processes: fio, fio, dd, dd" \
		sh -c "grep -qx '$pid_a fio' '$out/comms' && grep -qx '$pid_b fio' '$out/comms' &&
			grep -qx '$pid_c dd' '$out/comms' && grep -qx '$pid_d dd' '$out/comms'"
	ktap_check "a renamed pid and a pid used again go by their new names" \
		sh -c "grep -qx '$pid_r iot-renamed' '$out/comms' && $reused"
else
	ktap_check "no submitter noted, no command name" \
		test "$(cat "$out/comms")" = "PID COMM"
	ktap_check "none for a renamed pid or a pid used again either" \
		test "$(cat "$out/comms")" = "PID COMM"
fi

# The recording of the last round, read by iotracectl after the dd
# processes are gone: the file carries pids, cgroups and names.
"$IOTRACECTL" show -o csv "$out/rec.trace" > "$out/rec.csv" ||
	die "show of the recording failed"
# per (pid, comm, cgroup): records
python3 -c 'import csv, sys, collections
c = collections.Counter((r["pid"], r["comm"] or "-", r["cgroup"])
	for r in csv.DictReader(open(sys.argv[1])))
for k, v in sorted(c.items()): print(*k, v)' "$out/rec.csv" > "$out/rec.pids"
sed 's/^/# file: pid comm cgroup records: /' "$out/rec.pids"
# the same from the ring (dumpp: pid in column 5, cgroup 6)
awk '{ n[$5 " " $6]++ } END { for (k in n) print k, n[k] }' \
	"$out/ring.mq-deadline" | sort > "$out/ring.pids"
awk '{ print $1, $3, $4 }' "$out/rec.pids" | sort > "$out/rec.pids2"
ktap_check "the recording has the ring's records per pid and cgroup" \
	diff -u "$out/ring.pids" "$out/rec.pids2"
if [ $have_sub = 1 ]; then
	# the others are in the root cgroup (its id: 1)
	root=$(stat -c %i /sys/fs/cgroup)
	ktap_check "the recording names fio, fio, dd and dd (dd in its cgroup)" \
		sh -c "grep -q '^$pid_a fio $root ' '$out/rec.pids' &&
			grep -q '^$pid_b fio $root ' '$out/rec.pids' &&
			grep -q '^$pid_c dd $root ' '$out/rec.pids' &&
			grep -q '^$pid_d dd $cgid ' '$out/rec.pids'"
	npa=$("$IOTRACECTL" show -o csv --pid $pid_a "$out/rec.trace" | grep -vc '^disk,')
	ncg=$("$IOTRACECTL" show -o csv --cgroup $cg "$out/rec.trace" | grep -vc '^disk,')
	ndd=$("$IOTRACECTL" show -o csv --comm dd "$out/rec.trace" | grep -vc '^disk,')
	log "filters: --pid $npa (ring $n_a), --cgroup $ncg ($n_d), --comm dd $ndd ($n_c + $n_d)"
	ktap_check "--pid, --cgroup and --comm select the right records" \
		test "$npa" -eq "$n_a" -a "$ncg" -eq "$n_d" -a \
			"$ndd" -eq $((n_c + n_d))
	"$IOTRACECTL" stats --top 4 "$out/rec.trace" > "$out/stats.txt"
	ktap_check "stats' process table: fio ($pid_a) with its $n_a requests" \
		grep -Eq "^ +$pid_a +fio +$n_a " "$out/stats.txt"
	want_q=$n_a
	want_name="[fio]"
else
	ktap_check "no submitter noted: the recording says so" \
		test "$(cut -d' ' -f1,2 "$out/rec.pids" | sort -u)" = "0 -"
	ktap_check "no submitter: --pid 0 selects every record" \
		test "$("$IOTRACECTL" show -o csv --pid 0 "$out/rec.trace" | grep -vc '^disk,')" \
			-eq "$(grep -vc '^disk,' "$out/rec.csv")"
	ktap_check "no submitter: no process table in stats" \
		sh -c "! '$IOTRACECTL' stats '$out/rec.trace' | grep -q '^processes'"
	pid_a=0
	want_q=$(grep -vc '^disk,' "$out/rec.csv")
	want_name="[iotrace]"
fi
# blkparse on the blktrace export names the submitter of every queue event
mkdir -p "$out/bt"
"$IOTRACECTL" export -f blktrace -o "$out/bt/iot" --pid $pid_a "$out/rec.trace" ||
	die "export -f blktrace failed"
(cd "$out/bt" && blkparse -q -i iot) > "$out/bt.txt" 2> "$out/bt.err"
nq=$(awk -v p=$pid_a -v n="$want_name" '$6 == "Q" && $5 == p && $NF == n' "$out/bt.txt" | wc -l)
ktap_check "blkparse: $nq queue events of pid $pid_a named $want_name ($want_q)" \
	test "$nq" -eq "$want_q"

# The kernel's own I/O: a file system with a journal, written through the
# page cache and synced (the flusher writes the data, jbd2 the journal).
echo none > /sys/block/$disk/queue/scheduler 2> /dev/null
echo 1 > "$IOT/$disk/clear"
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
	/dev/$disk &
pids="$!"
wait $! || die "mkfs.ext4 failed"
modprobe ext4 2> /dev/null
mnt=$out/mnt
mkdir -p "$mnt"
mount -t ext4 /dev/$disk "$mnt" &
pids="$pids $!"
wait $! || die "mount failed"
dd if=/dev/zero of="$mnt/f" bs=64k count=64 status=none &
pids="$pids $!"
wait
sync &
pids="$pids $!"
wait
umount "$mnt" &
pids="$pids $!"
wait
"$RINGCHECK" dumpp "$IOT/$disk/ring" > "$out/ring.fs"
# every kernel thread (PF_KTHREAD in /proc/PID/stat's flags)
python3 - > "$out/kthreads" <<'EOF_PY'
import os
for p in os.listdir('/proc'):
    if not p.isdigit():
        continue
    try:
        st = open('/proc/%s/stat' % p).read()
    except OSError:
        continue
    if int(st[st.rindex(')') + 2:].split()[6]) & 0x00200000:
        print(p)
EOF_PY
nk=$(awk -v kf=$RF_KERNEL 'int($4 / kf) % 2 && $5 == 0' "$out/ring.fs" | wc -l)
nu=$(awk -v kf=$RF_KERNEL '$5 != 0' "$out/ring.fs" | wc -l)
awk '{ print $5 }' "$out/ring.fs" | sort -u | grep -v '^0$' > "$out/fspids"
strangers=$(echo $pids | tr ' ' '\n' | sort -u | comm -13 - "$out/fspids" | wc -l)
kpids=$(sort -u "$out/kthreads" | comm -12 - "$out/fspids" | wc -l)
log "$(wc -l < "$out/kthreads") kernel threads"
log "ext4: $(wc -l < "$out/ring.fs") records, $nk the kernel's, $nu with a pid ($(tr '\n' ' ' < "$out/fspids")); our pids $pids"
if [ $have_sub = 1 ]; then
	ktap_check "ext4: the journal and writeback are the kernel's ($nk records)" \
		test "$nk" -ge 1
	ktap_check "ext4: user records name mkfs, dd, sync or umount" \
		test "$nu" -ge 1 -a "$strangers" -eq 0
else
	ktap_check "ext4: no submitter noted (no kernel flag)" \
		test "$(awk -v kf=$RF_KERNEL 'int($4 / kf) % 2' "$out/ring.fs" | wc -l)" -eq 0
	ktap_check "ext4: no submitter noted (every pid 0)" \
		test "$nu" -eq 0
fi
ktap_check "ext4: no record names a kernel thread" test "$kpids" -eq 0

udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
nullb_destroy nbattr
rmdir $cg 2> /dev/null
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
