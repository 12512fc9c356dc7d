#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iotracectl_nvme: "iotracectl show" on an NVMe namespace decodes fio's
# reads and writes: opcode name, SLBA and length in logical blocks; on
# the controller's ring (nvme0) list, show, stats and record decode the
# admin commands nvme-cli sent.
#
# Oracles: fio's own I/O log (offset and length of every I/O), the
# namespace's logical_block_size from sysfs, the admin commands given to
# nvme-cli and the status it printed.
# VM-DEVICES: nvme
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 nvme
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 11
out=$(mktemp -d)
load_iotrace
settle
# NVMe status needs the layout from nvme_core's BTF (the udev rule's job on
# an installed system); a kernel without module BTF records none.
"$IOTRACECTL" nvme-layout || log "nvme-layout failed (exit $?)"
ns=
for i in $(seq 50); do
	for b in /sys/block/nvme*n1; do
		[ -e "$b" ] && ns=$(basename "$b")
	done
	[ -n "$ns" ] && [ -e "$IOT/$ns/enable" ] && break
	sleep 0.2
done
[ -n "$ns" ] || skip "no NVMe namespace in the guest"
wait_for "$IOT/$ns/enable" 10 || die "iotrace did not pick up $ns"
lbs=$(cat /sys/block/$ns/queue/logical_block_size)
log "namespace $ns, logical block size $lbs"
echo 2 > "/sys/block/$ns/queue/nomerges"
echo 1 > "$IOT/$ns/enable"
echo 1 > "$IOT/$ns/clear"
fio --name=nv --filename=/dev/$ns --direct=1 --ioengine=psync \
	--rw=randrw --bssplit=4k/50:8k/25:64k/25 --number_ios=400 \
	--size=512m --randrepeat=1 --write_iolog="$out/iolog" \
	--output="$out/fio" || die "fio failed: $(tail -n 5 "$out/fio")"
echo 0 > "$IOT/$ns/enable"
"$IOTRACECTL" show $ns > "$out/show" || die "show failed"
"$IOTRACECTL" show -o csv $ns > "$out/show.csv" || die "show -o csv failed"
head -n 4 "$out/show" | sed 's/^/# /'

python3 - "$out" "$lbs" > "$out/verdict" <<'EOF_PY'
import csv, re, sys
d, lbs = sys.argv[1], int(sys.argv[2])
fio = []
for line in open(d + '/iolog'):
    f = line.split()
    for i in range(len(f) - 2):
        if f[i] in ('read', 'write') and f[i + 1].isdigit():
            fio.append((f[i], int(f[i + 1]), int(f[i + 2])))
            break
name = {'read': 'Read', 'write': 'Write'}
dec = {}
for r in csv.DictReader(open(d + '/show.csv')):
    m = re.match(r'(Read|Write) nsid=\d+ slba=(\d+) len=(\d+)', r['command'])
    if m:
        dec.setdefault((m.group(1), int(m.group(2)), int(m.group(3))), 0)
        dec[(m.group(1), int(m.group(2)), int(m.group(3)))] += 1
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
res(len(fio) >= 400, 'fio logged %d I/Os' % len(fio))
res(len(dec) > 0, '%d distinct decoded NVMe Read/Write commands' % len(dec))
bad = [x for x in fio
       if (name[x[0]], x[1] // lbs, x[2] // lbs) not in dec]
res(not bad, 'every fio I/O decoded with opcode, SLBA and length '
    '(%d of %d not found, e.g. %s)' % (len(bad), len(fio), bad[:3]))
EOF_PY
ktap_verdict "$out/verdict"

# The controller's ring: admin commands.
ctrl=$(basename "$(readlink -f /sys/block/$ns/device)")
wait_for "$IOT/$ctrl/enable" 10 || die "no controller ring $ctrl"
echo 1 > "$IOT/$ctrl/enable"
echo 1 > "$IOT/$ctrl/clear"
"$IOTRACECTL" record $ctrl -o "$out/c.trace" 2> "$out/record.err" &
rpid=$!
sleep 1
nvme id-ctrl /dev/$ctrl > /dev/null || log "id-ctrl failed"
nvme smart-log /dev/$ctrl > /dev/null || log "smart-log failed"
nvme admin-passthru /dev/$ctrl --opcode=0xc1 > "$out/bad" 2>&1
log "admin-passthru 0xc1: $(tr '\n' ' ' < "$out/bad")"
sleep 1
kill -INT $rpid
wait $rpid
rc=$?
sed 's/^/# record: /' "$out/record.err"
echo 0 > "$IOT/$ctrl/enable"
"$IOTRACECTL" list > "$out/list" || log "list failed"
sed 's/^/# /' "$out/list"
ktap_check "list shows the controller ring $ctrl" grep -q "^$ctrl " "$out/list"
"$IOTRACECTL" show $ctrl > "$out/cshow" || log "show $ctrl failed"
sed 's/^/# /' "$out/cshow"
ktap_check "show $ctrl: id-ctrl as Identify cns=0x01 [admin]" \
	grep -q 'Identify cns=0x01 nsid=0 *\[admin\]' "$out/cshow"
ktap_check "show $ctrl: smart-log as Get Log Page lid=0x02 [admin]" \
	grep -q 'Get Log Page lid=0x02 .*\[admin\]' "$out/cshow"
if [ -e /sys/kernel/btf/nvme_core ]; then
	ktap_check "show $ctrl: opcode 0xc1 with Invalid Command Opcode" \
		grep -q 'Invalid Command Opcode.*Vendor Specific (opc 0xc1)' "$out/cshow"
else
	ktap_check "show $ctrl: opcode 0xc1, no status (no module BTF)" \
		sh -c "grep -q 'Vendor Specific (opc 0xc1)' '$out/cshow' &&
			! grep -q 'Invalid Command Opcode' '$out/cshow'"
fi
"$IOTRACECTL" stats -o json $ctrl > "$out/cstats.json" || log "stats $ctrl failed"
ktap_check "stats $ctrl counts the admin commands" python3 -c "
import json, sys
ops = json.load(open(sys.argv[1]))[0]['ops']
sys.exit(sum(o['count'] for o in ops.values()) < 3)" "$out/cstats.json"
"$IOTRACECTL" show "$out/c.trace" > "$out/fshow" 2>&1 || log "show of the file failed"
ktap_check "record $ctrl (exit $rc): the file holds Identify [admin]" \
	grep -q 'Identify cns=0x01 nsid=0 *\[admin\]' "$out/fshow"
# Netlink control of the controller ring: list, resize, clear, enable.
"$IOTRACECTL" state -o json > "$out/state.json" 2>&1 || log "state failed"
ktap_check "netlink LIST (state) reports $ctrl" \
	grep -q "\"disk\":\"$ctrl\"" "$out/state.json"
"$IOTRACECTL" resize $ctrl 1M && "$IOTRACECTL" clear $ctrl &&
	"$IOTRACECTL" enable $ctrl || log "netlink resize/clear/enable failed"
nvme id-ctrl /dev/$ctrl > /dev/null || log "id-ctrl failed"
"$IOTRACECTL" disable $ctrl || log "netlink disable failed"
"$IOTRACECTL" show $ctrl > "$out/cshow2" || log "show $ctrl failed"
sed 's/^/# /' "$out/cshow2"
bsz=$(iot_stat $ctrl buf_size)
en=$(iot_stat $ctrl enabled)
log "$ctrl after resize: buf_size $bsz, enabled $en"
ktap_check "netlink resize 1M/clear/enable/disable: $ctrl ring of 1 MiB holds the new Identify only" \
	sh -c "[ '$bsz' = 1048576 ] && [ '$en' = 0 ] &&
		grep -q 'Identify cns=0x01' '$out/cshow2' &&
		! grep -q 'Get Log Page' '$out/cshow2'"
unload_iotrace
rm -rf "$out"
ktap_finish
