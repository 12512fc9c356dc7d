#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stacked: records stay on the physical disks, and "iotracectl show
# --stack" of a trace file gives each one the logical device it belongs to
# and its offset there, from the device-mapper tables and md layout that
# "iotracectl record" read and saved: (a) a dm linear device spanning two
# disks (LVM's layout, 64 MiB on each), (b) a dm crypt device (dmsetup,
# aes-xts-plain64 and a fixed key, data at 4096 sectors), (c) an md RAID1
# of two disks (mdadm, metadata 1.2: data_offset per member).
#
# Oracles: fio's write_iolog on each logical device (every request, its
# op, offset and length there), blktrace on the physical disks (what
# reached them: every completed request, op, sector and length, compared
# with iotrace's records first), and the disks' /sys/block stat.
# Checked, per device: the records that map to it are exactly fio's
# requests (linear: one record per request, same op, offset, length;
# RAID1: a read once, a write once on each mirror; crypt, which may split
# a request: the same bytes per op, and every record inside a request of
# its op); stats --stack's tables of the linear device and the array
# count them; no record of another device maps to it; the crypt table's key
# is nowhere in the trace file; dm crypt's writes carry fio's cgroup
# (through the bio's blkcg) where the module records cgroups.
# VM-TIMEOUT: 900
# VM-SMP: 2
# VM-MEM: 2048
# VM-CHECK: newest
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio blktrace blkparse dmsetup mdadm python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
out=$(mktemp -d)
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
modprobe dm_mod 2> /dev/null
modprobe dm_crypt 2> /dev/null
# dm crypt's cipher: the kernel's request for it would run the initramfs's
# modprobe, which has no modules
modprobe -a -q xts aes aesni_intel aes_generic 2> /dev/null
modprobe raid1 2> /dev/null
[ -e /dev/mapper/control ] || skip "no device-mapper (dm_mod)"

ktap_header 20
# five memory-backed null_blk disks of 128 MiB (md reads its superblocks)
disks=
for n in a b c d e; do
	d=$(nullb_create stk$n size=128 memory_backed=1 blocksize=512 irqmode=0)
	quiet_disk "$d"
	disks="$disks $d"
done
set -- $disks
A=$1 B=$2 C=$3 D=$4 E=$5
devno() { cat "/sys/block/$1/dev"; }
# dm_kname NAME - the kernel's name (dm-N) of device-mapper device NAME
dm_kname() {
	local d
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2> /dev/null)" = "$1" ] && basename "$d"
	done
}

load_iotrace disks=none buf_size=16M
for d in $disks; do
	"$IOTRACECTL" enable "$d" > /dev/null || die "iotracectl enable $d failed"
done

# (a) linear over A (from sector 2048) and B (from 4096)
printf '0 131072 linear %s 2048\n131072 131072 linear %s 4096\n' \
	"$(devno $A)" "$(devno $B)" | dmsetup create --noudevsync stk-lin ||
	die "dmsetup create stk-lin failed"
# (b) crypt over C, its data from sector 4096
cipher=aes-xts-plain64
if ! echo "0 200000 crypt $cipher $KEY 0 $(devno $C) 4096" |
	dmsetup create --noudevsync stk-crypt 2> "$out/crypt.err"; then
	cat "$out/crypt.err" >&2
	die "dmsetup create stk-crypt ($cipher) failed"
fi
# (c) RAID1 of D and E
mdadm --create /dev/md0 --run --assume-clean --level=1 --raid-devices=2 \
	--metadata=1.2 --bitmap=none /dev/$D /dev/$E > "$out/mdadm.log" 2>&1 ||
	{ cat "$out/mdadm.log" >&2; die "mdadm --create failed"; }
LIN=$(dm_kname stk-lin)
CRYPT=$(dm_kname stk-crypt)
[ -n "$LIN" ] && [ -n "$CRYPT" ] && [ -e /sys/block/md0 ] ||
	die "the stacked devices did not appear ($LIN, $CRYPT, md0)"
log "disks $disks; stk-lin = $LIN over $A $B, stk-crypt = $CRYPT over $C, md0 over $D $E"
dmsetup table stk-lin | sed 's/^/# stk-lin: /'
log "md0 data_offset: $(cat /sys/block/md0/md/dev-*/offset | tr '\n' ' ')"
settle
udevadm control --stop-exec-queue 2> /dev/null
# mdadm's udev rules watch md0: when fio closes it after writing, udevd
# itself (not a worker: a stopped queue does not stop it) would probe it
# with blkid, reads on md0 that fio did not make, unless someone holds
# a lock on it (udevd then leaves the device alone)
exec 9< /dev/md0
flock -x 9 || die "cannot lock /dev/md0"

# fio in a cgroup of its own with the io controller: its bios are charged
# to it, and dm crypt's clones keep that charge
cgid=
if { grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
     mount -t cgroup2 none /sys/fs/cgroup 2> /dev/null; } &&
   echo +io > /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null &&
   mkdir -p /sys/fs/cgroup/iotrace-stk; then
	cgid=$(stat -c %i /sys/fs/cgroup/iotrace-stk)
fi
log "fio's cgroup id: ${cgid:-none}"

mkdir -p "$out/bt"
bt_args=
for d in $disks; do
	bt_args="$bt_args -d /dev/$d"
done
# shellcheck disable=SC2086
blktrace $bt_args -a complete -D "$out/bt" > "$out/blktrace.log" 2>&1 &
btpid=$!
sleep 2
for d in $disks; do
	echo 1 > "$IOT/$d/clear"
done
# shellcheck disable=SC2086
"$IOTRACECTL" record $disks -o "$out/stk.trace" > "$out/record.log" 2>&1 &
recpid=$!
sleep 1
# run_fio NAME DEV - fio on /dev/DEV, 64 KiB-aligned requests of 4, 16
# and 64 KiB (none crosses stk-lin's boundary at 64 MiB), in the cgroup
run_fio() {
	local cmd="exec fio --name=$1 --filename=/dev/$2 --direct=1 \
		--ioengine=libaio --iodepth=4 --rw=randrw --blockalign=64k \
		--bssplit=4k/40:16k/30:64k/30 --number_ios=400 --size=96m \
		--offset=0 --write_iolog=$out/$1.iolog --output=$out/$1.fio"
	if [ -n "$cgid" ]; then
		sh -c "echo \$\$ > /sys/fs/cgroup/iotrace-stk/cgroup.procs && $cmd"
	else
		sh -c "$cmd"
	fi
}
run_fio lin "$LIN" || die "fio on $LIN failed: $(tail -5 "$out/lin.fio")"
run_fio crypt "$CRYPT" || die "fio on $CRYPT failed: $(tail -5 "$out/crypt.fio")"
run_fio md md0 || die "fio on md0 failed: $(tail -5 "$out/md.fio")"
sync
sleep 1
kill -INT $recpid
wait_gone $recpid 120 || die "record did not stop"
wait $recpid
rrc=$?
kill -INT $btpid
wait $btpid
udevadm control --start-exec-queue 2> /dev/null
sed 's/^/# record: /' "$out/record.log"
ktap_check "record ran (exit $rrc)" test "$rrc" -eq 0

# what reached the disks: blktrace's completions against iotrace's records
(cd "$out/bt" && for d in $disks; do
	blkparse -q -i "$d" -f '%a %d %S %N\n' 2> /dev/null |
		awk -v d="$d" '$1 == "C" && $4 > 0 {
			op = $2 ~ /R/ ? "read" : ($2 ~ /D/ ? "discard" : ($2 ~ /W/ ? "write" : "other"))
			print d, op, $3, $4 }'
done) | sort > "$out/bt.txt"
"$IOTRACECTL" show --stack "$out/stk.trace" > "$out/show.txt" 2> "$out/show.err"
ktap_check "show --stack of the trace file" test $? -eq 0
sed 's/^/# show: /' "$out/show.err"
head -1 "$out/show.txt" | sed 's/^/# /'
for l in stk-lin stk-crypt md0; do
	awk -v l=$l '$8 == l' "$out/show.txt" | head -2 | sed 's/^/# /'
done
# TIME_S DISK LAT_US Q_US OP SECTOR BYTES LOGICAL L_SECTOR STATUS CPU HWQ TAG PID COMM
awk 'NR > 1 && $7 > 0 {
	op = $5; sub(/\+.*/, "", op)
	print $2, op, $6 * 512, $7, $8, $9, $14, $15 }' "$out/show.txt" > "$out/recs.txt"
awk '{ print $1, $2, $3 / 512, $4 }' "$out/recs.txt" | sort > "$out/iot.txt"
nbt=$(wc -l < "$out/bt.txt")
niot=$(wc -l < "$out/iot.txt")
log "blktrace completions $nbt, iotrace records with data $niot"
diff "$out/bt.txt" "$out/iot.txt" | head -5 | sed 's/^/# bt vs iotrace: /'
ktap_check "iotrace's records are blktrace's completions on the disks ($niot, $nbt)" \
	cmp -s "$out/bt.txt" "$out/iot.txt"

# fio's requests against the records' logical device and offset
cat > "$out/cmp.py" << 'EOF'
import collections, sys

out, dev, kind, fiolog = sys.argv[1:5]
others = set(sys.argv[5:])
fio = []
for line in open(fiolog):
    f = line.split()
    if len(f) == 4 and f[1] in ("read", "write"):
        fio.append((f[1], int(f[2]), int(f[3])))
    elif len(f) == 5 and f[2] in ("read", "write"):
        fio.append((f[2], int(f[3]), int(f[4])))
recs, stray = [], 0
for line in open(out + "/recs.txt"):
    disk, op, off, n, logical, lsec, pid, comm = line.split()
    if logical != dev:
        continue
    if disk in others:
        stray += 1
        continue
    if lsec.endswith("+"):
        print("# partial:", line.strip())
    recs.append((op, int(lsec.rstrip("+")) * 512, int(n), disk))
print("# %s: fio %d requests, %d records map to it, %d from other disks"
      % (dev, len(fio), len(recs), stray))
ok = stray == 0 and len(fio) > 100
if kind == "exact":
    a = collections.Counter(fio)
    b = collections.Counter(r[:3] for r in recs)
elif kind == "raid1":
    # a read once, a write once on each mirror
    a = collections.Counter()
    for op, o, n in fio:
        a[(op, o, n)] += 1 if op == "read" else 2
    b = collections.Counter(r[:3] for r in recs)
    per = collections.Counter((r[0], r[1], r[2], r[3]) for r in recs
                              if r[0] == "write")
    disks = collections.Counter(r[3] for r in recs if r[0] == "write")
    print("# md0 writes per disk:", dict(disks))
    w = collections.Counter(x for x in fio if x[0] == "write")
    for (op, o, n), k in w.items():
        for d in disks:
            if per[(op, o, n, d)] != k:
                ok = False
else:
    # crypt: the same bytes per op; every record inside a request
    a, b = collections.Counter(), collections.Counter()
    for op, o, n in fio:
        a[op] += n
    for op, o, n, d in recs:
        b[op] += n
    spans = collections.defaultdict(list)
    for op, o, n in fio:
        spans[op].append((o, o + n))
    for op, o, n, d in recs:
        if not any(lo <= o and o + n <= hi for lo, hi in spans[op]):
            print("# outside every fio request:", op, o, n)
            ok = False
if a != b:
    ok = False
    for k in list((a - b).items())[:5]:
        print("# missing:", k)
    for k in list((b - a).items())[:5]:
        print("# extra:", k)
sys.exit(0 if ok else 1)
EOF
python3 "$out/cmp.py" "$out" stk-lin exact "$out/lin.iolog" $C $D $E
ktap_check "stk-lin: every fio request is one record at its offset and length (over $A and $B)" test $? -eq 0
spanned=$(awk -v l=stk-lin '$5 == l { print $1 }' "$out/recs.txt" | sort -u | wc -l)
ktap_check "stk-lin: its records are on both disks ($spanned)" test "$spanned" -eq 2
python3 "$out/cmp.py" "$out" stk-crypt bytes "$out/crypt.iolog" $A $B $D $E
ktap_check "stk-crypt: fio's bytes per op, every record inside a request" test $? -eq 0
python3 "$out/cmp.py" "$out" md0 raid1 "$out/md.iolog" $A $B $C
ktap_check "md0: a read once, a write once on each mirror, at the md offset" test $? -eq 0
# stats --stack: a device's table counts what maps to it: stk-lin fio's
# requests by op, md0 a read once and a write once on each mirror
"$IOTRACECTL" stats --stack -o json "$out/stk.trace" > "$out/stats.json" 2> /dev/null
python3 - "$out/stats.json" "$out/lin.iolog" "$out/md.iolog" > "$out/stats.cmp" 2>&1 <<'EOF'
import collections, json, sys
got = {d["logical"]: {op: v["count"] for op, v in d["ops"].items()}
       for d in json.load(open(sys.argv[1])) if "logical" in d}
def fio(path, wmul):
    n = collections.Counter()
    for line in open(path):
        f = line.split()
        for op in ("read", "write"):
            if op in f[1:3]:
                n[op] += wmul if op == "write" else 1
    return dict(n)
print("# stats --stack: stk-lin %s md0 %s" % (got.get("stk-lin"), got.get("md0")))
assert got.get("stk-lin") == fio(sys.argv[2], 1), fio(sys.argv[2], 1)
assert got.get("md0") == fio(sys.argv[3], 2), fio(sys.argv[3], 2)
EOF
rc=$?
cat "$out/stats.cmp"
ktap_check "stats --stack: stk-lin's and md0's tables count fio's requests (md0's writes twice)" \
	test $rc -eq 0

# the crypt table's offset: stk-crypt's sector S is C's sector 4096 + S
bad=$(awk -v l=stk-crypt -v c="$C" '$5 == l && ($1 != c || $3 / 512 != $6 + 4096)' "$out/recs.txt" | wc -l)
ktap_check "stk-crypt: disk sector = logical sector + the table's 4096 ($bad off)" test "$bad" -eq 0
# md: the member's data_offset
for m in $D $E; do
	off=$(cat /sys/block/md0/md/dev-$m/offset)
	bad=$(awk -v l=md0 -v m="$m" -v o="$off" '$5 == l && $1 == m && $3 / 512 != $6 + o' "$out/recs.txt" | wc -l)
	ktap_check "md0 on $m: disk sector = md sector + data_offset $off ($bad off)" test "$bad" -eq 0
done
# requests that are no fio request (md's superblock, LUKS-less crypt has
# none): none of them is given a logical device of the wrong disk
bad=$(awk -v a=$A -v b=$B -v c=$C -v d=$D -v e=$E '
	($5 == "stk-lin" && $1 != a && $1 != b) ||
	($5 == "stk-crypt" && $1 != c) ||
	($5 == "md0" && $1 != d && $1 != e)' "$out/recs.txt" | wc -l)
ktap_check "no record mapped to a device not on its disk ($bad)" test "$bad" -eq 0

# who is named: per device, the submitters' names
for l in stk-lin stk-crypt md0; do
	for op in read write; do
		log "$l $op submitters: $(awk -v l=$l -v o=$op '$5 == l && $2 == o { print $8 }' "$out/recs.txt" |
			sort | uniq -c | sort -rn | head -4 | awk '{ printf "%s x%s ", $2, $1 }')"
	done
done
fiopid_lin=$(awk -v l=stk-lin '$5 == l && $8 == "fio"' "$out/recs.txt" | wc -l)
nlin=$(awk -v l=stk-lin '$5 == l' "$out/recs.txt" | wc -l)
# show without --stack: PID is column 12
if "$IOTRACECTL" show "$out/stk.trace" 2> /dev/null | awk 'NR > 1 && $12 != "-"' | grep -q .; then
	ktap_check "stk-lin: fio submitted every one of its requests ($fiopid_lin of $nlin)" \
		test "$fiopid_lin" -eq "$nlin"
else
	ktap_skip "stk-lin: the submitter (this kernel has no block_io_start)"
fi
if [ -n "$cgid" ] && "$IOTRACECTL" show --cgroup "$cgid" "$out/stk.trace" 2> /dev/null |
	awk 'NR > 1' | grep -q .; then
	ncw=$(awk -v l=stk-crypt '$5 == l && $2 == "write"' "$out/recs.txt" | wc -l)
	"$IOTRACECTL" show --stack --cgroup "$cgid" "$out/stk.trace" 2> /dev/null |
		awk -v l=stk-crypt 'NR > 1 && $8 == l && $5 ~ /^write/' > "$out/cgw.txt"
	ncg=$(wc -l < "$out/cgw.txt")
	kv=$(uname -r)
	kmaj=${kv%%.*}
	if [ "$kmaj" -lt 6 ] && [ "$ncg" -ne "$ncw" ]; then
		# 5.10's dm-crypt does not pass the bio's blkcg on to the
		# clones it writes
		ktap_skip "stk-crypt writes' cgroup: on $kv $((ncw - ncg)) of $ncw do not have fio's (dm-crypt does not pass it on)"
	else
		ktap_check "stk-crypt: its writes carry fio's cgroup ($ncg of $ncw)" \
			test "$ncg" -eq "$ncw" -a "$ncw" -gt 0
	fi
else
	ktap_skip "stk-crypt writes' cgroup: no cgroup recorded here"
fi

# the trace file: the tables, no key; an older reader's view unchanged
! grep -q -a "$KEY" "$out/stk.trace" &&
	python3 -c 'import sys
sys.exit(bytes.fromhex(sys.argv[2])[:16] in open(sys.argv[1], "rb").read())' \
		"$out/stk.trace" "$KEY"
ktap_check "the crypt key is not in the trace file" test $? -eq 0
grep -q -a STCK "$out/stk.trace"
ktap_check "the trace file has a stack chunk" test $? -eq 0

# a live show --stack reads the tables itself
lv=$("$IOTRACECTL" show --stack "$A" 2> /dev/null | awk '$7 == "stk-lin"' | wc -l)
ktap_check "live show --stack $A maps its records to stk-lin ($lv)" test "$lv" -gt 0

# the tables change: the file keeps those of its recording; a recording
# that starts after the device is gone maps nothing to it
before=$(awk '$8 == "stk-lin"' "$out/show.txt" | wc -l)
dmsetup remove --noudevsync stk-lin || die "dmsetup remove stk-lin failed"
lv=$("$IOTRACECTL" show --stack "$out/stk.trace" 2> /dev/null | awk '$8 == "stk-lin"' | wc -l)
ktap_check "stk-lin removed: the trace file still maps its $before records ($lv)" \
	test "$lv" -eq "$before" -a "$before" -gt 0
"$IOTRACECTL" record "$A" -o "$out/after.trace" --duration 0.3 > /dev/null 2>&1
lv=$("$IOTRACECTL" show --stack "$out/after.trace" 2> /dev/null | awk '$7 == "stk-lin"' | wc -l)
ktap_check "a file recorded after stk-lin was removed maps nothing to it ($lv)" test "$lv" -eq 0

dmsetup remove --noudevsync stk-crypt
exec 9<&-
mdadm --stop /dev/md0 > /dev/null 2>&1
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
for n in a b c d e; do
	nullb_destroy stk$n
done
rm -rf "$out"
ktap_finish
