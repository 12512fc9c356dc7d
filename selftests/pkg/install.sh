#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install: "make install DESTDIR=..." for every kernel, then "make uninstall".
# Oracles: modinfo's vermagic of the installed .ko (the kernel's own
# stamp), the C compiler on the installed uapi and libiotrace headers
# alone, objdump's SONAME of the installed library, man(1) rendering the
# installed page, rst2man's own warnings.
# usage: selftests/pkg/install.sh [KVER...]
. "$(dirname "$0")/lib.sh"
set -u
echo "TAP version 13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/dest
prefix=/usr/local

# soname_of LIB - the SONAME of a shared library
soname_of() {
	objdump -p "$1" 2> /dev/null | awk '$1 == "SONAME" { print $2 }'
}
# pc_is PCFILE LIBDIR INCLUDEDIR - the pkg-config file names them and VERSION
pc_is() {
	[ -f "$1" ] || { echo "# no $1"; return 1; }
	grep -qx "libdir=$2" "$1" && grep -qx "includedir=$3" "$1" &&
		grep -qx "Version: $(cat "$top/VERSION")" "$1" && return 0
	sed 's/^/# libiotrace.pc: /' "$1"
	return 1
}

for k in $(kernels "$@"); do
	log=$tmp/install-$k.log
	if ! make -C "$top" install KVER="$k" DESTDIR="$d" > "$log" 2>&1; then
		tail -n 15 "$log" | sed 's/^/# | /'
		fail "install: make install KVER=$k"
		continue
	fi
	ok "install: make install KVER=$k"
	ko=$d/lib/modules/$k/extra/iotrace.ko
	check "install: $k: /lib/modules/$k/extra/iotrace.ko, vermagic $k" vermagic_is "$ko" "$k"
	# DESTDIR set: depmod must not have run (no modules.dep written).
	check "install: $k: no depmod under DESTDIR" test ! -e "$d/lib/modules/$k/modules.dep"
done

check "install: $prefix/sbin/iotracectl --version is VERSION" \
	tool_version_is "$d$prefix/sbin/iotracectl"
h=$d$prefix/include/linux/iotrace.h
cat > "$tmp/hdr.c" <<'EOC'
#include <linux/iotrace.h>
int main(void) { return 0; }
EOC
check "install: $prefix/include/linux/iotrace.h compiles alone (cc -fsyntax-only -Wall -Werror)" \
	cc -fsyntax-only -Wall -Wextra -Werror -I"$d$prefix/include" "$tmp/hdr.c"
# libiotrace (make install-lib): the shared library, its link, the static
# one, the header and the pkg-config file naming where they are
lib=$d$prefix/lib
check "install: $prefix/lib/libiotrace.so.1 (soname libiotrace.so.1), libiotrace.so -> it, libiotrace.a" \
	eval '[ "$(soname_of "$lib/libiotrace.so.1")" = libiotrace.so.1 ] &&
	      [ "$(readlink "$lib/libiotrace.so")" = libiotrace.so.1 ] && [ -f "$lib/libiotrace.a" ]'
check "install: $prefix/include/iotrace/libiotrace.h compiles alone (cc -fsyntax-only -Wall -Werror)" \
	eval 'echo "#include <iotrace/libiotrace.h>" |
	      cc -fsyntax-only -Wall -Wextra -Werror -I"$d$prefix/include" -x c -'
check "install: $prefix/lib/pkgconfig/libiotrace.pc: libdir, includedir, version" \
	pc_is "$lib/pkgconfig/libiotrace.pc" "$prefix/lib" "$prefix/include"
# the Debian packages' layout: PREFIX=/usr, a multiarch LIBDIR
ma=$(gcc -print-multiarch 2> /dev/null)
ma=${ma:-x86_64-linux-gnu}
m=$tmp/multiarch
mvars=(DESTDIR="$m" PREFIX=/usr LIBDIR=/usr/lib/"$ma")
if make -C "$top" -s install-lib "${mvars[@]}" > "$tmp/lib.log" 2>&1; then
	check "install: make install-lib PREFIX=/usr LIBDIR=/usr/lib/$ma: the library, its .pc in LIBDIR/pkgconfig, the header, libiotrace(3)" \
		eval '[ -f "$m/usr/lib/$ma/libiotrace.so.1" ] && [ -L "$m/usr/lib/$ma/libiotrace.so" ] &&
		      [ -f "$m/usr/lib/$ma/libiotrace.a" ] && [ -f "$m/usr/include/iotrace/libiotrace.h" ] &&
		      [ -f "$m/usr/share/man/man3/libiotrace.3" ] &&
		      pc_is "$m/usr/lib/$ma/pkgconfig/libiotrace.pc" "/usr/lib/$ma" /usr/include'
	if MANWIDTH=80 man -l "$m/usr/share/man/man3/libiotrace.3" > "$tmp/man3.txt" 2> "$tmp/man3.err" &&
	   grep -q '^NAME' "$tmp/man3.txt" && grep -q 'libiotrace - ' "$tmp/man3.txt" &&
	   grep -q '^SYNOPSIS' "$tmp/man3.txt" && grep -q 'iotrace_source_open' "$tmp/man3.txt" &&
	   [ ! -s "$tmp/man3.err" ]; then
		ok "install: man -l renders libiotrace(3) ($(wc -l < "$tmp/man3.txt") lines)"
	else
		sed 's/^/# man: /' "$tmp/man3.err" | head -5
		fail "install: man -l renders libiotrace(3)"
	fi
	make -C "$top" -s uninstall-lib "${mvars[@]}" > "$tmp/lib.log" 2>&1 &&
		left=$(find "$m" ! -type d) && [ -z "$left" ]
	check "install: make uninstall-lib (the same variables) removes them" test $? = 0
else
	sed 's/^/# | /' "$tmp/lib.log" | tail -n 15
	fail "install: make install-lib PREFIX=/usr LIBDIR=/usr/lib/$ma"
fi
rule=$d/etc/udev/rules.d/60-iotrace.rules
check "install: udev rule runs $prefix/sbin/iotracectl nvme-layout --quiet when nvme_core or iotrace loads" \
	grep -qF 'ACTION=="add", SUBSYSTEM=="module", KERNEL=="nvme_core|iotrace", RUN+="'"$prefix"'/sbin/iotracectl nvme-layout --quiet"' "$rule"
check "install: udev rule runs $prefix/sbin/iotracectl identify --quiet when a disk, an NVMe controller or iotrace comes" \
	eval 'grep -qF "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", RUN+=\"$prefix/sbin/iotracectl identify --quiet %k\"" "$rule" &&
	      grep -qF "ACTION==\"add\", SUBSYSTEM==\"nvme\", RUN+=\"$prefix/sbin/iotracectl identify --quiet %k\"" "$rule" &&
	      grep -qF "ACTION==\"add\", SUBSYSTEM==\"module\", KERNEL==\"iotrace\", RUN+=\"$prefix/sbin/iotracectl identify --quiet\"" "$rule"'
unit=$d/etc/systemd/system/iotrace.service
check "install: iotrace.service loads the module and runs $prefix/sbin/iotracectl watch" \
	eval 'grep -qx "ExecStartPre=+/sbin/modprobe iotrace" "$unit" &&
	      grep -qx "ExecStart=$prefix/sbin/iotracectl watch --config /etc/iotrace/iotrace.conf" "$unit"'
check "install: /etc/iotrace/iotrace.conf, every line a comment" \
	eval '[ -s "$d/etc/iotrace/iotrace.conf" ] && ! grep -qv "^#" "$d/etc/iotrace/iotrace.conf"'
man8=$d$prefix/share/man/man8/iotracectl.8
rst2man --halt=warning "$top/Documentation/iotracectl.rst" "$tmp/check.8" > "$tmp/rst2man.log" 2>&1
rc=$?
sed 's/^/# rst2man: /' "$tmp/rst2man.log"
check "install: Documentation/iotracectl.rst converts without warnings" test "$rc" = 0
rst2man --halt=warning "$top/Documentation/libiotrace.rst" "$tmp/check.3" > "$tmp/rst2man.log" 2>&1
rc=$?
sed 's/^/# rst2man: /' "$tmp/rst2man.log"
check "install: Documentation/libiotrace.rst converts without warnings" test "$rc" = 0
if MANWIDTH=80 man -l "$man8" > "$tmp/man.txt" 2> "$tmp/man.err" &&
   grep -q '^NAME' "$tmp/man.txt" && grep -q 'iotracectl - ' "$tmp/man.txt" &&
   grep -q '^SYNOPSIS' "$tmp/man.txt" && [ ! -s "$tmp/man.err" ]; then
	ok "install: man -l renders iotracectl(8) ($(wc -l < "$tmp/man.txt") lines)"
else
	sed 's/^/# man: /' "$tmp/man.err" | head -5
	fail "install: man -l renders iotracectl(8)"
fi

for k in $(kernels "$@"); do
	make -C "$top" -s uninstall KVER="$k" DESTDIR="$d" > "$tmp/uninstall.log" 2>&1 ||
		{ sed 's/^/# | /' "$tmp/uninstall.log"; fail "install: make uninstall KVER=$k"; }
done
left=$(find "$d" ! -type d | sed "s|^$d||")
[ -n "$left" ] && echo "$left" | sed 's/^/# left behind: /'
check "install: make uninstall leaves no file behind" test -z "$left"
finish
