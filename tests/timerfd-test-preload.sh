#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: an unmodified program (built against the C library only, no -ltimerfd) passes the whole
# suite in a simulated kernel without timerfd once libtimerfd-preload.so is in LD_PRELOAD.
set -eu
: "${top_builddir:=.}"
preload=$(cd "$top_builddir/src/.libs" && pwd)/libtimerfd-preload.so
prog=$top_builddir/tests/timerfd-test-libc
if ${NM:-nm} -D "$prog" | grep -q 'timerfd_create@LIBTIMERFD'; then
	echo "FAIL: $prog is linked with libtimerfd; it must use the C library's functions"
	exit 1
fi
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "under $TEST_RUNNER: forcing LIBTIMERFD_BACKEND=emulation (no seccomp in qemu-user)"
	# shellcheck disable=SC2086 # TEST_RUNNER may be a command with options
	LD_PRELOAD=$preload LIBTIMERFD_BACKEND=emulation exec $TEST_RUNNER "$prog"
fi
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
LD_PRELOAD=$preload exec "$top_builddir/tests/enosys-launcher" ${TEST_WRAPPER:-} "$prog"
