#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the shared library exports the public functions, versioned LIBTIMERFD_1 (and 1.1 for time64), and nothing else.
set -eu
: "${NM:=nm}" "${top_builddir:=.}"
lib=$(ls "$top_builddir"/src/.libs/libtimerfd.so.* 2>/dev/null | head -n 1)
if [ -z "$lib" ]; then
	echo "SKIP: no shared library was built (configured with --disable-shared)"
	exit 77
fi
actual=$($NM -D --defined-only --with-symbol-versions "$lib" | awk '{ print $NF }' | sort)
expected=$({
	printf '%s\n' LIBTIMERFD_1 timerfd_create@@LIBTIMERFD_1 \
	timerfd_gettime@@LIBTIMERFD_1 timerfd_settime@@LIBTIMERFD_1
	# ABIs whose time_t is 32-bit by default add the 64-bit time entry points.
	if [ "${TIME64_ENTRY_POINTS:-no}" = yes ]; then
		printf '%s\n' LIBTIMERFD_1.1 __timerfd_gettime64@@LIBTIMERFD_1.1 \
			__timerfd_settime64@@LIBTIMERFD_1.1
	fi
} | sort)
echo "exported by $lib:"
echo "$actual"
if [ "$actual" != "$expected" ]; then
	echo "FAIL: expected exactly:"
	echo "$expected"
	exit 1
fi
