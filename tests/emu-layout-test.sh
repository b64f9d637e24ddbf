#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the files of src/emu call one another without a circle (src/emu/DESIGN.md,
# "Layout"): from each object's defined and undefined __tfd_ symbols, tsort(1) finds no loop.
set -eu
: "${top_builddir:=.}"
: "${NM:=nm}"
dir=$top_builddir/src/emu
# libtool keeps the non-PIC objects beside the sources and the PIC ones in .libs.
# Per-target copies (a test's own build of a file: TARGET-file.o) are left out.
objs=$(ls "$dir"/*.o 2>/dev/null || ls "$dir"/.libs/*.o 2>/dev/null || true)
# shellcheck disable=SC2086 # one object a word
objs=$(printf '%s\n' $objs | grep -v -- '-[^/]*\.o$' || true)
if [ -z "$objs" ]; then
	echo "FAIL: no objects in $dir (make builds them first)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in $objs; do
	$NM "$o" | awk -v f="$(basename "$o" .o)" 'NF == 3 && $2 ~ /^[TW]$/ && $3 ~ /^__tfd_/ { print $3, f }'
done >"$tmp/defs"
for o in $objs; do
	f=$(basename "$o" .o)
	$NM -u "$o" | awk '$NF ~ /^__tfd_/ { print $NF }' | sort -u | while read -r sym; do
		awk -v s="$sym" -v f="$f" '$1 == s && $2 != f { print f, $2; exit }' "$tmp/defs"
	done
done | sort -u >"$tmp/calls"
if ! tsort "$tmp/calls" >/dev/null 2>"$tmp/loop"; then
	echo "FAIL: files of src/emu call one another in a circle (caller callee):"
	cat "$tmp/loop"
	cat "$tmp/calls"
	exit 1
fi
echo "src/emu: $(wc -l <"$tmp/calls") caller-callee pairs of files, no circle"
