#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ring_cpus: a machine of 600 possible CPUs (possible_cpus=600, 2 online,
# as a large server or a VM with many hot-pluggable vCPUs).  The ring
# needs two 4 KiB chunks per possible CPU, about 4.7 MiB here, more than
# the 4 MiB default: the default was never checked, the module loaded and
# every disk was left without a ring ("not traced: -34").  Now the default
# is raised to the minimum, with a line in the kernel log, the disk is
# traced and its reads recorded; a buf_size given below the minimum is
# still refused with the range.
# VM-TIMEOUT: 300
# VM-SMP: 2
# VM-CMDLINE: possible_cpus=600
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header 9
possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
[ "$possible" -ge 500 ] ||
	skip "the kernel gave $possible possible CPUs, not 600 (possible_cpus=)"
log "possible CPUs: $possible, online: $(nproc)"
nullb_mod nr_devices=1 irqmode=0
disk=nullb0
quiet_disk $disk

dmesg -C
load_iotrace disks=$disk
dmesg | grep iotrace | sed 's/^/# /'
size=$(cat /sys/module/iotrace/parameters/buf_size)
ktap_check "the default is raised above 4M ($size bytes)" \
	test "$size" -gt $((4 << 20))
ktap_check "the kernel log says so" \
	eval "dmesg | grep -q 'iotrace: buf_size: the default 4M is below the minimum for $possible possible CPUs: $size bytes'"
ktap_check "no disk left without a ring" \
	eval "! dmesg | grep -q 'not traced'"
ktap_check "$disk is traced" test -d "$IOT/$disk"
ktap_check "its ring has a CPU header per possible CPU ($(iot_stat $disk nr_cpus))" \
	test "$(iot_stat $disk nr_cpus)" -eq "$possible"
ktap_check "and two chunks for each ($(iot_stat $disk nr_chunks))" \
	test "$(iot_stat $disk nr_chunks)" -ge $((2 * possible))
before=$(blk_ios $disk)
dd if=/dev/$disk of=/dev/null bs=4k count=1000 iflag=direct 2> /dev/null
delta=$(($(blk_ios $disk) - before))
ktap_check "every read recorded ($(iot_stat $disk present) of $delta)" \
	test "$(iot_stat $disk present)" -eq "$delta" -a "$delta" -ge 1000
unload_iotrace

dmesg -C
if insmod "$IOTRACE_KO" buf_size=4M disks=$disk 2> /dev/null; then
	unload_iotrace
	ktap_fail "buf_size=4M given: refused"
else
	dmesg | grep iotrace | sed 's/^/# /'
	ktap_check "buf_size=4M given: refused with the range" \
		eval "dmesg | grep -q 'out of range .*$possible possible CPUs'"
fi
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
