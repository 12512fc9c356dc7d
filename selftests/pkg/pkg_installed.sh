#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pkg_installed: the iotrace module that the iotrace-dkms package built for
# this kernel (found by modprobe through depmod's index, not $IOTRACE_KO)
# loads and records, and the packaged /usr/sbin/iotracectl reads it.
# Run by selftests/pkg/deb.sh while the .debs are installed on the host
# (the guest sees the host's root); skips when they are not.
# Oracles: modprobe/modinfo (depmod's index of /lib/modules), the
# kernel's /sys/block/<disk>/stat delta for the requests counted.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ko=$(modinfo -n iotrace 2> /dev/null) ||
	skip "no iotrace module installed for $KVER (selftests/pkg/deb.sh installs the .debs)"
[ -x /usr/sbin/iotracectl ] || skip "no /usr/sbin/iotracectl (iotrace-tools is not installed)"
ktap_header 6
log "modinfo -n iotrace: $ko"
case "$ko" in
/lib/modules/"$KVER"/updates/dkms/iotrace.ko*) ktap_ok "modprobe finds the DKMS-built module ($ko)" ;;
*) ktap_fail "modprobe finds the DKMS-built module: $ko is not under updates/dkms" ;;
esac
vm=$(modinfo -F vermagic iotrace)
ktap_check "its vermagic is this kernel's ($KVER)" test "${vm%% *}" = "$KVER"

disk=nullb0
nullb_mod nr_devices=1 gb=1 submit_queues=1
quiet_disk $disk
grep -q '^iotrace ' /proc/modules && rmmod iotrace
modprobe iotrace disks=$disk buf_size=1M || die "modprobe iotrace failed"
ktap_check "modprobe iotrace: /sys/module/iotrace exists" test -d /sys/module/iotrace
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
echo 1 > "$IOT/$disk/enable"
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
dd if=/dev/$disk of=/dev/null bs=4k count=200 iflag=direct status=none ||
	die "dd failed"
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"
/usr/sbin/iotracectl stats -o json $disk > /tmp/stats.json ||
	die "/usr/sbin/iotracectl stats failed"
n=$(python3 -c 'import json, sys
print(sum(o["count"] for o in json.load(open(sys.argv[1]))[0]["ops"].values()))' /tmp/stats.json)
log "iotracectl stats: $n requests; /sys/block/$disk/stat: $((after - before))"
ktap_check "packaged iotracectl counts the $((after - before)) requests of /sys/block/$disk/stat ($n)" \
	test "$n" = "$((after - before))" -a "$n" -ge 200
modprobe -r iotrace
ktap_check "modprobe -r iotrace" test ! -d /sys/module/iotrace
ktap_check "no kernel splat" no_kernel_splat
ktap_finish
