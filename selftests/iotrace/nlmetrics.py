#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlmetrics - IOTRACE_CMD_GET_METRICS or RESET_METRICS over a raw generic
netlink socket (no library: the guest tests' independent reader of the
reply), printed as "key: value" lines:

  nlmetrics.py get DISK     reset_ns, now_ns, timeouts, requeues, inflight,
                            oldest_ns (when some request is in flight),
                            OP.requests/bytes/errors/dev_count/dev_sum_ns/
                            queue_count/queue_sum_ns, OP.dev_hist and
                            OP.queue_hist (BUCKET=COUNT,...), and one
                            "error: OP KIND STATUS ERRNO COUNT" per kind
  nlmetrics.py reset DISK   "errno: N" (0: done)

Numbers from uapi/linux/iotrace.h (genl version 3); the layouts are
checked against the sizes the attributes arrive with.
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2

CMD_GET_METRICS = 11
CMD_RESET_METRICS = 12
A_DISK_NAME = 2
A_M_RESET_NS = 32
A_M_NOW_NS = 33
A_M_OP = 34
A_M_TIMEOUTS = 35
A_M_REQUEUES = 36
A_M_INFLIGHT = 37
A_M_INFLIGHT_OLDEST_NS = 38
A_M_ERROR = 39
HIST_BUCKETS = 110
OP_FMT = "<B7x7Q%dQ%dQ" % (HIST_BUCKETS, HIST_BUCKETS)
ERR_FMT = "<QBBHI"
MOPS = ["read", "write", "flush", "discard", "passthrough"]
KINDS = {0: "none", 1: "nvme", 2: "scsi", 3: "ata", 255: "overflow"}


def attr(t, data):
    hdr = struct.pack("<HH", 4 + len(data), t)
    pad = b"\0" * ((4 - len(data) % 4) % 4)
    return hdr + data + pad


def attrs(buf):
    off = 0
    while off + 4 <= len(buf):
        ln, t = struct.unpack_from("<HH", buf, off)
        if ln < 4:
            break
        yield t & 0x3fff, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


def alive(pid):
    """Whether process @pid still runs (the tests' readers loop on it)."""
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.seq = 1

    def request(self, family, cmd, version, payload):
        self.seq += 1
        body = struct.pack("<BBH", cmd, version, 0) + payload
        msg = struct.pack("<IHHII", 16 + len(body), family,
                          NLM_F_REQUEST | NLM_F_ACK, self.seq, 0) + body
        self.s.send(msg)
        replies = []
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, seq, _ = struct.unpack_from("<IHHII", data, off)
                if typ == NLMSG_ERROR:
                    err = struct.unpack_from("<i", data, off + 16)[0]
                    return -err, replies
                replies.append(data[off + 20:off + ln])
                off += (ln + 3) & ~3

    def family(self, name):
        err, rep = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                                attr(CTRL_ATTR_FAMILY_NAME,
                                     name.encode() + b"\0"))
        if err or not rep:
            sys.exit("nlmetrics: no family %s: errno %d" % (name, err))
        for t, v in attrs(rep[0]):
            if t == CTRL_ATTR_FAMILY_ID:
                return struct.unpack("<H", v[:2])[0]
        sys.exit("nlmetrics: no family id")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("get", "reset"):
        sys.exit("usage: nlmetrics.py get|reset DISK")
    g = Genl()
    fam = g.family("iotrace")
    name = attr(A_DISK_NAME, sys.argv[2].encode() + b"\0")
    if sys.argv[1] == "reset":
        err, _ = g.request(fam, CMD_RESET_METRICS, 3, name)
        print("errno: %d" % err)
        return
    err, rep = g.request(fam, CMD_GET_METRICS, 3, name)
    if err or len(rep) != 1:
        print("errno: %d" % err)
        sys.exit(1)
    out = []
    for t, v in attrs(rep[0]):
        u64 = struct.unpack("<Q", v)[0] if len(v) == 8 else None
        if t == A_M_RESET_NS:
            out.append("reset_ns: %d" % u64)
        elif t == A_M_NOW_NS:
            out.append("now_ns: %d" % u64)
        elif t == A_M_TIMEOUTS:
            out.append("timeouts: %d" % u64)
        elif t == A_M_REQUEUES:
            out.append("requeues: %d" % u64)
        elif t == A_M_INFLIGHT:
            out.append("inflight: %d" % u64)
        elif t == A_M_INFLIGHT_OLDEST_NS:
            out.append("oldest_ns: %d" % u64)
        elif t == A_M_OP:
            if len(v) != struct.calcsize(OP_FMT):
                sys.exit("nlmetrics: IOTRACE_A_M_OP of %d bytes" % len(v))
            f = struct.unpack(OP_FMT, v)
            op = MOPS[f[0]]
            for i, k in enumerate(("requests", "bytes", "errors",
                                   "dev_sum_ns", "dev_count",
                                   "queue_sum_ns", "queue_count")):
                out.append("%s.%s: %d" % (op, k, f[1 + i]))
            dev = f[8:8 + HIST_BUCKETS]
            queue = f[8 + HIST_BUCKETS:]
            for k, h in (("dev_hist", dev), ("queue_hist", queue)):
                out.append("%s.%s: %s" % (op, k, ",".join(
                    "%d=%d" % (b, c) for b, c in enumerate(h) if c)))
        elif t == A_M_ERROR:
            if len(v) != struct.calcsize(ERR_FMT):
                sys.exit("nlmetrics: IOTRACE_A_M_ERROR of %d bytes" % len(v))
            cnt, mop, kind, status, errno = struct.unpack(ERR_FMT, v)
            out.append("error: %s %s 0x%04x %d %d" %
                       (MOPS[mop] if mop < len(MOPS) else mop,
                        KINDS.get(kind, kind), status, errno, cnt))
    print("\n".join(out))


if __name__ == "__main__":
    main()
