#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# metrics_only: a disk with its in-kernel metrics and no ring (buf_size 0,
# at load or by resize): the ring is the headers only (no chunk, flagged
# IOTRACE_RING_METRICS_ONLY, a few pages), nothing is recorded, dropped or
# held, and the metrics still equal fio's I/O log and the /sys/block stat
# delta.  Readers (iotracectl show/list/record, ringcheck's header) take
# the empty ring; a resize to 1M records again, one back to 0 stops, and a
# size between 0 and the smallest ring is refused with the range.
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
NLM="python3 $IOTRACE_SRC/selftests/iotrace/nlmetrics.py"
nullb_mod nr_devices=1 submit_queues=2 irqmode=2 completion_nsec=100000 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=0 disks=$disk
udevadm control --stop-exec-queue 2> /dev/null

ring_flags() {
	python3 -c 'import struct, sys
print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(64), 28)[0])' \
		"$IOT/$disk/ring"
}

# fio_run NAME: 1000 mixed I/Os per CPU, with fio's own log
fio_run() {
	local cpu
	for cpu in 0 1; do
		fio --name="$1$cpu" --filename=/dev/$disk --direct=1 \
		    --ioengine=libaio --iodepth=8 --rw=randrw --bs=4k \
		    --number_ios=1000 --size=128m --offset=$((cpu * 128))m \
		    --cpus_allowed=$cpu --write_iolog="$out/$1.iolog.$cpu" \
		    --output=/dev/null &
	done
	wait
}

fio_count() {
	cat "$out/$1".iolog.* |
		awk '$2 == "read" || $2 == "write" { n++ }
		     $3 == "read" || $3 == "write" { n++ } END { print n + 0 }'
}

METRICS_ONLY=$((1 << 3))
cat "$IOT/$disk/stats" > "$out/stats0"
sed 's/^/# /' "$out/stats0"
size=$(kv "$out/stats0" ring_size)
ktap_check "buf_size=0 loads: no chunk, ring of $size bytes (headers only)" \
	test "$(kv "$out/stats0" nr_chunks)" = 0 -a "$(kv "$out/stats0" buf_size)" = 0 -a \
	"$size" -le $((2 * 4096 + 4096 * ($(kv "$out/stats0" nr_cpus) / 64)))
flags=$(ring_flags)
ktap_check "the ring header says metrics only (flags $flags)" \
	test $((flags & METRICS_ONLY)) -ne 0

$NLM reset $disk > /dev/null
before="$(blk_stat $disk 1) $(blk_stat $disk 5)"
fio_run a
# shellcheck disable=SC2086
set -- $before
delta=$(($(blk_stat $disk 1) - $1 + $(blk_stat $disk 5) - $2))
$NLM get $disk > "$out/a.m"
n=$(fio_count a)
req=$(($(kv "$out/a.m" read.requests) + $(kv "$out/a.m" write.requests)))
ktap_check "metrics count every request: $req = fio's $n = stat's $delta" \
	test "$req" -eq "$n" -a "$n" -eq "$delta" -a "$n" -ge 2000
ktap_check "device latency of them all, at least null_blk's 100 us" \
	test "$(kv "$out/a.m" read.dev_count)" -eq "$(kv "$out/a.m" read.requests)" -a \
	"$(kv "$out/a.m" read.dev_sum_ns)" -ge $(($(kv "$out/a.m" read.requests) * 100000))
cat "$IOT/$disk/stats" > "$out/stats1"
ktap_check "nothing recorded, dropped or filtered" \
	test "$(kv "$out/stats1" recorded)/$(kv "$out/stats1" dropped)/$(kv "$out/stats1" filtered)/$(kv "$out/stats1" completed)" = 0/0/0/0
"$IOTRACECTL" show $disk > "$out/show" 2> "$out/show.err"
rc=$?
ktap_check "iotracectl show reads the ring: no records (exit $rc)" \
	test $rc -eq 0 -a "$(grep -c ' READ \| WRITE ' "$out/show")" -eq 0
"$IOTRACECTL" list > "$out/list" 2>&1
sed 's/^/# list: /' "$out/list"
ktap_check "iotracectl list shows $disk" grep -q "$disk" "$out/list"
timeout 5 "$IOTRACECTL" record $disk -o "$out/a.trace" --duration 1 \
	> "$out/rec.log" 2>&1
rc=$?
ktap_check "iotracectl record of it: a file without records (exit $rc)" \
	sh -c "[ $rc = 0 ] && '$IOTRACECTL' show '$out/a.trace' > '$out/a.show' 2>&1"

# ---- to 1M and back -----------------------------------------------------
ktap_check "resize $disk 1M" "$IOTRACECTL" resize $disk 1M
flags=$(ring_flags)
ktap_check "the new ring is not metrics only (flags $flags)" \
	test $((flags & METRICS_ONLY)) -eq 0
fio_run b
cat "$IOT/$disk/stats" > "$out/stats2"
n=$(fio_count b)
ktap_check "records again: recorded $(kv "$out/stats2" recorded) = fio's $n" \
	test "$(kv "$out/stats2" recorded)" -eq "$n"
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$out/check"
ktap_check "the 1M ring is intact" test $rc -eq 0
$NLM get $disk > "$out/b.m"
req=$(($(kv "$out/b.m" read.requests) + $(kv "$out/b.m" write.requests)))
ktap_check "metrics went on through the resize: $req = $(fio_count a) + $n" \
	test "$req" -eq $(($(fio_count a) + n))
ktap_check "resize $disk 0" "$IOTRACECTL" resize $disk 0
flags=$(ring_flags)
cat "$IOT/$disk/stats" > "$out/stats3"
ktap_check "metrics only again (flags $flags, nr_chunks $(kv "$out/stats3" nr_chunks))" \
	test $((flags & METRICS_ONLY)) -ne 0 -a "$(kv "$out/stats3" nr_chunks)" = 0
"$IOTRACECTL" resize $disk 1000 > "$out/bad" 2>&1
rc=$?
sed 's/^/# /' "$out/bad"
ktap_check "resize to 1000 bytes refused, naming 0 (metrics only)" \
	sh -c "[ $rc != 0 ] && grep -q 'metrics only' '$out/bad'"

udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
