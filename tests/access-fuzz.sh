#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: runs tests/access-fuzz on both backends, the kernel's first (the control), for
# ACCESS_FUZZ_SECONDS each (default 5; CI runs 60).  Each run makes its timers with $TMPDIR
# at a new place under $TMPDIR (or /tmp), beside decoys, and fails if the library touched a
# decoy or left anything there once its servers ended (on the kernel it makes nothing).
set -eu
: "${top_builddir:=.}"
seconds=${ACCESS_FUZZ_SECONDS:-5}
if [ -n "${TEST_RUNNER:-}" ]; then
	# qemu-user ignores madvise(): fork hands the attacker the family's memory there.
	echo "SKIP: under $TEST_RUNNER fork() hands a child everything (madvise ignored); make check on a native kernel runs it"
	exit 77
fi
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
LIBTIMERFD_BACKEND=kernel ${TEST_WRAPPER:-} "$top_builddir/tests/access-fuzz" "$seconds"
# shellcheck disable=SC2086
exec "$top_builddir/tests/enosys-launcher" ${TEST_WRAPPER:-} "$top_builddir/tests/access-fuzz" "$seconds"
