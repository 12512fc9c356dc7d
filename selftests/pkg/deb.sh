#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb: build the .debs (make deb), lint them, install them on this machine
# with apt-get, check what DKMS built for every kernel, build and run a
# program of the installed libiotrace (lib_installed.sh, on this machine),
# boot each kernel and load the DKMS-built module there
# (pkg_installed.sh), then purge the packages and check that nothing of
# them is left.
# Needs root; the machine is left as it was found (the packages are
# purged on every exit path, DKMS's signing key is removed if this test
# made it).  Skips if any iotrace package was installed beforehand.
# Oracles: lintian, apt/dpkg, dkms status, modinfo's vermagic, ldconfig's
# cache, modprobe in the guest, /sys/block/<disk>/stat; lib_installed.sh's.
# Run the VMs one at a time: when called outside make check, hold
# /tmp/iotrace-vm.lock (flock /tmp/iotrace-vm.lock selftests/pkg/deb.sh).
# PKG_NO_GUEST=1 leaves out the guests (one SKIP line per kernel): on a
# machine where no VM may run, everything else still runs.
# usage: selftests/pkg/deb.sh [KVER...]
. "$(dirname "$0")/lib.sh"
set -u
echo "TAP version 13"
[ "$(id -u)" = 0 ] || { echo "# SKIP not root: the test installs and purges the .debs"; exit 4; }
pkgs=(iotrace-dkms iotrace-tools iotrace-dev libiotrace1 libiotrace-dev python3-iotrace)
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null)
	if [ -n "$st" ] && [ "$st" != not-installed ]; then
		echo "# SKIP $p is already on this machine ($st): not touching it"
		exit 4
	fi
done
tmp=$(mktemp -d)
ver=$(cat "$top/VERSION")
mapfile -t kvers < <(kernels "$@")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch)
mok_before=0
[ -e /var/lib/dkms/mok.key ] && mok_before=1
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y --no-install-recommends -o DPkg::Lock::Timeout=600)

purged=0
purge() {
	[ "$purged" = 1 ] && return 0
	purged=1
	apt-get purge "${apt_opts[@]}" "${pkgs[@]}" > "$tmp/purge.log" 2>&1
	local rc=$?
	if [ "$mok_before" = 0 ]; then
		rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	fi
	return $rc
}
trap 'purge; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# --- build and lint ---------------------------------------------------------
if make -C "$top" deb > "$tmp/deb.log" 2>&1; then
	ok "deb: make deb (dpkg-buildpackage -us -uc -b)"
else
	tail -n 25 "$tmp/deb.log" | sed 's/^/# | /'
	fail "deb: make deb (dpkg-buildpackage -us -uc -b)"
	finish
fi
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$top"/build/deb/"${p}"_"$ver"_*.deb 2> /dev/null | head -n1)
	[ -n "$f" ] && debs+=("$f")
done
check "deb: ${pkgs[*]} $ver built" test ${#debs[@]} = ${#pkgs[@]}
if command -v lintian > /dev/null; then
	# lintian would rather not run as root: a copy readable by nobody.
	mkdir -p "$tmp/lint"
	cp "$top"/build/deb/*.deb "$top"/build/deb/*.changes "$top"/build/deb/*.buildinfo "$tmp/lint/"
	chmod -R a+rX "$tmp"
	(cd "$tmp/lint" && runuser -u nobody -- env HOME="$tmp/lint" \
		lintian --pedantic --display-info iotrace_"$ver"_*.changes) > "$tmp/lintian.log" 2>&1
	sed 's/^/# lintian: /' "$tmp/lintian.log"
	check "deb: lintian reports no error or warning" eval '! grep -qE "^[EW]: " "$tmp/lintian.log"'
else
	skip_one "deb: lintian" "lintian is not installed"
fi
[ ${#debs[@]} = ${#pkgs[@]} ] || finish

# --- install ------------------------------------------------------------------
if apt-get install "${apt_opts[@]}" "${debs[@]}" > "$tmp/install.log" 2>&1; then
	ok "deb: apt-get install the ${#debs[@]} .debs (${pkgs[*]})"
	sed -n '/Building for\|Building initial\|Skipped\|skipped/p' "$tmp/install.log" | sed 's/^/# | /'
else
	tail -n 30 "$tmp/install.log" | sed 's/^/# | /'
	fail "deb: apt-get install the ${#debs[@]} .debs (${pkgs[*]})"
	finish
fi
for k in "${kvers[@]}"; do
	st=$(dkms status -m iotrace -v "$ver" -k "$k" 2> /dev/null)
	echo "# dkms status: $st"
	check "deb: $k: dkms status: iotrace/$ver installed" eval '[[ $st == *": installed"* ]]'
	ko=$(ko_in "/lib/modules/$k/updates/dkms")
	check "deb: $k: /lib/modules/$k/updates/dkms/$(basename "${ko:-iotrace.ko}"), vermagic $k" \
		vermagic_is "${ko:-none}" "$k"
	check "deb: $k: depmod's index knows it (modinfo -k $k iotrace)" \
		eval '[ "$(modinfo -k "$k" -n iotrace 2> /dev/null)" = "$ko" ]'
done
check "deb: /usr/sbin/iotracectl --version is VERSION" tool_version_is /usr/sbin/iotracectl
check "deb: the udev rule gives the NVMe layout when nvme_core or iotrace loads" \
	grep -qF 'KERNEL=="nvme_core|iotrace", RUN+="/usr/sbin/iotracectl nvme-layout --quiet"' \
	/usr/lib/udev/rules.d/60-iotrace.rules
check "deb: iotrace.service and iotrace-exporter.service shipped, neither enabled" \
	eval '[ -f /usr/lib/systemd/system/iotrace.service ] &&
	      [ -f /usr/lib/systemd/system/iotrace-exporter.service ] &&
	      ! ls /etc/systemd/system/*.wants/iotrace*.service > /dev/null 2>&1'
check "deb: /etc/iotrace/iotrace.conf is a conffile of iotrace-tools" \
	eval 'dpkg-query --control-show iotrace-tools conffiles | grep -qxF /etc/iotrace/iotrace.conf'
check "deb: man -w iotracectl finds the page" eval '[ "$(man -w iotracectl 2> /dev/null)" = /usr/share/man/man8/iotracectl.8.gz ]'
printf '#include <linux/iotrace.h>\nint main(void) { return 0; }\n' > "$tmp/hdr.c"
check "deb: <linux/iotrace.h> from iotrace-dev compiles alone" \
	cc -fsyntax-only -Wall -Wextra -Werror "$tmp/hdr.c"

check "deb: ldconfig's cache has libiotrace1's libiotrace.so.1" \
	eval 'ldconfig -p | grep -q "libiotrace.so.1 .*=> .*/$ma/libiotrace.so.1\$"'

# --- libiotrace: a program of pkg-config alone (lib_installed.sh) -------------
"$top"/selftests/pkg/lib_installed.sh > "$tmp/lib.log" 2>&1
rc=$?
lib_failed=0
while IFS= read -r line; do
	if [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ (.*)$ ]]; then
		if [ "${BASH_REMATCH[1]}" = ok ]; then
			ok "deb: ${BASH_REMATCH[2]}"
		else
			fail "deb: ${BASH_REMATCH[2]}"
			lib_failed=$((lib_failed + 1))
		fi
	elif [[ $line == "# "* ]] && [[ $line != "# totals:"* ]]; then
		echo "$line"
	fi
done < "$tmp/lib.log"
if [ "$rc" = 4 ]; then
	skip_one "deb: lib_installed" "$(sed -n 's/^# SKIP //p' "$tmp/lib.log" | head -n1)"
elif [ "$rc" != 0 ] && [ "$lib_failed" = 0 ]; then
	tail -n 20 "$tmp/lib.log" | sed 's/^/# | /'
	fail "deb: lib_installed (exit $rc)"
fi

# --- the DKMS-built module in each kernel -----------------------------------
for k in "${kvers[@]}"; do
	if [ "${PKG_NO_GUEST:-0}" = 1 ]; then
		skip_one "deb: $k: guest loads the DKMS-built module and records (pkg_installed)" \
			"PKG_NO_GUEST=1"
		continue
	fi
	out=$("$top"/selftests/vm/run-test --no-build --kernel "$k" \
		"$top"/selftests/pkg/pkg_installed.sh 2>&1)
	rc=$?
	echo "$out" | grep -v -E '^(not )?ok [0-9]+ ' | sed 's/^\([^#]\)/# \1/'
	why=$(echo "$out" | grep -E '^(not )?ok [0-9]+ ' | tail -n1 | sed -n 's/^[^#]*# *//p')
	case "$rc" in
	0) ok "deb: $k: guest loads the DKMS-built module and records (pkg_installed)" ;;
	*) fail "deb: $k: guest loads the DKMS-built module and records (pkg_installed)${why:+ # $why}" ;;
	esac
done

# --- purge ------------------------------------------------------------------------
if purge; then
	ok "deb: apt-get purge ${pkgs[*]}"
else
	tail -n 20 "$tmp/purge.log" | sed 's/^/# | /'
	fail "deb: apt-get purge ${pkgs[*]}"
fi
left=$( { ls -d /usr/src/iotrace-* /var/lib/dkms/iotrace /usr/sbin/iotracectl \
	/usr/include/linux/iotrace.h /usr/share/man/man8/iotracectl.8.gz \
	/usr/lib/udev/rules.d/60-iotrace.rules /usr/lib/systemd/system/iotrace.service \
	/etc/iotrace /usr/include/iotrace /usr/lib/"$ma"/libiotrace.* \
	/usr/lib/"$ma"/pkgconfig/libiotrace.pc 2> /dev/null
	for k in "${kvers[@]}"; do ko_in "/lib/modules/$k/updates/dkms"; done; } )
[ -n "$left" ] && echo "$left" | sed 's/^/# left behind: /'
check "deb: nothing of the packages is left" test -z "$left"
check "deb: ldconfig's cache forgot libiotrace.so.1" eval '! ldconfig -p | grep -q libiotrace'
for k in "${kvers[@]}"; do
	check "deb: $k: depmod's index forgot iotrace" eval '! modinfo -k "$k" -n iotrace > /dev/null 2>&1'
done
if [ "$mok_before" = 0 ]; then
	check "deb: DKMS's signing key made for the test is gone" test ! -e /var/lib/dkms/mok.key
fi
finish
