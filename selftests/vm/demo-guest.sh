#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The "make demo" guest: iotrace on a null_blk disk (100 us completion
# latency) and an emulated NVMe disk while fio runs a mixed random
# workload on both; then what iotrace shows, a latency trigger firing on
# an injected slow command and the snapshot it saved, and last a
# Prometheus server scraping "iotracectl exporter" answers "p99 read
# latency of the NVMe disk" from the in-kernel histograms.  The rings live
# in memory reserved at boot (persist=): at the end a read is left stuck
# in a scsi_debug disk and the guest panics; after the reboot, "iotracectl
# previous" shows the last requests and the stuck command of the boot that
# died.
# VM-DEVICES: nvme
# VM-TIMEOUT: 600
# VM-REBOOTS: 1
# VM-CMDLINE: reserve_mem=128M:4096:iotrace memmap=128M$0x30000000 nokaslr
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

IOT=/sys/kernel/debug/iotrace
banner() { printf '\n======== %s\n' "$*"; }

# the region persist= names: reserve_mem= (6.11 and newer), else memmap=
if grep -qw reserve_mem_find_by_name /proc/kallsyms; then
	PERSIST=iotrace
else
	PERSIST=128M@0x30000000
fi

vm_phase
if [ "$VM_PHASE" = 2 ]; then
	banner "after the panic: a new boot; insmod iotrace.ko persist=$PERSIST disks=none"
	insmod "$IOTRACE_KO" persist=$PERSIST disks=none || die "insmod failed"
	dmesg | grep 'iotrace: persist'
	banner "iotracectl previous: the boot that died, its rings and what was in flight"
	"$IOTRACECTL" previous --rings /tmp/prev
	for d in nullb0 $(cat "$IOTRACE_OUT/demo.stuck"); do
		[ -e /tmp/prev/$d.ring ] || continue
		banner "the last requests on $d before the panic: iotracectl show /tmp/prev/$d.ring | tail -n 5"
		"$IOTRACECTL" show /tmp/prev/$d.ring | tail -n 5
	done
	banner "iotracectl previous -o /tmp/prev.iot (what iotrace.service saves); info and inflight of the file"
	"$IOTRACECTL" previous -o /tmp/prev.iot > /dev/null &&
		"$IOTRACECTL" info /tmp/prev.iot && "$IOTRACECTL" inflight /tmp/prev.iot
	rmmod iotrace
	echo
	echo "demo done"
	exit 0
fi

banner "kernel $KVER; disks"
modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=100000 \
	submit_queues=2 hw_queue_depth=64 || die "modprobe null_blk failed"
wait_for /dev/nullb0 10 || die "no /dev/nullb0"
nvme=$(first_disk 'nvme*n1') || die "no NVMe disk"
lsblk -d -o NAME,SIZE,MODEL,TRAN /dev/nullb0 /dev/$nvme 2>/dev/null ||
	ls /sys/block

banner "insmod iotrace.ko buf_size=16M disks=nullb0,$nvme persist=$PERSIST"
insmod "$IOTRACE_KO" buf_size=16M disks=nullb0,$nvme persist=$PERSIST ||
	die "insmod failed"
if [ -x "$IOTRACECTL" ]; then
	# what the installed udev rule (60-iotrace.rules) runs, with
	# --quiet, as iotrace or nvme_core loads: the NVMe driver's private
	# layout from its BTF, so that the records carry each command's
	# completion status
	banner "iotracectl nvme-layout (the installed udev rule runs it when iotrace or nvme_core loads)"
	"$IOTRACECTL" nvme-layout 2>&1 || echo "(nvme-layout failed: exit $?)"
	# and, as a disk or the module comes: who each disk is, which the
	# module keeps beside its rings for the boot after a crash
	banner "iotracectl identify (the installed udev rule runs it as a disk or iotrace comes)"
	"$IOTRACECTL" identify nullb0 $nvme 2>&1 || echo "(identify failed: exit $?)"
fi
[ -r $IOT/status ] && cat $IOT/status
ls $IOT

banner "fio: 4 s of 70/30 random read/write, 4k-64k, QD8, on both disks"
fio --output-format=normal --group_reporting=0 --direct=1 --ioengine=libaio \
	--rw=randrw --rwmixread=70 --bssplit=4k/60:16k/25:64k/15 --iodepth=8 \
	--time_based --runtime=4 --size=512m \
	--name=nullb0 --filename=/dev/nullb0 \
	--name=$nvme --filename=/dev/$nvme > /tmp/fio.out 2>&1
grep -E '^[a-z0-9]+: \(groupid|^  (read|write): IOPS|lat \(usec\): min' /tmp/fio.out

for d in nullb0 $nvme; do
	banner "$d: cat $IOT/$d/stats"
	cat $IOT/$d/stats 2>/dev/null || echo "(no stats file)"
	banner "$d: head -n 12 $IOT/$d/trace"
	head -n 12 $IOT/$d/trace 2>/dev/null || echo "(no trace file)"
	banner "$d: cat $IOT/$d/inflight"
	cat $IOT/$d/inflight 2>/dev/null || echo "(no inflight file)"
done

# promql QUERY - the value of an instant query through Prometheus' HTTP API
promql() {
	python3 - "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
u = ('http://127.0.0.1:9090/api/v1/query?' +
     urllib.parse.urlencode({'query': sys.argv[1]}))
try:
    res = json.load(urllib.request.urlopen(u, timeout=20))['data']['result']
except OSError as e:
    sys.exit('prometheus did not answer: %s' % e)
print(res[0]['value'][1] if res else '(no answer yet)')
EOF
}

# The exporter on 127.0.0.1:9661, Prometheus scraping it every second,
# 8 s of random reads on the NVMe disk, then the p99 question.
prometheus_demo() {
	local q i exp prom

	banner "iotracectl exporter + prometheus (scrape every 1 s); fio: 8 s of 4k random reads on $nvme"
	# the guest's loopback is down until someone brings it up
	ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null
	"$IOTRACECTL" exporter --listen 127.0.0.1:9661 2> /tmp/exporter.log &
	exp=$!
	cat > /tmp/prometheus.yml <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: iotrace
    static_configs:
      - targets: ['127.0.0.1:9661']
EOF
	prometheus --config.file=/tmp/prometheus.yml \
		--storage.tsdb.path=/tmp/prom --web.listen-address=127.0.0.1:9090 \
		> /tmp/prometheus.log 2>&1 &
	prom=$!
	for i in $(seq 120); do
		[ "$(promql 'up{job="iotrace"}' 2> /dev/null)" = 1 ] && break
		sleep 1
	done
	fio --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
		--time_based --runtime=8 --size=512m --name=r \
		--filename=/dev/$nvme > /dev/null 2>&1
	sleep 3
	q="histogram_quantile(0.99, sum by (le) (rate(iotrace_request_duration_seconds_bucket{disk=\"$nvme\",op=\"read\"}[15s])))"
	echo "PromQL: $q"
	echo "p99 read latency of $nvme: $(promql "$q") s"
	q="sum(rate(iotrace_requests_total{disk=\"$nvme\",op=\"read\"}[15s]))"
	echo "PromQL: $q"
	echo "read IOPS of $nvme: $(promql "$q")"
	banner "the same from the kernel: iotracectl stats --kernel $nvme"
	"$IOTRACECTL" stats --kernel $nvme 2>&1 | head -n 12
	kill "$prom" "$exp" 2> /dev/null
	wait "$prom" "$exp" 2> /dev/null
}

# The flight recorder: "iotracectl watch" with a latency trigger on a
# scsi_debug disk, one slow command injected (scsi_debug's ndelay raised
# to 800 ms for one read), and the snapshot file the kernel's trigger
# event made the watcher save: the ring's history before it, the slow
# read flagged [trigger], and what completed in the second after it.
# (Under TCG a read can be slow by itself: the file shown is the one
# whose trigger is the injected read, at sector 32000.)
trigger_demo() {
	local sd='' d snap=/tmp/snap sdbg=/sys/bus/pseudo/drivers/scsi_debug
	local f wpid

	banner "the flight recorder: iotracectl watch, a read-lat=400ms trigger, one 800 ms read injected"
	modprobe scsi_debug dev_size_mb=64 2> /dev/null || {
		echo "(no scsi_debug module: trigger demo skipped)"
		return
	}
	for _ in $(seq 100); do
		for d in /sys/block/sd*; do
			grep -q scsi_debug "$d/device/model" 2> /dev/null &&
				sd=$(basename "$d")
		done
		[ -n "$sd" ] && break
		sleep 0.2
	done
	[ -n "$sd" ] || { echo "(no scsi_debug disk appeared)"; return; }
	settle
	printf 'post = 1\n[disk %s]\ntrigger = read-lat=400ms\n' "$sd" \
		> /tmp/iotrace.conf
	echo "# /tmp/iotrace.conf:"
	sed 's/^/#   /' /tmp/iotrace.conf
	echo "\$ iotracectl watch --config /tmp/iotrace.conf --dir $snap &"
	IOTRACE_RUN_DIR=/tmp/run "$IOTRACECTL" watch --config /tmp/iotrace.conf \
		--dir $snap 2> /tmp/watch.log &
	wpid=$!
	for _ in $(seq 100); do
		grep -q 'ready:' /tmp/watch.log && break
		sleep 0.2
	done
	"$IOTRACECTL" list | sed -n "1p; /^$sd /p"
	echo "\$ 200 fast reads, then: echo 800000000 > $sdbg/ndelay; one read at sector 32000; echo 0 > $sdbg/ndelay; 50 fast reads"
	dd if=/dev/$sd of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
	echo 800000000 > $sdbg/ndelay
	dd if=/dev/$sd of=/dev/null bs=4k count=1 skip=4000 iflag=direct 2> /dev/null
	echo 0 > $sdbg/ndelay
	dd if=/dev/$sd of=/dev/null bs=4k count=50 skip=200 iflag=direct 2> /dev/null
	for _ in $(seq 100); do
		ls $snap/iotrace-*.iot > /dev/null 2>&1 && break
		sleep 0.2
	done
	sleep 1.5	# the snapshot's --post
	kill "$wpid"
	wait "$wpid"
	echo "# the watcher's log:"
	sed 's/^/#   /' /tmp/watch.log
	f=
	for d in $snap/iotrace-*.iot; do
		[ -e "$d" ] || continue
		"$IOTRACECTL" show --around-trigger=1 "$d" 2> /dev/null |
			grep -q ' 32000 .*\[trigger\]' && f=$d
	done
	[ -n "$f" ] || f=$(ls $snap/iotrace-*.iot 2> /dev/null | tail -n 1)
	[ -n "$f" ] || { echo "(no snapshot was saved)"; return; }
	banner "the snapshot: ls -l; iotracectl info; show --around-trigger=3"
	ls -l $snap
	"$IOTRACECTL" info "$f"
	echo "\$ iotracectl show --around-trigger=3 $(basename "$f")"
	"$IOTRACECTL" show --around-trigger=3 "$f"
}

# The crash: a read the scsi_debug disk holds for 2 minutes, then a panic
# (as a hung disk ends with a watchdog or an admin's sysrq).
crash_demo() {
	local sd='' d sdbg=/sys/bus/pseudo/drivers/scsi_debug

	for d in /sys/block/sd*; do
		grep -qs scsi_debug "$d/device/model" && sd=$(basename "$d")
	done
	[ -n "$sd" ] || { echo "(no scsi_debug disk: no crash demo)"; return; }
	banner "the crash: one read stuck in $sd (scsi_debug delay 2 min), then echo c > /proc/sysrq-trigger"
	echo "$sd" > "$IOTRACE_OUT/demo.stuck"
	"$IOTRACECTL" identify --quiet $sd
	echo 600 > /sys/block/$sd/device/timeout
	echo 30000 > $sdbg/delay
	dd if=/dev/$sd of=/dev/null bs=4k count=1 skip=1234 iflag=direct 2> /dev/null &
	sleep 2
	"$IOTRACECTL" inflight $sd
	vm_reboot panic
}

if [ -x "$IOTRACECTL" ]; then
	trigger_demo
	banner "iotracectl list"
	"$IOTRACECTL" list
	for d in nullb0 $nvme; do
		banner "iotracectl stats $d"
		"$IOTRACECTL" stats $d
		banner "iotracectl show $d --op write --lat-min 1000 | head -n 12 (writes slower than 1 ms)"
		"$IOTRACECTL" show $d --op write --lat-min 1000 2>&1 | head -n 12
	done
	banner "iotracectl record: both disks to a trace file for 2 s of reads"
	"$IOTRACECTL" record nullb0 $nvme -o /tmp/demo.iot --duration 3 &
	fio --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
		--time_based --runtime=2 --size=512m --name=r --filename=/dev/$nvme \
		> /dev/null 2>&1
	wait
	ls -l /tmp/demo.iot
	"$IOTRACECTL" stats /tmp/demo.iot --disk $nvme 2>&1 | head -n 5
	if command -v prometheus > /dev/null; then
		prometheus_demo
	else
		banner "no prometheus here (apt-get install prometheus): exporter not shown"
	fi
else
	banner "iotracectl is not built (make tools); debugfs views only"
fi
[ -x "$IOTRACECTL" ] && crash_demo
rmmod iotrace
echo
echo "demo done"
