#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: no timerfd and unshare(2) refused: the emulation refuses to start (ENOSYS) rather
# than keep descriptors in the program's table.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: the sandbox needs seccomp, which qemu-user ($TEST_RUNNER) cannot install"
	exit 77
fi
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
exec "$top_builddir/tests/enosys-launcher" --no-unshare ${TEST_WRAPPER:-} "$top_builddir/tests/no-own-table-test"
