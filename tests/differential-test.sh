#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: runs tests/differential-test (the kernel and the emulation side by side) where the
# kernel side is a real kernel.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	# Under qemu-user the "kernel" side is qemu's own translation of the timerfd calls,
	# which differs from the kernel on bad input (ENOSYS where the kernel says EINVAL).
	echo "SKIP: under $TEST_RUNNER the reference would be qemu-user's syscall translation, not a kernel"
	exit 77
fi
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
exec ${TEST_WRAPPER:-} "$top_builddir/tests/differential-test"
