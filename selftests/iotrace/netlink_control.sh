#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# netlink_control: the generic netlink family "iotrace".
#
# perm: a process without capabilities (uid/gid 65534, no groups, via
# setpriv) is refused with EPERM for every state change, through iotracectl
# and through raw requests, and nothing changes; it may still list.  Root
# without capabilities is refused the debugfs enable and clear files.
#
# inval: malformed or out-of-range attributes (missing or too long disk
# name, a name without its NUL, unknown attribute, attribute 0, reply-only
# attributes, wrong length, buf_size out of range, filter bits outside the
# mask, an empty or inverted range, min-bytes too big) are refused with
# EINVAL, and the disk's state is the same afterwards; an unknown disk is
# ENODEV.  A LIST dump with DISK_NAME gives that disk alone.
#
# same path: enable, disable and clear over netlink show in the debugfs
# files and vice versa (one code path).
#
# filter: with ops=write the reads are counted as filtered, never recorded;
# recorded writes and filtered reads equal /sys/block/<disk>/stat's write
# and read deltas, and completed = present + overwritten + dropped + filtered.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd setpriv
need_nlsend

ktap_header
out=$(mktemp -d)
chmod 755 "$out"
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace disks=$disk buf_size=1M

# A=attribute numbers, from the uapi header
A_NAME=2 A_ENABLED=5 A_BUF=6 A_FOPS=23 A_FSMIN=24 A_FSMAX=25 A_FBYTES=26

# the part of the state a refused request must not change
state_key() {
	"$IOTRACECTL" state $disk |
		grep -E '^(enabled|buf_size|ring_size|generation|resizes|filter_[a-z_]+|recorded):'
}

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# ---- perm ----------------------------------------------------------
before=$(state_key)
ktap_check "state readable over netlink" test -n "$before"
ktap_check "an unprivileged process may list" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups $IOTRACECTL state $disk | grep -q '^disk: $disk'"
# eperm WHAT CMD... - one check: CMD fails, saying EPERM on stderr
eperm() {
	local what=$1 rc

	shift
	"$@" > /dev/null 2> "$out/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'Operation not permitted' "$out/err"; then
		ktap_ok "$what: EPERM"
	else
		sed 's/^/# /' "$out/err"
		ktap_fail "$what: EPERM (rc $rc)"
	fi
}

for c in "disable $disk" "enable $disk" "clear $disk" "resize $disk 2M" \
	 "filter $disk ops=read" "filter $disk off"; do
	# shellcheck disable=SC2086
	eperm "unprivileged '$c' refused" nobody "$IOTRACECTL" $c
done
for c in enable disable clear "resize $A_BUF:u64:2097152" "filter $A_FOPS:u32:1"; do
	# shellcheck disable=SC2086
	set -- $c
	cmd=$1
	shift
	got=$(nobody "$NLSEND" "$cmd" "$A_NAME:str:$disk" "$@")
	if echo "$got" | grep -q '^errno 1 EPERM'; then
		ktap_ok "raw $cmd as nobody: EPERM"
	else
		ktap_fail "raw $cmd as nobody: EPERM (got '$got')"
	fi
done
# malformed and unprivileged: permission is checked first
got=$(nobody "$NLSEND" resize "$A_NAME:str:$disk" "$A_BUF:u64:1")
ktap_check "raw malformed resize as nobody: EPERM ($got)" \
	sh -c "echo '$got' | grep -q '^errno 1 EPERM'"
# debugfs's control files: root with every capability dropped is
# refused as over netlink, whatever the files' modes let it open
for c in "enable 0" "clear 1"; do
	# shellcheck disable=SC2086
	set -- $c
	eperm "debugfs $1 written without CAP_SYS_ADMIN" \
		setpriv --bounding-set=-all --inh-caps=-all \
		bash -c "echo $2 > '$IOT/$disk/$1'"
done
after=$(state_key)
if [ "$before" = "$after" ]; then
	ktap_ok "refused requests changed nothing"
else
	echo "$before" > "$out/before"
	echo "$after" | diff "$out/before" - | sed 's/^/# /'
	ktap_fail "refused requests changed nothing"
fi

# ---- inval ---------------------------------------------------------
long=abcdefghijklmnopqrstuvwxyz0123456789
bad=(
	"enable"					# no disk name
	"enable $A_NAME:str:$long"			# name too long
	"enable $A_NAME:raw:$disk"			# no NUL
	"enable $A_NAME:str:$disk 99:u32:1"		# unknown attribute
	"enable $A_NAME:str:$disk 0:u32:1"		# attribute 0
	"enable $A_NAME:str:$disk $A_ENABLED:u8:1"	# reply-only attribute
	"disable $A_NAME:str:$disk 11:u64:5"		# reply-only counter
	"resize $A_NAME:str:$disk"			# no size
	"resize $A_NAME:str:$disk $A_BUF:u64:4096"	# below 64K
	"resize $A_NAME:str:$disk $A_BUF:u64:2147483648" # above 1G
	"resize $A_NAME:str:$disk $A_BUF:u32:1048576"	# wrong length
	"filter $A_NAME:str:$disk $A_FOPS:u32:0x40000000" # bit not in the mask
	"filter $A_NAME:str:$disk $A_FOPS:u32:0"	# empty mask
	"filter $A_NAME:str:$disk $A_FSMIN:u64:100 $A_FSMAX:u64:10" # inverted
	"filter $A_NAME:str:$disk $A_FBYTES:u32:2147483648" # min-bytes too big
	"filter $A_NAME:str:$disk $A_FOPS:u8:1"		# wrong length
)
for b in "${bad[@]}"; do
	# shellcheck disable=SC2086
	got=$("$NLSEND" $b)
	if echo "$got" | grep -q '^errno 22 EINVAL'; then
		ktap_ok "'$b': EINVAL (${got#errno 22 EINVAL})"
	else
		ktap_fail "'$b': EINVAL (got '$got')"
	fi
done
got=$("$NLSEND" enable "$A_NAME:str:nosuchdisk")
ktap_check "unknown disk: ENODEV ($got)" \
	sh -c "echo '$got' | grep -q '^errno 19 ENODEV'"
# a LIST dump lists every disk, or with DISK_NAME that disk alone (as
# the doit answers it), none for a name no disk has
nb2=$(nullb_create nlc2 size=16)
wait_for "$IOT/$nb2" 10 || ktap_fail "no $IOT/$nb2"
for w in all one none; do
	case $w in
	all) "$NLSEND" -d list ;;
	one) "$NLSEND" -d list "$A_NAME:str:$nb2" ;;
	none) "$NLSEND" -d list "$A_NAME:str:nosuchdisk" ;;
	esac | tr '\n' ' ' > "$out/list.$w"
done
log "LIST dumps: all: $(cat "$out/list.all"); $nb2: $(cat "$out/list.one"); nosuchdisk: $(cat "$out/list.none")"
ktap_check "a LIST dump: every disk (at least $disk and $nb2)" \
	grep -Eq '^errno 0 OK messages ([2-9]|[1-9][0-9]+) $' "$out/list.all"
ktap_check "a LIST dump with DISK_NAME: that disk alone" \
	grep -q '^errno 0 OK messages 1 $' "$out/list.one"
ktap_check "a LIST dump with an unknown DISK_NAME: no disk" \
	grep -q 'messages 0 $' "$out/list.none"
nullb_destroy nlc2
"$IOTRACECTL" resize $disk 12 2> "$out/err"
ktap_check "iotracectl resize to 12 bytes fails, saying why" \
	grep -q 'Invalid argument' "$out/err"
sed 's/^/# /' "$out/err"
after=$(state_key)
if [ "$before" = "$after" ]; then
	ktap_ok "invalid requests changed nothing"
else
	echo "$before" > "$out/before"
	echo "$after" | diff "$out/before" - | sed 's/^/# /'
	ktap_fail "invalid requests changed nothing"
fi

# ---- one code path -----------------------------------------------
"$IOTRACECTL" disable $disk
ktap_check "netlink disable shows in debugfs enable" \
	test "$(cat "$IOT/$disk/enable")" = 0
echo 1 > "$IOT/$disk/enable"
ktap_check "debugfs enable shows over netlink" \
	sh -c "$IOTRACECTL state $disk | grep -q '^enabled: 1'"
g0=$(iot_stat $disk generation)
"$IOTRACECTL" clear $disk
ktap_check "netlink clear moves the debugfs generation on" \
	test "$(iot_stat $disk generation)" -eq $((g0 + 1))

# ---- filter --------------------------------------------------------
"$IOTRACECTL" filter $disk ops=write || ktap_fail "filter ops=write"
"$IOTRACECTL" clear $disk
r0=$(awk '{ print $1 }' /sys/block/$disk/stat)
w0=$(awk '{ print $5 }' /sys/block/$disk/stat)
dd if=/dev/$disk of=/dev/null bs=4k count=300 iflag=direct 2> /dev/null
dd if=/dev/zero of=/dev/$disk bs=4k count=200 oflag=direct 2> /dev/null
r1=$(awk '{ print $1 }' /sys/block/$disk/stat)
w1=$(awk '{ print $5 }' /sys/block/$disk/stat)
"$IOTRACECTL" state $disk > "$out/state"
sed 's/^/# /' "$out/state"
rec=$(kv "$out/state" recorded)
filt=$(kv "$out/state" filtered)
ktap_check "recorded ($rec) = writes per /sys/block stat ($((w1 - w0)))" \
	test "$rec" -eq $((w1 - w0))
ktap_check "filtered ($filt) = reads per /sys/block stat ($((r1 - r0)))" \
	test "$filt" -eq $((r1 - r0))
"$RINGCHECK" dump "$IOT/$disk/ring" > "$out/ring"
ktap_check "no read in the ring" sh -c "! grep -qi read '$out/ring'"
ktap_check "debugfs stats: completed = present + overwritten + dropped + filtered" \
	test "$(iot_stat $disk completed)" -eq $(($(iot_stat $disk present) + \
		$(iot_stat $disk overwritten) + $(iot_stat $disk dropped) + \
		$(iot_stat $disk filtered)))
"$IOTRACECTL" filter $disk sectors=0-8 min-bytes=8192
"$IOTRACECTL" clear $disk
dd if=/dev/$disk of=/dev/null bs=4k count=4 iflag=direct 2> /dev/null
dd if=/dev/$disk of=/dev/null bs=8k count=4 iflag=direct 2> /dev/null
# 8 KiB at sector 0 passes; 8 KiB at 16, 32, 48 and every 4 KiB read do not
ktap_check "sector range and min-bytes: 1 recorded, 7 filtered" \
	sh -c "$IOTRACECTL state $disk | grep -q '^recorded: 1\$' &&
	       $IOTRACECTL state $disk | grep -q '^filtered: 7\$'"
"$IOTRACECTL" filter $disk off
ktap_check "filter off: everything again" \
	sh -c "$IOTRACECTL state $disk | grep -q '^filter_ops: 0x80003fff'"

unload_iotrace
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
