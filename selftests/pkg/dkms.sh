#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms: "dkms add/build/install" of the tree's dkms.conf for every kernel,
# in private trees (--sourcetree, --dkmstree, --installtree, --no-depmod,
# a private signing key): the machine's /usr/src, /var/lib/dkms and
# /lib/modules stay as they are.  Oracles: dkms's own status and checks,
# modinfo's vermagic of the module dkms built and of the one it installed,
# and their signer: DKMS signs with its MOK key (on Debian
# /var/lib/dkms/mok.key; here a test key made with openssl), which a
# Secure Boot machine needs (Documentation/install.rst).
# usage: selftests/pkg/dkms.sh [KVER...]
. "$(dirname "$0")/lib.sh"
set -u
echo "TAP version 13"
command -v dkms > /dev/null || { echo "# SKIP dkms is not installed"; exit 4; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(cat "$top/VERSION")
# dkms signs what it builds; with a private key made here, as DKMS itself
# makes /var/lib/dkms/mok.key on first use.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
signer="iotrace dkms test key"
if command -v openssl > /dev/null &&
   openssl req -new -x509 -nodes -days 1 -subj "/CN=$signer/" \
	-newkey rsa:2048 -keyout "$mok_signing_key" -outform DER \
	-out "$mok_certificate" > "$tmp/openssl.log" 2>&1; then
	ok "dkms: test signing key made (openssl)"
else
	sed 's/^/# | /' "$tmp/openssl.log" 2> /dev/null
	fail "dkms: test signing key made (openssl)"
fi
# signed_by FILE - the module's signer is the test key
signed_by() {
	local s
	s=$(modinfo -F signer "$1" 2> /dev/null)
	[ "$s" = "$signer" ] || { echo "# $1: signer '$s'"; return 1; }
}
mkdir -p "$tmp/dkms" "$tmp/lib"
o=(--sourcetree "$tmp/src/usr/src" --dkmstree "$tmp/dkms" --installtree "$tmp/lib")

if make -s -C "$top" install-dkms-src DESTDIR="$tmp/src" > "$tmp/src.log" 2>&1 &&
   grep -q "^PACKAGE_VERSION=\"$ver\"\$" "$tmp/src/usr/src/iotrace-$ver/dkms.conf"; then
	ok "dkms: make install-dkms-src: /usr/src/iotrace-$ver/dkms.conf at VERSION $ver"
else
	sed 's/^/# | /' "$tmp/src.log"
	fail "dkms: make install-dkms-src: /usr/src/iotrace-$ver/dkms.conf at VERSION $ver"
fi
if dkms add -m iotrace -v "$ver" "${o[@]}" > "$tmp/add.log" 2>&1; then
	ok "dkms: add iotrace/$ver"
else
	sed 's/^/# | /' "$tmp/add.log"
	fail "dkms: add iotrace/$ver"
fi

for k in $(kernels "$@"); do
	mkdir -p "$tmp/lib/$k"
	if dkms build -m iotrace -v "$ver" -k "$k" "${o[@]}" > "$tmp/build-$k.log" 2>&1; then
		ok "dkms: build for $k"
	else
		tail -n 20 "$tmp/build-$k.log" | sed 's/^/# | /'
		find "$tmp/dkms" -name make.log -exec tail -n 20 {} \; | sed 's/^/# make.log: /'
		fail "dkms: build for $k"
		continue
	fi
	ko=$(ko_in "$tmp/dkms/iotrace/$ver/$k/$(uname -m)/module")
	check "dkms: $k: built module has vermagic $k" vermagic_is "${ko:-none}" "$k"
	check "dkms: $k: built module signed by the MOK key" signed_by "${ko:-none}"
	if dkms install --no-depmod -m iotrace -v "$ver" -k "$k" "${o[@]}" > "$tmp/install-$k.log" 2>&1; then
		ok "dkms: install for $k"
	else
		tail -n 20 "$tmp/install-$k.log" | sed 's/^/# | /'
		fail "dkms: install for $k"
		continue
	fi
	ko=$(ko_in "$tmp/lib/$k/updates/dkms")
	check "dkms: $k: installed updates/dkms/$(basename "${ko:-iotrace.ko}"), vermagic $k" \
		vermagic_is "${ko:-none}" "$k"
	check "dkms: $k: installed module signed by the MOK key" \
		signed_by "${ko:-none}"
	st=$(dkms status -m iotrace -v "$ver" -k "$k" "${o[@]}" 2> /dev/null)
	echo "# dkms status: $st"
	check "dkms: $k: dkms status says installed" eval '[[ $st == *": installed"* ]]'
done

for k in $(kernels "$@"); do
	dkms remove -m iotrace -v "$ver" -k "$k" --no-depmod "${o[@]}" > "$tmp/remove.log" 2>&1 ||
		{ sed 's/^/# | /' "$tmp/remove.log"; fail "dkms: remove for $k"; continue; }
	check "dkms: $k: remove takes the module away" eval '! ko_in "$tmp/lib/$k/updates/dkms" > /dev/null'
done
finish
