#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the fuzz target over its seed corpus and every regression input, once per
# backend (kernel, emulation), with any compiler: no crash, no sanitizer report, the kernel's errno.
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}"
replay=$top_builddir/tests/fuzz/timerfd-fuzz-replay
if [ -n "${TEST_RUNNER:-}" ]; then
	# Under qemu-user the raw calls the target compares with are qemu's translation.
	echo "under $TEST_RUNNER: no comparison with raw kernel calls (FUZZ_NO_REFERENCE=1)"
	FUZZ_NO_REFERENCE=1
	export FUZZ_NO_REFERENCE
fi
for backend in kernel emulation; do
	echo "LIBTIMERFD_BACKEND=$backend"
	# shellcheck disable=SC2086 # TEST_RUNNER and TEST_WRAPPER may be commands with options
	LIBTIMERFD_BACKEND=$backend ${TEST_RUNNER:-} ${TEST_WRAPPER:-} "$replay" \
		"$top_srcdir/tests/fuzz/corpus" "$top_srcdir/tests/fuzz/regressions"
done
