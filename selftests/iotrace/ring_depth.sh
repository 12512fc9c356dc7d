#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ring_depth (issue 16): the ring keeps about buf_size / 128 records
# whatever the CPU count and wherever completions land.  On 8 CPUs with a
# 1 MiB ring (4 MiB in the issue; smaller for TCG): all I/O completing on one CPU, on every CPU, and moving from
# one CPU to another half way; each time present >= 0.9 x the pool's
# records, every record intact and contiguous per CPU, completed = the
# /sys/block stat delta.  Then buf_size at the bottom, odd sizes and large:
# ring_size within 5% of buf_size.  Then the busy marker (issue 15 item
# 4): sequence numbers started just below 2^32 (debug_seq_start, a debug
# build's parameter) wrap and every record still validates.
# VM-TIMEOUT: 600
# VM-SMP: 8
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header 20
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=8 irqmode=0
disk=nullb0
quiet_disk $disk
ncpu=$(nproc)
last=$((ncpu - 1))

# run NAME CPU-LIST IOS-PER-JOB: one fio job per CPU, one after another
# for a list "a:b" (a moving load), at the same time for "a,b,...".  Each
# job logs its I/O (write_iolog) to $out/NAME.iolog.CPU.
run() {
	local name=$1 cpus=$2 n=$3 c
	echo 1 > "$IOT/$disk/clear"
	before=$(blk_ios $disk)
	if [[ $cpus == *:* ]]; then
		for c in ${cpus//:/ }; do
			fio --name=$name$c --filename=/dev/$disk --direct=1 \
			    --ioengine=psync --rw=randread --bs=4k \
			    --number_ios=$n --size=1g --cpus_allowed=$c \
			    --write_iolog="$out/$name.iolog.$c" --output=/dev/null
		done
	else
		for c in ${cpus//,/ }; do
			fio --name=$name$c --filename=/dev/$disk --direct=1 \
			    --ioengine=psync --rw=randread --bs=4k \
			    --number_ios=$n --size=1g --cpus_allowed=$c \
			    --write_iolog="$out/$name.iolog.$c" --output=/dev/null &
		done
		wait
	fi
	after=$(blk_ios $disk)
	echo 0 > "$IOT/$disk/enable"
	"$RINGCHECK" check "$IOT/$disk/ring" > "$out/$name"
	rc=$?
	grep -v '^# cpu' "$out/$name" | sed "s/^/# $name: /"
	present=$(kv "$out/$name" present)
	cap=$(kv "$out/$name" ring_records)
	delta=$((after - before))
	ktap_check "$name: every record intact, contiguous per CPU" test $rc -eq 0
	ktap_check "$name: present $present >= 0.9 x $cap and >= 0.9 x buf_size/128" \
		test $((present * 10)) -ge $((cap * 9)) -a \
		$((present * 10)) -ge $((1048576 / 128 * 9))
	ktap_check "$name: completed = stat delta $delta" \
		test "$(iot_stat $disk completed)" -eq "$delta"
	"$RINGCHECK" dump "$IOT/$disk/ring" > "$out/$name.ring"
	echo 1 > "$IOT/$disk/enable"
}

# fio_log NAME CPU...: the I/O fio logged on those CPUs, in that order, as
# ringcheck dump prints records ("read SECTOR BYTES").
fio_log() {
	local name=$1 c
	shift
	for c in "$@"; do
		awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
		     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' \
			"$out/$name.iolog.$c"
	done
}

udevadm control --stop-exec-queue 2> /dev/null
load_iotrace buf_size=1M disks=$disk
sed 's/^/# stats: /' "$IOT/$disk/stats"
run one 0 20000
# one CPU, QD1: the ring holds exactly the newest requests, in order
n=$(wc -l < "$out/one.ring")
fio_log one 0 | tail -n "$n" > "$out/one.fio"
ktap_check "one: the $n records are fio's last $n requests, in order" \
	cmp -s "$out/one.fio" "$out/one.ring"
all=$(seq -s, 0 $last)
run all "$all" $((20000 / ncpu + 1000))
run moving "0:$last" 12000
# moving: all but the first CPU's last (current) chunk are the newest
recs=$(iot_stat $disk chunk_records)
n=$(($(wc -l < "$out/moving.ring") - recs))
fio_log moving 0 $last | tail -n "$n" | sort > "$out/moving.fio"
sort "$out/moving.ring" > "$out/moving.sorted"
ktap_check "moving: fio's last $n requests are all in the ring" \
	test "$(comm -23 "$out/moving.fio" "$out/moving.sorted" | wc -l)" -eq 0
unload_iotrace

# the bottom: 64K is two 4K chunks per CPU up to 6 CPUs; beyond, a clear
# refusal naming the range
if insmod "$IOTRACE_KO" buf_size=64K disks=$disk 2> "$out/insmod"; then
	size=$(iot_stat $disk ring_size)
	ktap_check "buf_size=64K: ring_size $size within 5%" \
		test $((size * 100)) -ge $((65536 * 95))
	unload_iotrace
else
	dmesg | tail -3 | sed 's/^/# /'
	ktap_check "buf_size=64K on $ncpu CPUs: refused with the range" \
		eval "dmesg | tail -3 | grep -q 'out of range .*possible CPUs'"
fi
# ring_size within 5% of buf_size
for b in 128K 100000 4194305 12345678 64M; do
	load_iotrace buf_size=$b disks=$disk
	bytes=$(iot_stat $disk buf_size)
	size=$(iot_stat $disk ring_size)
	log "buf_size=$b: ring_size $size, $(iot_stat $disk nr_chunks) chunks of $(iot_stat $disk chunk_records)"
	ktap_check "buf_size=$b: ring_size $size within 5% of $bytes" \
		test $((size * 100)) -ge $((bytes * 95)) -a "$size" -le "$bytes"
	unload_iotrace
done

# the busy marker across 2^32
if grep -qa debug_seq_start "$IOTRACE_KO"; then
	base=$(((1 << 32) - 2048))
	load_iotrace buf_size=1M disks=$disk debug_seq_start=$base
	echo 1 > "$IOT/$disk/clear"
	fio --name=wrap --filename=/dev/$disk --direct=1 --ioengine=psync \
	    --rw=randread --bs=4k --number_ios=5000 --size=1g \
	    --cpus_allowed=0 --output=/dev/null
	echo 0 > "$IOT/$disk/enable"
	RINGCHECK_SEQ_BASE=$base "$RINGCHECK" check "$IOT/$disk/ring" > "$out/wrap"
	rc=$?
	grep -v '^# cpu' "$out/wrap" | sed 's/^/# wrap: /'
	ktap_check "seq across 2^32: every record intact" test $rc -eq 0
	ktap_check "seq across 2^32: a record numbered 0 mod 2^32 present" \
		test "$(kv "$out/wrap" seq_wraps)" -ge 1
	unload_iotrace
else
	ktap_skip "seq across 2^32: every record intact" "not a debug build"
	ktap_skip "seq across 2^32: a record numbered 0 mod 2^32 present" "not a debug build"
fi
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
