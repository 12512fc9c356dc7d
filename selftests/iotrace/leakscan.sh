#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# leakscan: no kernel address leaves the kernel, and debugfs is root-only.
#
# Traffic on null_blk and on an emulated NVMe namespace (fio, plus nvme-cli
# id-ctrl and io-passthru), then every byte iotrace hands to user space is
# scanned (leakscan.py): every file under the debugfs directory (text views
# and binary rings), the netlink replies (iotracectl list/state -o json),
# iotracectl's outputs and a trace file written by iotracectl record.
# Binary data: 8-byte-aligned little-endian words in the x86_64 kernel
# ranges; text: hex ffff + 12 digits and decimal numbers in those ranges.
# Every NVMe record (rings and trace file) has zero metadata/data pointers
# (command bytes 16..39).  The scanner first proves it finds planted
# pointers.
#
# Permissions: every debugfs file has no group/other mode bits and a process
# as uid/gid 65534 without groups (setpriv) can open none of them.  (The
# writable mapping refusal is in lifetime.sh via ringcheck rdonly; netlink's
# CAP_SYS_ADMIN checks are in netlink_control.sh.)
# VM-DEVICES: nvme
# VM-TIMEOUT: 420
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3 fio nvme setpriv
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
SCAN=$IOTRACE_SRC/selftests/iotrace/leakscan.py
ktap_header 8
tmp=$(mktemp -d)
out=$tmp/out
mkdir -p "$out"

python3 "$SCAN" selftest > "$tmp/selftest" 2>&1
rc=$?
grep -v '^ok' "$tmp/selftest" | sed 's/^/# /'
ktap_check "scanner finds planted kernel pointers ($(grep -c '^ok' "$tmp/selftest") checks)" \
	[ $rc = 0 ]

load_iotrace
nb=$(nullb_create lk size=256 irqmode=1 submit_queues=2)
ns=$(first_disk 'nvme*n1') || skip "no NVMe namespace in the guest"
ctrl=${ns%n1}
wait_for "$IOT/$nb/enable" 10 || die "iotrace did not pick up $nb"
wait_for "$IOT/$ns/enable" 10 || die "iotrace did not pick up $ns"
lbs=$(cat "/sys/block/$ns/queue/logical_block_size")
log "disks $nb and $ns (controller $ctrl)"
# enable on an NVMe disk also gives the module the NVMe layout (BTF), so
# the status and result fields are scanned too
"$IOTRACECTL" enable "$nb" "$ns" || die "iotracectl enable failed"
log "$(grep '^nvme_status:' "$IOT/status")"

# Until SIGINT, after all the traffic: a fixed duration can end before the
# NVMe part on a slow guest.
"$IOTRACECTL" record "$nb" "$ns" -o "$out/rec.trace" --duration 600 \
	2> "$tmp/record.err" &
rec=$!
sleep 1
fio --name=nb --filename=/dev/$nb --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randrw --bs=4k --number_ios=3000 --size=64m \
	--randrepeat=1 --output="$tmp/fio1" || die "fio on $nb failed"
fio --name=nv --filename=/dev/$ns --direct=1 --ioengine=psync \
	--rw=randrw --bssplit=4k/50:64k/50 --number_ios=300 --size=64m \
	--randrepeat=1 --output="$tmp/fio2" || die "fio on $ns failed"
nvme id-ctrl "/dev/$ctrl" > /dev/null 2>&1 || log "nvme id-ctrl failed"
nvme id-ns "/dev/$ns" > /dev/null 2>&1 || log "nvme id-ns failed"
nvme io-passthru "/dev/$ns" --opcode=0x02 --namespace-id=1 --read \
	--data-len=$((8 * lbs)) --cdw10=16 --cdw12=7 --raw-binary \
	> /dev/null 2> "$tmp/pt.err" || log "io-passthru read: $(cat "$tmp/pt.err")"
nvme io-passthru "/dev/$ns" --opcode=0x01 --namespace-id=1 --write \
	--data-len="$lbs" --cdw10=32 --input-file=/dev/zero \
	> /dev/null 2> "$tmp/pt.err" || log "io-passthru write: $(cat "$tmp/pt.err")"
sleep 1
kill -INT $rec
wait $rec
log "record: exit $?, $(wc -c < "$out/rec.trace") bytes $(tr '\n' ' ' < "$tmp/record.err")"

# user-space views, netlink replies included
"$IOTRACECTL" list -o json > "$out/list.json" 2>> "$tmp/ctl.err"
"$IOTRACECTL" list > "$out/list.txt" 2>> "$tmp/ctl.err"
"$IOTRACECTL" state -o json > "$out/state.json" 2>> "$tmp/ctl.err"
"$IOTRACECTL" state > "$out/state.txt" 2>> "$tmp/ctl.err"
for d in "$nb" "$ns"; do
	"$IOTRACECTL" show -o json "$d" > "$out/show.$d.json" 2>> "$tmp/ctl.err"
	"$IOTRACECTL" show -o hex "$d" > "$out/show.$d.hex" 2>> "$tmp/ctl.err"
	"$IOTRACECTL" show -o binary "$d" > "$out/show.$d.bin" 2>> "$tmp/ctl.err"
	"$IOTRACECTL" inflight -o json "$d" > "$out/inflight.$d.json" 2>> "$tmp/ctl.err"
	"$IOTRACECTL" stats -o json "$d" > "$out/stats.$d.json" 2>> "$tmp/ctl.err"
done
"$IOTRACECTL" show -o json "$out/rec.trace" > "$out/show.rec.json" 2>> "$tmp/ctl.err"
[ -s "$tmp/ctl.err" ] && sed 's/^/# iotracectl: /' "$tmp/ctl.err" | head -n 10

# every file under debugfs, the rings as bytes; permissions on the way.
# A handful of processes for all of them, not a few per file: each exec
# costs a large fraction of a second under TCG.
files=$(find "$IOT" -type f | sort)
nfiles=0
badmode=
while read -r m f; do
	nfiles=$((nfiles + 1))
	[ $((8#$m & 8#077)) = 0 ] || badmode="$badmode ${f#"$IOT"/}:$m"
	[ $((8#$m & 8#400)) = 0 ] && continue	# write-only (clear)
	rel=${f#"$IOT"/}
	cat "$f" > "$out/dfs.${rel//\//_}" 2>> "$tmp/cat.err" ||
		log "cannot read $f"
done <<< "$(stat -c '%a %n' $files)"	# no /dev/fd in the guest
# uid 65534 opens each for reading and for appending, in one shell ("true"
# is a regular builtin: a refused redirection fails it, not the shell)
readable=$(setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '
	for f; do
		true 3< "$f" && printf " %s" "$f"
		true 3>> "$f" && printf " %s(w)" "$f"
	done' sh $files 2> /dev/null)
readable=${readable//"$IOT"\//}
log "$nfiles debugfs files: $(find "$IOT" -type f | sed "s|$IOT/||" | tr '\n' ' ')"
ktap_check "every debugfs file has no group/other permission bits${badmode:+ (not:$badmode)}" \
	test -z "$badmode" -a "$nfiles" -gt 3
ktap_check "uid 65534 can open no debugfs file${readable:+ (opened:$readable)}" \
	[ -z "$readable" ]

nrec=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
	"$out/show.$nb.json" 2> /dev/null)
log "$(ls "$out" | wc -l) outputs, $(du -sk "$out" | cut -f1) KB; $nb show: ${nrec:-?} records"
missing=
for f in rec.trace "dfs.${nb}_ring" "dfs.${ns}_ring" "dfs.${nb}_trace" \
	 list.json state.json "show.$ns.json"; do
	[ -s "$out/$f" ] || missing="$missing $f"
done
ktap_check "the scanned outputs are not empty${missing:+ (empty:$missing)}" \
	[ -z "$missing" ]

python3 "$SCAN" scan "$out"/* > "$tmp/scan" 2>&1
rc=$?
grep -v '^# ' "$tmp/scan" | head -n 30 | sed 's/^/# /'
ktap_check "no kernel-address-shaped value in $(ls "$out" | wc -l) files ($(du -sk "$out" | cut -f1) KB)" \
	[ $rc = 0 ]

python3 "$SCAN" nvme "$out"/dfs.*ring "$out/rec.trace" > "$tmp/nvme" 2>&1
rc=$?
sed 's/^/# /' "$tmp/nvme" | grep -v ': 0 NVMe records'
n=$(sed -n 's/^nvme_records \([0-9]*\) .*/\1/p' "$tmp/nvme")
ktap_check "NVMe metadata and data pointers are zero in all ${n:-0} NVMe records" \
	test $rc = 0 -a "${n:-0}" -gt 0
python3 "$SCAN" nvme "$out/rec.trace" > "$tmp/nvme_file" 2>&1
nf=$(sed -n 's/^nvme_records \([0-9]*\) .*/\1/p' "$tmp/nvme_file")
ktap_check "the trace file holds NVMe records too (${nf:-0})" test "${nf:-0}" -gt 0

"$IOTRACECTL" disable "$nb" "$ns"
nullb_destroy lk
unload_iotrace
ktap_check "no kernel warning" no_kernel_splat
rm -rf "$tmp"
ktap_finish
