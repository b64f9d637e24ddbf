#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the timerfd syscall table picked for this build's ABI equals the installed kernel headers'.
set -eu
: "${CC:=cc}" "${top_srcdir:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abi=$($CC -dumpmachine)
# shellcheck disable=SC2086
if ! printf '#include <asm/unistd.h>\n' | $CC ${CFLAGS_ABI:-} -E -x c - >/dev/null 2>&1; then
	echo "SKIP: $CC has no kernel headers (<asm/unistd.h>) to compare with (musl-gcc has none)"
	exit 77
fi
# shellcheck disable=SC2086 # CFLAGS_ABI holds extra ABI flags (e.g. -mabi=n32) for check-cross
if $CC ${CFLAGS_ABI:-} -I"$top_srcdir/src" -c "$top_srcdir/tests/syscall-numbers-match-kernel.c" \
	-o "$tmp/match.o"; then
	echo "ok: timerfd syscall numbers match <asm/unistd.h> for $abi ${CFLAGS_ABI:-}"
else
	echo "FAIL: timerfd syscall numbers differ from <asm/unistd.h> for $abi ${CFLAGS_ABI:-}"
	exit 1
fi
