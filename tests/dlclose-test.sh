#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: dlopen, arm, dlclose: the process goes on, with the kernel and with the emulation.
set -eu
: "${top_builddir:=.}"
lib=$top_builddir/src/.libs/libtimerfd.so
if [ ! -e "$lib" ]; then
	echo "SKIP: no shared library built ($lib)"
	exit 77
fi
for backend in kernel emulation; do
	echo "LIBTIMERFD_BACKEND=$backend"
	# shellcheck disable=SC2086 # TEST_RUNNER and TEST_WRAPPER may be commands with options
	LIBTIMERFD_BACKEND=$backend ${TEST_RUNNER:-} ${TEST_WRAPPER:-} "$top_builddir/tests/dlclose-test" "$lib"
done
