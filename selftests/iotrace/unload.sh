#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# unload: rmmod while a reader holds a mapping of a ring is refused (the
# mapping keeps the module); it succeeds once the reader is gone.  The ring
# file refuses writable opens and mappings; read() gives the mapped bytes.
# VM-TIMEOUT: 200
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header 6
out=$(mktemp -d)
nullb_mod nr_devices=1 irqmode=0
disk=nullb0
load_iotrace disks=$disk
dd if=/dev/$disk of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
echo 0 > "$IOT/$disk/enable"
"$RINGCHECK" rdonly "$IOT/$disk/ring"
ktap_check "ring is read-only; read() equals the mapping" test $? -eq 0

"$RINGCHECK" hold "$IOT/$disk/ring" "$out/go" > "$out/hold" &
holder=$!
for i in $(seq 50); do
	grep -q '^mapped: 1' "$out/hold" && break
	sleep 0.1
done
rmmod iotrace 2> "$out/rmmod"
rc=$?
cat "$out/rmmod" | sed 's/^/# /'
ktap_check "rmmod refused while mapped" test $rc -ne 0
ktap_check "module still loaded" test -d /sys/module/iotrace
touch "$out/go"
wait $holder
ktap_check "mapping intact until closed" test $? -eq 0
ktap_check "rmmod succeeds after the reader closed" rmmod iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
