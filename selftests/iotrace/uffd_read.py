#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a file into a page whose fault waits: the kernel's copy to user
space stays inside read() until told to go on.

usage: uffd_read.py PATH OUT [BYTES]

The buffer is one page of anonymous memory registered with userfaultfd
for missing pages.  A thread reads up to BYTES (default: a page) of PATH
into it; the copy to user space faults on the page and waits.  Once the
fault has arrived this prints "blocked" and waits for a line on standard
input; it then fills the page (UFFDIO_COPY, zeroes), the copy goes on,
and the bytes read are written to OUT.  Prints "read N" (or "read:
ERRNO") and exits 0; 4 when userfaultfd cannot be used here, 1 on any
other failure to set up.
"""
import ctypes
import errno
import os
import sys
import threading

SYS_USERFAULTFD = 323		# x86_64
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F
UFFDIO_REGISTER = 0xC020AA00
UFFDIO_COPY = 0xC028AA03
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
PROT_RW = 0x3
MAP_PRIVATE_ANON = 0x22

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.read.restype = ctypes.c_ssize_t
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def ioctl(fd, req, arg, what):
    if libc.ioctl(fd, req, ctypes.byref(arg)) < 0:
        e = ctypes.get_errno()
        sys.exit("uffd_read: %s: %s" % (what, os.strerror(e)))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    page = os.sysconf("SC_PAGE_SIZE")
    want = int(sys.argv[3]) if len(sys.argv) == 4 else page
    if not 0 < want <= page:
        sys.exit("uffd_read: BYTES must be 1..%d" % page)
    uffd = libc.syscall(SYS_USERFAULTFD, os.O_CLOEXEC)
    if uffd < 0:
        print("uffd_read: userfaultfd: %s" %
              os.strerror(ctypes.get_errno()), file=sys.stderr)
        sys.exit(4)
    api = (ctypes.c_uint64 * 3)(UFFD_API, 0, 0)
    ioctl(uffd, UFFDIO_API, api, "UFFDIO_API")
    addr = libc.mmap(None, page, PROT_RW, MAP_PRIVATE_ANON, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        sys.exit("uffd_read: mmap: %s" % os.strerror(ctypes.get_errno()))
    reg = (ctypes.c_uint64 * 4)(addr, page, UFFDIO_REGISTER_MODE_MISSING, 0)
    ioctl(uffd, UFFDIO_REGISTER, reg, "UFFDIO_REGISTER")
    fd = os.open(sys.argv[1], os.O_RDONLY)
    res = {}

    def reader():
        res["n"] = libc.read(fd, addr, want)
        res["errno"] = ctypes.get_errno()

    t = threading.Thread(target=reader)
    t.start()
    msg = os.read(uffd, 32)		# struct uffd_msg, blocking
    if not msg or msg[0] != UFFD_EVENT_PAGEFAULT:
        sys.exit("uffd_read: unexpected userfaultfd message %r" % msg)
    print("blocked", flush=True)
    sys.stdin.readline()
    zeroes = ctypes.create_string_buffer(page)
    cp = (ctypes.c_uint64 * 5)(addr, ctypes.addressof(zeroes), page, 0, 0)
    ioctl(uffd, UFFDIO_COPY, cp, "UFFDIO_COPY")
    t.join()
    if res["n"] < 0:
        print("read: %s" % errno.errorcode.get(res["errno"], res["errno"]))
        return
    with open(sys.argv[2], "wb") as out:
        out.write(ctypes.string_at(addr, res["n"]))
    print("read %d" % res["n"])


if __name__ == "__main__":
    main()
