#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: libtimerfd(7)'s SYSTEM CALLS section is the one man/syscalls.sh makes from
# src/emu/syscalls.list, word for word (make update-man writes it there).
set -eu
: "${top_srcdir:=.}"
page=$top_srcdir/man/libtimerfd.7
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$top_srcdir/man/syscalls.sh" "$top_srcdir/src/emu/syscalls.list" >"$tmp/want"
sed -n '/^\.\\" Made from src\/emu\/syscalls.list/,/^\.\\" End of the part made from src\/emu\/syscalls.list/p' \
	"$page" >"$tmp/have"
if ! [ -s "$tmp/have" ]; then
	echo "FAIL: $page has no part made from src/emu/syscalls.list (make update-man)"
	exit 1
fi
if ! diff -u "$tmp/have" "$tmp/want"; then
	echo "FAIL: $page's SYSTEM CALLS differs from src/emu/syscalls.list (make update-man)"
	exit 1
fi
echo "ok: libtimerfd(7) lists the $(grep -c '^[a-z]' "$top_srcdir/src/emu/syscalls.list") calls of src/emu/syscalls.list"
