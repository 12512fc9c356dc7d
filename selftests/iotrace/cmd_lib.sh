#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Helpers for the cmd_*.sh tests (sourced, not a test itself).
#
# cmd_dump DISK - print every valid record of DISK's ring, one per line:
#   seq op sector bytes error rflags dev_status dev_result cmd_type cmd_len cmdhex
# (numbers in decimal except rflags/dev_status/dev_result, which are 0x-hex;
# cmdhex is cmd_len bytes, no separator; with CMD_DUMP_WHOLE=1 all 64 bytes
# of the command area, the cgroup's 32-39 as zeros; with CMD_DUMP_RAW=1, a
# ring of major 2 only, each record's 128 bytes in hex, as they are).  The
# ring is decoded here with python's struct module straight from the
# layout in uapi/linux/iotrace.h, independently of iotracectl.

IOTRACE_RF_COMPLETE=$((1 << 0))
IOTRACE_RF_ERROR=$((1 << 1))
IOTRACE_RF_PASSTHRU=$((1 << 4))
IOTRACE_RF_CMD_VALID=$((1 << 5))
IOTRACE_RF_STATUS_VALID=$((1 << 9))

cmd_dump() {
	python3 - "$IOTRACE_DEBUGFS/$1/ring" <<'EOF'
import os, struct, sys
buf = open(sys.argv[1], 'rb').read()
(magic, major, minor, hdr_size, rec_size, nr_parts, part_records,
 part_hdr_size, flags, part_hdr_off, data_off, part_stride, ring_size,
 gen) = struct.unpack_from('<IHHIIIIIIQQQQQ', buf, 0)
if magic != 0x52544f49 or major not in (1, 2):
    sys.exit('bad ring header: magic %#x major %d' % (magic, major))
whole = os.environ.get('CMD_DUMP_WHOLE') == '1'
def show(s, nbytes, sector, err, rf, st, res, op, ctype, clen, cmd):
    print(s, op, sector, nbytes, err, '%#x' % rf, '%#x' % st,
          '%#x' % res, ctype, clen, (cmd if whole else cmd[:clen]).hex() or '-')
if major == 2:
    # the chunk pool: nr_chunks at 84, chunk headers at 136 (size at 144)
    nr_chunks, = struct.unpack_from('<I', buf, 84)
    ch_off, ch_size = struct.unpack_from('<QI', buf, 136)
    REC = '<IIQQQIIIhHHHHHBBBBI64s'
    assert struct.calcsize(REC) == 128
    chunks = []
    for k in range(nr_chunks):
        take, first = struct.unpack_from('<QQ', buf, ch_off + k * ch_size)
        cpu, = struct.unpack_from('<I', buf, ch_off + k * ch_size + 32)
        if take and take != 2**64 - 1:
            chunks.append((cpu, first, k))
    for cpu, first, k in sorted(chunks):
        for i in range(part_records):
            off = data_off + k * part_stride + i * rec_size
            (seq, nbytes, issue, comp, sector, qns, st, res, err, rf, of,
             icpu, hwq, tag, op, retries, ctype, clen, pid,
             cmd) = struct.unpack_from(REC, buf, off)
            if seq != ((first + i) & 0xffffffff):
                continue
            if os.environ.get('CMD_DUMP_RAW') == '1':
                print(buf[off:off + 128].hex())
                continue
            # bytes 32-39 are the cgroup id, not the command (NVMe: PRP2)
            cmd = cmd[:32] + bytes(8) + cmd[40:]
            show(first + i, nbytes, sector, err, rf, st, res, op, ctype,
                 clen, cmd)
    sys.exit(0)
REC = '<IIQQQIIIhHHHHHHBBBBH64s'
assert struct.calcsize(REC) == 128
for p in range(nr_parts):
    head, = struct.unpack_from('<Q', buf, part_hdr_off + p * part_hdr_size)
    for s in range(max(0, head - part_records), head):
        off = data_off + p * part_stride + (s % part_records) * rec_size
        (seq, nbytes, issue, comp, sector, qns, st, res, err, rf, of, icpu,
         ccpu, hwq, tag, op, retries, ctype, clen, rsv,
         cmd) = struct.unpack_from(REC, buf, off)
        if seq != (s & 0xffffffff):
            continue
        show(s, nbytes, sector, err, rf, st, res, op, ctype, clen, cmd)
EOF
}

# cmd_enable DISK - make sure DISK is traced and its ring empty.
cmd_enable() {
	local d=$IOTRACE_DEBUGFS/$1
	wait_for "$d/enable" 10 || die "no $d (disk not picked up by iotrace)"
	echo 1 > "$d/enable" || die "cannot enable $1"
	echo 1 > "$d/clear" || die "cannot clear $1"
}

# cmd_disable DISK - stop tracing DISK (the ring stays readable).
cmd_disable() {
	echo 0 > "$IOTRACE_DEBUGFS/$1/enable" || die "cannot disable $1"
}

# rec_match FILE EXPR - true if some record of FILE (cmd_dump output)
# satisfies the python expression EXPR over: op sector nbytes err rf st res
# ctype clen cmd (cmd as a hex string) c (cmd as bytes) le (little-endian
# integer of a bytes slice).
rec_match() {
	python3 - "$1" "$2" <<'EOF_PY'
import sys
for line in open(sys.argv[1]):
    f = line.split()
    v = dict(op=int(f[1]), sector=int(f[2]), nbytes=int(f[3]),
             err=int(f[4]), rf=int(f[5], 16), st=int(f[6], 16),
             res=int(f[7], 16), ctype=int(f[8]), clen=int(f[9]),
             cmd=f[10], le=lambda b: int.from_bytes(b, 'little'))
    v['c'] = bytes.fromhex(f[10]) if f[10] != '-' else b''
    if eval(sys.argv[2], {}, v):
        sys.exit(0)
sys.exit(1)
EOF_PY
}
