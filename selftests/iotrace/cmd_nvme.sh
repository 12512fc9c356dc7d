#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_nvme: the NVMe submission entry and completion status in each record.
#
# Oracles: the command dwords given to nvme-cli, nvme-cli's own report of
# the controller's status, fio's own I/O log, and the kernel's
# logical_block_size; for admin commands (the controller's ring) the dwords
# given to nvme-cli and the status and result dword it printed.  nvme-core
# is also unloaded and reloaded under iotrace.
#
# The status is read at offsets "iotracectl nvme-layout" took from
# nvme_core's BTF: none before that (checked), a bogus layout is refused.
# On a kernel without /sys/kernel/btf/nvme_core (5.10) no record may carry
# a status, and stats must say why.
# VM-DEVICES: nvme
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd nvme fio python3 setpriv
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 28

tmp=$(mktemp -d)
NLSEND=$IOTRACE_SRC/selftests/iotrace/nlsend
if [ ! -x "$NLSEND" ]; then
	NLSEND=$tmp/nlsend
	# shellcheck disable=SC2046
	cc -O2 -Wall -D_GNU_SOURCE -I"$IOTRACE_SRC/uapi" $(pkg-config --cflags libnl-genl-3.0) \
		-o "$NLSEND" "$IOTRACE_SRC/selftests/iotrace/nlsend.c" \
		$(pkg-config --libs libnl-genl-3.0) ||
		die "cannot build nlsend (make -C selftests/iotrace)"
fi
# enum iotrace_genl_attr numbers, from the uapi header
attr() {
	python3 - "$IOTRACE_SRC/uapi/linux/iotrace.h" "$1" <<'EOF_PY'
import re, sys
body = open(sys.argv[1]).read().split('enum iotrace_genl_attr {')[1]
names = re.findall(r'^\s*(IOTRACE_A_\w+),', body.split('};')[0], re.M)
print(names.index(sys.argv[2]))
EOF_PY
}
nvme_line() {
	sed -n 's/^nvme_status: //p' "$IOTRACE_DEBUGFS/status"
}
NOLAYOUT='not recorded: no layout given (iotracectl nvme-layout; needs /sys/kernel/btf/nvme_core)'
if [ -e /sys/kernel/btf/nvme_core ]; then
	have_btf=1
else
	have_btf=0
	log "no /sys/kernel/btf/nvme_core on $(uname -r): no NVMe status expected"
fi

load_iotrace
ns=$(first_disk 'nvme*n1') || skip "no NVMe namespace in the guest"
lbs=$(cat /sys/block/$ns/queue/logical_block_size)
log "namespace $ns, logical block size $lbs"

# A. Before any layout is given: no status, and the module says why.
ktap_check "status file: nvme_status $NOLAYOUT" \
	test "$(nvme_line)" = "$NOLAYOUT"
cmd_enable "$ns"
dd if=/dev/$ns of=/dev/null bs=4096 count=8 iflag=direct 2> /dev/null ||
	die "dd on $ns failed"
cmd_disable "$ns"
cmd_dump "$ns" > "$tmp/recs0" || die "cannot decode the ring of $ns"
no_status() { # FILE: NVMe records, none with IOTRACE_RF_STATUS_VALID
	rec_match "$1" "ctype == 1" && ! rec_match "$1" "ctype == 1 and rf & 0x200"
}
ktap_check "before a layout: NVMe records, none with STATUS_VALID ($(wc -l < "$tmp/recs0"))" \
	no_status "$tmp/recs0"
"$IOTRACECTL" stats "$ns" > "$tmp/stats0" 2>&1 || log "stats $ns failed"
sed 's/^/# stats: /' "$tmp/stats0" | tail -n 3
ktap_check "iotracectl stats $ns says why there is no NVMe status" \
	grep -qxF "nvme status: $NOLAYOUT" "$tmp/stats0"

# B. A layout that does not fit the driver's request data is refused.
A_SOFF=$(attr IOTRACE_A_NVME_STATUS_OFF)
A_SSIZE=$(attr IOTRACE_A_NVME_STATUS_SIZE)
A_ROFF=$(attr IOTRACE_A_NVME_RESULT_OFF)
A_RSIZE=$(attr IOTRACE_A_NVME_RESULT_SIZE)
cmd_size_max=$(( 65536 - 16 ))
got=$("$NLSEND" nvme-layout "$A_SOFF:u32:$cmd_size_max" "$A_SSIZE:u32:2" \
	"$A_ROFF:u32:8" "$A_RSIZE:u32:8" 2>&1)
log "bogus layout (status @$cmd_size_max): $got"
# an offset that would wrap around when its size is added
got2=$("$NLSEND" nvme-layout "$A_SOFF:u32:4294967294" "$A_SSIZE:u32:2" \
	"$A_ROFF:u32:8" "$A_RSIZE:u32:8" 2>&1)
log "bogus layout (status @4294967294): $got2"
refused() {
	echo "$got" | grep -q '^errno 22 EINVAL.*request data' &&
		echo "$got2" | grep -q '^errno 22 EINVAL.*beyond any request' &&
		[ "$(nvme_line)" = "$NOLAYOUT" ]
}
ktap_check "layouts beyond the request data are refused (EINVAL), none in use" \
	refused

# ... and so is any layout from a process without CAP_SYS_ADMIN.
got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$NLSEND" \
	nvme-layout "$A_SOFF:u32:20" "$A_SSIZE:u32:2" "$A_ROFF:u32:8" \
	"$A_RSIZE:u32:8" 2>&1)
log "unprivileged layout: $got"
eperm() {
	echo "$got" | grep -q '^errno 1 EPERM' && [ "$(nvme_line)" = "$NOLAYOUT" ]
}
ktap_check "an unprivileged layout is refused (EPERM)" eperm

# C. The layout from nvme_core's BTF.
"$IOTRACECTL" nvme-layout > "$tmp/layout.out" 2>&1
rc=$?
sed 's/^/# nvme-layout: /' "$tmp/layout.out"
if [ $have_btf = 1 ]; then
	ktap_check "iotracectl nvme-layout gives the layout from BTF (exit $rc)" \
		sh -c "[ $rc = 0 ] && grep -q 'in /sys/kernel/btf/nvme_core: status @' '$tmp/layout.out'"
	soff=$(sed -n 's/.*status @\([0-9]*\) .*/\1/p' "$tmp/layout.out")
	roff=$(sed -n 's/.*result @\([0-9]*\) .*/\1/p' "$tmp/layout.out")
	ktap_check "status file: nvme_status recorded (status @$soff, result @$roff)" \
		test "$(nvme_line)" = "recorded (layout from BTF: status @$soff, result @$roff)"
	"$IOTRACECTL" state "$ns" > "$tmp/state" 2>&1
	ktap_check "netlink state: nvme_status 1, nvme_status_off $soff, nvme_result_off $roff" \
		sh -c "grep -qx 'nvme_status: 1' '$tmp/state' &&
			grep -qx 'nvme_status_off: $soff' '$tmp/state' &&
			grep -qx 'nvme_result_off: $roff' '$tmp/state'"
else
	# 5.10: vmlinux BTF without module BTF; the debug kernels of make
	# check-debug: no BTF at all
	if [ -e /sys/kernel/btf/vmlinux ]; then
		msg='no /sys/kernel/btf/nvme_core: this kernel has no module BTF; NVMe status is not recorded'
	else
		msg='no /sys/kernel/btf/vmlinux: this kernel has no BTF; NVMe status is not recorded'
	fi
	ktap_check "iotracectl nvme-layout fails: no module BTF (exit $rc)" \
		sh -c "[ $rc != 0 ] && grep -qF '$msg' '$tmp/layout.out'"
	ktap_check "status file: still $NOLAYOUT" \
		test "$(nvme_line)" = "$NOLAYOUT"
	"$IOTRACECTL" state "$ns" > "$tmp/state" 2>&1
	ktap_check "netlink state: nvme_status 0" grep -qx 'nvme_status: 0' "$tmp/state"
fi
cmd_enable "$ns"

# 1. io-passthru Read with chosen dwords: 4 blocks at LBA 8.
nvme io-passthru /dev/$ns --opcode=0x02 --namespace-id=1 --read \
	--data-len=$((4 * lbs)) --cdw2=0x11223344 --cdw3=0x55667788 \
	--cdw10=8 --cdw11=0 --cdw12=3 --cdw13=0x5 --cdw14=0 --cdw15=0 \
	--raw-binary > /dev/null 2> "$tmp/pt.err" ||
	log "io-passthru read: $(cat "$tmp/pt.err")"
# 2. An opcode the controller does not implement.
nvme io-passthru /dev/$ns --opcode=0x83 --namespace-id=1 \
	--cdw10=0xa5a5a5a5 > "$tmp/bad.out" 2>&1
bad_status=$(grep -o '(0x[0-9a-fA-F]*)' "$tmp/bad.out" | tail -n 1 | tr -d '()')
log "nvme-cli on opcode 0x83: $(tr '\n' ' ' < "$tmp/bad.out")"
# 3. fio, with its own log of every I/O it issued.
fio --name=cmd --filename=/dev/$ns --ioengine=psync --direct=1 \
	--rw=randrw --bs=4k --size=4M --io_size=256k --randrepeat=1 \
	--write_iolog="$tmp/iolog" > "$tmp/fio.out" 2>&1 ||
	die "fio failed: $(tail -n 5 "$tmp/fio.out")"
cmd_disable "$ns"
cmd_dump "$ns" > "$tmp/recs" || die "cannot decode the ring of $ns"
log "$(wc -l < "$tmp/recs") records"

python3 - "$tmp/recs" "$tmp/iolog" "$lbs" "${bad_status:-none}" $have_btf \
	> "$tmp/verdict" <<'EOF'
import sys
recs, iolog, lbs, bad = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
have = sys.argv[5] == '1'
CMD_VALID, STATUS_VALID, PASSTHRU, ERROR = 1 << 5, 1 << 9, 1 << 4, 1 << 1
nvme = []
for line in open(recs):
    f = line.split()
    if f[8] != '1':
        continue
    nvme.append(dict(op=int(f[1]), sector=int(f[2]), bytes=int(f[3]),
                     rf=int(f[5], 16), st=int(f[6], 16),
                     cmd=bytes.fromhex(f[10])))
def dw(c, i):
    return int.from_bytes(c[4 * i:4 * i + 4], 'little')
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)

res(len(nvme) > 0 and all(len(r['cmd']) == 64 for r in nvme),
    'records hold 64-byte NVMe entries (%d)' % len(nvme))
res(all(r['cmd'][16:40] == bytes(24) for r in nvme),
    'metadata and data pointers are zero in every entry')

# 1. the passthrough read, dword for dword (the command id, bytes 2-3,
#    is the driver's)
want = {0: 0x02, 1: 1, 2: 0x11223344, 3: 0x55667788, 10: 8, 11: 0,
        12: 3, 13: 5, 14: 0, 15: 0}
pt = [r for r in nvme if r['cmd'][0] == 0x02 and r['rf'] & PASSTHRU]
ok = len(pt) == 1
if ok:
    c = pt[0]['cmd']
    got = {i: dw(c, i) & (0xffff if i == 0 else 0xffffffff) for i in want}
    ok = got == want and all(dw(c, i) == 0 for i in range(4, 10))
    print('# passthru entry:', c.hex())
res(ok, 'io-passthru Read entry equals the dwords sent')
if have:
    res(len(pt) == 1 and pt[0]['rf'] & STATUS_VALID and pt[0]['st'] == 0,
        'io-passthru Read completed with status 0')
else:
    res(len(pt) == 1 and not pt[0]['rf'] & STATUS_VALID,
        'io-passthru Read recorded without a status (no BTF)')

# 2. invalid opcode: status equals what nvme-cli printed
bad_r = [r for r in nvme if r['cmd'][0] == 0x83]
ok = (len(bad_r) == 1 and bad != 'none' and
      bad_r[0]['rf'] & STATUS_VALID and bad_r[0]['st'] == int(bad, 16) and
      dw(bad_r[0]['cmd'], 10) == 0xa5a5a5a5)
if bad_r:
    print('# opcode 0x83 record status %#x, nvme-cli said %s' %
          (bad_r[0]['st'], bad))
if have:
    res(ok, 'unsupported opcode records the controller status (SCT/SC %s)'
        % bad)
else:
    res(len(bad_r) == 1 and not bad_r[0]['rf'] & STATUS_VALID and
        not any(r['rf'] & STATUS_VALID for r in nvme),
        'unsupported opcode (nvme-cli: %s): no record has a status (no BTF)'
        % bad)

# 3. every I/O in fio's log has a Read/Write entry with that SLBA and NLB
ios = []
for line in open(iolog):
    f = line.split()
    if len(f) == 5:		# iolog v3: time file action offset length
        f = f[1:]
    if len(f) == 4 and f[1] in ('read', 'write'):
        ios.append((0x02 if f[1] == 'read' else 0x01, int(f[2]), int(f[3])))
have = {}
for r in nvme:
    c = r['cmd']
    if c[0] in (1, 2) and not r['rf'] & PASSTHRU:
        slba = int.from_bytes(c[40:48], 'little')
        nlb = (dw(c, 12) & 0xffff) + 1
        key = (c[0], slba * lbs, nlb * lbs)
        have[key] = have.get(key, 0) + 1
        if r['sector'] * 512 != slba * lbs or r['bytes'] != nlb * lbs:
            print('# mismatch block layer vs entry:', r)
            ios.append(('mismatch',))
missing = 0
for io in ios:
    if have.get(io, 0) > 0:
        have[io] -= 1
    else:
        missing += 1
res(len(ios) >= 64 and missing == 0,
    "fio's %d I/Os all recorded with matching SLBA/NLB (%d missing)" %
    (len(ios), missing))
EOF
while read -r v what; do
	case "$v" in
	ok) ktap_ok "$what" ;;
	FAIL) ktap_fail "$what" ;;
	*) echo "$v $what" ;;
	esac
done < "$tmp/verdict"

# 5. Admin commands go to the controller's admin queue, which has no
# disk: they are recorded in the controller's ring (e.g. nvme0).
ctrl=$(basename "$(readlink -f /sys/block/$ns/device)")
case "$ctrl" in
nvme[0-9]*) ;;
*) ctrl=$(ls /sys/class/nvme | head -n 1) ;;
esac
log "controller $ctrl"
cmd_enable "$ctrl"
# Get Features (0x0a), Number of Queues (FID 7), every other dword chosen.
nvme admin-passthru /dev/$ctrl --opcode=0x0a --namespace-id=0 \
	--cdw2=0xa1b2c3d4 --cdw3=0x01020304 --cdw10=7 --cdw11=0 \
	--cdw12=0x0c0c0c0c --cdw13=0x0d0d0d0d --cdw14=0x0e0e0e0e \
	--cdw15=0x0f0f0f0f > "$tmp/gf.out" 2>&1
log "admin-passthru 0x0a: $(tr '\n' ' ' < "$tmp/gf.out")"
# nvme-cli 2.x: "... is Success and result: 0x003f003f"
gf_result=$(sed -n 's/.*[Rr]esult:* *\(0x[0-9a-fA-F]*\).*/\1/p' "$tmp/gf.out")
nvme id-ctrl /dev/$ctrl > /dev/null 2> "$tmp/id.err" ||
	log "id-ctrl: $(cat "$tmp/id.err")"
nvme admin-passthru /dev/$ctrl --opcode=0xc1 --cdw10=0x5a5a5a5a \
	> "$tmp/abad.out" 2>&1
abad=$(grep -o '(0x[0-9a-fA-F]*)' "$tmp/abad.out" | tail -n 1 | tr -d '()')
log "admin-passthru 0xc1: $(tr '\n' ' ' < "$tmp/abad.out")"
nvme smart-log /dev/$ctrl > /dev/null 2> "$tmp/smart.err" ||
	log "smart-log: $(cat "$tmp/smart.err")"
cmd_disable "$ctrl"
cmd_dump "$ctrl" > "$tmp/arecs" || die "cannot decode the ring of $ctrl"
log "$(wc -l < "$tmp/arecs") admin records"
# The driver's own admin commands: a controller reset identifies again.
cmd_enable "$ctrl"
nvme reset /dev/$ctrl 2> "$tmp/reset.err" || log "reset: $(cat "$tmp/reset.err")"
wait_for /dev/$ns 30 || die "/dev/$ns did not come back after the reset"
settle
cmd_disable "$ctrl"
cmd_dump "$ctrl" > "$tmp/rrecs" || die "cannot decode the ring of $ctrl"
log "$(wc -l < "$tmp/rrecs") admin records from the reset"
ring_flags() {
	python3 -c "import struct,sys; print(struct.unpack_from('<I', open(sys.argv[1], 'rb').read(), 28)[0])" "$1"
}
ktap_check "$ctrl ring header says IOTRACE_RING_CONTROLLER" \
	test $(( $(ring_flags "$IOTRACE_DEBUGFS/$ctrl/ring") & 4 )) = 4

python3 - "$tmp/arecs" "${gf_result:-none}" "${abad:-none}" "$tmp/rrecs" \
	$have_btf > "$tmp/averdict" <<'EOF_PY'
import sys
recs, gf_result, bad, rrecs = sys.argv[1:5]
have = sys.argv[5] == '1'
STATUS_VALID, PASSTHRU, ADMIN = 1 << 9, 1 << 4, 1 << 10
def dw(c, i):
    return int.from_bytes(c[4 * i:4 * i + 4], 'little')
def load(path):
    out = []
    for line in open(path):
        f = line.split()
        r = dict(rf=int(f[5], 16), st=int(f[6], 16), res=int(f[7], 16),
                 ctype=int(f[8]),
                 cmd=bytes.fromhex(f[10]) if f[10] != '-' else b'')
        print('# %s: rf %#x status %#x opcode %s cdw10 %#x' %
              (path.split('/')[-1], r['rf'], r['st'],
               '%#x' % r['cmd'][0] if r['cmd'] else '-',
               dw(r['cmd'], 10) if len(r['cmd']) == 64 else 0))
        out.append(r)
    return out
rs = load(recs)
nv = [r for r in rs if r['ctype'] == 1 and len(r['cmd']) == 64]
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
res(len(rs) > 0 and all(r['rf'] & ADMIN for r in rs) and
    all(r['cmd'][16:40] == bytes(24) for r in nv),
    'every controller record has IOTRACE_RF_ADMIN, data pointers zero (%d)'
    % len(rs))
pt = [r for r in nv if r['rf'] & PASSTHRU]
# admin-passthru Get Features, dword for dword (command id is the driver's)
want = {0: 0x0a, 1: 0, 2: 0xa1b2c3d4, 3: 0x01020304, 10: 7, 11: 0,
        12: 0x0c0c0c0c, 13: 0x0d0d0d0d, 14: 0x0e0e0e0e, 15: 0x0f0f0f0f}
gf = [r for r in pt if r['cmd'][0] == 0x0a]
ok = len(gf) == 1
if ok:
    c = gf[0]['cmd']
    print('# admin-passthru entry:', c.hex())
    got = {i: dw(c, i) & (0xffff if i == 0 else 0xffffffff) for i in want}
    ok = got == want and all(dw(c, i) == 0 for i in range(4, 10))
res(ok, 'admin-passthru Get Features entry equals the dwords sent')
def st_is(r, st, result=None):
    """With BTF: the status (and dword 0) given; without: no status."""
    if not have:
        return not r['rf'] & STATUS_VALID and r['st'] == 0 and r['res'] == 0
    return (r['rf'] & STATUS_VALID and r['st'] == st and
            (result is None or r['res'] == result))
ok = (len(gf) == 1 and gf_result != 'none' and
      st_is(gf[0], 0, int(gf_result, 16)))
if gf:
    print('# Get Features result %#x, nvme-cli said %s' % (gf[0]['res'],
                                                           gf_result))
res(ok, 'admin-passthru status 0 and dword 0 as nvme-cli printed it'
    if have else 'admin-passthru (result %s): no status recorded (no BTF)'
    % gf_result)
idc = [r for r in pt if r['cmd'][0] == 0x06 and dw(r['cmd'], 10) & 0xff == 1]
res(len(idc) >= 1 and all(st_is(r, 0) for r in idc),
    'nvme id-ctrl records Identify (0x06) with CNS=1, status 0'
    if have else 'nvme id-ctrl records Identify (0x06) with CNS=1, no status')
b = [r for r in pt if r['cmd'][0] == 0xc1]
ok = (len(b) == 1 and bad != 'none' and
      st_is(b[0], int(bad, 16)) and dw(b[0]['cmd'], 10) == 0x5a5a5a5a)
if b:
    print('# opcode 0xc1 status %#x, nvme-cli said %s' % (b[0]['st'], bad))
res(ok, ('unsupported admin opcode 0xc1 records the status (%s)' if have else
         'unsupported admin opcode 0xc1 (nvme-cli: %s): no status (no BTF)')
    % bad)
sl = [r for r in pt if r['cmd'][0] == 0x02 and dw(r['cmd'], 10) & 0xff == 2]
res(len(sl) == 1 and st_is(sl[0], 0),
    'nvme smart-log records Get Log Page (0x02) with log id 2')
# The kernel's own admin commands are passthrough requests too.
own = [r for r in load(rrecs) if r['ctype'] == 1 and len(r['cmd']) == 64 and
       r['cmd'][0] == 0x06 and dw(r['cmd'], 10) & 0xff == 1]
res(len(own) > 0 and all(r['rf'] & ADMIN and st_is(r, 0) for r in own),
    "the driver's own Identify Controller after a reset is recorded (%d)"
    % len(own))
EOF_PY
while read -r v what; do
	case "$v" in
	ok) ktap_ok "$what" ;;
	FAIL) ktap_fail "$what" ;;
	*) echo "$v $what" ;;
	esac
done < "$tmp/averdict"

# 4. nvme-core goes and comes back while iotrace stays loaded.
modprobe -r nvme || die "modprobe -r nvme failed"
grep -q '^nvme_core ' /proc/modules && rmmod nvme_core
ktap_check "nvme-core unloaded under iotrace" \
	sh -c "! grep -q '^nvme_core ' /proc/modules"
ktap_check "$ctrl ring detached with its controller" \
	test ! -e "$IOTRACE_DEBUGFS/$ctrl"
ktap_check "the layout is forgotten with nvme_core" \
	test "$(nvme_line)" = "$NOLAYOUT"
modprobe nvme || die "modprobe nvme failed"
wait_for /dev/$ns 30 || die "/dev/$ns did not come back"
settle
# What the udev rule does when nvme_core comes (no udev rules in the VM).
"$IOTRACECTL" nvme-layout --quiet || log "nvme-layout after the reload: exit $?"
cmd_enable "$ns"
dd if=/dev/$ns of=/dev/null bs=4096 skip=256 count=1 iflag=direct 2> /dev/null ||
	die "dd on the reloaded $ns failed"
cmd_disable "$ns"
cmd_dump "$ns" > "$tmp/recs2" || die "cannot decode the ring of $ns"
# LBA of byte 1 MiB, little-endian in bytes 40-47 of the entry.
slba=$(python3 -c "print((1048576 // $lbs).to_bytes(8, 'little').hex())")
ktap_check "capture resumes after nvme-core reload (Read at byte 1 MiB)" \
	rec_match "$tmp/recs2" "ctype == 1 and cmd[:2] == '02' and cmd[80:96] == '$slba'"
if [ $have_btf = 1 ]; then
	ktap_check "nvme-layout again after the reload: the Read has status 0" \
		rec_match "$tmp/recs2" "ctype == 1 and cmd[:2] == '02' and cmd[80:96] == '$slba' and rf & 0x200 and st == 0"
else
	ktap_check "after the reload: still no status (no BTF)" \
		rec_match "$tmp/recs2" "ctype == 1 and cmd[:2] == '02' and cmd[80:96] == '$slba' and not rf & 0x200"
fi
cmd_enable "$ctrl"
nvme id-ctrl /dev/$ctrl > /dev/null 2>&1 || log "id-ctrl after reload failed"
cmd_disable "$ctrl"
cmd_dump "$ctrl" > "$tmp/arecs2" || die "cannot decode the ring of $ctrl"
ktap_check "a new $ctrl ring records id-ctrl after the reload" \
	rec_match "$tmp/arecs2" "ctype == 1 and c[0] == 6 and le(c[40:44]) & 0xff == 1 and rf & 0x410 == 0x410"
unload_iotrace
rm -rf "$tmp"
ktap_finish
