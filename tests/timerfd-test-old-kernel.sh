#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the whole suite on a simulated kernel before 2.6.27, whose timerfd_create refuses flags:
# the library creates without them and applies FD_CLOEXEC and O_NONBLOCK itself.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: the simulated old kernel needs seccomp, which qemu-user ($TEST_RUNNER) cannot install"
	exit 77
fi
# The cases that cannot hold on such a kernel (FD_CLOEXEC set after the fact) know from this.
TFD_TEST_NO_CREATE_FLAGS=1
export TFD_TEST_NO_CREATE_FLAGS
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
exec "$top_builddir/tests/enosys-launcher" --no-create-flags ${TEST_WRAPPER:-} "$top_builddir/tests/timerfd-test"
