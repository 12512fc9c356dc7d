#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The layering of the tools: the library (lib/) is below the commands
# (iotracectl/) and must not lean on them.  From the symbols each object
# file defines and uses (nm):
#   1. no object of the library uses a symbol an object of the commands
#      defines (each such use is listed);
#   2. no source of the library includes a header of the commands.
# The commands that use each other (a cycle of objects, each using a
# symbol the next defines) are listed as information, not failures.
# Prints KTAP.
#   tests/layers.sh [OBJDIR]   (default build/obj: make's normal objects)
set -u
cd "$(dirname "$0")/.." || exit 1
OBJ=${1:-build/obj}
N=0
FAILS=0

result() { # result 0|1 name [diagnostic file]
	N=$((N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $N $2"
	else
		echo "not ok $N $2"
		FAILS=$((FAILS + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3"
	fi
}

T=$(mktemp -d /tmp/iotrace-layers.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

echo "KTAP version 1"
if ! ls "$OBJ"/lib/*.o "$OBJ"/iotracectl/*.o > /dev/null 2>&1; then
	echo "# no objects in $OBJ/lib and $OBJ/iotracectl: make builds them"
	result 1 "lib references no command symbol"
	result 1 "lib includes no command header"
	echo "1..$N"
	exit 1
fi

# "OBJECT SYMBOL" lines: the global symbols each object defines (def),
# and those it uses without defining them (use)
syms() { # syms def|use OBJECT...
	what=$1
	shift
	for o in "$@"; do
		if [ "$what" = def ]; then
			nm -g --defined-only "$o"
		else
			nm -u "$o"
		fi | awk -v o="${o#"$OBJ"/}" 'NF { print o, $NF }'
	done
}
ls "$OBJ"/lib/*.o > "$T/lib.o"
ls "$OBJ"/iotracectl/*.o > "$T/cmd.o"
syms def "$OBJ"/lib/*.o > "$T/lib.def"
syms use "$OBJ"/lib/*.o > "$T/lib.use"
syms def "$OBJ"/iotracectl/*.o > "$T/cmd.def"
syms use "$OBJ"/iotracectl/*.o > "$T/cmd.use"
echo "# $(wc -l < "$T/lib.o") objects of the library," \
	"$(wc -l < "$T/cmd.o") of the commands"

# 1. uses of the library that the commands define: "USER SYMBOL DEFINER"
awk 'FNR == NR { def[$2] = $1; next }
     $2 in def { print $1, $2, def[$2] }' "$T/cmd.def" "$T/lib.use" |
	sort > "$T/up"
awk '{ print $1 " uses " $2 " of " $3 }' "$T/up" > "$T/why"
[ ! -s "$T/up" ]
result $? "lib references no command symbol" "$T/why"

# 2. the library's sources including a header of the commands (by its
# name, with or without a path)
: > "$T/why"
S='[[:space:]]*'
for h in iotracectl/*.h; do
	name=${h#iotracectl/}
	[ -e "lib/$name" ] && continue
	re=$(printf '%s' "$name" | sed 's/\./\\./g')
	grep -nE "^$S#$S(include)$S[\"<]([^\">]*/)?$re[\">]" \
		lib/*.c lib/*.h >> "$T/why"
done
[ ! -s "$T/why" ]
result $? "lib includes no command header" "$T/why"

# the commands' objects that use each other, directly or through others:
# each group of them (a strongly connected component of "uses a symbol
# of"), with its uses inside it
awk 'FNR == NR { def[$2] = $1; next }
     $2 in def && def[$2] != $1 { print $1, def[$2] }' \
	"$T/cmd.def" "$T/cmd.use" | sort -u > "$T/edges"
awk '{
	if (!($1 in id)) { id[$1] = n; name[n++] = $1 }
	if (!($2 in id)) { id[$2] = n; name[n++] = $2 }
	r[id[$1], id[$2]] = 1
	e[NR] = $1 " " $2
}
END {
	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			if ((i, k) in r)
				for (j = 0; j < n; j++)
					if ((k, j) in r)
						r[i, j] = 1
	for (i = 0; i < n; i++) {
		if (done[i] || !((i, i) in r))
			continue
		grp = ""
		for (j = 0; j < n; j++)
			if ((i, j) in r && (j, i) in r) {
				done[j] = 1
				in_grp[j] = i
				grp = grp " " name[j]
			}
		printf "# commands in a cycle:%s\n", grp
		for (x = 1; x in e; x++) {
			split(e[x], f, " ")
			if ((id[f[1]] in in_grp) && (id[f[2]] in in_grp) &&
			    in_grp[id[f[1]]] == i && in_grp[id[f[2]]] == i)
				printf "#   %s -> %s\n", f[1], f[2]
		}
		cycles++
	}
	printf "# %d groups of commands in a cycle\n", cycles
}' "$T/edges"

echo "1..$N"
[ "$FAILS" = 0 ]
