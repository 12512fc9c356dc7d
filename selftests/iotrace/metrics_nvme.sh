#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# metrics_nvme: the in-kernel metrics of QEMU's NVMe namespace against
# oracles iotrace did not write: fio's own I/O log and the kernel's
# /sys/block/<ns>/stat delta (requests and bytes exact while a 64K ring
# wraps many times), and an opcode the controller does not implement,
# sent through the passthrough ioctl by nvme-cli: one error of op
# "passthrough", by the status nvme-cli printed (where the module records
# NVMe status: module BTF), in GET_METRICS and in the exporter's
# iotrace_errors_total; without BTF only the block layer's status, which
# 6.12 leaves OK for it.
# VM-DEVICES: nvme
# VM-TIMEOUT: 400
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd nvme fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
NLM="python3 $IOTRACE_SRC/selftests/iotrace/nlmetrics.py"

ns=$(first_disk 'nvme*n1') || skip "no NVMe namespace in the guest"
load_iotrace buf_size=64K disks=$ns
# udevd's main process reads a watched whole disk (a partition table probe)
# after every close of a writer: I/O that is neither fio's nor iotrace's
# (the records name systemd-udevd as their submitter).  No udev here.
# udevd and its workers must be gone before fio starts (SIGTERM is
# asynchronous, and a worker may be in a probe): wait for it.
settle
udevadm control --exit 2> /dev/null || pkill -x systemd-udevd
end=$((SECONDS + 30))
while pgrep udev > /dev/null; do
	[ $SECONDS -lt $end ] ||
		die "udevd still running: $(pgrep -a udev | tr '\n' ' ')"
	sleep 0.2
done
if [ -e /sys/kernel/btf/nvme_core ]; then
	have_btf=1
	"$IOTRACECTL" nvme-layout > "$out/layout" 2>&1 ||
		die "iotracectl nvme-layout failed: $(cat "$out/layout")"
else
	have_btf=0
	log "no /sys/kernel/btf/nvme_core on $(uname -r): no NVMe status recorded"
fi
ktap_check "namespace $ns has a metrics file" test -r "$IOT/$ns/metrics"

# ---- fio on the namespace: counts exact while the ring wraps -----------
$NLM reset $ns > /dev/null || die "RESET_METRICS failed"
before="$(blk_stat $ns 1) $(blk_stat $ns 3) $(blk_stat $ns 5) $(blk_stat $ns 7)"
for cpu in 0 1; do
	fio --name=n$cpu --filename=/dev/$ns --direct=1 --ioengine=libaio \
	    --iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
	    --number_ios=1500 --size=48m --offset=$((cpu * 48))m \
	    --cpus_allowed=$cpu --write_iolog="$out/iolog.$cpu" \
	    --output="$out/fio.$cpu" &
done
wait
# shellcheck disable=SC2086
set -- $before
$NLM get $ns > "$out/fio.m"
fio_sum() {
	cat "$out"/iolog.* | awk -v d="$1" -v w="$2" '
		$2 == d { n++; b += $4 } $3 == d { n++; b += $5 }
		END { print (w == "count" ? n + 0 : b + 0) }'
}
# When the counts differ, whose were the others?  The ring's last records
# (it wraps) against fio's log: submitters that are not fio, and requests
# that are no I/O of fio's (a split one, or someone else's).
"$IOTRACECTL" show -o csv "$ns" > "$out/ring.csv" 2>&1
sed 's/^/# comms: /' "$IOT/comms"
why=$(python3 -c 'import collections, csv, sys
fio = set()
for f in sys.argv[2:]:
    for ln in open(f):
        w = ln.split()
        if len(w) == 5 and w[2] in ("read", "write"):
            fio.add((w[2], int(w[3]), int(w[4])))
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["op"] in ("read", "write")]
odd = collections.Counter("%s %s %s" % (r["op"], r["bytes"], r["comm"] or r["pid"])
                          for r in rows
                          if (r["op"], int(r["sector"]) * 512, int(r["bytes"])) not in fio)
print("ring: %d of the last %d not in the fio log: %s" % (
    sum(odd.values()), len(rows),
    ", ".join("%s x%d" % kv for kv in odd.most_common(4))))' \
	"$out/ring.csv" "$out"/iolog.* 2>&1)
why="$why; submitters: $(sed 1d "$IOT/comms" | awk '{ print $2 }' | sort | uniq -c | xargs)"
why="$why; read bytes beyond fio's: $((($(blk_stat $ns 3) - $2) * 512 - $(fio_sum read bytes)))"
log "$why"
log "stat delta: $(($(blk_stat $ns 1) - $1)) reads of $((($(blk_stat $ns 3) - $2) * 512)) bytes, $(($(blk_stat $ns 5) - $3)) writes of $((($(blk_stat $ns 7) - $4) * 512)) bytes; fio: $(fio_sum read count) reads of $(fio_sum read bytes) bytes, $(fio_sum write count) writes of $(fio_sum write bytes) bytes"
n=$(fio_sum read count)
r=$(kv "$out/fio.m" read.requests)
[ "$r" = "$n" ] && why=
ktap_check "read requests $r = fio's $n = stat's $(($(blk_stat $ns 1) - $1))${why:+ [$why]}" \
	test "$(kv "$out/fio.m" read.requests)" -eq "$n" -a "$n" -eq $(($(blk_stat $ns 1) - $1)) -a "$n" -gt 0
n=$(fio_sum write count)
ktap_check "write requests $(kv "$out/fio.m" write.requests) = fio's $n = stat's $(($(blk_stat $ns 5) - $3))" \
	test "$(kv "$out/fio.m" write.requests)" -eq "$n" -a "$n" -eq $(($(blk_stat $ns 5) - $3)) -a "$n" -gt 0
n=$(fio_sum read bytes)
ktap_check "read bytes $(kv "$out/fio.m" read.bytes) = fio's $n = stat's sectors x 512" \
	test "$(kv "$out/fio.m" read.bytes)" -eq "$n" -a "$n" -eq $((($(blk_stat $ns 3) - $2) * 512))
n=$(fio_sum write bytes)
ktap_check "write bytes $(kv "$out/fio.m" write.bytes) = fio's $n = stat's sectors x 512" \
	test "$(kv "$out/fio.m" write.bytes)" -eq "$n" -a "$n" -eq $((($(blk_stat $ns 7) - $4) * 512))
ktap_check "no errors, nothing else counted" \
	test "$(kv "$out/fio.m" read.errors)$(kv "$out/fio.m" write.errors)$(kv "$out/fio.m" passthrough.requests)" = 000
over=$(iot_stat $ns overwritten)
ktap_check "the 64K ring wrapped ($over records overwritten)" test "${over:-0}" -gt 1000
ktap_check "device latency counted for every request" \
	test "$(kv "$out/fio.m" read.dev_count)" -eq "$(kv "$out/fio.m" read.requests)" -a \
	"$(kv "$out/fio.m" write.dev_count)" -eq "$(kv "$out/fio.m" write.requests)"

# ---- an opcode the controller does not implement ----------------------
$NLM reset $ns > /dev/null
nvme io-passthru /dev/$ns --opcode=0x83 --namespace-id=1 \
	--cdw10=0xa5a5a5a5 > "$out/bad.out" 2>&1 &&
	log "opcode 0x83 succeeded?"
bad=$(grep -o '(0x[0-9a-fA-F]*)' "$out/bad.out" | tail -n 1 | tr -d '()')
log "nvme-cli on opcode 0x83: $(tr '\n' ' ' < "$out/bad.out")"
$NLM get $ns > "$out/bad.m"
grep -E '^passthrough\.(requests|errors)|^error' "$out/bad.m" | sed 's/^/# /'
ktap_check "nvme-cli printed a status ($bad)" test -n "$bad"
# Without the NVMe status (no BTF) the module has only the status
# block_rq_complete gives, and for this command it is OK on 6.12 and 7.3:
# with BTF the error line's errno is 0 there, and on make check-debug's
# 6.12 (built without BTF) no error is counted.  Older kernels may give
# an errno: then it is the one error, by errno.
perr=$(kv "$out/bad.m" passthrough.errors)
if [ $have_btf = 1 ]; then
	ktap_check "one request of op passthrough, one error" \
		test "$(kv "$out/bad.m" passthrough.requests)/$perr" = 1/1
else
	ktap_check "one request of op passthrough, $perr errors (by the block layer's status)" \
		test "$(kv "$out/bad.m" passthrough.requests)" = 1 -a "$perr" -le 1 -a \
		"$(grep -c '^error:' "$out/bad.m")" = "$perr"
fi
sc=$(( ${bad:-0} & 0x7ff ))
if [ $have_btf = 1 ]; then
	want=$(printf 'nvme 0x%04x' $sc)
	ktap_check "the error is of kind NVMe with nvme-cli's SCT/SC ($want)" \
		test "$(grep -c "^error: passthrough $want [0-9]* 1\$" "$out/bad.m")" -eq 1 -a \
		"$(grep -c '^error:' "$out/bad.m")" -eq 1
	label=$(printf 'nvme:sct0x%x:sc0x%02x' $((sc >> 8)) $((sc & 0xff)))
else
	ktap_check "no NVMe status without BTF: an error by errno, if any" \
		test "$(grep -c '^error: passthrough none 0x0000 [1-9][0-9]* 1$' "$out/bad.m")" -eq "$perr"
	errno=$(sed -n 's/^error: passthrough none 0x0000 \([0-9]*\) 1$/\1/p' "$out/bad.m")
	name=$(python3 -c 'import errno, sys; print(errno.errorcode[int(sys.argv[1])])' "${errno:-5}")
	# one number on Linux; the block layer's name for it is EOPNOTSUPP
	[ "$name" = ENOTSUP ] && name=EOPNOTSUPP
	label=errno:$name
fi
"$IOTRACECTL" exporter --textfile "$out" --once --disk-include "$ns" \
	> "$out/exp.log" 2>&1 || log "exporter: $(cat "$out/exp.log")"
prom=$out/iotrace.prom
grep "iotrace_errors_total{disk=\"$ns\"" "$prom" 2> /dev/null | sed 's/^/# /'
if [ "${perr:-0}" = 1 ]; then
	ktap_check "iotrace_errors_total{disk=$ns,op=passthrough,status=$label} = 1" \
		test "$(grep -F "iotrace_errors_total{disk=\"$ns\",op=\"passthrough\",status=\"$label\"}" "$prom" | awk '{ print $2 }')" = 1
else
	ktap_check "no iotrace_errors_total of op passthrough" \
		test "$(grep -cF "iotrace_errors_total{disk=\"$ns\",op=\"passthrough\"" "$prom")" = 0
fi

unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
