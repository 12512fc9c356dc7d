#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iotracectl_nvme: "iotracectl show" on an NVMe namespace decodes fio's
# reads and writes: opcode name, SLBA and length in logical blocks.
#
# Oracles: fio's own I/O log (offset and length of every I/O) and the
# namespace's logical_block_size from sysfs.
# VM-DEVICES: nvme
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 3
out=$(mktemp -d)
load_iotrace
settle
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
sed 's/^/# /' "$out/verdict"
while read -r v what; do
	if [ "$v" = ok ]; then ktap_ok "$what"; else ktap_fail "$what"; fi
done < "$out/verdict"
unload_iotrace
rm -rf "$out"
ktap_finish
