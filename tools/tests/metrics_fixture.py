#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Canned GET_METRICS replies for the host tests (no kernel).

metrics_fixture.py DIR SYSFS writes DIR/<disk>.metrics, each holding the
netlink attributes of one IOTRACE_CMD_GET_METRICS reply (plus the disk's
LIST counters TOTAL_OVERWRITTEN and TOTAL_DROPPED for some), exactly as the
kernel lays them out after the generic netlink header, and a fake sysfs
SYSFS/block/<disk>/... with model, serial and wwid.  iotracectl reads DIR
when IOTRACE_METRICS_DIR names it, SYSFS when IOTRACE_SYSFS does.

The attribute numbers and struct layouts are taken from
uapi/linux/iotrace.h (parsed here, so that a change there shows up).
"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, '..', '..', 'uapi', 'linux', 'iotrace.h')


def uapi_enum(name):
    """The members of enum NAME of the uapi header, in order."""
    text = open(UAPI).read()
    m = re.search(r'enum %s \{(.*?)\};' % name, text, re.S)
    vals, nxt = {}, 0
    for line in m.group(1).split('\n'):
        line = line.split('/*')[0].strip().rstrip(',')
        if not line:
            continue
        if '=' in line:
            k, v = [x.strip() for x in line.split('=')]
            nxt = vals[v] if v in vals else int(v, 0)
        else:
            k = line
        vals[k] = nxt
        nxt += 1
    return vals


A = uapi_enum('iotrace_genl_attr')
MOP = uapi_enum('iotrace_mop')
NB = 110  # IOTRACE_HIST_BUCKETS, checked against the header below
hdr = open(UAPI).read()
assert re.search(r'#define IOTRACE_HIST_MIN_SHIFT\s+10', hdr)
assert re.search(r'#define IOTRACE_HIST_MAX_SHIFT\s+37', hdr)
assert re.search(r'#define IOTRACE_HIST_SUB_SHIFT\s+2', hdr)

MSTATUS = {'none': 0, 'nvme': 1, 'scsi': 2, 'ata': 3, 'overflow': 255}


def bucket_lo(b):
    """Lower bound (ns) of bucket b, from the header's comment."""
    if b == 0:
        return 0
    if b == NB - 1:
        return 1 << 37
    o = 10 + (b - 1) // 4
    return (1 << o) + ((b - 1) % 4) * (1 << (o - 2))


def bucket_of(ns):
    for b in range(NB - 1, -1, -1):
        if ns >= bucket_lo(b):
            return b
    return 0


def nla(atype, payload):
    n = 4 + len(payload)
    return struct.pack('=HH', n, atype) + payload + b'\0' * ((4 - n % 4) % 4)


def u64(atype, v):
    return nla(atype, struct.pack('=Q', v))


def op_struct(mop, lats, qlats, nbytes, errors):
    dev = [0] * NB
    q = [0] * NB
    for x in lats:
        dev[bucket_of(x)] += 1
    for x in qlats:
        q[bucket_of(x)] += 1
    return struct.pack('=B7x7Q%dQ%dQ' % (NB, NB), mop, len(lats), nbytes,
                       errors, sum(lats), len(lats), sum(qlats), len(qlats),
                       *(dev + q))


def err_struct(count, mop, kind, status, errno_val):
    return struct.pack('=QBBHI', count, mop, MSTATUS[kind], status,
                       errno_val)


def disk(name, reset_ns, now_ns, ops, errors=(), timeouts=0, requeues=0,
         inflight=0, oldest_ns=None, ring=None):
    # a name is bytes (the kernel's): str is encoded, bytes kept
    if isinstance(name, str):
        name = name.encode()
    out = nla(A['IOTRACE_A_DISK_NAME'], name + b'\0')
    out += u64(A['IOTRACE_A_M_RESET_NS'], reset_ns)
    out += u64(A['IOTRACE_A_M_NOW_NS'], now_ns)
    for mop, (lats, qlats, nbytes, nerr) in ops.items():
        out += nla(A['IOTRACE_A_M_OP'],
                   op_struct(MOP[mop], lats, qlats, nbytes, nerr))
    out += u64(A['IOTRACE_A_M_TIMEOUTS'], timeouts)
    out += u64(A['IOTRACE_A_M_REQUEUES'], requeues)
    out += u64(A['IOTRACE_A_M_INFLIGHT'], inflight)
    if oldest_ns is not None:
        out += u64(A['IOTRACE_A_M_INFLIGHT_OLDEST_NS'], oldest_ns)
    for e in errors:
        out += nla(A['IOTRACE_A_M_ERROR'], err_struct(*e))
    if ring:
        out += u64(A['IOTRACE_A_TOTAL_OVERWRITTEN'], ring[0])
        out += u64(A['IOTRACE_A_TOTAL_DROPPED'], ring[1])
    # an attribute from a newer module: skipped
    out += u64(A['__IOTRACE_A_MAX'] + 3, 12345)
    return out


def main():
    d, sysfs = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    reset = 1_790_000_000_123_456_789
    # nullb0: reads 10..400 us, writes ~2 ms, a few flushes; ring counters
    reads = [10_000 + 3_900 * i for i in range(100)]
    writes = [2_000_000 + 1_000 * i for i in range(40)]
    flushes = [500, 70_000, 1 << 38]
    nullb0 = disk('nullb0', reset, 5_000_000_000_000, {
        'IOTRACE_MOP_READ': (reads, [800] * 100, 100 * 4096, 2),
        'IOTRACE_MOP_WRITE': (writes, [1500] * 40, 40 * 131072, 0),
        'IOTRACE_MOP_FLUSH': (flushes, [], 0, 0),
        'IOTRACE_MOP_DISCARD': ([], [], 0, 0),
        'IOTRACE_MOP_PASSTHRU': ([], [], 0, 0),
    }, errors=[(2, MOP['IOTRACE_MOP_READ'], 'none', 0, 5)], timeouts=1,
        requeues=3, inflight=2, oldest_ns=5_000_000_000_000 - 1_500_000_000,
        ring=(123456, 7))
    # nvme0n1: NVMe statuses, the same label from two errnos summed
    nvme = disk('nvme0n1', reset + 1, 6_000_000_000_000, {
        'IOTRACE_MOP_READ': ([50_000] * 10, [1000] * 10, 10 * 512, 3),
        'IOTRACE_MOP_PASSTHRU': ([90_000], [], 0, 1),
    }, errors=[(2, MOP['IOTRACE_MOP_READ'], 'nvme', 0x281, 61),
               (1, MOP['IOTRACE_MOP_READ'], 'nvme', 0x281, 5),
               (1, MOP['IOTRACE_MOP_PASSTHRU'], 'nvme', 0x001, 95)])
    # sda: SCSI CHECK CONDITION, ATA, the overflow entry
    sda = disk('sda', reset + 2, 7_000_000_000_000, {
        'IOTRACE_MOP_WRITE': ([1 << 20] * 5, [1 << 12] * 5, 5 * 4096, 3),
    }, errors=[(1, MOP['IOTRACE_MOP_WRITE'], 'scsi', 0x02, 61),
               (1, MOP['IOTRACE_MOP_WRITE'], 'ata', 0x5140, 5),
               (1, MOP['IOTRACE_MOP_WRITE'], 'overflow', 0, 0)])
    for name, data in (('nullb0', nullb0), ('nvme0n1', nvme), ('sda', sda)):
        with open(os.path.join(d, name + '.metrics'), 'wb') as f:
            f.write(data)
    # a disk gone between LIST and GET_METRICS: empty reply file
    open(os.path.join(d, 'gone.metrics'), 'wb').close()
    info = {
        'nvme0n1': ('device/model', 'QEMU NVMe Ctrl                          \n',
                    'device/serial', 'deadbeef\n', 'wwid',
                    'nvme.1b36-6465616462656566-51454d55204e564d65204374726c-00000001\n'),
        'sda': ('device/model', 'Evil "quoted" \\ model\n', 'device/serial',
                ' S3Z9NB0K\x01 \n', 'device/wwid', 'naa.5000c500a1b2c3d4\n'),
    }
    for name, kv in info.items():
        for i in range(0, len(kv), 2):
            p = os.path.join(sysfs, 'block', name, kv[i])
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w') as f:
                f.write(kv[i + 1])


if __name__ == '__main__':
    main()
