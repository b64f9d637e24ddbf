#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the whole timerfd suite again, in a basic Linux ABI (a user-mode Linux emulator, a
# library OS): no /proc, and every system call outside an allowlist answers ENOSYS, timerfd's too.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: the basic ABI needs seccomp and a mount namespace, which qemu-user ($TEST_RUNNER) cannot give"
	exit 77
fi
if [ -n "${TEST_WRAPPER:-}" ]; then
	# It would run inside the basic ABI: valgrind cannot start without /proc/self/maps.
	echo "SKIP: the test wrapper ($TEST_WRAPPER) needs /proc, which the basic ABI hides"
	exit 77
fi
# The suite built with minicheck (Makefile.am): Check's timeouts take timer_create(), which the
# basic ABI refuses.
suite=${MINICHECK_SUITE:-tests/timerfd-test-minicheck}
# No server may be left, as in the emulated run.
# shellcheck source=tests/servers-left.sh
. "${top_srcdir:-.}/tests/servers-left.sh"
run_marked "$top_builddir/tests/enosys-launcher" --basic-abi "$top_builddir/$suite"
