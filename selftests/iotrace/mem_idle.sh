#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mem_idle: a disk costs nothing until it is first enabled.
#
# 8 null_blk disks of 10,240 tags (the block layer's most) per hardware
# queue: with disks=none and buf_size=64K the module's attach adds no
# vmalloc and no per-CPU memory beyond a page per disk: no vmalloc area
# of iotrace's in /proc/vmallocinfo, and /proc/meminfo's VmallocUsed and
# Percpu against what null_blk itself takes, measured without the module
# in the same boot (VmallocUsed within 16 pages a disk: the kernel's own
# allocations come and go meanwhile).  Enabling one disk costs its ring, its in-flight table and
# its metrics, as list and stats say and /proc/meminfo shows; disabling
# gives the table back, `resize DISK 0` the ring (a headers-only ring
# stays).  A disk never enabled reads as empty everywhere (debugfs files,
# /dev/iotrace read and mmap, iotracectl list/stats/show, GET_METRICS).
# A tag set whose tags are shared by its hardware queues
# (shared_tag_bitmap) gets one table of its depth, not one per queue.
# VM-TIMEOUT: 900
# VM-SMP: 2
# VM-MEM: 2048
# VM-CHECK: all
# (5 to 7 minutes on 7.3: make check-all only, to keep make check within its
#   hour)
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
NLM="python3 $IOTRACE_SRC/selftests/iotrace/nlmetrics.py"
# a debug kernel (make check-debug): 4 disks of 2,048 tags, as KASAN
# and kmemleak make null_blk's own allocation of 245,760 requests slow
NDISK=$(kdebug_or 8 4)
DEPTH=$(kdebug_or 10240 2048)
PAGE=4096
# sizeof(struct iotrace_slot): three cache lines
SLOT=192
NULLB="nr_devices=$NDISK submit_queues=3 hw_queue_depth=$DEPTH gb=1"

# mem KEY - a /proc/meminfo value in bytes
mem() {
	awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo
}

# iot_vm - bytes of the vmalloc areas the kernel says iotrace's code made
# (/proc/vmallocinfo names each area's caller): exact, whatever else the
# kernel allocates meanwhile
iot_vm() {
	awk '/\[iotrace\]/ && / vmalloc/ {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^pages=/) { sub(/pages=/, "", $i); n += $i }
	} END { print n * 4096 }' /proc/vmallocinfo
}

# snap NAME - VmallocUsed, iotrace's vmalloc areas and Percpu now, as
# $NAME_v, $NAME_i and $NAME_p
snap() {
	sync
	sleep 1
	eval "$1_v=$(mem VmallocUsed) $1_i=$(iot_vm) $1_p=$(mem Percpu)"
	log "$1: VmallocUsed $(eval echo \$$1_v), iotrace's $(eval echo \$$1_i), Percpu $(eval echo \$$1_p)"
}

# within A B TOL - |A - B| <= TOL
within() {
	local d=$(($1 - $2))
	[ ${d#-} -le "$3" ]
}

# nlist DISK KEY - a column of "iotracectl list" taken from netlink (no
# debugfs directory given: the LIST reply's attributes)
nlist() {
	IOTRACE_DEBUGFS=/nonexistent "$IOTRACECTL" list -o json 2> "$out/list.err" |
		python3 -c 'import json, sys
for r in json.load(sys.stdin):
    if r["disk"] == sys.argv[1]:
        print(r[sys.argv[2]])' "$1" "$2"
}

# ---- what null_blk itself costs, without the module --------------------
unload_iotrace
rmmod null_blk 2> /dev/null
# a first load warms what the kernel keeps afterwards (idle workers)
nullb_mod $NULLB
rmmod null_blk || die "rmmod null_blk failed"
snap n0
nullb_mod $NULLB
snap n1
rmmod null_blk || die "rmmod null_blk failed"
nb_v=$((n1_v - n0_v))
nb_p=$((n1_p - n0_p))
log "null_blk's $NDISK disks alone: vmalloc +$nb_v, percpu +$nb_p"

# ---- attach: nothing but the structure ----------------------------------
load_iotrace disks=none buf_size=64K
snap m0
nullb_mod $NULLB
snap m1
dv=$((m1_v - m0_v - nb_v))
dp=$((m1_p - m0_p - nb_p))
di=$((m1_i - m0_i))
tol=$((NDISK * PAGE))
ktap_check "attach of $NDISK disks, never enabled: iotrace's vmalloc areas +$di (within $tol)" \
	within "$di" 0 $tol
ktap_check "attach: VmallocUsed +$dv beyond null_blk's (within $((16 * tol)))" \
	within "$dv" 0 $((16 * tol))
ktap_check "attach: Percpu +$dp beyond null_blk's (within $tol)" \
	within "$dp" 0 $tol
disk=nullb0
idle=nullb1
nhwq=$(find /sys/block/$disk/mq -mindepth 1 -maxdepth 1 | wc -l)
nreq=$(cat /sys/block/$disk/queue/nr_requests)
log "$disk: $nhwq hardware queues, nr_requests $nreq"
for k in mem_ring mem_slots mem_metrics; do
	ktap_check "list $idle: $k 0" test "$(nlist $idle $k)" = 0
	ktap_check "stats $idle: $k 0" test "$(iot_stat $idle $k)" = 0
done

# ---- readers of a disk never enabled ------------------------------------
ktap_check "debugfs ring of $idle: empty" test ! -s "$IOT/$idle/ring"
ktap_check "debugfs trace of $idle: empty" test ! -s "$IOT/$idle/trace"
ktap_check "debugfs inflight of $idle: the header only" \
	test "$(wc -l < "$IOT/$idle/inflight")" = 1
cat "$IOT/$idle/metrics" > "$out/metrics.idle"
ktap_check "debugfs metrics of $idle: no request" \
	grep -q '^read requests 0 ' "$out/metrics.idle"
ktap_check "/dev/iotrace/$idle: read() gives nothing" \
	test "$(head -c 4096 /dev/iotrace/$idle | wc -c)" = 0
python3 - /dev/iotrace/$idle > "$out/mmap" 2>&1 <<'EOF'
import errno, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ)
    print("mapped")
except OSError as e:
    print(errno.errorcode[e.errno])
EOF
ktap_check "/dev/iotrace/$idle: mmap refused with ENODATA ($(cat "$out/mmap"))" \
	test "$(cat "$out/mmap")" = ENODATA
"$IOTRACECTL" show $idle > "$out/show" 2> "$out/show.err"
rc=$?
sed 's/^/# show: /' "$out/show.err"
ktap_check "iotracectl show $idle fails (rc $rc) and says it was never enabled" \
	grep -q 'never enabled' "$out/show.err"
"$IOTRACECTL" stats $idle > "$out/stats" 2> "$out/stats.err"
sed 's/^/# stats: /' "$out/stats.err"
ktap_check "iotracectl stats $idle says it was never enabled" \
	grep -q 'never enabled' "$out/stats.err"
$NLM get $idle > "$out/m.idle" 2>&1
grep -v hist "$out/m.idle" | sed 's/^/# GET_METRICS: /'
ktap_check "GET_METRICS $idle: zero requests, none in flight" \
	test "$(kv "$out/m.idle" read.requests)/$(kv "$out/m.idle" inflight)" = 0/0
ktap_check "clear of $idle: nothing to clear, no error" \
	"$IOTRACECTL" clear $idle
"$IOTRACECTL" list > "$out/list.all" 2>&1
ktap_check "iotracectl list of all disks" test -s "$out/list.all"

# ---- enable one disk: its ring, its table, its metrics ------------------
# The first enable attaches the probes (the module's, once): another disk
# takes that, then the one measured costs its own memory only.
first=nullb2
"$IOTRACECTL" enable $first || die "enable $first failed"
snap e0
"$IOTRACECTL" enable $disk || die "enable $disk failed"
snap e1
ring=$(nlist $disk mem_ring)
slots=$(nlist $disk mem_slots)
metrics=$(nlist $disk mem_metrics)
depth=$DEPTH
[ "$nreq" -gt $depth ] && depth=$nreq
[ 256 -gt $depth ] && depth=256
want=$(((nhwq * depth + nhwq) * SLOT))
log "$disk enabled: ring $ring, slots $slots, metrics $metrics; vmalloc +$((e1_v - e0_v)), percpu +$((e1_p - e0_p))"
ktap_check "stats and list agree on the cost" \
	test "$(iot_stat $disk mem_ring)/$(iot_stat $disk mem_slots)/$(iot_stat $disk mem_metrics)" = "$ring/$slots/$metrics"
ktap_check "ring of 64K: $ring bytes" test "$ring" -gt 0 -a "$ring" -le 65536
ktap_check "slots: ($nhwq queues x $depth tags + $nhwq flush) x $SLOT = $want" \
	test "$slots" = "$want"
ktap_check "metrics: $metrics bytes" test "$metrics" -gt 0
# the table (5.9 MB) is vmalloc'ed, with its array of page pointers
# (vmalloc'ed too past a page): vm_pages BYTES - what vmalloc takes
vm_pages() {
	local n=$((($1 + PAGE - 1) / PAGE)) arr
	arr=$((n * 8))
	[ $arr -gt $PAGE ] || arr=0
	echo $(((n + (arr + PAGE - 1) / PAGE) * PAGE))
}
rs=$(($(vm_pages "$slots") + ring))
ktap_check "iotrace's vmalloc areas +$((e1_i - e0_i)) = ring + slots ($rs)" \
	test $((e1_i - e0_i)) = $rs
ktap_check "VmallocUsed +$((e1_v - e0_v)) = ring + slots within 16 pages" \
	within $((e1_v - e0_v)) $rs $((16 * PAGE))
ktap_check "percpu +$((e1_p - e0_p)) at most the metrics and a page per CPU" \
	test $((e1_p - e0_p)) -le $((metrics + $(nproc) * PAGE))
ktap_check "$idle still costs nothing" \
	test "$(nlist $idle mem_ring)/$(nlist $idle mem_slots)/$(nlist $idle mem_metrics)" = 0/0/0
dd if=/dev/$disk of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
ktap_check "the ring records: 100 reads" \
	test "$(iot_stat $disk recorded)" = 100

# ---- disable: the table goes, the ring and the metrics stay -------------
"$IOTRACECTL" disable $disk || die "disable $disk failed"
snap d1
log "$disk disabled: vmalloc $((d1_v - e1_v))"
ktap_check "disable gives the table back: iotrace's vmalloc -$((e1_i - d1_i)) (slots $slots)" \
	test $((e1_i - d1_i)) = "$(vm_pages "$slots")"
ktap_check "disable: VmallocUsed -$((e1_v - d1_v)) within 16 pages" \
	within $((e1_v - d1_v)) "$(vm_pages "$slots")" $((16 * PAGE))
ktap_check "list after disable: ring $ring, slots 0, metrics $metrics" \
	test "$(nlist $disk mem_ring)/$(nlist $disk mem_slots)/$(nlist $disk mem_metrics)" = "$ring/0/$metrics"
ktap_check "the ring stays readable: 100 records" \
	test "$(iot_stat $disk recorded)" = 100 -a "$(grep -c . "$IOT/$disk/trace")" -ge 100
$NLM get $disk > "$out/m.dis"
ktap_check "the metrics stay: 100 reads" \
	test "$(kv "$out/m.dis" read.requests)" = 100

# ---- resize 0: the ring goes (headers only stay) ------------------------
"$IOTRACECTL" resize $disk 0 || die "resize $disk 0 failed"
snap r1
r0=$(nlist $disk mem_ring)
log "$disk resized to 0: ring $r0 bytes, vmalloc $((r1_v - d1_v))"
ktap_check "resize 0: a headers-only ring of $r0 bytes" \
	test "$r0" -gt 0 -a "$r0" -le $((2 * PAGE + PAGE * ($(getconf _NPROCESSORS_CONF) / 64)))
ktap_check "resize 0 gives the ring back: iotrace's vmalloc -$((d1_i - r1_i)) = $ring - $r0" \
	test $((d1_i - r1_i)) = $((ring - r0))
ktap_check "resize 0: iotrace's vmalloc back to the idle level + $r0 (+$((r1_i - e0_i)))" \
	test $((r1_i - e0_i)) = "$r0"
ktap_check "resize 0: VmallocUsed -$((d1_v - r1_v)) within 16 pages" \
	within $((d1_v - r1_v)) $((ring - r0)) $((16 * PAGE))

# ---- re-enable: a new table, sized again --------------------------------
"$IOTRACECTL" enable $disk || die "enable $disk again failed"
ktap_check "re-enable: the table again ($(nlist $disk mem_slots))" \
	test "$(nlist $disk mem_slots)" = "$want"
"$IOTRACECTL" disable $disk $first

# ---- a shared tag set: one table --------------------------------------
rmmod null_blk || die "rmmod null_blk failed"
if ! modprobe null_blk nr_devices=1 submit_queues=3 hw_queue_depth=$DEPTH \
	shared_tag_bitmap=1 2> /dev/null; then
	ktap_skip "null_blk has no shared_tag_bitmap"
else
	settle
	nhwq=$(find /sys/block/$disk/mq -mindepth 1 -maxdepth 1 | wc -l)
	nreq=$(cat /sys/block/$disk/queue/nr_requests)
	"$IOTRACECTL" enable $disk || die "enable shared $disk failed"
	s=$(nlist $disk mem_slots)
	depth=$DEPTH
	[ "$nreq" -gt $depth ] && depth=$nreq
	# the scheduler's tags are shared too since 5.16 (sched_shared_tags)
	kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	if [ "$kv" -ge 5016 ]; then
		want=$(((depth + nhwq) * SLOT))
		what="one table of $depth + $nhwq flush"
	else
		want=$(((nhwq * depth + nhwq) * SLOT))
		what="per queue (scheduler tags per queue before 5.16)"
	fi
	ktap_check "shared tags, $nhwq queues: slots $s = $what ($want)" \
		test "$s" = "$want"
	dd if=/dev/$disk of=/dev/null bs=4k count=64 iflag=direct 2> /dev/null
	ktap_check "shared tags: 64 reads recorded, none without its issue" \
		test "$(iot_stat $disk recorded)" = 64 -a \
		"$("$RINGCHECK" dump "$IOT/$disk/ring" 2> /dev/null | grep -c NO_ISSUE)" = 0
	"$IOTRACECTL" disable $disk
fi

unload_iotrace
rmmod null_blk
no_kernel_splat
ktap_finish
