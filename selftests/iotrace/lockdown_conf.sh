#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lockdown_conf: under lockdown=confidentiality no NVMe layout from user
# space.  SET_NVME_LAYOUT's offsets are only range-checked against the
# request data: root could aim them at pointer or DMA-address fields of
# the driver's request, which would then land in every NVMe record, which
# is what confidentiality lockdown forbids (as it forbids kprobes).
#
# The module is loaded first (lockdown refuses unsigned modules), then:
# - premise: before lockdown a layout inside the request data is accepted
#   (nlsend SET_NVME_LAYOUT), and forgotten again;
# - "confidentiality" written to /sys/kernel/security/lockdown;
# - the same layout is refused with EPERM and an extended ack naming the
#   lockdown; LIST still says nvme_status 0;
# - forgetting the layout (no attribute) is still allowed;
# - iotracectl nvme-layout fails (where the kernel has module BTF);
# - recording works on: an NVMe read is recorded, without a status.
# VM-DEVICES: nvme
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-BATCH: no (lockdown stays until the next boot: no unsigned module
# loads after it)
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3 dd
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
need_nlsend

[ -e /sys/kernel/security/lsm ] ||
	mount -t securityfs none /sys/kernel/security 2> /dev/null
grep -qw lockdown /sys/kernel/security/lsm 2> /dev/null ||
	skip "the lockdown LSM is not active (/sys/kernel/security/lsm: $(cat /sys/kernel/security/lsm 2> /dev/null))"
grep -q '\[none\]' /sys/kernel/security/lockdown ||
	skip "the kernel is already locked down: iotrace.ko (unsigned) cannot be loaded"

ktap_header
out=$(mktemp -d)

# enum iotrace_genl_attr numbers, from the uapi header
attr() {
	python3 - "$IOTRACE_SRC/uapi/linux/iotrace.h" "$1" <<'EOF_PY'
import re, sys
body = open(sys.argv[1]).read().split('enum iotrace_genl_attr {')[1]
names = re.findall(r'^\s*(IOTRACE_A_\w+),', body.split('};')[0], re.M)
print(names.index(sys.argv[2]))
EOF_PY
}
A_SOFF=$(attr IOTRACE_A_NVME_STATUS_OFF)
A_SSIZE=$(attr IOTRACE_A_NVME_STATUS_SIZE)
A_ROFF=$(attr IOTRACE_A_NVME_RESULT_OFF)
A_RSIZE=$(attr IOTRACE_A_NVME_RESULT_SIZE)
# a layout inside any NVMe request's data (struct nvme_request is larger)
layout() {
	"$NLSEND" nvme-layout "$A_SOFF:u32:16" "$A_SSIZE:u32:2" \
		"$A_ROFF:u32:8" "$A_RSIZE:u32:8" 2>&1
}

load_iotrace
ns=$(first_disk 'nvme*n1') || skip "no NVMe namespace in the guest"
st() { # KEY - a value of iotracectl state $ns
	"$IOTRACECTL" state "$ns" | sed -n "s/^$1: //p"
}

got=$(layout)
log "before lockdown: $got"
ktap_check "premise: a layout is accepted before lockdown ($got)" \
	sh -c "echo '$got' | grep -q '^errno 0' && [ \"\$($IOTRACECTL state $ns | sed -n 's/^nvme_status: //p')\" = 1 ]"
got=$("$NLSEND" nvme-layout 2>&1)
ktap_check "premise: and forgotten ($got)" test "$(st nvme_status)" = 0

echo confidentiality > /sys/kernel/security/lockdown
ktap_check "kernel locked down (confidentiality)" \
	grep -q '\[confidentiality\]' /sys/kernel/security/lockdown

got=$(layout)
log "under lockdown: $got"
ktap_check "the layout is refused with EPERM, the lockdown named" \
	sh -c "echo '$got' | grep -q '^errno 1 EPERM.*lockdown'"
ktap_check "LIST: nvme_status 0" test "$(st nvme_status)" = 0
got=$("$NLSEND" nvme-layout 2>&1)
ktap_check "forgetting the layout is still allowed ($got)" \
	sh -c "echo '$got' | grep -q '^errno 0'"
"$IOTRACECTL" nvme-layout > "$out/nl" 2>&1
rc=$?
sed 's/^/# nvme-layout: /' "$out/nl"
if [ -e /sys/kernel/btf/nvme_core ]; then
	ktap_check "iotracectl nvme-layout fails (exit $rc)" test $rc -ne 0
else
	ktap_skip "no /sys/kernel/btf/nvme_core: iotracectl nvme-layout fails anyway"
fi
ktap_check "LIST: still nvme_status 0" test "$(st nvme_status)" = 0

"$IOTRACECTL" enable "$ns" || ktap_fail "enable $ns"
"$IOTRACECTL" clear "$ns"
dd if=/dev/"$ns" of=/dev/null bs=4096 count=8 iflag=direct 2> /dev/null
"$IOTRACECTL" disable "$ns"
ktap_check "recording works on under lockdown (recorded $(st recorded))" \
	test "$(st recorded)" -ge 8
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
