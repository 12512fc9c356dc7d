#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nvme_mpath_pr: a command nvme-core builds itself on a namespace's queue
# is never taken for an admin command.  A persistent reservation ioctl
# on an NVMe multipath head (IOC_PR_REGISTER) sends Reservation Register
# (opcode 0x0d) down one path's queue as a request without a disk: on
# 5.10 a hidden path's queue does not name its disk either.  Only an
# admin queue's requests go to the controller's ring (nvme-core's admin
# queue has no queuedata; a namespace's queue has its namespace).
# Oracles: the opcode NVMe gives Reservation Register; the ioctl's own
# answer (QEMU's controller may refuse the command: it is sent anyway).
# Checked: no controller ring (nvmeN) holds it; where a path's queue
# names its disk (6.1 and later), that path's ring does.
# VM-DEVICES: nvme-mpath
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd python3 nvme
out=$(mktemp -d)
modprobe nvme 2> /dev/null
settle
find_mpath_head
log "head $head, paths $paths"
udevadm control --stop-exec-queue 2> /dev/null
ktap_header 4

load_iotrace disks=all buf_size=1M
ctrls=$(ls "$IOT" | grep -E '^nvme[0-9]+$' | tr '\n' ' ')
log "controller rings: $ctrls"
# IOC_PR_REGISTER = _IOW('p', 200, struct pr_registration): old key, new
# key, flags, padding
python3 - "/dev/$head" > "$out/pr" 2>&1 <<'EOF_PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.ioctl(fd, 0x401870c8, struct.pack('<QQII', 0, 0x1234, 0, 0))
    print('IOC_PR_REGISTER: done')
except OSError as e:
    print('IOC_PR_REGISTER: %s' % os.strerror(e.errno))
EOF_PY
sed 's/^/# /' "$out/pr"
# the premise: an admin command is in its controller's ring
c=${ctrls%% *}
nvme id-ctrl "/dev/$c" > /dev/null 2>&1 || log "nvme id-ctrl /dev/$c failed"
udevadm control --start-exec-queue 2> /dev/null
# the registration: opcode 0x0d with its 16 bytes of data (its command
# may be missing where the request has no slot of its own: a record of
# 16 bytes then)
where=
for r in $ctrls $paths $head; do
	[ -e "$IOT/$r/ring" ] || continue
	cmd_dump "$r" > "$out/$r" 2> /dev/null || continue
	sed "s/^/# $r: /" "$out/$r"
	rec_match "$out/$r" "(ctype == 1 and cmd[:2] == '0d') or nbytes == 16" &&
		where="$where $r"
done
log "Reservation Register recorded in:${where:- no ring}"
idc=no
rec_match "$out/$c" "ctype == 1 and cmd[:2] == '06'" && idc=yes
ktap_check "the ioctl was sent ($(cat "$out/pr")); Identify in $c's ring: $idc" \
	sh -c "grep -q '^IOC_PR_REGISTER: ' '$out/pr' && [ $idc = yes ]"
inctrl=
for r in $ctrls; do
	case " $where " in *" $r "*) inctrl="$inctrl $r" ;; esac
done
ktap_check "no controller ring holds it (${inctrl:-none})" test -z "$inctrl"
inpath=
for r in $paths; do
	case " $where " in *" $r "*) inpath="$inpath $r" ;; esac
done
if [ "$(uname -r | cut -d. -f1)" -ge 6 ]; then
	ktap_check "the path's ring that sent it holds it (${inpath:-none})" \
		test "$(echo $inpath | wc -w)" = 1
else
	ktap_skip "a hidden path's queue names no disk on $(uname -r)"
fi
unload_iotrace
ktap_check "no kernel warning" no_kernel_splat
# the next test of a shared boot gets nvme as the boot loaded it
modprobe -r nvme 2> /dev/null && modprobe nvme
rm -rf "$out"
ktap_finish
