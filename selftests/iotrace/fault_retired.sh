#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault_retired: a ring replaced by a resize while a reader maps it is kept
# for that reader (its mapping stays valid) and freed once its own last
# mapping is gone - not only when the disk goes, and not later because
# some other ring file is still open.
#
# A reader maps nullb0's ring (32M), three resizes (64K, 32M, 64K) replace
# it under fio: the reader's ring must stay allocated while it maps it
# (its view stays intact and DETACHED), the other 32M ring, replaced while
# nobody mapped it, must be freed at once although a ring file is open, and
# vmalloc use (/proc/meminfo VmallocUsed, the kernel's own count) must fall
# back once the reader has exited, with the disk still present.
#
# A reader that keeps the current ring mapped for good, while six more
# resizes replace it and the rings after it, keeps that one ring allocated,
# not every ring replaced since it opened the file.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/fault_lib.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace disks=$disk buf_size=64K
vmalloc_kb() {
	sed -n 's/^VmallocUsed: *\([0-9]*\) kB/\1/p' /proc/meminfo
}
fault_fio bg $disk 0
dd if=/dev/$disk of=/dev/null bs=4k count=2000 iflag=direct 2> /dev/null
v0=$(vmalloc_kb)
ok=1
"$IOTRACECTL" resize $disk 32M || ok=0
big=$(($(iot_stat $disk ring_size) / 1024))
"$RINGCHECK" hold "$IOT/$disk/ring" "$out/go" > "$out/hold" &
holder=$!
fault_wait_line "$out/hold" '^mapped: 1' 30
for s in 64K 32M 64K; do
	"$IOTRACECTL" resize $disk $s || ok=0
done
ktap_check "four resizes under fio accepted" test $ok = 1
v1=$(vmalloc_kb)
log "VmallocUsed: ${v0} kB before, ${v1} kB with the reader; a 32M ring is $big kB"
ktap_check "the reader's replaced ring kept while it maps it (+$((v1 - v0)) kB)" \
	test $((v1 - v0)) -ge $((big - 1024))
ktap_check "a replaced ring nobody maps freed at once, ring file open or not" \
	test $((v1 - v0)) -lt $((2 * big - 1024))
touch "$out/go"
wait $holder
hrc=$?
sed 's/^/# reader: /' "$out/hold"
ktap_check "the reader's mapping of the first ring stayed intact" test $hrc -eq 0
ktap_check "and DETACHED" grep -q '^detached: 1' "$out/hold"
v2=$(vmalloc_kb)
log "VmallocUsed: ${v2} kB after the reader exited"
ktap_check "replaced rings freed once the last reader closed (+$((v2 - v0)) kB left)" \
	test $((v2 - v0)) -lt $((big / 2))
"$IOTRACECTL" resize $disk 32M
"$IOTRACECTL" resize $disk 64K
v3=$(vmalloc_kb)
ktap_check "resizes with no reader keep nothing (+$((v3 - v0)) kB)" \
	test $((v3 - v0)) -lt $((big / 2))
"$RINGCHECK" hold "$IOT/$disk/ring" "$out/go2" > "$out/hold2" &
holder=$!
fault_wait_line "$out/hold2" '^mapped: 1' 30
v4=$(vmalloc_kb)
ok=1
for s in 32M 64K 32M 64K 32M 64K; do
	"$IOTRACECTL" resize $disk $s || ok=0
done
v5=$(vmalloc_kb)
log "VmallocUsed: ${v4} kB with a permanent reader, ${v5} kB after six resizes"
ktap_check "six resizes with a permanent reader accepted" test $ok = 1
ktap_check "rings replaced after the reader's own are freed at once (+$((v5 - v4)) kB)" \
	test $((v5 - v4)) -lt $((big / 2))
touch "$out/go2"
wait $holder
ktap_check "the permanent reader's ring stayed intact" test $? -eq 0
fault_fio_stop
"$RINGCHECK" follow "$IOT/$disk/ring" "$out/stop" > /dev/null &
follower=$!
sleep 1
touch "$out/stop"
wait $follower
ktap_check "the current ring maps and reads" test $? -eq 0
unload_iotrace
ktap_check "module unloads" test ! -e /sys/module/iotrace
ktap_check "no oops, WARN, BUG or corruption report in the kernel log" fault_splat
rm -rf "$out"
ktap_finish
