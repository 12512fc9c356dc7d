#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# persist: the black box survives the crash (persist=).  The rings and the
# in-flight tables of the boot that died are read after a panic and after
# a reset without sync, and out of QEMU's dump of the running guest.
#
# Phase 1: iotrace keeps nullb0's, the NVMe disk's and a scsi_debug disk's
# rings in the region (reserve_mem= on 6.11 and newer, the memmap= range
# before); fio does random I/O on nullb0 and the NVMe disk with
# write_iolog (fio exits, so its logs are whole before the crash); one read
# is left stuck in scsi_debug (a delay of 2 minutes); QEMU dumps the
# guest's memory; the guest panics.
# Phase 2: the next boot's module offers the previous boot's region:
# every I/O fio logged is in the previous rings exactly once with its op,
# sector and length, nothing else, the counts equal the stat deltas, the
# stuck read is in the in-flight table with its READ CDB, each disk's
# capacity, model, serial and wwn (given by iotracectl identify, as the
# udev rule gives them) are sysfs's of the boot that died; the dump gives
# the same records and the stuck read; a reader held in its copy of the
# previous trace to user space (userfaultfd) holds up neither another
# reader nor the release.  A second fio run, then a reset without sync
# (sysrq b, as a watchdog's).
# Phase 3: the second run's records after the reset; then regions the
# module must refuse (another layout version, a torn header, garbage) on
# the memmap= range: refused in one message, nothing offered, the module
# traces normally.
# persist_core.sh runs phases 1 and 2 without the dump (PERSIST_CORE=1):
# make check on every kernel; this whole test is make check-all's.
# Both also trace a disk that is removed before the panic: phase 2 finds
# its ring kept and marked removed, with fio's I/O; phase 3 checks that
# such a ring gives its room to a disk that needs it.
# VM-REBOOTS: 2
# VM-DUMP: yes
# VM-MEM: 512
# VM-DEVICES: nvme
# VM-CMDLINE: memmap=64M$0x10000000 reserve_mem=64M:4096:iotrace nokaslr
# VM-TIMEOUT: 1500
# VM-CHECK: all
# VM-BATCH: no
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

PERSIST_CORE=${PERSIST_CORE:-0}

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
vm_phase
st=$IOTRACE_OUT/persist
mkdir -p "$st"
RANGE=64M@0x10000000
ADDR=$((0x10000000))
boot_id=$(cat /proc/sys/kernel/random/boot_id)

# the region persist= names on this kernel
if grep -q 'reserve_mem' /proc/cmdline &&
   [ -n "$(dmesg | grep -i 'reserve_mem' | grep -v 'Unknown' | head -1)" ] &&
   grep -qw reserve_mem_find_by_name /proc/kallsyms; then
	PERSIST=iotrace
else
	PERSIST=$RANGE
fi

# disks: nullb0, the NVMe disk, the scsi_debug disk (as $nb $nv $sd)
setup_disks() {
	rmmod null_blk 2> /dev/null
	modprobe null_blk nr_devices=1 submit_queues=2 ||
		die "modprobe null_blk failed"
	nb=nullb0
	nv=$(first_disk 'nvme*n1') || die "no NVMe disk"
	modprobe scsi_debug dev_size_mb=16 || die "modprobe scsi_debug failed"
	sd=
	for _ in $(seq 50); do
		for d in /sys/block/sd*; do
			grep -qs scsi_debug "$d/device/model" && sd=$(basename "$d")
		done
		[ -n "$sd" ] && break
		sleep 0.2
	done
	[ -n "$sd" ] || die "no scsi_debug disk appeared"
	settle
	for d in $nb $nv $sd; do
		quiet_disk $d
	done
	# nothing but the test's I/O on them: udevd itself reads the
	# partition table of a disk closed after writing (its inotify
	# watch), fio's setup open among them; stopped until the reboot
	udevadm control --stop-exec-queue 2> /dev/null
	pkill -STOP -x systemd-udevd
	pkill -STOP -x udevd
	log "disks: $nb $nv $sd; persist=$PERSIST"
}

# fio_run DISK LOG N - N random direct I/Os on DISK, logged to LOG, its
# pid in LOG.pid (one job, a thread: the records' submitter is that pid)
fio_run() {
	sh -c 'echo $$ > "$0.pid"; exec "$@"' "$2" \
	    fio --name=p --thread --filename=/dev/$1 --direct=1 \
	    --ioengine=libaio --iodepth=8 --rw=randrw \
	    --bssplit=4k/50:16k/30:64k/20 --number_ios=$3 --size=64m \
	    --write_iolog="$2" --output=/dev/null || die "fio on $1 failed"
}

# fio_ios LOG... - "op sector bytes" of each I/O fio logged, sorted
fio_ios() {
	cat "$@" |
		awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
		     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' |
		sort
}

# ring_ios RING - "op sector bytes" of each record of a ring copy, sorted
ring_ios() {
	"$RINGCHECK" dump "$1" | sort
}

# pid_ios RING PID OUT - ring_ios of the records PID submitted (all of
# them on a kernel without submitters), into OUT; the others are logged
pid_ios() {
	"$IOTRACECTL" show -o csv "$1" | python3 -c '
import csv, sys
pid = sys.argv[1]
rows = list(csv.DictReader(sys.stdin))
# no submitter before 6.5 (no block_io_start): every record is taken
anyone = all(r["pid"] == "0" for r in rows)
with open(sys.argv[2] + ".other", "w") as other:
    for r in rows:
        line = "%s %s %s" % (r["op"], r["sector"], r["bytes"])
        if anyone or r["pid"] == pid:
            print(line)
        else:
            other.write("%s by pid %s %s\n" % (line, r["pid"], r["comm"]))
' "$2" "$3" | sort > "$3"
	[ -s "$3.other" ] &&
		log "$(wc -l < "$3.other") records not fio's: $(head -3 "$3.other" | tr '\n' ';')"
	return 0
}

# same_ios WHAT EXPECTED GOT - one check: the two lists are the same
same_ios() {
	local missing extra
	missing=$(comm -23 "$2" "$3" | wc -l)
	extra=$(comm -13 "$2" "$3" | wc -l)
	comm -23 "$2" "$3" | head -3 | sed 's/^/# missing: /'
	comm -13 "$2" "$3" | head -3 | sed 's/^/# extra: /'
	ktap_check "$1: $(wc -l < "$2") I/Os, each once with its op, sector, length (missing $missing, extra $extra)" \
		test "$missing" = 0 -a "$extra" = 0 -a -s "$2"
}

# stuck_line FILE - the in-flight line of the stuck read in "previous" output
stuck_line() {
	awk -v d="$sd" '$1 == d && $4 == "read" && $5 == 616 && $6 == 4096' "$1"
}

# running PID - true while PID has not exited, for up to 60 s
running() {
	local i

	for i in $(seq 600); do
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.1
	done
}

# release_prev [CMD...] - release the previous boot's copy (by CMD, else a
# write to debugfs previous_release) while a reader of each of its files,
# /dev/iotrace/previous and debugfs previous, is held in its copy to user
# space (uffd_read.py): another reader gets the bytes, the release goes
# through, and the held readers then get their own, whole (their
# references keep the copy).  4 checks.
release_prev() {
	local f u=$st/uffd r2 rel got fifo i n=0 pids=""

	for i in 0 1; do
		[ $i = 0 ] && f=/dev/iotrace/previous || f=$IOT/previous
		head -c 4096 $f > "$u.want$i"
		# the guest's own /tmp: the results' share has no FIFOs
		fifo=$(mktemp -u /tmp/uffd.XXXXXX)
		mkfifo "$fifo" || die "mkfifo $fifo failed"
		python3 "$IOTRACE_SRC/selftests/iotrace/uffd_read.py" $f \
			"$u.out$i" < "$fifo" > "$u.log$i" 2>&1 &
		pids="$pids $!"
		eval "exec $((7 + i))> '$fifo'"
		rm -f "$fifo"
		for _ in $(seq 600); do
			grep -q blocked "$u.log$i" && break
			kill -0 $! 2> /dev/null || break
			sleep 0.1
		done
		sed "s|^|# uffd_read $f: |" "$u.log$i"
		grep -q blocked "$u.log$i" && n=$((n + 1))
	done
	if [ $n != 2 ]; then
		exec 7>&- 8>&-
		for i in $pids; do
			wait $i
			[ $? = 4 ] || die "uffd_read.py failed: $(cat "$u.log0" "$u.log1")"
		done
		ktap_skip "readers held in their copy to user space: no userfaultfd"
		ktap_skip "nor the release: no userfaultfd"
		ktap_skip "the held readers: no userfaultfd"
		if [ $# = 0 ]; then
			echo 1 > "$IOT/previous_release"
		else
			"$@" > "$u.rel" 2>&1
		fi
		ktap_check "previous_release frees it" test ! -e "$IOT/previous"
		return
	fi
	f=/dev/iotrace/previous
	head -c 4096 $f > "$u.two" &
	r2=$!
	running $r2 && got=held || got=done
	ktap_check "readers held in their copy to user space hold up no other reader ($got)" \
		sh -c "! grep -q '^read' '$u.log0' '$u.log1' &&
		       [ $got = done ] && cmp -s '$u.want0' '$u.two'"
	if [ $# = 0 ]; then
		sh -c "echo 1 > '$IOT/previous_release'" &
	else
		"$@" > "$u.rel" 2>&1 &
	fi
	rel=$!
	running $rel && got=held || got=done
	ktap_check "nor the release ($got)" \
		sh -c "! grep -q '^read' '$u.log0' '$u.log1' && [ $got = done ] &&
		       [ ! -e '$IOT/previous' ] && [ ! -e $f ]"
	echo go >&7
	echo go >&8
	exec 7>&- 8>&-
	wait $pids
	wait $r2 $rel
	sed 's/^/# uffd_read: /' "$u.log0" "$u.log1"
	ktap_check "the held readers get their bytes after the release" \
		sh -c "cmp -s '$u.want0' '$u.out0' && cmp -s '$u.want1' '$u.out1'"
	ktap_check "previous_release frees it" test ! -e "$IOT/previous"
}

# pstat "REFUSED EVICTED KEPT" - debugfs status's counts of the region
# (the header's refused and evicted, abi.rst; the removed disks' rings kept)
pstat() {
	local got
	got=$(awk '$1 == "persist_refused:" { r = $2 }
		$1 == "persist_evicted:" { e = $2 }
		$1 == "persist_removed_kept:" { k = $2 }
		END { print r, e, k }' "$IOT/status")
	log "status: persist_refused, _evicted, _removed_kept: $got"
	[ "$got" = "$1" ]
}

case "$VM_PHASE" in
1)
	if [ "$PERSIST_CORE" = 1 ]; then
		ktap_header 29
	else
		ktap_header 60
	fi
	setup_disks
	load_iotrace persist=$PERSIST disks=$nb,$nv,$sd buf_size=1M
	dmesg | grep 'iotrace: persist' | sed 's/^/# /'
	ktap_check "the module keeps its rings in the region" \
		sh -c "dmesg | grep -q 'iotrace: persist: rings and in-flight tables in'"
	ktap_check "a fresh region: nothing offered as a previous boot's" \
		test ! -e "$IOT/previous"
	# who the disks are, as the udev rule gives it; and as sysfs says
	"$IOTRACECTL" identify $nb $nv $sd 2>&1 | sed 's/^/# /'
	python3 -c '
import json, sys
def rd(p):
    try:
        return open(p, errors="replace").read().strip()
    except OSError:
        return ""
out = {}
for d in sys.argv[2:]:
    b = "/sys/block/" + d
    out[d] = {"sectors": int(rd(b + "/size")), "model": rd(b + "/device/model"),
              "serial": rd(b + "/device/serial"),
              "wwn": rd(b + "/wwid") or rd(b + "/device/wwid")}
json.dump(out, open(sys.argv[1], "w"))
' "$st/ident1.json" $nb $nv $sd
	sed 's/^/# sysfs: /' "$st/ident1.json"; echo
	if [ "$PERSIST_CORE" != 1 ]; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$IOTRACECTL" identify $nb 2>&1)
		rc=$?
		log "as nobody: $out"
		ktap_check "identify without CAP_SYS_ADMIN: refused (EPERM)" \
			sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'not permitted'"
		out=$("$IOTRACECTL" identify nosuchdisk 2>&1)
		rc=$?
		log "unknown disk: $out"
		ktap_check "identify of a disk the module does not know: said (ENODEV)" \
			sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'no such traced disk'"
	fi
	if [ "$PERSIST" = "$RANGE" ] && [ -r /sys/kernel/debug/x86/pat_memtype_list ]; then
		pat=$(grep -i "0x0*10000000-" /sys/kernel/debug/x86/pat_memtype_list)
		log "PAT: $pat"
		ktap_check "the memmap= range is mapped write-back" \
			sh -c "echo '$pat' | grep -q write-back"
	else
		ktap_skip "the memmap= range is mapped write-back (a reserve_mem= region is RAM in the direct map)"
	fi
	# the NVMe disk's ring is a resize's: its entry in the region must
	# still name the disk (capacity and identity, checked in phase 2)
	"$IOTRACECTL" resize $nv 2M || die "resize $nv 2M failed"
	for d in $nb $nv; do
		# only fio's I/O from here (the ring keeps what came before)
		echo 1 > "$IOT/$d/clear"
		b=$(blk_ios $d)
		fio_run $d "$st/iolog1.$d" 1500
		echo $(($(blk_ios $d) - b)) > "$st/delta1.$d"
	done
	# what the live rings hold now (nothing runs on these disks until the dump)
	for d in $nb $nv; do
		ring_ios "$IOT/$d/ring" > "$st/live1.$d"
	done
	# a disk traced, then removed before the crash: its ring stays
	gone=$(nullb_create gone size=64 submit_queues=1)
	quiet_disk $gone
	wait_for "$IOT/$gone/enable" 10 || die "$gone has no ring"
	echo 1 > "$IOT/$gone/enable" || die "cannot enable $gone"
	fio_run $gone "$st/iolog1.gone" 300
	nullb_destroy gone
	until_ok 10 test ! -e "$IOT/$gone" || die "$gone's ring stayed attached"
	ktap_check "status: $gone's ring kept in the region after its removal" \
		pstat "0 0 1"
	echo "$gone" > "$st/gone"
	# one read left in the device: scsi_debug answers after 30,000 jiffies
	echo 600 > /sys/block/$sd/device/timeout
	echo 30000 > /sys/bus/pseudo/drivers/scsi_debug/delay ||
		die "cannot set scsi_debug's delay"
	dd if=/dev/$sd of=/dev/null bs=4096 skip=77 count=1 iflag=direct 2> /dev/null &
	until_ok 30 sh -c "[ \$(awk '{ print \$1 }' /sys/block/$sd/inflight) = 1 ]" ||
		die "the read did not stay in flight"
	log "stuck read in flight on $sd"
	[ "$PERSIST_CORE" = 1 ] || vm_dump phase1
	echo "$boot_id $sd" > "$st/boot1"
	vm_reboot panic
	;;
2)
	read -r id1 sd1 < "$st/boot1"
	ktap_check "after the panic, another boot" test "$boot_id" != "$id1"
	setup_disks
	load_iotrace persist=$PERSIST disks=$nb,$nv,$sd buf_size=1M
	dmesg | grep 'iotrace: persist' | sed 's/^/# /'
	ktap_check "the previous boot's trace is offered" test -e "$IOT/previous"
	ktap_check "it is root's only (mode 0400)" \
		test "$(stat -c %a "$IOT/previous")" = 400
	"$IOTRACECTL" previous --rings "$st/prev2" > "$st/prev2.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$st/prev2.txt"
	ktap_check "iotracectl previous reads it" test $rc = 0
	ktap_check "it is the boot that died, and it panicked" \
		sh -c "grep -q 'previous boot $id1, kernel $(uname -r), panicked' '$st/prev2.txt'"
	# the clock anchor (abi.rst): the panic notifier's, rewritten with
	# its count even and the pair before it kept whole (minor 2)
	ktap_check "its clock anchor: layout 1.4, count even, the previous pair kept and earlier" \
		python3 -c '
import struct, sys
h = open(sys.argv[1], "rb").read(4096)
minor, = struct.unpack_from("<H", h, 10)
seq, = struct.unpack_from("<I", h, 112)
mono, real = struct.unpack_from("<QQ", h, 128)
pmono, preal = struct.unpack_from("<QQ", h, 208)
print("# minor %d seq %d anchor %d %d previous %d %d" %
      (minor, seq, mono, real, pmono, preal))
sys.exit(0 if minor == 4 and seq % 2 == 0 and 0 < pmono < mono and
         abs((real - preal) - (mono - pmono)) < 100_000_000 else 1)
' "$IOT/previous"
	for d in $nb $nv; do
		fio_ios "$st/iolog1.$d" > "$st/fio1.$d"
		pid_ios "$st/prev2/$d.ring" "$(cat "$st/iolog1.$d.pid")" \
			"$st/prev1.$d"
		same_ios "$d: fio's I/O of the boot that died" \
			"$st/fio1.$d" "$st/prev1.$d"
		ring_ios "$st/prev2/$d.ring" > "$st/prev1.$d.all"
		n=$(wc -l < "$st/prev1.$d.all")
		ktap_check "$d: records ($n) = its stat delta ($(cat "$st/delta1.$d"))" \
			test "$n" = "$(cat "$st/delta1.$d")"
	done
	# the disk removed before the panic: kept, said, with fio's I/O
	gone=$(cat "$st/gone")
	ktap_check "$gone, removed before the panic: its ring listed as removed" \
		grep -q "^$gone .* (its disk was removed)\$" "$st/prev2.txt"
	fio_ios "$st/iolog1.gone" > "$st/fio1.gone"
	pid_ios "$(ls "$st/prev2/$gone.removed."*.ring 2> /dev/null | head -n 1)" \
		"$(cat "$st/iolog1.gone.pid")" "$st/prev1.gone"
	same_ios "$gone, removed before the panic: fio's I/O" \
		"$st/fio1.gone" "$st/prev1.gone"
	# -o: a trace file of the same records (what iotrace.service saves)
	"$IOTRACECTL" previous -o "$st/prev2.iot" > /dev/null 2>&1
	for d in $nb $nv; do
		"$IOTRACECTL" show -o csv --disk $d "$st/prev2.iot" |
			awk -F, 'NR > 1 { print $7, $9, $10 }'
	done | sort > "$st/file2"
	cat "$st/prev1.$nb.all" "$st/prev1.$nv.all" | sort > "$st/rings2"
	same_ios "the trace file written from them" "$st/rings2" "$st/file2"
	"$IOTRACECTL" info -o json "$st/prev2.iot" > "$st/info2.json" 2>&1
	ktap_check "each disk's capacity, model, serial and wwn, as sysfs said before the panic" \
		python3 -c '
import json, sys
want = json.load(open(sys.argv[2]))
got = {d["name"]: d.get("identity") for d in json.load(open(sys.argv[1]))["disks"]}
bad = [(n, w, got.get(n)) for n, w in want.items() if got.get(n) != w]
for b in bad:
    print("# %s: sysfs %s, previous boot %s" % b)
sys.exit(1 if bad or not want else 0)
' "$st/info2.json" "$st/ident1.json"
	# the file still names the boot that died once the region is freed:
	# its boot_id as /proc said then, and the span of its records
	ktap_check "the trace file names the boot that died ($id1), panicked, and its records' span" \
		python3 -c '
import csv, json, subprocess, sys
pb = json.load(open(sys.argv[1])).get("previous_boot", {})
print("# previous_boot: %s" % pb)
rows = csv.DictReader(subprocess.run([sys.argv[3], "show", "-o", "csv",
                                      sys.argv[4]], capture_output=True,
                                     text=True).stdout.splitlines())
done = [int(r["complete_ns"]) for r in rows]
sys.exit(0 if pb.get("boot_id") == sys.argv[2] and pb.get("panicked") and
         done and pb.get("first_mono_ns") == min(done) and
         pb.get("last_mono_ns") == max(done) else 1)
' "$st/info2.json" "$id1" "$IOTRACECTL" "$st/prev2.iot"
	line=$(stuck_line "$st/prev2.txt")
	log "stuck: $line"
	ktap_check "the stuck read is in the in-flight table" test -n "$line"
	ktap_check "with its READ(10) CDB" \
		sh -c "echo '$line' | grep -q 'READ(10)'"
	ktap_check "no torn in-flight slot, no damaged entry" \
		grep -q ' 0 torn in-flight slots, 0 damaged entries' "$st/prev2.txt"
	# the trace file keeps it (iotrace.service saves the file, then
	# frees the module's copy): the same request, from the file
	"$IOTRACECTL" inflight -o csv "$st/prev2.iot" > "$st/infl2.csv" 2>&1
	sed 's/^/# /' "$st/infl2.csv"
	want=$(echo "$line" | awk '{ print $1 "," $2 ",read," $5 "," $6 "," $7 "," $8 }')
	ktap_check "the trace file written from it holds the stuck read ($want)" \
		sh -c "awk -F, '{ print \$1 \",\" \$2 \",\" \$4 \",\" \$5 \",\" \$6 \",\" \$7 \",\" \$8 }' '$st/infl2.csv' | grep -qx '$want' &&
		       grep '^$sd,' '$st/infl2.csv' | grep -q 'READ(10)'"
	if [ "$PERSIST_CORE" = 1 ]; then
		# locked down (Secure Boot), debugfs refuses writable files:
		# iotracectl releases the copy through /dev/iotrace/previous
		[ -e /sys/kernel/security/lsm ] ||
			mount -t securityfs none /sys/kernel/security
		if echo integrity > /sys/kernel/security/lockdown; then
			ktap_check "locked down: debugfs previous_release refused" \
				sh -c "! echo 1 > '$IOT/previous_release'"
		else
			ktap_skip "locked down: no lockdown LSM here ($(cat /sys/kernel/security/lsm 2> /dev/null))"
		fi
		release_prev "$IOTRACECTL" previous --release
		sed 's/^/# previous --release: /' "$st/uffd.rel"
		unload_iotrace
		ktap_check "no kernel warnings" no_kernel_splat
		ktap_finish
		exit
	fi
	# QEMU's dump of the boot that died, taken with the stuck read in
	# flight and nothing else running on the disks since the live copies
	"$IOTRACECTL" previous --rings "$st/core" "$IOTRACE_OUT/phase1.core" > "$st/core.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$st/core.txt"
	ktap_check "previous reads the region out of QEMU's dump" test $rc = 0
	for d in $nb $nv; do
		ring_ios "$st/core/$d.ring" > "$st/core1.$d"
		same_ios "$d: the dump holds what the live ring held" \
			"$st/live1.$d" "$st/core1.$d"
	done
	ktap_check "the dump's in-flight table has the stuck read" \
		test -n "$(stuck_line "$st/core.txt")"
	release_prev
	echo 1 > "$IOT/$nb/clear"
	b=$(blk_ios $nb)
	fio_run $nb "$st/iolog2.$nb" 1000
	echo $(($(blk_ios $nb) - b)) > "$st/delta2.$nb"
	echo "$boot_id" > "$st/boot2"
	vm_reboot reset
	;;
3)
	read -r id2 < "$st/boot2"
	setup_disks
	load_iotrace persist=$PERSIST disks=$nb buf_size=1M
	"$IOTRACECTL" previous --rings "$st/prev3" > "$st/prev3.txt" 2>&1
	rc=$?
	sed 's/^/# /' "$st/prev3.txt"
	ktap_check "after the reset: the boot before, not panicked" \
		sh -c "[ $rc = 0 ] && grep -q 'previous boot $id2, kernel $(uname -r)\$' '$st/prev3.txt'"
	fio_ios "$st/iolog2.$nb" > "$st/fio2"
	pid_ios "$st/prev3/$nb.ring" "$(cat "$st/iolog2.$nb.pid")" \
		"$st/prev2ring"
	same_ios "$nb: fio's I/O of the boot reset" "$st/fio2" "$st/prev2ring"
	unload_iotrace

	# regions to refuse, on the memmap= range: load, unload (the rings
	# stay for the next load), damage, load again
	refused() {
		dmesg -C
		load_iotrace persist=$RANGE disks=$nb buf_size=1M
		msg=$(dmesg | grep 'iotrace: persist')
		log "$1: $(echo "$msg" | head -2 | tr '\n' ' ')"
		ktap_check "$1: refused, saying why ($2)" \
			sh -c "echo \"\$0\" | grep -q \"refused ($2)\\|($2)\"" "$msg"
		ktap_check "$1: nothing offered" test ! -e "$IOT/previous"
	}
	poke() {
		/usr/bin/python3 - "$ADDR" "$@" <<'EOF'
import mmap, os, sys
addr = int(sys.argv[1])
fd = os.open("/dev/mem", os.O_RDWR | os.O_SYNC)
m = mmap.mmap(fd, mmap.PAGESIZE, offset=addr)
off = int(sys.argv[2])
data = bytes.fromhex(sys.argv[3]) if sys.argv[3] != "random" else os.urandom(4096)
m[off:off + len(data)] = data
EOF
	}
	load_iotrace persist=$RANGE disks=$nb buf_size=1M
	"$IOTRACECTL" resize $nb 100M > "$st/full.txt" 2>&1
	rc=$?
	log "resize to 100M: $(cat "$st/full.txt"); $(dmesg | grep 'no room' | tail -n 1)"
	ktap_check "a ring larger than the region: the resize fails, said by disk" \
		sh -c "[ $rc != 0 ] && dmesg | grep -q '$nb: no room in the persistent region for its ring'"
	ktap_check "status: one allocation refused, none evicted, none kept" \
		pstat "1 0 0"
	# a removed disk's ring (40M) gives its room to a resize that needs it
	gone=$(nullb_create gone3 size=64 submit_queues=1)
	wait_for "$IOT/$gone/enable" 10 || die "$gone has no ring"
	"$IOTRACECTL" resize $gone 40M || die "resize $gone 40M failed"
	echo 1 > "$IOT/$gone/enable" || die "cannot enable $gone"
	nullb_destroy gone3
	until_ok 10 test ! -e "$IOT/$gone" || die "$gone's ring stayed attached"
	ktap_check "status: the removed disk's ring kept" pstat "1 0 1"
	dmesg -C
	"$IOTRACECTL" resize $nb 100M > /dev/null 2>&1
	rc=$?
	ktap_check "a resize the removed disk's room would not make fit: fails, and that ring stays" \
		sh -c "[ $rc != 0 ] && ! dmesg | grep -q 'gives its room'"
	"$IOTRACECTL" resize $nb 40M > "$st/evict.txt" 2>&1
	rc=$?
	log "resize to 40M: rc $rc $(cat "$st/evict.txt"); $(dmesg | grep 'iotrace: persist' | tail -n 1)"
	ktap_check "a removed disk's ring gives its room to a resize that needs it" \
		sh -c "[ $rc = 0 ] && dmesg | grep -q 'the ring of $gone, kept since its disk was removed, gives its room to $nb'"
	ktap_check "status: two allocations refused, the removed disk's ring evicted" \
		pstat "2 1 0"
	"$IOTRACECTL" resize $nb 2M || die "resize $nb 2M failed"
	dd if=/dev/$nb of=/dev/null bs=4096 count=10 iflag=direct 2> /dev/null
	unload_iotrace
	dmesg -C
	load_iotrace persist=$RANGE disks=$nb buf_size=1M
	ktap_check "a reload offers the rings of the module unloaded" \
		test -e "$IOT/previous"
	ktap_check "the load's kernel log gives the two refused and the one evicted" \
		sh -c "dmesg | grep -q 'iotrace: persist: that boot.s region refused 2 allocations for want of room and evicted 1 rings of removed disks'"
	"$IOTRACECTL" previous --rings "$st/reload" > "$st/reload.txt" 2>&1
	sed 's/^/# /' "$st/reload.txt"
	ktap_check "previous counts the two refused and the one evicted" \
		grep -q '^2 allocations refused for want of room, 1 rings of removed disks evicted for room$' "$st/reload.txt"
	"$IOTRACECTL" previous -o "$st/reload.iot" > /dev/null 2>&1
	ktap_check "so does info of the trace file written from it (the service's)" \
		sh -c "'$IOTRACECTL' info '$st/reload.iot' | grep -q '^region:   2 allocations refused for want of room, 1 rings of removed disks evicted for room\$'"
	ktap_check "the resized ring (2M) holds the 10 reads" \
		sh -c "awk '\$1 == \"$nb\" && \$2 > 2000000 && \$3 == 10' '$st/reload.txt' | grep -q ."
	# the module unloaded took the in-flight table's entry with it: the
	# resized ring's own entry says whose it is
	"$IOTRACECTL" previous -o "$st/reload.iot" > /dev/null 2>&1
	"$IOTRACECTL" info -o json "$st/reload.iot" > "$st/reload.json" 2>&1
	ktap_check "the resized ring's entry has $nb's capacity ($(cat /sys/block/$nb/size) sectors)" \
		python3 -c '
import json, sys
got = {d["name"]: d.get("identity") for d in json.load(open(sys.argv[1]))["disks"]}
print("# identity: %s" % got.get(sys.argv[2]))
sys.exit(0 if (got.get(sys.argv[2]) or {}).get("sectors") == int(sys.argv[3]) else 1)
' "$st/reload.json" $nb "$(cat /sys/block/$nb/size)"
	dd if=/dev/$nb of=/dev/null bs=4096 count=5 skip=50 iflag=direct 2> /dev/null
	unload_iotrace
	# a load that fails after the region was read puts it back
	insmod "$IOTRACE_KO" persist=$RANGE disks=nosuchdisk buf_size=1M \
		2> /dev/null && die "insmod with disks=nosuchdisk loaded"
	dmesg | grep 'persist: the load failed' | sed 's/^/# /'
	load_iotrace persist=$RANGE disks=$nb buf_size=1M
	"$IOTRACECTL" previous > "$st/after_fail.txt" 2>&1
	ktap_check "a failed load keeps the previous trace (its 5 reads)" \
		sh -c "awk '\$1 == \"$nb\" && \$3 == 5' '$st/after_fail.txt' | grep -q ."
	unload_iotrace
	# a disk the region has no room for is left disabled, not the load
	dmesg -C
	load_iotrace persist=$RANGE disks=$nb buf_size=100M
	log "$(dmesg | grep 'no room' | head -n 1)"
	ktap_check "a ring larger than the region at load: the disk stays disabled, the module loads" \
		sh -c "[ \"\$(cat $IOT/$nb/enable)\" = 0 ] && dmesg | grep -q '$nb: no room in the persistent region'"
	unload_iotrace
	# a disk refused for want of room keeps none: about 2 MiB left, its
	# ring (1M, made at its enable) fits, its in-flight table (2 x 4096
	# tags, over 2 MiB) does not
	load_iotrace persist=$RANGE disks=none buf_size=1M
	fill=$(nullb_create fill3 size=64 submit_queues=1)
	tight=$(nullb_create tight3 size=64 submit_queues=2 hw_queue_depth=4096)
	wait_for "$IOT/$tight/enable" 10 && wait_for "$IOT/$fill/enable" 10 ||
		die "no ring files for $fill, $tight"
	# the data after the header and its two tables (132 KiB), less 2 MiB
	# (the resize of a disk never enabled makes its ring)
	left=$(awk '$1 == "persist_size:" { s = $2 } $1 == "persist_used:" { u = $2 }
		END { printf "%d", int((s - u - 135168 - 2097152) / 4096) * 4096 }' "$IOT/status")
	"$IOTRACECTL" resize $fill "$left" || die "resize $fill $left failed"
	echo 1 > "$IOT/$fill/enable" || die "cannot enable $fill"
	used=$(awk '$1 == "persist_used:" { print $2 }' "$IOT/status")
	dmesg -C
	echo 1 > "$IOT/$tight/enable" 2> /dev/null
	rc=$?
	log "enable $tight: rc $rc; $(dmesg | grep 'no room' | tail -n 1); persist_used $used, then $(awk '$1 == "persist_used:" { print $2 }' "$IOT/status")"
	ktap_check "a disk whose ring and in-flight table do not both fit: not enabled, and it holds none of the region" \
		sh -c "[ $rc != 0 ] && [ \"\$(cat $IOT/$tight/enable)\" = 0 ] &&
		       dmesg | grep -q '$tight: no room in the persistent region' &&
		       [ \"\$(awk '\$1 == \"persist_used:\" { print \$2 }' $IOT/status)\" = $used ]"
	unload_iotrace
	nullb_destroy tight3
	nullb_destroy fill3
	# a range the kernel uses as RAM is refused
	insmod "$IOTRACE_KO" persist=64M@0x14000000 disks=none 2> /dev/null
	rc=$?
	[ $rc = 0 ] && unload_iotrace
	log "$(dmesg | grep 'persist=64M@0x14000000' | tail -n 1)"
	ktap_check "persist= on System RAM: refused" \
		sh -c "[ $rc != 0 ] && dmesg | grep -q 'the range is not reserved'"
	# a range /proc/iomem gives to devices (the PCI bus's window) is
	# refused too, not formatted
	pci=
	while IFS=' -' read -r a b _ name; do
		case "$name" in
		"PCI Bus"*) [ $((0x$b - 0x$a)) -ge $((1 << 20)) ] && { pci=$a; break; } ;;
		esac
	done <<< "$(grep -E '^[0-9a-f]+-[0-9a-f]+ : ' /proc/iomem)"
	if [ -n "$pci" ]; then
		insmod "$IOTRACE_KO" persist=1M@0x$pci disks=none 2> /dev/null
		rc=$?
		[ $rc = 0 ] && unload_iotrace
		log "$(dmesg | grep "persist=1M@0x$pci" | tail -n 1)"
		ktap_check "persist= on the PCI window (0x$pci): refused" \
			sh -c "[ $rc != 0 ] && dmesg | grep -q 'lists as other than \"Reserved\"'"
	else
		ktap_skip "persist= on the PCI window: no PCI Bus in /proc/iomem"
	fi
	poke 8 0200 || die "cannot write the region through /dev/mem"
	refused "another layout major version" "another layout major version"
	unload_iotrace
	poke 40 ff || die "cannot write the region through /dev/mem"
	refused "a torn header" "header checksum"
	unload_iotrace
	poke 0 random || die "cannot write the region through /dev/mem"
	refused "garbage" "no region magic.*"
	b=$(blk_ios $nb)
	dd if=/dev/$nb of=/dev/null bs=4096 count=10 iflag=direct 2> /dev/null
	ktap_check "the module traces after refusing (10 reads)" \
		test "$(ring_ios "$IOT/$nb/ring" | wc -l)" = "$(($(blk_ios $nb) - b))"
	unload_iotrace
	ktap_check "no kernel warnings" no_kernel_splat
	;;
*)
	die "phase $VM_PHASE: the test asked for two reboots"
	;;
esac
ktap_finish
