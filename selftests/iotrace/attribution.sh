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
# checked instead.
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio dd mkfs.ext4
ktap_header 14
out=$(mktemp -d)
RF_KERNEL=$((1 << 14))
# memory backed, for ext4 below (configfs: 5.10 has no module parameter)
rmmod null_blk 2> /dev/null
disk=$(nullb_create nbattr size=1024 memory_backed=1 submit_queues=2 \
	irqmode=1)
quiet_disk $disk
load_iotrace disks=$disk
udevadm control --stop-exec-queue 2> /dev/null
if dmesg | grep -q 'iotrace: no block_io_start'; then
	have_sub=0
	log "this kernel has no block_io_start: no submitter is recorded"
else
	have_sub=1
fi

# The cgroup: its own io controller, so that its bios are charged to it.
grep -q '^cgroup2 /sys/fs/cgroup ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup || die "cannot mount cgroup2"
echo +io > /sys/fs/cgroup/cgroup.subtree_control ||
	die "cannot enable the io controller"
cg=/sys/fs/cgroup/iotrace-attr
mkdir -p $cg
cgid=$(stat -c %i $cg)
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
	wait
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
	run_load
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
		ktap_check "$cur: no submitter on this kernel: every pid 0" \
			test $badpid -eq 0
	fi
	ktap_check "$cur: only the cgroup's process has the cgroup's id" \
		test $badcg -eq 0
	ktap_check "$cur: no record outside the four regions ($other)" \
		test $other -eq 0
done
ktap_check "without a scheduler every fio write is its own record" \
	test "$(awk '$2 < 64 * 2048' "$out/ring.none" | wc -l)" -eq 600

# The command names, taken in the kernel when each pid was first seen:
# the dd processes are gone by now.
cat "$IOT/comms" > "$out/comms"
sed 's/^/# comms: /' "$out/comms"
if [ $have_sub = 1 ]; then
	ktap_check "comms names the last round's processes: fio, fio, dd, dd" \
		sh -c "grep -qx '$pid_a fio' '$out/comms' && grep -qx '$pid_b fio' '$out/comms' &&
			grep -qx '$pid_c dd' '$out/comms' && grep -qx '$pid_d dd' '$out/comms'"
else
	ktap_check "no submitter, no command name on this kernel" \
		test "$(cat "$out/comms")" = "PID COMM"
fi

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
	ktap_check "ext4: no submitter on this kernel (no kernel flag)" \
		test "$(awk -v kf=$RF_KERNEL 'int($4 / kf) % 2' "$out/ring.fs" | wc -l)" -eq 0
	ktap_check "ext4: no submitter on this kernel (every pid 0)" \
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
