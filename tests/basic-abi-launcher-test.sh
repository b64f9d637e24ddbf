#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: enosys-launcher --basic-abi gives what it says: basic-abi-launcher-test checks it from inside.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: the basic ABI needs seccomp and a mount namespace, which qemu-user ($TEST_RUNNER) cannot give"
	exit 77
fi
# No TEST_WRAPPER: valgrind cannot start without /proc, and this checks the environment, not memory.
exec "$top_builddir/tests/enosys-launcher" --basic-abi "$top_builddir/tests/basic-abi-launcher-test"
