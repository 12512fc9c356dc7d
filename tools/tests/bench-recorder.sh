#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The recorder's userspace instructions per record, counted by callgrind:
# bench's BENCH_ONLY_RECORDER pass (iot_record_rings() over a 2.0 ring of
# N records, default 200000, the file to /dev/null), only what runs inside
# iot_record_rings() counted, then per record: the whole pass, drain_part()
# and its callees (inclusive, as callgrind_annotate gives them).
#   tests/bench-recorder.sh [N]        (after make build/bench; BENCH=PATH
#                                      measures another build of bench)
set -eu
cd "$(dirname "$0")/.." || exit 1
N=${1:-200000}
B=${BENCH:-build/bench}
command -v valgrind > /dev/null ||
	{ echo "bench-recorder: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x "$B" ] || { echo "bench-recorder: make build/bench first" >&2; exit 2; }
T=$(mktemp -d /tmp/iotracectl-benchrec.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
BENCH_ONLY_RECORDER=1 BENCH_RECORDS=$N valgrind --tool=callgrind \
	--toggle-collect=iot_record_rings --callgrind-out-file="$T/cg.out" \
	"$B" > "$T/out" 2> "$T/vg" || { cat "$T/vg" >&2; exit 1; }
grep '^recorder:' "$T/out"
echo "user instructions per record, inclusive (callgrind, N=$N):"
callgrind_annotate --inclusive=yes --threshold=100 "$T/cg.out" > "$T/ann" 2>&1
# "1,234,567 (99.9%)  file:function [object]": per record, the recorder's
# functions (those inlined into their callers are not listed)
awk -v n="$N" '
	/PROGRAM TOTALS/ {
		v = $1; gsub(",", "", v)
		printf "  %-28s %7.1f\n", "inside iot_record_rings", v / n
	}
	/^ *[0-9,]+ .*:/ && !/PROGRAM TOTALS/ {
		v = $1; gsub(",", "", v)
		f = $0; sub(/ \[.*$/, "", f); sub(/ \([0-9,]+x\)$/, "", f)
		sub(/^.*:/, "", f)
		if (f ~ /^(drain_part|iot_ring_copy|copy2|copy_run2|iot_ring_copy_run|rec2_to_v1|find2|iot_writer_chunk|iot_file_chunk_crc|iot_ring_gone|iot_ring_next)$/ ||
		    f ~ /(^|_)mem(cpy|set|move)/ || f ~ /^crc32c_/ || f == "fwrite") {
			if (!(f in seen))
				printf "  %-28s %7.1f\n", f, v / n
			seen[f] = 1
		}
	}
' "$T/ann"
