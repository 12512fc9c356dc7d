#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# netlink_resize: resize and clear over netlink while fio runs.
#
# resize: four live resizes (smaller and larger rings) while two fio jobs
# run and readers poll the ring (iotracectl stats through the mapping,
# <disk>/trace): afterwards the netlink totals hold exactly the
# /sys/block/<disk>/stat delta (total_completed), split as
# total_recorded + total_dropped + total_filtered, the ring is intact
# (ringcheck) and has the last size, and the generation moved on once per
# resize.  A reader that mapped the old ring sees it marked DETACHED.
#
# clear: clears while fio runs leave the module stable and the ring
# consistent (completed = present + overwritten + dropped), and a recording
# across them writes no record twice; after the last
# clear a known workload is counted exactly against /sys/block stat.
#
# <disk>/trace: a reader open across a resize (to metrics only, to a
# smaller ring) or a clear gets the end of the file, and no oops.  Take
# numbers: the chunks used after a clear have take numbers above every
# one before it.  A seek far into the trace lets control operations in.
# VM-CHECK: newest
# VM-TIMEOUT: 600
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace disks=$disk buf_size=256K
udevadm control --stop-exec-queue 2> /dev/null

fio_pids=()
run_fio() { # SECONDS
	local cpu
	fio_pids=()
	for cpu in 0 1; do
		fio --name=j$cpu --filename=/dev/$disk --direct=1 \
		    --ioengine=libaio --iodepth=8 --rw=randrw --bs=4k \
		    --time_based --runtime="$1" --size=256m \
		    --offset=$((cpu * 256))m --cpus_allowed=$cpu \
		    --output="$out/fio.$cpu" &
		fio_pids+=($!)
	done
}

st() { # KEY
	kv "$out/state" "$1"
}

# ---- resize --------------------------------------------------------
"$IOTRACECTL" clear $disk
g0=$(iot_stat $disk generation)
# a reader holding the first ring mapped for the whole run; prints its
# header's flags when $out/go appears
python3 - "$IOT/$disk/ring" "$out" <<'PY' &
import ctypes, os, sys, time
# debugfs files have size 0: Python's mmap module refuses them, libc does not
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
addr = libc.mmap(None, 4096, 1, 1, fd, 0)     # PROT_READ, MAP_SHARED
if addr in (None, ctypes.c_void_p(-1).value):
    sys.exit('mmap: %s' % os.strerror(ctypes.get_errno()))
open(sys.argv[2] + '/mapped', 'w').close()
while not os.path.exists(sys.argv[2] + '/go'):
    time.sleep(0.1)
flags = ctypes.c_uint32.from_address(addr + 28).value
gen = ctypes.c_uint64.from_address(addr + 64).value
open(sys.argv[2] + '/oldring', 'w').write('%d %d\n' % (flags, gen))
PY
mapper=$!
while [ ! -e "$out/mapped" ] && kill -0 "$mapper" 2> /dev/null; do
	sleep 0.2
done
ktap_check "a reader mapped the first ring" test -e "$out/mapped"
before=$(blk_ios $disk)
run_fio 12
( while sleep 0.3; do
	"$IOTRACECTL" stats $disk > /dev/null 2>&1
	head -c 100000 "$IOT/$disk/trace" > /dev/null
  done ) &
reader=$!
sizes="128K 1M 64K 512K"
ok=1
for s in $sizes; do
	sleep 2
	"$IOTRACECTL" resize $disk $s || ok=0
done
wait "${fio_pids[@]}"
kill "$reader" 2> /dev/null
wait "$reader" 2> /dev/null
after=$(blk_ios $disk)
ktap_check "four resizes under fio accepted" test $ok = 1
"$IOTRACECTL" state $disk > "$out/state"
sed 's/^/# /' "$out/state"
delta=$((after - before))
log "/sys/block stat delta $delta"
# enough I/O that the resizes ran under it: the KASAN kernel did 376
# requests in these 12 s, the others several thousand
min_ios=$(kdebug_or 1000 100)
ktap_check "fio did I/O ($delta > $min_ios)" test "$delta" -gt "$min_ios"
ktap_check "total_completed ($(st total_completed)) = /sys/block stat delta ($delta)" \
	test "$(st total_completed)" -eq "$delta"
ktap_check "total_completed = total_recorded + total_dropped + total_filtered" \
	test "$(st total_completed)" -eq $(($(st total_recorded) + \
		$(st total_dropped) + $(st total_filtered)))
ktap_check "resizes: 4" test "$(st resizes)" -eq 4
ktap_check "generation moved on once per resize" \
	test "$(iot_stat $disk generation)" -eq $((g0 + 4))
ktap_check "ring has the last size (512K)" test "$(st buf_size)" -eq 524288
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
sed 's/^/# ringcheck: /' "$out/check"
ktap_check "new ring intact" test $rc -eq 0
ktap_check "new ring: completed = recorded + dropped (netlink)" \
	test "$(kv "$out/check" completed)" -eq $(($(st recorded) + $(st dropped)))
# the first ring, still mapped: its header says it is final
touch "$out/go"
wait "$mapper"
read -r flags gen < "$out/oldring" || flags=0 gen=-1
ktap_check "the replaced ring, still mapped, is marked DETACHED (flags $flags)" \
	test $((flags & 2)) -eq 2
ktap_check "and keeps its generation ($gen = $g0)" test "$gen" -eq "$g0"

# ---- clear ---------------------------------------------------------
# iotracectl record runs through the clears: a clear in the middle of its
# pass over the CPUs' parts made it write the new records twice and its
# lost count wrap (it took the new cursor against the old start).
"$IOTRACECTL" record $disk -o "$out/clear.trace" 2> "$out/clear.err" &
recorder=$!
run_fio 8
ok=1
for _ in 1 2 3 4 5 6; do
	sleep 1
	"$IOTRACECTL" clear $disk || ok=0
done
wait "${fio_pids[@]}"
ktap_check "six clears under fio accepted" test $ok = 1
kill -INT $recorder
wait $recorder
rc=$?
sed 's/^/# record: /' "$out/clear.err"
written=$(sed -n 's/.*: \([0-9]*\) records written, \([0-9]*\) lost.*/\1/p' "$out/clear.err")
lost=$(sed -n 's/.*: \([0-9]*\) records written, \([0-9]*\) lost.*/\2/p' "$out/clear.err")
"$IOTRACECTL" show -o csv "$out/clear.trace" | grep -v '^disk,' > "$out/clear.csv"
dups=$(sort "$out/clear.csv" | uniq -d | wc -l)
# the KASAN kernel's guest wrote 551 in fio's 8 s (under host load).
ktap_check "record across the clears: exit $rc, $written written, lost $lost (no wrap)" \
	test $rc -eq 0 -a "${written:-0}" -gt "$(kdebug_or 1000 200)" -a "${#lost}" -le 12
ktap_check "its file has the $written records, none twice ($(wc -l < "$out/clear.csv") rows, $dups twice)" \
	test "$(wc -l < "$out/clear.csv")" -eq "${written:--1}" -a "$dups" -eq 0
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
ktap_check "ring intact after clears under fio" test $rc -eq 0
ktap_check "completed = present + overwritten + dropped" \
	test "$(iot_stat $disk completed)" -eq $(($(iot_stat $disk present) + \
		$(iot_stat $disk overwritten) + $(iot_stat $disk dropped)))
"$IOTRACECTL" clear $disk
before=$(blk_ios $disk)
dd if=/dev/$disk of=/dev/null bs=4k count=3000 iflag=direct 2> /dev/null
after=$(blk_ios $disk)
"$IOTRACECTL" state $disk > "$out/state"
ktap_check "after the last clear: total_completed ($(st total_completed)) = stat delta ($((after - before)))" \
	test "$(st total_completed)" -eq $((after - before))
ktap_check "clear restarted the totals (resizes 0)" test "$(st resizes)" -eq 0

# ---- <disk>/trace open across a resize and a clear ------------------
# The text view keeps its walk between read()s.  A resize in between left
# it walking chunks of the freed ring in the new one: to metrics only, a
# ring of headers with no chunk, the first chunk header it read was past
# the end of the mapping (an oops in the reader, the module's mutex held).
# Now the file ends; a read from offset 0 walks the new ring.
trace_across() { # WHAT: read up to 4 KiB, do WHAT, read the rest
	dd if=/dev/$disk of=/dev/null bs=4k count=4000 iflag=direct 2> /dev/null
	exec 3< "$IOT/$disk/trace"
	dd bs=4096 count=1 of="$out/trace.head" <&3 2> /dev/null
	"$@"
	timeout 30 cat <&3 > "$out/trace.rest"
	rc=$?
	exec 3<&-
}
trace_across "$IOTRACECTL" resize $disk 0
ktap_check "a trace reader read its first lines before the resize ($(wc -c < "$out/trace.head") bytes)" \
	test "$(wc -c < "$out/trace.head")" -gt 1000
ktap_check "after a resize to metrics only it ends (cat rc $rc, $(wc -c < "$out/trace.rest") bytes more)" \
	test $rc -eq 0 -a ! -s "$out/trace.rest"
ktap_check "read again, the ring of no chunks has the header line only" \
	test "$(timeout 30 cat "$IOT/$disk/trace" | wc -l)" -eq 1
"$IOTRACECTL" resize $disk 256K
trace_across "$IOTRACECTL" resize $disk 64K
ktap_check "after a resize to a smaller ring it ends (cat rc $rc, $(wc -c < "$out/trace.rest") bytes more)" \
	test $rc -eq 0 -a ! -s "$out/trace.rest"
trace_across "$IOTRACECTL" clear $disk
ktap_check "after a clear it ends (cat rc $rc, $(wc -c < "$out/trace.rest") bytes more)" \
	test $rc -eq 0 -a ! -s "$out/trace.rest"
dd if=/dev/$disk of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
n=$(timeout 30 cat "$IOT/$disk/trace" | wc -l)
ktap_check "read again after the clear: the header and the 100 new reads ($((n - 1)))" \
	test "$n" -eq 101

# take numbers across a clear: the chunks' uses after it are numbered
# above every use before it.  A clear restarted them at 1: the chunk
# taken first after it could be the same chunk, CPU and first sequence
# number under the same take number as before, and a reader copying
# across the clear kept records of both uses as one.
dd if=/dev/$disk of=/dev/null bs=4k count=2000 iflag=direct 2> /dev/null
"$RINGCHECK" takes "$IOT/$disk/ring" > "$out/takes0"
"$IOTRACECTL" clear $disk
dd if=/dev/$disk of=/dev/null bs=4k count=2000 iflag=direct 2> /dev/null
"$RINGCHECK" takes "$IOT/$disk/ring" > "$out/takes1"
max0=$(kv "$out/takes0" take_max)
min1=$(kv "$out/takes1" take_min)
ktap_check "a clear does not restart take numbers (before: up to $max0, after: from $min1)" \
	test "$max0" -gt 0 -a "$min1" -gt "$max0"

# ---- a seek far into <disk>/trace ------------------------------------
# seq_file walks every record before the offset of an lseek() or pread()
# between one start() and stop().  The walk held the module's mutex from
# the first record to the last, so every control operation (and a disk's
# removal) waited for it: a 1 GiB ring holds 8 Mi records.  It now lets
# the mutex go every 1,024 records: a clear during a pread() 60% into
# 200,000 records gets in and ends the walk.  A whole read with stats
# read beside it (they take the mutex) still has every record.
"$IOTRACECTL" resize $disk 32M
dd if=/dev/$disk of=/dev/null bs=4k count=200000 iflag=direct 2> /dev/null
present=$(iot_stat $disk present)
# One pread() 60% into the file: seq_file walks every record before
# that offset and reads on, in one call.  0.1 s in, another thread clears
# the ring through debugfs (the mutex).  Held up behind the walk, the
# clear waited for it and the pread() returned bytes of the record at the
# offset (6.12: 2, the rest of its line, before the next record's turn saw
# the clear).  Now the clear gets the mutex at the walk's next pause, and
# the walk, finding the ring cleared, ends the file there: 0 bytes.
g0=$(iot_stat $disk generation)
python3 -c '
import os, sys, threading, time
fd = os.open(sys.argv[1], os.O_RDONLY)
def clear():
    time.sleep(0.1)
    with open(sys.argv[2], "w") as f:
        f.write("1")
t = threading.Thread(target=clear)
t.start()
start = time.monotonic()
n = len(os.pread(fd, 4096, int(sys.argv[3])))
took = time.monotonic() - start
t.join()
print("%d %.3f" % (n, took))
' "$IOT/$disk/trace" "$IOT/$disk/clear" $((present * 50)) > "$out/seek"
rc=$?
read -r n took < "$out/seek"
g1=$(iot_stat $disk generation)
log "pread at $((present * 50)): ${n:-?} bytes in ${took:-?} s; generation $g0 -> $g1"
ktap_check "the ring held the 200,000 reads ($present records)" \
	test "$present" -ge 200000
ktap_check "a clear during a long pread() got in: generation $g0 -> $g1 (rc $rc)" \
	test $rc -eq 0 -a "$g1" -gt "$g0"
ktap_check "and ended the walk before the offset: the pread() read ${n:-nothing} bytes" \
	test "${n:--1}" -eq 0
dd if=/dev/$disk of=/dev/null bs=4k count=100000 iflag=direct 2> /dev/null
present=$(iot_stat $disk present)
( while :; do cat "$IOT/$disk/stats" > /dev/null; done ) &
reader=$!
lines=$(timeout 300 cat "$IOT/$disk/trace" | wc -l)
kill $reader
wait $reader 2> /dev/null
ktap_check "a whole read beside stats readers has every record ($((lines - 1)))" \
	test "$lines" -eq $((present + 1))

udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
ktap_check "module unloads" test ! -e /sys/module/iotrace
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
