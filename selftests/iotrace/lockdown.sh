#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lockdown: iotrace works on a locked-down kernel (lockdown=integrity, as
# under Secure Boot), where debugfs refuses files that can be mapped or
# written, so debugfs <disk>/ring cannot be opened.
#
# The module is loaded first (lockdown refuses unsigned modules), then
# "integrity" is written to /sys/kernel/security/lockdown.  Then:
# - premise: opening debugfs <disk>/ring is refused;
# - /dev/iotrace/<disk> exists for every ring (disks and the NVMe
#   controller), mode 0400 root, unreadable for another user; writable
#   opens, writable mappings and mprotect(PROT_WRITE) are refused and
#   read() equals the mapping (ringcheck rdonly);
# - iotracectl list, show, stats, inflight, record, enable, disable, clear
#   and resize work, once as is (debugfs mounted but locked down) and once
#   with no debugfs at all (IOTRACE_DEBUGFS=/nonexistent);
# - fio write_iolog oracle: every I/O fio logs is in the ring read through
#   the device (iotracectl show, ringcheck) and in an iotracectl record
#   file, with its op, sector and length, and nothing else;
# - a null_blk disk deleted (configfs) while its device is mapped: its
#   device goes, the mapping stays readable and marked detached;
# - rmmod refused while a device mapping exists, allowed once it is gone,
#   and the devices go with the module;
# - leak scan (leakscan.py) of everything read through the devices and of
#   iotracectl's outputs in the no-debugfs mode.
# VM-DEVICES: nvme
# VM-CHECK: alone
# VM-TIMEOUT: 420
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 setpriv
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
SCAN=$IOTRACE_SRC/selftests/iotrace/leakscan.py
DEV=/dev/iotrace

[ -e /sys/kernel/security/lsm ] ||
	mount -t securityfs none /sys/kernel/security 2> /dev/null
grep -qw lockdown /sys/kernel/security/lsm 2> /dev/null ||
	skip "the lockdown LSM is not active (/sys/kernel/security/lsm: $(cat /sys/kernel/security/lsm 2> /dev/null))"
grep -q '\[none\]' /sys/kernel/security/lockdown ||
	skip "the kernel is already locked down: iotrace.ko (unsigned) cannot be loaded"

ktap_header
out=$(mktemp -d)

# not CMD... - true when CMD fails (for ktap_check)
not() {
	! "$@"
}

# ---- before lockdown: disks, module -----------------------------------
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
gone=$(nullb_create ldgone size=64 irqmode=1)
slow=$(nullb_create ldslow size=64 irqmode=2 completion_nsec=4000000000)
ns=$(first_disk 'nvme*n1') || ns=
ctrl=${ns%n1}
load_iotrace
for d in $disk $gone $slow $ns; do
	wait_for "$DEV/$d" 10 || log "no $DEV/$d"
done
log "disks: $disk $gone $slow ${ns:-(no NVMe)}; devices: $(ls $DEV | tr '\n' ' ')"

echo integrity > /sys/kernel/security/lockdown
ktap_check "kernel locked down (integrity)" \
	grep -q '\[integrity\]' /sys/kernel/security/lockdown

# ---- premise and the devices --------------------------------------------
if [ -d "$IOT" ]; then
	cat "$IOT/$disk/ring" > /dev/null 2> "$out/err"
	rc=$?
	sed 's/^/# /' "$out/err"
	ktap_check "premise: debugfs $disk/ring refused under lockdown" test $rc -ne 0
else
	ktap_skip "premise: debugfs is not mounted"
fi
ktap_check "$DEV/$disk is a character device" test -c "$DEV/$disk"
ktap_check "$DEV/$disk is mode 0400, root:root" \
	test "$(stat -c '%a %u %g' "$DEV/$disk")" = "400 0 0"
if [ -n "$ns" ]; then
	ktap_check "$DEV/$ns and the controller's $DEV/$ctrl exist" \
		test -c "$DEV/$ns" -a -c "$DEV/$ctrl"
else
	ktap_skip "no NVMe namespace in the guest"
fi
ktap_check "another user cannot open $DEV/$disk" \
	not setpriv --reuid=65534 --regid=65534 --clear-groups \
	dd if="$DEV/$disk" of=/dev/null bs=4k count=1 status=none
"$RINGCHECK" rdonly "$DEV/$disk" | sed 's/^/# /'
ktap_check "no writable open, mapping or mprotect; read() equals the mapping" \
	test "${PIPESTATUS[0]}" -eq 0
# the same with python3's mmap module: PROT_READ maps and equals read(),
# PROT_WRITE is refused
cat > "$out/pymap.py" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = int.from_bytes(os.pread(fd, 64, 0)[56:64], "little")
m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
data = b""
while len(data) < size:
    chunk = os.pread(fd, size - len(data), len(data))
    if not chunk:
        break
    data += chunk
assert m[:] == data, "read() differs from the mapping"
try:
    mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    sys.exit("PROT_WRITE mapping allowed")
except PermissionError:
    pass
print("python mmap: %d bytes, read() equal, PROT_WRITE refused" % size)
PY
python3 "$out/pymap.py" "$DEV/$disk" 2>&1 | sed 's/^/# /'
ktap_check "python3 mmap: read-only mapping equals read(), PROT_WRITE refused" \
	test "${PIPESTATUS[0]}" -eq 0

# ---- iotracectl in both modes --------------------------------------------
# ctl MODE ARGS... - iotracectl as is (dfs) or with no debugfs (nodfs)
ctl() {
	local mode=$1
	shift
	if [ "$mode" = nodfs ]; then
		IOTRACE_DEBUGFS=/nonexistent "$IOTRACECTL" "$@"
	else
		"$IOTRACECTL" "$@"
	fi
}

# fio_run TAG - fio on $disk with two jobs logging every I/O; the sorted
# "op sector bytes" lines go to $out/fio.TAG.
fio_run() {
	local cpu pids=
	for cpu in 0 1; do
		fio --name=j$cpu --filename=/dev/$disk --direct=1 \
		    --ioengine=libaio --iodepth=8 --rw=randrw \
		    --bssplit=4k/50:16k/30:64k/20 --number_ios=600 \
		    --size=256m --offset=$((cpu * 256))m --cpus_allowed=$cpu \
		    --write_iolog="$out/iolog.$1.$cpu" \
		    --output="$out/fio.$1.out.$cpu" &
		pids="$pids $!"
	done
	wait $pids	# not the recorder running meanwhile
	cat "$out"/iolog.$1.[01] |
		awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
		     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' |
		sort > "$out/fio.$1"
}

# csv_ops FILE - "op sector bytes" of iotracectl show -o csv, sorted
csv_ops() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 { print $col["op"], $col["sector"], $col["bytes"] }' "$1" | sort
}

# same NAME A B - A and B hold the same lines; show differences
same() {
	local miss extra
	miss=$(comm -23 "$2" "$3" | wc -l)
	extra=$(comm -13 "$2" "$3" | wc -l)
	comm -23 "$2" "$3" | head -3 | sed "s/^/# $1: missing: /"
	comm -13 "$2" "$3" | head -3 | sed "s/^/# $1: extra: /"
	[ "$miss" -eq 0 ] && [ "$extra" -eq 0 ] && [ -s "$2" ]
}

udevadm control --stop-exec-queue 2> /dev/null
for mode in dfs nodfs; do
	m=$mode
	ktap_check "$m: enable, clear $disk (netlink)" \
		ctl $m enable $disk $slow
	ctl $m clear $disk || die "clear failed"
	ctl $m list -o csv > "$out/list.$m"
	ktap_check "$m: list shows $disk enabled and empty" \
		grep -q "^$disk,1,0," "$out/list.$m"
	[ $m = nodfs ] && export IOTRACE_DEBUGFS=/nonexistent
	"$IOTRACECTL" record $disk -o "$out/rec.$m.trace" --duration 600 \
		2> "$out/rec.$m.err" &
	rec=$!
	unset IOTRACE_DEBUGFS
	sleep 1
	fio_run $m
	sleep 1
	kill -INT $rec
	wait $rec
	rc=$?
	sed 's/^/# record: /' "$out/rec.$m.err"
	ktap_check "$m: record ran ($(wc -c < "$out/rec.$m.trace") bytes)" \
		test $rc -eq 0 -a -s "$out/rec.$m.trace"
	ktap_check "$m: disable $disk" ctl $m disable $disk
	ctl $m show -o csv $disk > "$out/show.$m.csv" 2> "$out/show.$m.err"
	sed 's/^/# show: /' "$out/show.$m.err"
	csv_ops "$out/show.$m.csv" > "$out/ring.$m"
	log "$m: fio logged $(wc -l < "$out/fio.$m") I/Os, the ring holds $(wc -l < "$out/ring.$m")"
	ktap_check "$m: show (live ring): exactly fio's I/Os" \
		same ring "$out/fio.$m" "$out/ring.$m"
	ctl $m show -o csv "$out/rec.$m.trace" > "$out/recshow.$m.csv"
	csv_ops "$out/recshow.$m.csv" > "$out/recring.$m"
	ktap_check "$m: record file: exactly fio's I/Os" \
		same record "$out/fio.$m" "$out/recring.$m"
	ctl $m stats $disk > "$out/stats.$m" 2>&1
	ktap_check "$m: stats counts them" \
		grep -q "$(wc -l < "$out/fio.$m")" "$out/stats.$m"
	ctl $m list -o csv > "$out/list2.$m"
	ktap_check "$m: list: $disk disabled, $(wc -l < "$out/fio.$m") recorded" \
		grep -q "^$disk,0,$(wc -l < "$out/fio.$m")," "$out/list2.$m"

	timeout 60 dd if=/dev/$slow of=/dev/null bs=4096 skip=7 count=1 \
		iflag=direct 2> /dev/null &
	dd=$!
	sleep 1.5
	ctl $m inflight -o csv $slow > "$out/infl.$m" 2>&1
	sed 's/^/# inflight: /' "$out/infl.$m"
	ktap_check "$m: inflight shows the slow read" \
		grep -q '^[0-9]*,[0-9.]*,read,56,4096,' "$out/infl.$m"
	wait $dd

	ktap_check "$m: resize $disk to 1M" ctl $m resize $disk 1M
	ctl $m show -o csv $disk > "$out/show2.$m.csv" 2> "$out/show2.$m.err"
	sed 's/^/# show after resize: /' "$out/show2.$m.err"
	ktap_check "$m: the resized ring reads (empty)" \
		test "$(wc -l < "$out/show2.$m.csv")" -eq 1 -a ! -s "$out/show2.$m.err"
	ctl $m resize $disk 4M || die "resize back failed"
	ctl $m clear $disk || die "clear failed"
	ctl $m show -o hex $disk > "$out/show.$m.hex" 2>&1
	ctl $m show -o binary $slow > "$out/show.$m.bin" 2>&1
	ctl $m inflight -o json $slow > "$out/infl.$m.json" 2>&1
	ctl $m list -o json > "$out/list.$m.json" 2>&1
done
ktap_check "ringcheck reads the device ring intact" \
	"$RINGCHECK" check "$DEV/$disk"
udevadm control --start-exec-queue 2> /dev/null

# ---- leak scan --------------------------------------------------------------
dd if=/dev/$ns of=/dev/null bs=4k count=50 iflag=direct 2> /dev/null
mkdir "$out/scan"
for f in "$DEV"/*; do
	cat "$f" > "$out/scan/dev.$(basename "$f")" ||
		log "cannot read $f"
done
cp "$out"/*.nodfs* "$out"/*.json "$out"/rec.*.trace "$out/scan/" 2> /dev/null
python3 "$SCAN" scan "$out"/scan/* > "$out/leaks"
rc=$?
head -5 "$out/leaks" | sed 's/^/# /'
ktap_check "no kernel address in $(ls "$out/scan" | wc -l) files read through the devices and iotracectl" \
	test $rc -eq 0
python3 "$SCAN" nvme "$out"/scan/dev.* | sed 's/^/# /'
ktap_check "NVMe records read through the devices carry no data pointers" \
	test "${PIPESTATUS[0]}" -eq 0

# ---- a disk deleted while its device is mapped --------------------------
dd if=/dev/$gone of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
"$RINGCHECK" hold "$DEV/$gone" "$out/go" > "$out/hold" &
holder=$!
for i in $(seq 50); do
	grep -q '^mapped: 1' "$out/hold" && break
	sleep 0.1
done
nullb_destroy ldgone
ktap_check "$DEV/$gone removed with the disk" test ! -e "$DEV/$gone"
touch "$out/go"
wait $holder
hrc=$?
sed 's/^/# /' "$out/hold"
ktap_check "mapping still readable and intact after the deletion" test $hrc -eq 0
ktap_check "ring marked detached" grep -q '^detached: 1' "$out/hold"

# ---- unload --------------------------------------------------------------
rm -f "$out/go"
"$RINGCHECK" hold "$DEV/$disk" "$out/go" > "$out/hold2" &
holder=$!
for i in $(seq 50); do
	grep -q '^mapped: 1' "$out/hold2" && break
	sleep 0.1
done
rmmod iotrace 2> "$out/rmmod"
rc=$?
sed 's/^/# /' "$out/rmmod"
ktap_check "rmmod refused while $DEV/$disk is mapped" test $rc -ne 0
touch "$out/go"
wait $holder
ktap_check "mapping intact until closed" test $? -eq 0
ktap_check "rmmod succeeds after the reader closed" rmmod iotrace
ktap_check "the devices went with the module" test ! -e "$DEV/$disk"
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
