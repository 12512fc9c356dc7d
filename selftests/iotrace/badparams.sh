#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# badparams: an unparsable or out-of-range buf_size, or a bad disks= value,
# fails the load with a kernel log line naming the parameter, the value and
# (for buf_size) the range; nothing stays behind.  Good values load.
# VM-TIMEOUT: 200
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

nullb_mod nr_devices=1
unload_iotrace
bad=(buf_size=1k buf_size=63K buf_size=2G buf_size=12Q buf_size=-1
     buf_size= buf_size=4M5 disks=nosuchdisk disks=nullb0,nosuchdisk
     'disks=a/b' disks=,nullb0 disks=abcdefghijklmnopqrstuvwxyz0123456789)
ktap_header $((${#bad[@]} * 2 + 4))
for p in "${bad[@]}"; do
	dmesg -C
	if insmod "$IOTRACE_KO" "$p" 2> /dev/null; then
		ktap_fail "insmod $p refused"
		rmmod iotrace
		continue
	fi
	ktap_ok "insmod $p refused"
	key=${p%%=*}
	val=${p#*=}
	if dmesg | grep -F "iotrace: $key=$val" | grep -q -E 'range|bad|not a size|no traceable'; then
		ktap_ok "log names $key=$val and the reason"
	else
		dmesg | tail -3 | sed 's/^/# dmesg: /'
		ktap_fail "log names $key=$val and the reason"
	fi
done
ktap_check "range in the message" sh -c \
	"insmod $IOTRACE_KO buf_size=2G 2>/dev/null; dmesg | grep -q 'out of range 65536..1073741824'"
ktap_check "nothing left behind" test ! -e /sys/module/iotrace -a ! -e "$IOT"
load_iotrace buf_size=64K disks=none
ktap_check "buf_size=64K disks=none loads, no probe attached" \
	test "$(iot_status probes)" = 0 -a "$(iot_stat nullb0 enabled)" = 0
unload_iotrace
load_iotrace buf_size=1m disks=nullb0
ktap_check "buf_size=1m disks=nullb0 loads, nullb0 enabled" \
	test "$(iot_stat nullb0 enabled)" = 1 -a "$(iot_stat nullb0 buf_size)" = 1048576
unload_iotrace
ktap_finish
