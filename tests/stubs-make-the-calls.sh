#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: with an inline-asm stub the timerfd calls never go through syscall(2); with the generic path they do.
# (The emulation's helper capget uses syscall(2) on every arch: only the objects that make
# the timerfd calls are inspected.)
set -eu
: "${CC:=cc}" "${NM:=nm}" "${top_srcdir:=.}" "${top_builddir:=.}"
stub=$(printf '#include "config.h"\n#include "syscall.h"\n' |
	$CC -I"$top_builddir" -I"$top_srcdir/src" -dM -E -x c - |
	sed -n 's/^#define TFD_SYSCALL_STUB "\(.*\)"$/\1/p')
objs=
for name in timerfd_create timerfd_settime timerfd_gettime time64 timerfd_settime64 \
	timerfd_gettime64 arch/i386/vsyscall; do
	obj=$top_builddir/src/.libs/$name.o
	[ -f "$obj" ] || obj=$top_builddir/src/$name.o
	# The time64 entry points exist where time_t is 32-bit by default.
	case $name in *time64) [ -f "$obj" ] || continue ;; esac
	objs="$objs $obj"
done
lib="the timerfd entry points"
# shellcheck disable=SC2086 # a list of object files
if $NM -u $objs | grep -Eq '^ +U syscall$'; then calls=yes; else calls=no; fi
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
