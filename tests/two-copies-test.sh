#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the library linked and preloaded at once: the documented limit, pinned.
set -eu
: "${top_builddir:=.}"
preload=$top_builddir/src/.libs/libtimerfd-preload.so
map=$top_builddir/src/libtimerfd-preload.map
if [ ! -e "$preload" ] || [ ! -e "$map" ]; then
	echo "SKIP: no preload build here (the C library versions no timerfd_create)"
	exit 77
fi
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: LD_PRELOAD of a target library under $TEST_RUNNER is not what this checks"
	exit 77
fi
# A sanitizer runtime's interceptors (--enable-sanitizers) forward each call, unversioned, to
# the first definition in load order: the preloaded copy. Both copies then serve one name.
if ${NM:-nm} -D "$top_builddir/tests/two-copies-test" | grep -q ' T __interceptor_timerfd_settime$'; then
	echo "SKIP: a sanitizer's interceptor sends every timerfd_settime to the preloaded copy"
	exit 77
fi
version=$(sed -n 's/^\([A-Z][A-Za-z0-9_.]*\) {$/\1/p' "$map" | head -n 1)
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
LD_PRELOAD=$preload LIBTIMERFD_BACKEND=emulation exec ${TEST_WRAPPER:-} \
	"$top_builddir/tests/two-copies-test" "$version"
