#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the whole timerfd suite again, in a simulated kernel without timerfd, so the emulation serves it.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	# Under an emulator the launcher could not exec the suite (no binfmt) nor install
	# seccomp (qemu-user refuses it): force the emulation by its environment variable.
	echo "under $TEST_RUNNER: forcing LIBTIMERFD_BACKEND=emulation (no seccomp in qemu-user)"
	# shellcheck disable=SC2086 # TEST_RUNNER may be a command with options
	LIBTIMERFD_BACKEND=emulation exec $TEST_RUNNER "$top_builddir/tests/timerfd-test"
fi
# shellcheck source=tests/servers-left.sh
. "${top_srcdir:-.}/tests/servers-left.sh"
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
run_marked "$top_builddir/tests/enosys-launcher" ${TEST_WRAPPER:-} "$top_builddir/tests/timerfd-test"
