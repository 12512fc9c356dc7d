#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compact ring seeds for fuzz_ring: mkring.py SOURCE.ring OUTDIR.

Takes records from a ring written by tools/tests/gen (NVMe, SCSI and ATA
commands) and packs them into small rings whose header is exactly
sizeof(struct iotrace_ring_hdr) (uapi/linux/iotrace.h), so that fuzz
inputs stay a few KB and the committed corpus small.
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
    for n, b in seeds.items():
        open('%s/%s' % (out, n), 'wb').write(b)


main()
