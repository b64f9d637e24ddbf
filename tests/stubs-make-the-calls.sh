#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: with an inline-asm stub the library never calls syscall(2); with the generic path it does.
set -eu
: "${CC:=cc}" "${NM:=nm}" "${top_srcdir:=.}" "${top_builddir:=.}"
stub=$(printf '#include "config.h"\n#include "syscall.h"\n' |
	$CC -I"$top_builddir" -I"$top_srcdir/src" -dM -E -x c - |
	sed -n 's/^#define TFD_SYSCALL_STUB "\(.*\)"$/\1/p')
lib=$top_builddir/src/.libs/libtimerfd.so
[ -f "$lib" ] || lib=$top_builddir/src/.libs/libtimerfd.a
if $NM -u "$lib" | grep -Eq '^ +U syscall(@|$)'; then calls=yes; else calls=no; fi
if [ -n "$stub" ]; then
	echo "stub: $stub"
	if [ $calls = yes ]; then
		echo "FAIL: $lib references syscall(2) although the $stub stub makes the calls"
		exit 1
	fi
	echo "ok: $lib makes its calls through the $stub stub, no reference to syscall(2)"
else
	echo "stub: generic"
	if [ $calls = no ]; then
		echo "FAIL: $lib uses the generic path but no syscall(2) reference was found"
		exit 1
	fi
	echo "ok: $lib makes its calls through syscall(2), as the generic path should"
fi
