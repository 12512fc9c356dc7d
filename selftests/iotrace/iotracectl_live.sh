#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iotracectl_live: iotracectl reading a small ring while the kernel
# overwrites it: "show" snapshots and a "record" running through the whole
# fio run.  Loss must be exact and no torn record may ever be shown.
#
# Oracles: fio's own I/O log (every record shown or recorded must be an
# I/O fio did) and the kernel's /sys/block/<disk>/stat delta (the trace
# file's trailer must account for every completed request).
# VM-CHECK: newest
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 6
out=$(mktemp -d)
disk=nullb0
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
log "$(grep -E 'part_records|nr_parts' "$IOT/$disk/stats" | tr '\n' ' ')"
echo 1 > "$IOT/$disk/enable"
echo 1 > "$IOT/$disk/clear"
udevadm control --stop-exec-queue 2> /dev/null
before=$(blk_ios $disk)
"$IOTRACECTL" record $disk -o "$out/t.trace" 2> "$out/record.err" &
rpid=$!
sleep 1
for cpu in 0 1; do
	fio --name=j$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
	    --number_ios=6000 --size=256m --offset=$((cpu * 256))m \
	    --cpus_allowed=$cpu --write_iolog="$out/iolog.$cpu" \
	    --output="$out/fio.$cpu" &
done
# snapshots for as long as fio runs, from its first completion on (fio's
# start under TCG can take longer than its I/O)
t=0
while [ "$(iot_stat $disk recorded)" -eq 0 ] && [ $t -lt 600 ]; do
	sleep 0.05
	t=$((t + 1))
done
i=0
while [ $i -lt 3 ] || pgrep -x fio > /dev/null; do
	i=$((i + 1))
	"$IOTRACECTL" show -o csv $disk > "$out/snap.$i" 2>> "$out/snap.err"
	"$IOTRACECTL" stats $disk > /dev/null 2>> "$out/snap.err"
	[ $i -ge 200 ] && break
done
log "$i snapshots"
wait %2 %3 2> /dev/null
while pgrep -x fio > /dev/null; do sleep 0.2; done
after=$(blk_ios $disk)
sleep 0.5
kill -INT $rpid
wait $rpid
rc=$?
udevadm control --start-exec-queue 2> /dev/null
sed 's/^/# record: /' "$out/record.err"
ktap_check "record exited 0 on SIGINT" test $rc -eq 0
"$IOTRACECTL" stats -o json "$out/t.trace" > "$out/t.json" ||
	die "stats on the trace file failed"
"$IOTRACECTL" show -o csv "$out/t.trace" > "$out/t.csv" ||
	die "show on the trace file failed"

python3 - "$out" $((after - before)) > "$out/verdict" <<'EOF_PY'
import csv, glob, json, sys
d, delta = sys.argv[1], int(sys.argv[2])
fio = set()
for name in glob.glob(d + '/iolog.*'):
    for line in open(name):
        f = line.split()
        for i in range(len(f) - 2):
            if f[i] in ('read', 'write') and f[i + 1].isdigit():
                fio.add((f[i], int(f[i + 1]) // 512, int(f[i + 2])))
                break
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
loss = json.load(open(d + '/t.json'))[0]['loss']  # one object per disk
res(loss['completed'] == delta,
    'trailer completed %d = /sys/block stat delta %d (%s)'
    % (loss['completed'], delta, loss))
res(loss['written'] + loss['lost'] == loss['recorded'] and
    loss['lost'] == loss['overwritten'] + loss['torn'],
    'written %d + lost %d = recorded %d' %
    (loss['written'], loss['lost'], loss['recorded']))
rows = list(csv.DictReader(open(d + '/t.csv')))
keys = [(r['op'], int(r['sector']), int(r['bytes'])) for r in rows]
ids = set((r['complete_cpu'], r['seq']) for r in rows)
bad = [k for k in keys if k not in fio]
res(len(rows) == loss['written'] and len(ids) == len(rows) and not bad,
    'file holds %d records, each once, each an I/O fio did (%d not: %s)'
    % (len(rows), len(bad), bad[:3]))
snap, sbad = 0, []
for name in glob.glob(d + '/snap.*'):
    if name.endswith('.err'):
        continue
    for r in csv.DictReader(open(name)):
        snap += 1
        k = (r['op'], int(r['sector']), int(r['bytes']))
        if k not in fio:
            sbad.append(k)
res(snap > 0 and not sbad,
    'live snapshots showed %d records, all I/Os fio did (%d not: %s)'
    % (snap, len(sbad), sbad[:3]))
EOF_PY
ktap_verdict "$out/verdict"
ktap_check "no errors from show/stats while the ring was written" \
	test ! -s "$out/snap.err" -o -z "$(grep -v 'torn or overwritten' "$out/snap.err")"
unload_iotrace
rm -rf "$out"
ktap_finish
