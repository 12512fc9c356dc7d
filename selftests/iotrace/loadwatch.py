#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a command and list what of iotrace it made visible, even for a moment.

usage: loadwatch.py COMMAND [ARG...]

Before the command runs, inotify watches /sys/kernel/debug, /dev and
/dev/iotrace (if it exists) for entries created, and a generic netlink
socket joins nlctrl's "notify" group, where the kernel announces every
family registered and unregistered.  After the command exits, prints one
line per entry or family whose name starts with "iotrace":

    debugfs iotrace
    dev iotrace
    dev/iotrace nullb0
    genl new iotrace
    genl del iotrace

An entry created and removed again while the command ran (a module load
that failed) is listed all the same: the events are queued when they
happen.  Exits with the command's status, or 125 (without running it)
when the watches cannot be set up.
"""
import ctypes
import os
import socket
import struct
import subprocess
import sys
import time

IN_CREATE = 0x100
IN_NONBLOCK = os.O_NONBLOCK
NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
GENL_ID_CTRL = 16           # nlctrl's family id and its notify group
CTRL_CMD_NEWFAMILY = 1
CTRL_CMD_DELFAMILY = 2
CTRL_ATTR_FAMILY_NAME = 2
SETUP_FAILED = 125


def setup_failed(why):
    print("loadwatch: " + why, file=sys.stderr)
    sys.exit(SETUP_FAILED)


def inotify_watches():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0:
        setup_failed("inotify_init1: %s" % os.strerror(ctypes.get_errno()))
    wds = {}
    for path, label in (("/sys/kernel/debug", "debugfs"), ("/dev", "dev"),
                        ("/dev/iotrace", "dev/iotrace")):
        if not os.path.isdir(path):
            continue
        wd = libc.inotify_add_watch(fd, path.encode(), IN_CREATE)
        if wd < 0:
            setup_failed("watch %s: %s" %
                         (path, os.strerror(ctypes.get_errno())))
        wds[wd] = label
    return fd, wds


def inotify_events(fd, wds):
    out = []
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return out
        off = 0
        while off + 16 <= len(buf):
            wd, _mask, _cookie, nlen = struct.unpack_from("iIII", buf, off)
            name = buf[off + 16:off + 16 + nlen].split(b"\0", 1)[0].decode()
            off += 16 + nlen
            label = wds.get(wd, "?")
            if label == "dev/iotrace" or name.startswith("iotrace"):
                out.append("%s %s" % (label, name))


def genl_socket():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.bind((0, 0))
    s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, GENL_ID_CTRL)
    s.setblocking(False)
    return s


def family_name(msg):
    off = 16 + 4                # nlmsghdr, genlmsghdr
    while off + 4 <= len(msg):
        alen, atype = struct.unpack_from("HH", msg, off)
        if alen < 4:
            break
        if (atype & 0x3fff) == CTRL_ATTR_FAMILY_NAME:
            return msg[off + 4:off + alen].split(b"\0", 1)[0].decode()
        off += (alen + 3) & ~3
    return None


def genl_events(s):
    out = []
    while True:
        try:
            buf = s.recv(65536)
        except BlockingIOError:
            return out
        off = 0
        while off + 20 <= len(buf):
            mlen, mtype = struct.unpack_from("IH", buf, off)
            if mlen < 20:
                break
            msg = buf[off:off + mlen]
            cmd = msg[16]
            if mtype == GENL_ID_CTRL and cmd in (CTRL_CMD_NEWFAMILY,
                                                 CTRL_CMD_DELFAMILY):
                name = family_name(msg)
                if name and name.startswith("iotrace"):
                    out.append("genl %s %s" % (
                        "new" if cmd == CTRL_CMD_NEWFAMILY else "del", name))
            off += (mlen + 3) & ~3


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    fd, wds = inotify_watches()
    try:
        nl = genl_socket()
    except OSError as e:
        setup_failed("nlctrl notify group: %s" % e)
    rc = subprocess.call(sys.argv[1:])
    # devtmpfs makes its nodes in its own thread: give it a moment
    time.sleep(0.5)
    for line in inotify_events(fd, wds) + genl_events(nl):
        print(line)
    sys.exit(rc)


if __name__ == "__main__":
    main()
