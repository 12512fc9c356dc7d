# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh - where the kernels of the matrix (selftests/kernels) are.
# Sourced by check, run-test, build-module, mkinitramfs, fetch-kernel.
#
# A kernel is named by its release (uname -r, e.g. 7.3.4+deb13-amd64).
# "host" kernels are Debian 12 packages installed on this machine:
# /boot/vmlinuz-REL, /lib/modules/REL (with build/ for kbuild).  Fetched
# kernels live in build/kernels/SERIES/ (selftests/vm/fetch-kernel):
#   chroot/      a build chroot of their Debian release, with the headers
#                and compiler (/usr/src/linux-headers-REL)
#   root/        the image and modules packages extracted (and depmod run):
#                root/boot/vmlinuz-REL or root/usr/lib/modules/REL/vmlinuz,
#                root/lib/modules/REL
#   release      REL
# and build/kernels/by-release/REL links to that directory.

kern_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kern_matrix=$kern_top/selftests/kernels
kern_store=$kern_top/build/kernels

# kern_matrix_lines - the matrix's kernel lines: SERIES SUITES IMAGE HEADERS TIER
kern_matrix_lines() {
	grep -E '^[0-9]' "$kern_matrix" | tr '\t' ' ' | tr -s ' '
}

# kern_core_tests - the guest tests of the "core" tier (no .sh)
kern_core_tests() {
	sed -n 's/^core-tests:[[:space:]]*//p' "$kern_matrix" | tr -s ' \t' '\n\n' |
		sed '/^$/d; s/\.sh$//'
}

# kern_host_release SERIES IMAGE-PACKAGE - the release of a host kernel
# from its installed meta package (empty if not installed).  A series
# named VERSION-FLAVOUR (6.12-rt) is VERSION's kernel of that flavour: its
# release has "-FLAVOUR-" in it (6.12.117+deb12-rt-amd64); a series of
# a bare version takes no flavoured release.
kern_host_release() {
	local series=$1 pkg=$2 dep ver=${1%%-*} flavour=
	[ "$ver" = "$1" ] || flavour=${1#*-}
	dep=$(dpkg-query -W -f='${Depends}' "$pkg" 2> /dev/null |
	      tr ',' '\n' | sed -n 's/^ *linux-image-\([^ ]*\).*/\1/p' | head -n1)
	# A meta package may point at a newer series than the matrix's line.
	case "$dep" in "$ver".* | "$ver"-* | "$ver"+*) ;; *) return 0 ;; esac
	if [ -n "$flavour" ]; then
		case "$dep" in *-"$flavour"-*) echo "$dep" ;; esac
	else
		[ "$(kern_flavour "$dep")" = "" ] && echo "$dep"
	fi
	return 0
}

# kern_flavour REL - the flavour of a release: "rt" for a PREEMPT_RT
# kernel (6.12.117+deb12-rt-amd64), empty for the standard one.
kern_flavour() {
	case "$1" in *-rt-*) echo rt ;; esac
}

# kern_release SERIES - the release of a matrix kernel, or nothing when it
# is not there (not installed, not fetched yet).
kern_release() {
	local s su img hdr tier
	while read -r s su img hdr tier; do
		[ "$s" = "$1" ] || continue
		if [ "$su" = host ]; then
			kern_host_release "$s" "$img"
		elif [ -s "$kern_store/$s/release" ]; then
			cat "$kern_store/$s/release"
		fi
		return 0
	done < <(kern_matrix_lines)
}

# kern_series REL - the series (first column of selftests/kernels) whose
# kernel REL is, or nothing
kern_series() {
	local s su img hdr tier
	while read -r s su img hdr tier; do
		[ "$(kern_release "$s")" = "$1" ] && { echo "$s"; return 0; }
	done < <(kern_matrix_lines)
	return 0
}

# kern_wanted REL [PATTERN...] - true when no PATTERN is given or one names
# REL: make check's and make bench's KERNELS.  A PATTERN that is a series
# of the matrix names that series' kernel only ("6.12" the standard
# 6.12.117+deb12-amd64, "6.12-rt" 6.12.117+deb12-rt-amd64); any other
# names the release itself or the releases it is a prefix of, ending
# before a ".", "-" or "+" ("6.1" names 6.1.0-56-amd64, not 6.12.x;
# "6.12.117" both 6.12 kernels).
kern_wanted() {
	local rel=$1 p s
	shift
	[ $# -eq 0 ] && return 0
	for p in "$@"; do
		[ "$p" = "$rel" ] && return 0
		if kern_matrix_lines | cut -d' ' -f1 | grep -qxF -- "$p"; then
			[ -n "${s+x}" ] || s=$(kern_series "$rel")
			[ "$p" = "$s" ] && return 0
			continue
		fi
		case "$rel" in "$p".* | "$p"-* | "$p"+*) return 0 ;; esac
	done
	return 1
}

# kern_tier REL - core or full (the tier of the matrix line of REL)
kern_tier() {
	local s su img hdr tier
	while read -r s su img hdr tier; do
		[ "$(kern_release "$s")" = "$1" ] && { echo "$tier"; return 0; }
	done < <(kern_matrix_lines)
	echo full
}

# kern_is_host REL - true for a kernel installed on this machine
kern_is_host() {
	[ -e "/boot/vmlinuz-$1" ] && [ -d "/lib/modules/$1/build" ]
}

# kern_fetched_dir REL - build/kernels/SERIES of a fetched kernel
kern_fetched_dir() {
	local d=$kern_store/by-release/$1
	[ -d "$d" ] && (cd "$d" && pwd -P)
}

# kern_image REL - the kernel image to boot
kern_image() {
	local d
	if [ -e "/boot/vmlinuz-$1" ]; then
		echo "/boot/vmlinuz-$1"
		return 0
	fi
	d=$(kern_fetched_dir "$1") || return 1
	for f in "$d/root/boot/vmlinuz-$1" "$d/root/usr/lib/modules/$1/vmlinuz"; do
		[ -e "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# kern_modroot REL - the directory whose lib/modules/REL has the modules:
# "/" for a host kernel
kern_modroot() {
	local d
	if [ -d "/lib/modules/$1/kernel" ]; then
		echo /
		return 0
	fi
	d=$(kern_fetched_dir "$1") || return 1
	echo "$d/root"
}

# kern_chroot REL - the build chroot of a fetched kernel (empty for a host
# one, and for a debug kernel: built here, with the host's compiler)
kern_chroot() {
	kern_is_host "$1" && return 0
	local d
	d=$(kern_fetched_dir "$1") || return 1
	[ -d "$d/obj" ] && [ ! -d "$d/chroot" ] && return 0
	echo "$d/chroot"
}

# kern_kbuild REL - the kbuild directory for out-of-tree modules of a
# kernel built with the host's compiler: /lib/modules/REL/build of a host
# kernel, the build tree (obj/) of a debug kernel
kern_kbuild() {
	local d
	if [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
		return 0
	fi
	d=$(kern_fetched_dir "$1") || return 1
	[ -d "$d/obj" ] || return 1
	echo "$d/obj"
}

# kern_debug REL - "kasan" or "kcsan" for a debug kernel built here by
# selftests/vm/debug-kernel (make check-debug), nothing otherwise
kern_debug() {
	local d
	d=$(kern_fetched_dir "$1") || return 0
	case "$(basename "$d")" in
	debug-*-*) d=$(basename "$d"); d=${d#debug-}; echo "${d%%-*}" ;;
	esac
}

# kern_list [all|host] - releases of the matrix that are there, oldest first
kern_list() {
	local which=${1:-all} s su img hdr tier r
	while read -r s su img hdr tier; do
		[ "$which" = host ] && [ "$su" != host ] && continue
		r=$(kern_release "$s")
		[ -n "$r" ] && kern_image "$r" > /dev/null && echo "$r"
	done < <(kern_matrix_lines)
}

# kern_newest - the newest release there is (the last line's, if there),
# of the standard flavour (not PREEMPT_RT)
kern_newest() {
	local r
	for r in $(kern_list); do
		[ -z "$(kern_flavour "$r")" ] && echo "$r"
	done | tail -n 1
}
