#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# metrics_off: the module loaded metrics=N (issue 22's per-feature line:
# no counters or histograms per request).  buf_size=0 with it fails the
# load (nothing left to do), and so does metrics=maybe; the status file
# says "metrics: 0" and no disk
# has a metrics file; every request is still recorded (fio's write_iolog
# and the /sys/block stat delta); GET_METRICS, reset-metrics and a resize
# to 0 fail saying why; the triggers still fire on latency (the
# completion's summary is still made for them) and not above it; the
# exporter serves an exposition without the disk and says why once; the
# default load keeps metrics again, and the exporter, running on, serves
# the disk again and says why once more after another load metrics=N.
# VM-CHECK: all
# (a module option's path: make check-all only, to keep make check
#   within its hour)
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
PORT=9662
ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null

# get URL - the body of a GET, or fail
get() {
	python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' "$1"
}

# st DISK KEY - a line of 'iotracectl state'
st() {
	"$IOTRACECTL" state "$1" | sed -n "s/^$2: //p"
}

nullb_mod nr_devices=1 submit_queues=2 irqmode=2 completion_nsec=100000 gb=1
disk=nullb0
quiet_disk $disk
udevadm control --stop-exec-queue 2> /dev/null

unload_iotrace
# the kernel log is kept whole: the last check reads the boot's part too
nlog=$(dmesg | wc -l)
insmod "$IOTRACE_KO" buf_size=0 metrics=N disks=$disk 2> "$out/insmod.err"
rc=$?
dmesg | tail -n +$((nlog + 1)) > "$out/insmod.dmesg"
sed 's/^/# dmesg: /' "$out/insmod.dmesg"
ktap_check "buf_size=0 metrics=N refused at load (exit $rc), saying why" \
	sh -c "[ $rc != 0 ] && ! grep -q '^iotrace ' /proc/modules &&
	       grep -q 'metrics=N keeps none' '$out/insmod.dmesg'"

insmod "$IOTRACE_KO" metrics=maybe disks=$disk 2> /dev/null
rc=$?
ktap_check "metrics=maybe refused at load (exit $rc)" \
	sh -c "[ $rc != 0 ] && ! grep -q '^iotrace ' /proc/modules"

load_iotrace metrics=N disks=$disk
ktap_check "status says metrics: 0" test "$(iot_status metrics)" = 0
ktap_check "$disk has no metrics file, its ring and stats are there" \
	test ! -e "$IOT/$disk/metrics" -a -e "$IOT/$disk/ring" -a \
	-e "$IOT/$disk/stats"

# ---- every request recorded ----------------------------------------------
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
for cpu in 0 1; do
	fio --name="j$cpu" --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=8 --rw=randrw --bs=4k --number_ios=1000 --size=128m \
	    --offset=$((cpu * 128))m --cpus_allowed=$cpu \
	    --write_iolog="$out/iolog.$cpu" --output=/dev/null &
done
wait
after=$(blk_ios $disk)
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$out/check"
ktap_check "the ring is intact" test $rc -eq 0
"$RINGCHECK" dump "$IOT/$disk/ring" | sort > "$out/ring"
fio_log_vs_ring "$out" 2000 "$out"/iolog.[01]
ring_counts_vs_stat "$out/check" $((after - before))

# ---- what needs the metrics says why -------------------------------------
"$IOTRACECTL" stats --kernel $disk > "$out/stats" 2>&1
rc=$?
sed 's/^/# stats --kernel: /' "$out/stats"
ktap_check "stats --kernel fails (exit $rc): the module keeps no metrics" \
	sh -c "[ $rc != 0 ] && grep -q 'keeps no metrics (loaded with metrics=N)' '$out/stats'"
"$IOTRACECTL" reset-metrics $disk > "$out/reset" 2>&1
rc=$?
sed 's/^/# reset-metrics: /' "$out/reset"
ktap_check "reset-metrics fails (exit $rc), saying why" \
	sh -c "[ $rc != 0 ] && grep -q 'metrics=N' '$out/reset'"
"$IOTRACECTL" resize $disk 0 > "$out/resize" 2>&1
rc=$?
sed 's/^/# resize 0: /' "$out/resize"
chunks=$(iot_stat $disk nr_chunks)
ktap_check "resize to 0 (metrics only) refused (exit $rc), saying why; the ring stays ($chunks chunks)" \
	sh -c "[ $rc != 0 ] && grep -q 'metrics=N' '$out/resize' && [ '$chunks' != 0 ]"

# ---- triggers without metrics --------------------------------------------
"$IOTRACECTL" trigger $disk read-lat=5s || ktap_fail "trigger read-lat=5s"
dd if=/dev/$disk of=/dev/null bs=4k count=20 iflag=direct 2> /dev/null
ktap_check "read-lat=5s: no hit on 100 us reads" \
	test "$(st $disk trigger_hits)" = 0
"$IOTRACECTL" trigger $disk read-lat=20us || ktap_fail "trigger read-lat=20us"
dd if=/dev/$disk of=/dev/null bs=4k count=20 iflag=direct 2> /dev/null
hits=$(st $disk trigger_hits)
ktap_check "read-lat=20us: every one of 20 reads of 100 us hits ($hits)" \
	test "${hits:-0}" -eq 20
"$IOTRACECTL" trigger $disk off

# ---- the exporter --------------------------------------------------------
"$IOTRACECTL" exporter --listen 127.0.0.1:$PORT 2> "$out/exporter.log" &
exp_pid=$!
end=$((SECONDS + 30))
until get http://127.0.0.1:$PORT/metrics > "$out/a.prom" 2> /dev/null; do
	[ $SECONDS -lt $end ] || break
	sleep 0.5
done
get http://127.0.0.1:$PORT/metrics > "$out/b.prom"
rc=$?
ktap_check "the exporter serves (exit $rc), without $disk" \
	sh -c "[ $rc = 0 ] && ! grep -q 'disk=\"$disk\"' '$out/b.prom'"
ktap_check "the exporter said why once, not at every scrape" \
	test "$(grep -c 'keeps no metrics' "$out/exporter.log")" -eq 1

# ---- the default keeps them (the exporter running on) --------------------
load_iotrace disks=$disk
ktap_check "loaded again without metrics=N: metrics: 1 and a metrics file" \
	test "$(iot_status metrics)" = 1 -a -e "$IOT/$disk/metrics"
"$IOTRACECTL" stats --kernel $disk > /dev/null 2>&1
ktap_check "stats --kernel works again" test $? -eq 0
get http://127.0.0.1:$PORT/metrics > "$out/c.prom"
ktap_check "the exporter serves $disk again" \
	grep -q "disk=\"$disk\"" "$out/c.prom"
# and a reload with metrics=N is said again
load_iotrace metrics=N disks=$disk
get http://127.0.0.1:$PORT/metrics > "$out/d.prom"
get http://127.0.0.1:$PORT/metrics > "$out/d.prom"
kill $exp_pid
wait $exp_pid 2> /dev/null
sed 's/^/# exporter: /' "$out/exporter.log"
ktap_check "after a reload with metrics=N the exporter says why again, once" \
	test "$(grep -c 'keeps no metrics' "$out/exporter.log")" -eq 2

udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
