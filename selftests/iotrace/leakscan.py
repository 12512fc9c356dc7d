#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scan bytes produced by iotrace for kernel-address-shaped values.

  leakscan.py scan FILE...    one line per finding, exit 1 if any
  leakscan.py nvme FILE...    every NVMe record of rings (IOTR) and trace
                              files: command bytes 16..39 (metadata and data
                              pointers) must be zero; prints counts
  leakscan.py selftest        planted pointers must be found, clean data not

Binary scan: every 8-byte-aligned little-endian word in the x86_64 kernel
ranges (direct map from 0xffff888000000000, vmalloc 0xffffc9..., vmemmap
0xffffea..., up to the fixmap/cpu_entry area; kernel text 0xffffffff8... and
modules 0xffffffffa0000000 up).  Text scan, sliding over every byte: hex
"ffff" followed by 12 hex digits (a whole hex number, not a piece of a
longer hex string such as a command dump) and decimal numbers, each
reported only when its value is in those ranges (all-ones, the sector of
a request without one, is not).
"""
import re
import struct
import sys

RANGES = (
    (0xffff888000000000, 0xffffff0000000000),  # direct map .. cpu_entry
    (0xffffffff80000000, 0xffffffffff000000),  # kernel text, modules
)
# Whole numbers only: the byte before a match must not be a digit of the
# same base (checked by hand: a look-behind would cost the regex engine
# its literal-prefix search, several times slower in a TCG guest).  A
# match rejected that way is all digits, so no whole number starts inside
# it and finditer skipping over it misses nothing.
HEX_RE = re.compile(rb'(?i)ffff[0-9a-f]{12}(?![0-9a-f])')
DEC_RE = re.compile(rb'1844[0-9]{16}(?![0-9])')
HEX_DIGITS = frozenset(b'0123456789abcdefABCDEF')
DEC_DIGITS = frozenset(b'0123456789')


def whole(buf, m, digits):
    return m.start() == 0 or buf[m.start() - 1] not in digits
NVME, SEQ_BUSY = 1, 0xffffffff
REC_CMD_TYPE, REC_CMD = 60, 64	# offsets in struct iotrace_record_v1
REC2_CMD_TYPE = 58		# in struct iotrace_record (ABI 2.0)
FILE_REC, FILE_REC_CMD = 144, 80	# a trace file's major 2 record


def kernel_shaped(v):
    return any(lo <= v < hi for lo, hi in RANGES)


# Every kernel range has 0xffff in its top 16 bits: a word can only be
# kernel-shaped where its last two bytes are ff ff.  Finding those with the
# regex engine (every position, overlapping) instead of a Python loop over
# every word keeps a scan of megabytes to seconds in a TCG guest.
FFFF_RE = re.compile(rb'(?=\xff\xff)')


def scan(buf, exempt=()):
    found = []
    n = len(buf) - len(buf) % 8
    for m in FFFF_RE.finditer(buf, 6, n):
        off = m.start() - 6
        if off % 8:
            continue
        v = struct.unpack_from('<Q', buf, off)[0]
        if kernel_shaped(v) and off not in exempt:
            found.append((off, 'word 0x%016x' % v))
    for m in HEX_RE.finditer(buf):
        if whole(buf, m, HEX_DIGITS) and kernel_shaped(int(m.group(), 16)):
            found.append((m.start(), 'hex text %s' % m.group().decode()))
    for m in DEC_RE.finditer(buf):
        if whole(buf, m, DEC_DIGITS) and kernel_shaped(int(m.group())):
            found.append((m.start(), 'decimal text %s' % m.group().decode()))
    return found


def records(buf):
    """(offset, record bytes) of every record slot of a ring or trace file;
    [] for other bytes.  ABI 2.0 ring records come as copies adjusted for
    the 1.x offsets that nvme_records() and cmd_nvme() test."""
    out = []
    if buf[:4] == b'IOTR' and len(buf) >= 88:
        (magic, major, minor, hdr_size, rsz, nparts, prec, phsz, flags,
         phoff, doff, stride, size) = struct.unpack_from('<IHHIIIIIIQQQQ',
                                                         buf)
        if major == 2:
            # a pool of nr_chunks chunks of prec (chunk_records) records
            nchunks = struct.unpack_from('<I', buf, 84)[0]
            for k in range(nchunks):
                for s in range(prec):
                    off = doff + k * stride + s * rsz
                    if off + rsz <= len(buf):
                        r = bytearray(buf[off:off + rsz])
                        # cmd_type where the 1.x layout has it; cmd
                        # bytes 32-39 are the cgroup id, not PRP2 (the
                        # whole-buffer scan still covers them)
                        r[REC_CMD_TYPE] = r[REC2_CMD_TYPE]
                        r[REC_CMD + 32:REC_CMD + 40] = bytes(8)
                        out.append((off, bytes(r)))
            return out
        for p in range(nparts):
            for s in range(prec):
                off = doff + p * stride + s * rsz
                if off + rsz <= len(buf):
                    out.append((off, buf[off:off + rsz]))
    elif buf[:8] == b'\x89IOTRC\r\n':
        major, = struct.unpack_from('<H', buf, 8)
        hdr_size, rsz = struct.unpack_from('<II', buf, 12)
        off = hdr_size
        while off + 32 <= len(buf):
            magic, chsz, psz, disk, part, nrec, first = \
                struct.unpack_from('<IIQHHIQ', buf, off)
            if magic == 0x4b4e4843 and major >= 2 and chsz >= 40:  # CHNK
                # major 2: the chunk's own record size; the 1.x record's
                # first 64 bytes, the submitter (16), the command.  As
                # the 1.x layout, at the offset that puts its command
                # where the file has it (exempt_words() goes by that).
                crs, = struct.unpack_from('<I', buf, off + 36)
                for i in range(nrec):
                    r = off + chsz + i * crs
                    b = buf[r:r + crs].ljust(FILE_REC, b'\0')
                    out.append((r + FILE_REC_CMD - REC_CMD,
                                b[:REC_CMD] + b[FILE_REC_CMD:] +
                                b[REC_CMD:FILE_REC_CMD]))
            elif magic == 0x4b4e4843:
                for i in range(nrec):
                    r = off + chsz + i * rsz
                    out.append((r, buf[r:r + rsz]))
            off += chsz + psz
    return out


def nvme_records(buf):
    return [(off, r) for off, r in records(buf)
            if len(r) >= REC_CMD + 64 and r[REC_CMD_TYPE] == NVME and
            struct.unpack_from('<I', r)[0] != SEQ_BUSY]


def exempt_words(buf):
    """First command words of NVMe records whose NSID is 0xffffffff."""
    ex = set()
    for off, r in nvme_records(buf):
        if struct.unpack_from('<I', r, REC_CMD + 4)[0] == 0xffffffff:
            ex.add(off + REC_CMD)
    return ex


def cmd_scan(files):
    bad = 0
    for f in files:
        buf = open(f, 'rb').read()
        hits = scan(buf, exempt_words(buf))
        for off, what in hits[:20]:
            print('LEAK %s offset %d: %s' % (f, off, what))
        bad += len(hits)
        print('# %s: %d bytes, %d kernel-address-shaped values' %
              (f, len(buf), len(hits)))
    return 1 if bad else 0


def cmd_nvme(files):
    total = bad = 0
    for f in files:
        buf = open(f, 'rb').read()
        recs = nvme_records(buf)
        nz = [off for off, r in recs if any(r[REC_CMD + 16:REC_CMD + 40])]
        for off in nz[:10]:
            print('NONZERO %s record at %d: cmd %s' %
                  (f, off, buf[off + REC_CMD:off + REC_CMD + 64].hex()))
        total += len(recs)
        bad += len(nz)
        print('# %s: %d NVMe records, %d with a non-zero pointer field' %
              (f, len(recs), len(nz)))
    print('nvme_records %d nonzero %d' % (total, bad))
    return 1 if bad else 0


def cmd_selftest():
    fails = 0

    def expect(what, cond):
        nonlocal fails
        print('%s %s' % ('ok' if cond else 'FAIL', what))
        fails += not cond

    clean = bytes(range(256)) * 8 + b'cpu 3 seq 18446744073709551615\n'
    clean += struct.pack('<QQ', 0x7fffffffffff, 0xffffffff)
    expect('clean bytes: no finding', not scan(clean))
    expect('all-ones (no sector) in hex is not a pointer',
           not scan(clean + b' sector ffffffffffffffff 0x%x\n' % (2**64 - 1)))
    expect('a longer hex string is not a pointer',
           not scan(clean + b' 02000000ffffffffffff0000000000 '))
    expect('a pointer-shaped tail of a longer hex string is not a pointer',
           not scan(clean + b' a0ffff888012345678 9ffff888012345678\n'))
    expect('a pointer-shaped tail of a longer decimal is not a pointer',
           not scan(clean + b' 9%d\n' % 0xffff888012345678))
    expect('0x-prefixed and upper-case hex pointers are found',
           len(scan(clean + b' 0xffff888012345678 FFFF888012345678\n')) == 2)
    for v in (0xffff888012345678, 0xffffc90000a1b000, 0xffffea0000040000,
              0xffffffff81000000, 0xffffffffc0a1b2c3):
        buf = bytearray(clean)
        buf[64:72] = struct.pack('<Q', v)
        expect('aligned word 0x%x found' % v, len(scan(bytes(buf))) == 1)
        buf = bytearray(clean)
        buf[65:73] = struct.pack('<Q', v)
        expect('unaligned word 0x%x not reported by the aligned scan' % v,
               not any(w.startswith('word') for _, w in scan(bytes(buf))))
        expect('hex text %x found' % v,
               len(scan(clean + b' ptr %x\n' % v)) == 1)
        expect('decimal text %d found' % v,
               len(scan(clean + b' %d\n' % v)) == 1)
    # a ring with one NVMe record whose data pointer is set
    hdr = struct.pack('<IHHIIIIIIQQQQ', 0x52544f49, 1, 1, 256, 128, 1, 2,
                      64, 0, 256, 512, 256, 768)
    ring = bytearray(768)
    ring[:len(hdr)] = hdr
    rec = bytearray(128)
    rec[REC_CMD_TYPE] = NVME
    rec[REC_CMD] = 0x02
    ring[512:640] = rec
    expect('clean NVMe record passes', cmd_nvme_buf(bytes(ring)) == (1, 0))
    ring[512 + REC_CMD + 24:512 + REC_CMD + 32] = struct.pack('<Q', 0x1234000)
    expect('NVMe record with a PRP1 is caught',
           cmd_nvme_buf(bytes(ring)) == (1, 1))
    ring[512 + REC_CMD + 4:512 + REC_CMD + 8] = b'\xff' * 4
    ring[512 + REC_CMD + 2:512 + REC_CMD + 4] = b'\x00\x90'
    expect('NVMe NSID 0xffffffff is not a pointer',
           not scan(bytes(ring), exempt_words(bytes(ring))))
    return 1 if fails else 0


def cmd_nvme_buf(buf):
    recs = nvme_records(buf)
    return len(recs), sum(1 for _, r in recs if any(r[REC_CMD + 16:REC_CMD + 40]))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == 'scan':
        sys.exit(cmd_scan(args))
    if mode == 'nvme':
        sys.exit(cmd_nvme(args))
    if mode == 'selftest':
        sys.exit(cmd_selftest())
    sys.exit(__doc__)
