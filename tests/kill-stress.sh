#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: runs tests/kill-stress on both backends, the kernel's first (the control), for
# KILL_STRESS_SECONDS each (default 3; CI runs 30): the emulation's server killed in a loop.
set -eu
: "${top_builddir:=.}"
seconds=${KILL_STRESS_SECONDS:-3}
case ${TEST_WRAPPER:-} in *valgrind*)
	# valgrind implements no clone that shares a table without the memory (CLONE_FILES).
	echo "SKIP: under valgrind the twin cannot share the server's table; make check runs it"
	exit 77
	;;
esac
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
LIBTIMERFD_BACKEND=kernel ${TEST_WRAPPER:-} ${TEST_RUNNER:-} "$top_builddir/tests/kill-stress" "$seconds"
if [ -n "${TEST_RUNNER:-}" ]; then
	# qemu-user refuses CLONE_FILES: a twin there holds no write end, and reads see
	# end-of-file between a kill and the takeover (libtimerfd(7)), which this test fails.
	echo "SKIP: under $TEST_RUNNER the twin cannot share the server's table (CLONE_FILES); make check on a native kernel runs it"
	exit 77
fi
# shellcheck disable=SC2086
exec "$top_builddir/tests/enosys-launcher" ${TEST_WRAPPER:-} "$top_builddir/tests/kill-stress" "$seconds"
