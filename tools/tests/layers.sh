#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The layering of the tools, from the symbols each object file defines and
# uses (nm) and the headers each source includes:
#   lib/                 the library, libiotrace
#   iotracectl/util/     what the commands share: the output layer, sources,
#                        filters, statistics, the recorder, the control
#                        client (netlink.c)
#   iotracectl/*.c       one command each (show.c, diff.c, ...); a folder
#                        (export/, service/, exporter/) is one command too
#   iotracectl/main.c    the dispatch table, above them all
# Checked:
#   1. no object of the library uses a symbol an object of iotracectl
#      defines (each such use is listed);
#   2. no source of the library includes a header of iotracectl;
#   3. no object of util/ uses a symbol of a command or of main.c;
#   4. no command uses a symbol of another command or of main.c;
#   5. no source of util/ or of a command includes a header of a command
#      (its own folder's aside).
# The commands whose objects use each other inside one folder are listed
# as information.
# Prints KTAP.
#   tests/layers.sh [OBJDIR]   (default build/obj: make's normal objects)
#   tests/layers.sh --selftest [OBJDIR]   each of checks 3 to 5 must fail on
#                  a copy of OBJDIR and the sources with one breach put in
# LAYERS_SRC: the sources of iotracectl (default iotracectl; the self-test's
# copy).
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.." || exit 1
if [ "${1:-}" = --selftest ]; then
	OBJ=${2:-build/obj}
	S=$(mktemp -d /tmp/iotrace-layers-st.XXXXXX) || exit 1
	trap 'rm -rf "$S"' EXIT
	N=0 FAILS=0
	echo "KTAP version 1"
	# breach CHECK NAME: tests/layers.sh on the copy must say "not ok
	# CHECK" and name the breach
	breach() {
		N=$((N + 1))
		if ! LAYERS_SRC=$S/src "$self" "$S/obj" > "$S/out" 2>&1 &&
		   grep -q "^not ok $1 " "$S/out" && grep -q "^# .*$3" "$S/out"; then
			echo "ok $N layers_check_$1_finds_$2"
		else
			echo "not ok $N layers_check_$1_finds_$2"
			sed 's/^/# /' "$S/out"
			FAILS=$((FAILS + 1))
		fi
	}
	fresh() {
		rm -rf "$S/obj" "$S/src"
		cp -r "$OBJ" "$S/obj" && cp -r iotracectl "$S/src"
	}
	fresh
	echo 'int cmd_show(void); int zz_up(void) { return cmd_show(); }' |
		${CC:-cc} -x c -c -o "$S/obj/iotracectl/util/zz.o" -
	breach 3 util_using_a_command "zz.o uses cmd_show of iotracectl/show.o"
	fresh
	echo 'int export_fio(void); int zz_side(void) { return export_fio(); }' |
		${CC:-cc} -x c -c -o "$S/obj/iotracectl/zz.o" -
	breach 4 a_command_using_another "zz.o uses export_fio of iotracectl/export/export.o"
	fresh
	echo '#include "watch.h"' >> "$S/src/diff.c"
	breach 5 a_command_header_included "diff.c includes iotracectl/service/watch.h"
	echo "1..$N"
	[ "$FAILS" = 0 ]
	exit
fi
OBJ=${1:-build/obj}
SRC=${LAYERS_SRC:-iotracectl}
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
if ! ls "$OBJ"/lib/*.o "$OBJ"/iotracectl/main.o "$OBJ"/iotracectl/util/*.o \
	> /dev/null 2>&1; then
	echo "# no objects in $OBJ/lib and $OBJ/iotracectl: make builds them"
	result 1 "lib references no command symbol"
	result 1 "lib includes no command header"
	result 1 "util references no command symbol"
	result 1 "a command references no other command's symbol"
	result 1 "util and commands include no other command's header"
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
find "$OBJ"/iotracectl -name '*.o' | sort > "$T/cmd.o"
syms def "$OBJ"/lib/*.o > "$T/lib.def"
syms use "$OBJ"/lib/*.o > "$T/lib.use"
# shellcheck disable=SC2046
syms def $(cat "$T/cmd.o") > "$T/cmd.def"
# shellcheck disable=SC2046
syms use $(cat "$T/cmd.o") > "$T/cmd.use"
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
find "$SRC" -name '*.h' | while IFS= read -r h; do
	name=${h##*/}
	[ -e "lib/$name" ] && continue
	re=$(printf '%s' "$name" | sed 's/\./\\./g')
	grep -nE "^$S#$S(include)$S[\"<]([^\">]*/)?$re[\">]" \
		lib/*.c lib/*.h >> "$T/why"
done
[ ! -s "$T/why" ]
result $? "lib includes no command header" "$T/why"

# the unit of an object of iotracectl: util, main, a folder's name, or the
# command its file is (iotracectl/show.o: show)
unit_of='function unit(o) {
	sub(/^iotracectl\//, "", o)
	if (o ~ /\//) { sub(/\/.*/, "", o); return o }
	sub(/\.o$/, "", o)
	return o
}'
# "USER-UNIT USER SYMBOL DEFINER-UNIT DEFINER" for every use of a symbol
# another object of iotracectl defines
awk "$unit_of"'
     FNR == NR { def[$2] = $1; next }
     $2 in def && def[$2] != $1 {
	print unit($1), $1, $2, unit(def[$2]), def[$2]
     }' "$T/cmd.def" "$T/cmd.use" | sort > "$T/uses"

# 3. util uses nothing above it
awk '$1 == "util" && $4 != "util" { print $2 " uses " $3 " of " $5 }' \
	"$T/uses" > "$T/why"
[ ! -s "$T/why" ]
result $? "util references no command symbol" "$T/why"

# 4. a command uses the library and util, and its own folder
awk '$1 != "util" && $1 != "main" && $4 != "util" && $4 != $1 {
	print $2 " uses " $3 " of " $5 }' "$T/uses" > "$T/why"
[ ! -s "$T/why" ]
result $? "a command references no other command's symbol" "$T/why"

# 5. the headers util and the commands include: util's, the library's,
# their own folder's
: > "$T/why"
find "$SRC" -name '*.[ch]' ! -path "$SRC/main.c" | while IFS= read -r f; do
	rel=${f#"$SRC"/}
	case $rel in */*) own=${rel%%/*} ;; *) own=${rel%.[ch]} ;; esac
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		name=${h##*/}
		at=$(find "$SRC" -name "$name" | head -n 1)
		[ -n "$at" ] || continue	# the library's or uapi's
		hrel=${at#"$SRC"/}
		case $hrel in */*) hunit=${hrel%%/*} ;; *) hunit=${hrel%.h} ;; esac
		[ "$hunit" = util ] || [ "$hunit" = "$own" ] ||
			echo "iotracectl/$rel includes iotracectl/$hrel" >> "$T/why"
	done
done
[ ! -s "$T/why" ]
result $? "util and commands include no other command's header" "$T/why"

# the objects of one folder that use each other, directly or through others:
# each group of them (a strongly connected component of "uses a symbol
# of"), with its uses inside it
awk '$1 == $4 && $1 != "util" { print $2, $5 }' "$T/uses" | sort -u > "$T/edges"
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
		printf "# objects of one command in a cycle:%s\n", grp
		for (x = 1; x in e; x++) {
			split(e[x], f, " ")
			if ((id[f[1]] in in_grp) && (id[f[2]] in in_grp) &&
			    in_grp[id[f[1]]] == i && in_grp[id[f[2]]] == i)
				printf "#   %s -> %s\n", f[1], f[2]
		}
		cycles++
	}
	printf "# %d groups of objects in a cycle\n", cycles
}' "$T/edges"

echo "1..$N"
[ "$FAILS" = 0 ]
