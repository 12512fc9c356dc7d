#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compact ring seeds for fuzz_ring: mkring.py SOURCE.ring OUTDIR.

Takes records from a ring written by tools/tests/gen (NVMe, SCSI and ATA
commands) and packs them into small rings whose header is exactly
sizeof(struct iotrace_ring_hdr) (uapi/linux/iotrace.h), so that fuzz
inputs stay a few KB and the committed corpus small: 1.x rings (per-CPU
parts) and ABI 2.0 rings (a pool of chunks of 2 records, which the
reader accepts though the module makes at least 32).
"""
import struct
import sys

HDR = '<IHHIIIIIIQQQQQIIIIQQ32s128s'	# struct iotrace_ring_hdr
HDR_SIZE = struct.calcsize(HDR)
REC = 128


def source_records(path):
    b = open(path, 'rb').read()
    (magic, major, minor, hdr_size, rsz, nparts, prec, phsz, flags, phoff,
     doff, stride) = struct.unpack_from('<IHHIIIIIIQQQ', b)
    recs = []
    for p in range(nparts):
        for s in range(prec):
            off = doff + p * stride + s * rsz
            r = b[off:off + REC]
            if struct.unpack_from('<I', r)[0] != 0xffffffff and any(r[8:]):
                recs.append(r)
    return recs


def ring(recs, nparts, prec, heads, name, flags=1, busy=()):
    phoff = HDR_SIZE
    doff = phoff + 64 * nparts
    stride = prec * REC
    size = doff + nparts * stride
    b = bytearray(size)
    struct.pack_into(HDR, b, 0, 0x52544f49, 1, 1, HDR_SIZE, REC, nparts,
                     prec, 64, flags, phoff, doff, stride, size, 1, 512,
                     259, 0, 0, 1000, 2000, name.encode(), bytes(128))
    i = 0
    for p in range(nparts):
        struct.pack_into('<QQQ', b, phoff + 64 * p, heads[p], p, 0)
        for seq in range(max(0, heads[p] - prec), heads[p]):
            r = bytearray(recs[i % len(recs)])
            i += 1
            struct.pack_into('<I', r, 0,
                             0xffffffff if (p, seq) in busy else seq)
            off = doff + p * stride + (seq % prec) * REC
            b[off:off + REC] = r
    return bytes(b)


HDR2 = '<IHHIIIIIIQQQQQIIIIQQ32sQIIQ13Q'	# ABI 2.0 struct iotrace_ring_hdr
HDR2_SIZE = struct.calcsize(HDR2)
CPU2 = '<QQQQIIQ16x'	# struct iotrace_cpu_hdr, 64 bytes
CHUNK2 = '<QQQQIIQQII'	# struct iotrace_chunk_hdr, 64 bytes
NONE = 0xffffffff


def rec2(r, seq):
    """A 1.x source record in the 2.0 layout (pid 0) with CPU seq @seq."""
    (_, nbytes, iss, comp, sector, qns, st, res, err, rfl, opf, icpu, _cc,
     hwq, tag, op, retries, ctype, clen) = struct.unpack_from(
         '<IIQQQIIIhHHHHHHBBBB', r)
    b = bytearray(128)
    struct.pack_into('<IIQQQIIIhHHHHHBBBBI', b, 0, seq & 0xffffffff, nbytes,
                     iss, comp, sector, qns, st, res, err, rfl, opf, icpu,
                     hwq, tag, op, retries, ctype, clen, 0)
    b[64:128] = r[64:128]
    b[96:104] = struct.pack('<Q', 4242)	# cmd[32..39]: the cgroup id
    return b


def ring2(recs, ncpus, nrec, chunks, heads, name, flags=1, busy=()):
    """chunks: (take, cpu, first, records written) per chunk; take 0 is
    never taken, all ones being taken; busy: (chunk, slot) marked ~seq."""
    ch_off = HDR2_SIZE + 64 * ncpus
    doff = ch_off + 64 * len(chunks)
    stride = nrec * REC
    size = doff + len(chunks) * stride
    b = bytearray(size)
    struct.pack_into(HDR2, b, 0, 0x52544f49, 2, 0, HDR2_SIZE, REC, ncpus,
                     nrec, 64, flags, HDR2_SIZE, doff, stride, size, 1, 512,
                     259, 0, len(chunks), 1000, 2000, name.encode(), ch_off,
                     64, 0, len(chunks) + 3, *([0] * 13))
    cur = [NONE] * ncpus
    i = 0
    for k, (take, cpu, first, n) in enumerate(chunks):
        struct.pack_into(CHUNK2, b, ch_off + 64 * k, take, first, 1000, 2000,
                         cpu, 1, n, 1, NONE, 0)
        if take in (0, 2 ** 64 - 1):
            continue
        cur[cpu] = k
        for j in range(nrec):
            off = doff + k * stride + j * REC
            seq = first + j
            if j < n and (k, j) not in busy:
                b[off:off + REC] = rec2(recs[i % len(recs)], seq)
                i += 1
            else:
                struct.pack_into('<I', b, off, ~seq & 0xffffffff)
    for c in range(ncpus):
        struct.pack_into(CPU2, b, HDR2_SIZE + 64 * c, heads[c], 0, 0,
                         heads[c] // 2, cur[c], NONE, 0)
    return bytes(b)


def main():
    recs = source_records(sys.argv[1])
    out = sys.argv[2]
    seeds = {
        'compact-2parts-wrapped': ring(recs, 2, 4, (6, 3), 'nvme0n1'),
        'compact-1part': ring(recs[8:], 1, 8, (8,), 'sda'),
        'compact-torn': ring(recs[16:], 2, 2, (5, 2), 'nullb0',
                             busy={(0, 4)}),
        'compact-4parts-detached': ring(recs[24:], 4, 2, (1, 0, 2, 9),
                                        'vdb', flags=2),
    }
    big = 2 ** 32 - 2
    seeds.update({
        # CPU 0: chunks 2-4 of its numbers 4..9 (0..3 recycled), the last
        # one half written and a slot busy; CPU 1: 0..3 and a chunk being
        # taken
        'v2-2cpus-recycled': ring2(recs, 2, 2, (
            (5, 0, 4, 2), (7, 1, 0, 2), (8, 0, 6, 2), (9, 1, 2, 2),
            (2 ** 64 - 1, 1, 0, 0), (10, 0, 8, 1)), (9, 4), 'nvme0n1',
            busy={(2, 1)}),
        # sequence numbers across 2^32 (their low 32 bits wrap)
        'v2-seq-wrap': ring2(recs[8:], 1, 2, (
            (3, 0, big, 2), (4, 0, big + 2, 2), (5, 0, big + 4, 1)),
            (big + 5,), 'sda'),
        # detached, three CPUs, a chunk never taken
        'v2-detached': ring2(recs[16:], 3, 2, (
            (1, 2, 0, 2), (0, 0, 0, 0), (2, 0, 0, 2), (3, 2, 2, 1)),
            (2, 0, 3), 'vdb', flags=2),
    })
    for n, b in seeds.items():
        open('%s/%s' % (out, n), 'wb').write(b)


main()
