#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlfuzz - random and mutated requests to iotrace's control surface.

  nlfuzz.py genl SEED COUNT [--nobody] DISK...
      COUNT requests of the iotrace generic netlink family, each a random
      command (every command, the events' numbers, numbers past the last)
      with random attributes: every attribute number and some past the
      policy, payloads of the wrong size, unterminated and oversized
      names, huge and boundary values, nested blobs, flag bits; one in
      eight with a damaged length (attribute or message); one in sixteen
      random bytes.  Dumps and acks asked for at random.  Prints how the
      kernel answered ("errno N: COUNT").
      --nobody: the caller has no CAP_SYS_ADMIN: a request that changes
      state (everything but LIST and GET_METRICS) must never be answered
      with success; exit 1 when one is.
      Exit 1 too when the socket stops answering (a request left without
      an answer for 10 s) or a last, well-formed LIST does not name the
      first DISK.
  nlfuzz.py dev SEED COUNT DISK...
      COUNT rounds on /dev/iotrace/DISK: open, mmap read-only at random
      lengths and offsets (a writable mapping must be refused), read at
      random offsets, IOTRACE_IOC_INFLIGHT and IOTRACE_IOC_INFLIGHT_RECORDS
      with random and invalid arguments (bad user pointers, huge counts,
      record sizes), random ioctl numbers.
      A disk removed meanwhile is skipped.  Exit 1 on a writable mapping.

Numbers from uapi/linux/iotrace.h ($IOTRACE_SRC, read at start).  The same SEED gives
the same requests.
"""
import ctypes
import errno
import fcntl
import mmap
import os
import random
import select
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nlmetrics import attr, attrs  # noqa: E402 (the same raw netlink helpers)

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1

GENL_VERSION = 8
# a ring or table bigger than this would only fill the guest's memory
SIZE_CAP = 16 << 20


def uapi_enum(first, last):
    """NAME -> number of the enum of uapi/linux/iotrace.h from @first up
    to @last (excluded)."""
    hdr = os.path.join(os.environ.get("IOTRACE_SRC",
                                      os.path.join(os.path.dirname(__file__),
                                                   "..", "..")),
                       "uapi", "linux", "iotrace.h")
    names, on = {}, False
    with open(hdr) as f:
        for line in f:
            w = line.strip().rstrip(",")
            if w == first:
                on = True
            if on:
                if w == last:
                    return names
                if w.startswith("IOTRACE_") and " " not in w:
                    names[w] = len(names)
    sys.exit("nlfuzz: no enum %s .. %s in %s" % (first, last, hdr))


A = uapi_enum("IOTRACE_A_UNSPEC", "__IOTRACE_A_MAX")
C = uapi_enum("IOTRACE_CMD_UNSPEC", "__IOTRACE_CMD_MAX")
A_MAX = len(A) - 1
CMD_MAX = len(C) - 1
A_DISK_NAME = A["IOTRACE_A_DISK_NAME"]
A_BUF_SIZE = A["IOTRACE_A_BUF_SIZE"]
# LIST and GET_METRICS need no privilege; the events are no requests
UNPRIVILEGED = {C["IOTRACE_CMD_LIST"], C["IOTRACE_CMD_GET_METRICS"]}
EVENTS = {v for k, v in C.items() if k.startswith("IOTRACE_CMD_EVT_")}
# the attributes a request may carry, with their sizes (the family's
# policy); a well-formed request carries some of these
SIZES = {"BUF_SIZE": 8, "FILTER_OPS": 4, "FILTER_SECTOR_MIN": 8,
         "FILTER_SECTOR_MAX": 8, "FILTER_MIN_BYTES": 4,
         "NVME_STATUS_OFF": 4, "NVME_STATUS_SIZE": 4, "NVME_RESULT_OFF": 4,
         "NVME_RESULT_SIZE": 4, "TRIG_LAT_READ": 8, "TRIG_LAT_WRITE": 8,
         "TRIG_LAT_FLUSH": 8, "TRIG_LAT_DISCARD": 8, "TRIG_LAT_OTHER": 8,
         "TRIG_ERROR": 1, "TRIG_ERRNO": 4, "TRIG_DEVSTATUS": 1,
         "TRIG_TIMEOUT": 1, "TRIG_REQUEUES": 4, "TRIG_STUCK_NS": 8,
         "TRIG_RATE_NS": 8, "TRIG_HOLD_CHUNKS": 4, "TRIG_HOLD_NS": 8,
         "HOLD_HI": 8}
WELL = [(A["IOTRACE_A_" + k], n) for k, n in SIZES.items()]

IOC_INFLIGHT = (3 << 30) | (24 << 16) | (0xb9 << 8) | 1
IOC_INFLIGHT_RECORDS = (3 << 30) | (48 << 16) | (0xb9 << 8) | 2


INTERESTING = [0, 1, 2, 7, 8, 31, 32, 63, 64, 255, 256, 4095, 4096, 65535,
               65536, (1 << 20), (4 << 20), (1 << 30) + 1, (1 << 31) - 1,
               1 << 31, (1 << 32) - 1, 1 << 32, 1 << 40, (1 << 63) - 1,
               1 << 63, (1 << 64) - 1]


class Gen:
    """The requests of one seed."""

    def __init__(self, seed, disks):
        self.r = random.Random(seed)
        self.disks = disks

    def value(self):
        r = self.r
        v = r.choice(INTERESTING) if r.random() < 0.7 else r.getrandbits(64)
        if r.random() < 0.1:
            v = (v + r.choice([-1, 1])) & ((1 << 64) - 1)
        return v

    def name(self):
        r = self.r
        k = r.randrange(10)
        d = r.choice(self.disks).encode()
        if k < 5:
            return d + b"\0"
        return [d,                              # no NUL
                b"\0",                          # empty
                d + b"\0junk",                  # bytes after the NUL
                b"x" * r.choice([31, 32, 33, 255, 300]) + b"\0",
                bytes(r.getrandbits(8) for _ in range(r.randrange(1, 40)))
                ][k - 5]

    def number(self, t, size):
        v = self.value() & ((1 << (8 * size)) - 1)
        # a resize that would succeed stays small
        if t == A_BUF_SIZE and SIZE_CAP < v <= (1 << 30):
            v = SIZE_CAP
        return v.to_bytes(size, "little")

    def payload(self, t, depth):
        r = self.r
        if t == A_DISK_NAME and r.random() < 0.8:
            return self.name()
        k = r.randrange(9)
        if k <= 3:
            return self.number(t, [1, 2, 4, 8][k])
        if k == 4:
            return b""
        if k == 5:
            return self.name()
        if k == 6 and depth < 2:
            return b"".join(self.one_attr(depth + 1)
                            for _ in range(r.randrange(4)))
        return bytes(r.getrandbits(8)
                     for _ in range(r.choice([3, 5, 12, 16, 60, 200, 700])))

    def one_attr(self, depth=0):
        r = self.r
        if r.random() < 0.85:
            t = r.randrange(A_MAX + 1)
        else:
            t = r.choice([A_MAX + 1, A_MAX + 50, 0x3fff])
        data = self.payload(t, depth)
        if r.random() < 0.05:
            t |= NLA_F_NESTED
        if r.random() < 0.03:
            t |= NLA_F_NET_BYTEORDER
        return attr(t, data)

    def request(self, family, seq):
        """(message bytes, command, whether an answer is to be waited for)"""
        r = self.r
        if r.random() < 1 / 16:
            n = r.randrange(0, 120)
            raw = bytearray(r.getrandbits(8) for _ in range(n))
            # to this family only, never another one's
            if n >= 6:
                raw[4:6] = struct.pack("<H", family)
            return bytes(raw), -1, False
        x = r.random()
        if x < 0.8:
            cmd = r.randrange(1, CMD_MAX + 1)
            while cmd in EVENTS and r.random() < 0.8:
                cmd = r.randrange(1, CMD_MAX + 1)
        elif x < 0.9:
            cmd = 0
        else:
            cmd = r.randrange(CMD_MAX + 1, 256)
        version = GENL_VERSION if r.random() < 0.8 else r.choice([0, 1, 7, 9, 255])
        body = b""
        if r.random() < 0.5:            # well-formed: policy's types
            body += attr(A_DISK_NAME, r.choice(self.disks).encode() + b"\0")
            for t, size in r.sample(WELL, r.randrange(4)):
                body += attr(t, self.number(t, size))
        else:
            if r.random() < 0.7:
                body += attr(A_DISK_NAME, self.name())
            body += b"".join(self.one_attr() for _ in range(r.randrange(6)))
        flags = NLM_F_REQUEST | NLM_F_ACK
        if r.random() < 0.2:
            flags |= NLM_F_DUMP
        genl = struct.pack("<BBH", cmd, version, r.choice([0, 0, 0, 0xffff]))
        payload = genl + body
        ln = 16 + len(payload)
        wait = True
        if r.random() < 1 / 8:
            k = r.randrange(4)
            if k == 0 and body:         # the last attribute cut short
                payload = payload[:-r.randrange(1, min(len(body), 8) + 1)]
                ln = 16 + len(payload)
            elif k == 1 and body:       # an attribute longer than the rest
                off = 4
                payload = (payload[:off] +
                           struct.pack("<H", r.choice([0, 1, 3, 0xffff])) +
                           payload[off + 2:])
            elif k == 2:                # a header shorter than its message
                ln = r.randrange(0, 20)
                wait = False
            else:                       # longer than what was sent
                ln += r.randrange(1, 4096)
                wait = False
        msg = struct.pack("<IHHII", ln, family, flags, seq, 0) + payload
        return msg, cmd, wait


class Sock:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)

    def answer(self, seq, timeout):
        """The errno the kernel answered request @seq with (0: ack, or
        the end of a dump), the replies; None when none came in time."""
        replies = []
        while True:
            rd, _, _ = select.select([self.s], [], [], timeout)
            if not rd:
                return None, replies
            try:
                data = self.s.recv(1 << 22, socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError as e:        # ENOBUFS: replies were dropped
                return -e.errno, replies
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, s, _ = struct.unpack_from("<IHHII", data, off)
                if ln < 16:
                    break
                if s == seq:
                    if typ == NLMSG_ERROR:
                        return -struct.unpack_from("<i", data, off + 16)[0], replies
                    if typ == NLMSG_DONE:
                        return 0, replies
                    replies.append(data[off + 20:off + ln])
                off += (ln + 3) & ~3

    def drain(self):
        while True:
            try:
                self.s.recv(1 << 22, socket.MSG_DONTWAIT)
            except (BlockingIOError, OSError):
                return

    def family(self):
        msg = (struct.pack("<BBH", CTRL_CMD_GETFAMILY, 1, 0) +
               attr(CTRL_ATTR_FAMILY_NAME, b"iotrace\0"))
        self.s.send(struct.pack("<IHHII", 16 + len(msg), GENL_ID_CTRL,
                                NLM_F_REQUEST | NLM_F_ACK, 1, 0) + msg)
        err, rep = self.answer(1, 10)
        if err or not rep:
            sys.exit("nlfuzz: no iotrace family (errno %s)" % err)
        fam, groups = None, []
        for t, v in attrs(rep[0]):
            if t == CTRL_ATTR_FAMILY_ID:
                fam = struct.unpack("<H", v[:2])[0]
            elif t == CTRL_ATTR_MCAST_GROUPS:
                for _, g in attrs(v):
                    for gt, gv in attrs(g):
                        if gt == 2 and len(gv) >= 4:   # CTRL_ATTR_MCAST_GRP_ID
                            groups.append(struct.unpack("<I", gv[:4])[0])
        return fam, groups


def list_names(sock, family, seq):
    body = struct.pack("<BBH", 1, GENL_VERSION, 0)
    sock.s.send(struct.pack("<IHHII", 16 + len(body), family,
                            NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, seq, 0) + body)
    err, rep = sock.answer(seq, 10)
    names = set()
    for m in rep:
        for t, v in attrs(m):
            if t == A_DISK_NAME:
                names.add(v.rstrip(b"\0").decode(errors="replace"))
    return err, names


def genl(seed, count, nobody, disks):
    sock = Sock()
    family, groups = sock.family()
    g = Gen(seed, disks)
    answers, bad, silent = {}, [], 0
    # joining the groups (nobody may be refused) and some that do not exist
    for grp in groups + [0, 1, 2, 64, 1000]:
        try:
            sock.s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp)
        except OSError:
            pass
    for seq in range(2, count + 2):
        msg, cmd, wait = g.request(family, seq)
        try:
            sock.s.send(msg)
        except OSError as e:
            answers["send " + errno.errorcode.get(e.errno, str(e.errno))] = \
                answers.get("send " + errno.errorcode.get(e.errno, str(e.errno)), 0) + 1
            continue
        if not wait or cmd < 0:
            sock.drain()
            continue
        err, _ = sock.answer(seq, 10)
        if err is None:
            silent += 1
            print("# no answer to request %d (command %d) in 10 s" % (seq, cmd))
            if silent > 3:
                break
            continue
        key = "errno %d" % err
        answers[key] = answers.get(key, 0) + 1
        if nobody and err == 0 and cmd not in UNPRIVILEGED and cmd not in EVENTS \
                and 0 < cmd <= CMD_MAX:
            bad.append((seq, cmd))
    # events joined above may have queued: read them away, then a real LIST
    sock.drain()
    err, names = list_names(sock, family, count + 10)
    for k in sorted(answers):
        print("%s: %d" % (k, answers[k]))
    print("sent: %d" % count)
    print("no answer: %d" % silent)
    print("privileged successes: %d" % len(bad))
    for seq, cmd in bad[:10]:
        print("# request %d: command %d succeeded without CAP_SYS_ADMIN" % (seq, cmd))
    print("last list: errno %s, disks %s" % (err, " ".join(sorted(names))))
    if bad or silent or err != 0 or disks[0] not in names:
        return 1
    return 0


class InflightReq(ctypes.Structure):
    _fields_ = [("entries", ctypes.c_uint64), ("max", ctypes.c_uint32),
                ("count", ctypes.c_uint32), ("now_ns", ctypes.c_uint64)]


class InflightRecords(ctypes.Structure):
    _fields_ = [("records", ctypes.c_uint64), ("max", ctypes.c_uint32),
                ("record_size", ctypes.c_uint32), ("count", ctypes.c_uint32),
                ("torn", ctypes.c_uint32), ("now_ns", ctypes.c_uint64),
                ("reserved", ctypes.c_uint64 * 2)]


def dev(seed, count, disks):
    r = random.Random(seed)
    outcomes, writable = {}, 0
    buf = ctypes.create_string_buffer(64 * 1024)

    def note(what):
        outcomes[what] = outcomes.get(what, 0) + 1

    for _ in range(count):
        path = "/dev/iotrace/" + r.choice(disks)
        try:
            fd = os.open(path, r.choice([os.O_RDONLY, os.O_RDONLY | os.O_NONBLOCK]))
        except OSError as e:
            note("open " + errno.errorcode.get(e.errno, str(e.errno)))
            continue
        try:
            size = os.fstat(fd).st_size
            ln = r.choice([4096, 8192, max(size, 4096), size + 4096,
                           r.randrange(1, 1 << 22)])
            off = r.choice([0, 0, 4096, size, r.randrange(0, 1 << 24) & ~4095])
            try:
                m = mmap.mmap(fd, ln, mmap.MAP_SHARED, mmap.PROT_READ, offset=off)
                m[r.randrange(0, min(ln, len(m)))]
                m.close()
                note("mmap ok")
            except (OSError, ValueError) as e:
                note("mmap " + (errno.errorcode.get(e.errno, str(e.errno))
                                if isinstance(e, OSError) and e.errno else "refused"))
            try:
                m = mmap.mmap(fd, 4096, mmap.MAP_SHARED,
                              mmap.PROT_READ | mmap.PROT_WRITE)
                m.close()
                writable += 1
                print("# %s: a writable mapping was allowed" % path)
            except (OSError, ValueError):
                pass
            try:
                os.pread(fd, r.choice([1, 100, 4096, 1 << 20]),
                         r.choice([0, size - 1 if size else 0, size, 1 << 40]))
                note("pread ok")
            except OSError as e:
                note("pread " + errno.errorcode.get(e.errno, str(e.errno)))
            req = InflightReq()
            k = r.randrange(5)
            req.entries = [0, 1, 0xffff800000000000, 0xdeadbeef000,
                           ctypes.addressof(buf)][k]
            req.max = r.choice([0, 1, 16, 1 << 20, (1 << 32) - 1])
            if k == 4:
                req.max = min(req.max, len(buf) // 64)
            try:
                fcntl.ioctl(fd, IOC_INFLIGHT, req)
                note("ioctl ok")
            except OSError as e:
                note("ioctl " + errno.errorcode.get(e.errno, str(e.errno)))
            rreq = InflightRecords()
            k = r.randrange(5)
            rreq.records = [0, 1, 0xffff800000000000, 0xdeadbeef000,
                            ctypes.addressof(buf)][k]
            rreq.record_size = r.choice([0, 64, 127, 128, 136, 4096, 4097,
                                         (1 << 32) - 1])
            rreq.max = r.choice([0, 1, 16, 1 << 20, (1 << 32) - 1])
            if k == 4 and rreq.record_size:
                rreq.max = min(rreq.max, len(buf) // rreq.record_size)
            rreq.reserved[r.randrange(2)] = r.choice([0, 0, 0, 1])
            try:
                fcntl.ioctl(fd, IOC_INFLIGHT_RECORDS, rreq)
                note("records ioctl ok")
            except OSError as e:
                note("records ioctl " +
                     errno.errorcode.get(e.errno, str(e.errno)))
            try:
                fcntl.ioctl(fd, r.getrandbits(32), buf)
                note("ioctl(random) ok")
            except OSError as e:
                note("ioctl(random) " + errno.errorcode.get(e.errno, str(e.errno)))
        finally:
            os.close(fd)
    for k in sorted(outcomes):
        print("%s: %d" % (k, outcomes[k]))
    print("writable mappings: %d" % writable)
    return 1 if writable else 0


def main():
    a = sys.argv[1:]
    if len(a) < 4 or a[0] not in ("genl", "dev"):
        sys.exit(__doc__)
    seed, count = int(a[1]), int(a[2])
    rest = a[3:]
    if a[0] == "dev":
        return dev(seed, count, rest)
    nobody = "--nobody" in rest
    disks = [d for d in rest if d != "--nobody"]
    return genl(seed, count, nobody, disks)


if __name__ == "__main__":
    sys.exit(main())
