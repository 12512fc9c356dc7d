#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install: "make install DESTDIR=..." for every kernel, then "make uninstall".
# Oracles: modinfo's vermagic of the installed .ko (the kernel's own
# stamp), the C compiler on the installed uapi header alone, man(1)
# rendering the installed page, rst2man's own warnings.
# usage: selftests/pkg/install.sh [KVER...]
. "$(dirname "$0")/lib.sh"
set -u
echo "TAP version 13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/dest
prefix=/usr/local

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
rule=$d/etc/udev/rules.d/60-iotrace.rules
check "install: udev rule runs $prefix/sbin/iotracectl nvme-layout --quiet when nvme_core or iotrace loads" \
	grep -qF 'ACTION=="add", SUBSYSTEM=="module", KERNEL=="nvme_core|iotrace", RUN+="'"$prefix"'/sbin/iotracectl nvme-layout --quiet"' "$rule"
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
left=$(find "$d" -type f | sed "s|^$d||")
[ -n "$left" ] && echo "$left" | sed 's/^/# left behind: /'
check "install: make uninstall leaves no file behind" test -z "$left"
finish
