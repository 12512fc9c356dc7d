#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nvme_mpath_failover: while fio reads and writes through an NVMe
# multipath head with iopolicy round-robin, one path's controller is
# reset three times, then the other path is removed (its controller's PCI
# function) and added back (a PCI rescan); a second fio runs once both
# paths are there again.  The head's ring still holds every request of
# the namespace exactly once, the path added back feeds the head's ring
# again, and the head's metrics count what its ring holds.  (QEMU's NVMe
# controller completes the commands it holds when the host deletes its
# queues, so neither reset nor removal aborts one here: the failover of
# an aborted command, nvme_failover_req(), is not exercised.)
#
# Oracles: fio's write_iolog (every I/O on the head, told from others'
# by fio's pid where the kernel names submitters), fio's exit status (no
# I/O failed), the path names the kernel gives.
# VM-DEVICES: nvme-mpath
# VM-CHECK: newest
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
out=$(mktemp -d)
modprobe nvme 2> /dev/null
settle
find_mpath_head
log "head $head, paths $paths"
# the path to remove: the second one, by its controller
victim=${paths##* }
c=${victim#nvme*c}
c=${c%%n*}
pcidev=$(readlink -f "/sys/class/nvme/nvme$c/device")
[ -e "$pcidev/remove" ] || skip "nvme$c has no PCI function to remove ($pcidev)"
c0=${paths%% *}
c0=${c0#nvme*c}
c0=${c0%%n*}
log "resetting nvme$c0, removing $victim: controller nvme$c, ${pcidev##*/}"
settle
udevadm control --stop-exec-queue 2> /dev/null
ktap_header 10
# a ring for every request: fio's rate below keeps its run under
# 36,000 requests however fast the host, 16M holds 131,000
load_iotrace disks="$head" buf_size=16M
subsys=$(basename "$(dirname "$(readlink -f "/sys/block/$head")")")
echo round-robin > "/sys/class/nvme-subsystem/$subsys/iopolicy" 2> /dev/null
log "iopolicy $(cat "/sys/class/nvme-subsystem/$subsys/iopolicy" 2> /dev/null)"
echo 1 > "$IOT/$head/clear"
mreq() {
	awk '$2 == "requests" { n += $3 } END { print n + 0 }' "$IOT/$head/metrics"
}
mbefore=$(mreq)
mknod "$out/head" b "$(cut -d: -f1 "/sys/block/$head/dev")" \
	"$(cut -d: -f2 "/sys/block/$head/dev")" || die "mknod failed"
hbefore=$(blk_ios "$head")
fio --name=fo --filename="$out/head" --direct=1 --ioengine=libaio \
    --iodepth=16 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
    --time_based --runtime=12 --rate_iops=1500 --size=256m \
    --write_iolog="$out/iolog" \
    --thread --output="$out/fio" &
fiopid=$!
for _ in 1 2 3; do
	sleep 1
	echo 1 > "/sys/class/nvme/nvme$c0/reset_controller"
done
sleep 2
echo 1 > "$pcidev/remove"
gone=1
for _ in $(seq 50); do
	[ -e "/sys/block/$victim" ] || { gone=0; break; }
	sleep 0.1
done
ktap_check "$victim removed under I/O" test $gone -eq 0
sleep 2
echo 1 > /sys/bus/pci/rescan
back=
for _ in $(seq 100); do
	back=$(mpath_paths "$head" | tr '\n' ' ')
	[ "$(echo "$back" | wc -w)" -eq 2 ] && break
	sleep 0.1
done
log "paths after the rescan: $back"
ktap_check "two paths again after the rescan" test "$(echo "$back" | wc -w)" -eq 2
newp=
for p in $back; do
	[ "$p" = "${paths%% *}" ] || newp=$p
done
wait $fiopid
frc=$?
# the path added back serves requests
fio --name=fo2 --filename="$out/head" --direct=1 --ioengine=libaio \
    --iodepth=16 --rw=randrw --bs=4k --number_ios=1000 --size=256m \
    --write_iolog="$out/iolog2" --thread --output="$out/fio2" &
fiopid2=$!
wait $fiopid2 || frc=1
hdelta=$(($(blk_ios "$head") - hbefore))
sed -n '/err=/p' "$out/fio" | sed 's/^/# fio: /'
ktap_check "fio: no I/O failed" test $frc -eq 0
mdelta=$(($(mreq) - mbefore))
echo 0 > "$IOT/$head/enable"
"$RINGCHECK" check "$IOT/$head/ring" > "$out/check"
rc=$?
cat "$out/check"
ktap_check "ring intact after the run" test $rc -eq 0
"$RINGCHECK" dumpp "$IOT/$head/ring" > "$out/ringp"
"$RINGCHECK" dumpm "$IOT/$head/ring" > "$out/ringm"
udevadm control --start-exec-queue 2> /dev/null
if awk -v p=$fiopid '$5 == p { f = 1 } END { exit !f }' "$out/ringp"; then
	awk -v p=$fiopid -v q=$fiopid2 '$5 == p || $5 == q { print $1, $2, $3 }' \
		"$out/ringp" | sort > "$out/ring"
else
	awk '{ print $1, $2, $3 }' "$out/ringp" | sort > "$out/ring"
fi
fio_log_vs_ring "$out" 200 "$out/iolog" "$out/iolog2"
log "the head's stat delta: $hdelta"
nc=$(awk -v c="${newp#nvme*c}" 'BEGIN { sub(/n.*/, "", c) } $4 == c' "$out/ringm" | wc -l)
ktap_check "the path added back ($newp) fed the head's ring ($nc records)" \
	test -n "$newp" -a "$nc" -gt 0
completed=$(kv "$out/check" completed)
ktap_check "the head's metrics count $mdelta requests, its ring completed $completed" \
	test "$mdelta" -eq "$completed"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
