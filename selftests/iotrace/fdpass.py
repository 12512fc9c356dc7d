#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write to a file opened by another process, its descriptor passed over a
unix socket (SCM_RIGHTS).

usage: fdpass.py OPENER-PREFIX... -- PATH DATA

OPENER-PREFIX is a command line that runs the opener (e.g. "setpriv
--bounding-set=-sys_admin"; nothing for this process's own privileges):
it opens PATH for writing and passes the descriptor back.  This process
then writes DATA to it and prints "ok" or the errno's name (e.g.
"EPERM"); the open's failure prints "open: ERRNO".  Exits 0 when the
write was tried.
"""
import errno
import os
import socket
import subprocess
import sys

CHILD = r'''
import os, socket, sys
s = socket.socket(fileno=int(sys.argv[1]))
try:
    fd = os.open(sys.argv[2], os.O_WRONLY)
except OSError as e:
    s.send(("open: " + __import__("errno").errorcode[e.errno]).encode())
    sys.exit(0)
socket.send_fds(s, [b"fd"], [fd])
'''


def main():
    if "--" not in sys.argv or len(sys.argv) < sys.argv.index("--") + 3:
        sys.exit(__doc__)
    cut = sys.argv.index("--")
    prefix = sys.argv[1:cut]
    path, data = sys.argv[cut + 1], sys.argv[cut + 2]
    mine, theirs = socket.socketpair()
    subprocess.run(prefix + [sys.executable, "-c", CHILD,
                             str(theirs.fileno()), path],
                   pass_fds=[theirs.fileno()], check=True)
    theirs.close()
    msg, fds, _flags, _addr = socket.recv_fds(mine, 64, 1)
    if not fds:
        print(msg.decode())
        return
    try:
        os.write(fds[0], data.encode())
        print("ok")
    except OSError as e:
        print(errno.errorcode[e.errno])


if __name__ == "__main__":
    main()
