#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: <sys/timerfd.h> compiles as C++ and gives the functions C linkage.
set -eu
: "${CXX:=c++}" "${NM:=nm}" "${top_srcdir:=.}"
if ! $CXX --version >/dev/null 2>&1; then
	echo "SKIP: no C++ compiler ($CXX) to compile the header with"
	exit 77
fi
# The same target, whatever the vendor field (clang says x86_64-pc-linux-gnu, gcc x86_64-linux-gnu).
triplet() {
	"$@" -dumpmachine | sed -E 's/^([^-]+)-(pc|unknown)-/\1-/'
}
if [ "$(triplet $CXX)" != "$(triplet ${CC:-cc})" ]; then
	echo "SKIP: the C++ compiler ($CXX) does not target this build's host ($(${CC:-cc} -dumpmachine))"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/use.cc" <<'SRC'
#include <sys/timerfd.h>
#include <ctime>
int use_api(int fd)
{
	struct itimerspec its = {};
	if (timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) < 0)
		return -1;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, nullptr) < 0)
		return -1;
	return timerfd_gettime(fd, &its);
}
SRC
fail=0
for std in -std=c++11 -std=c++17 -std=gnu++20; do
	if $CXX $std -pedantic -Wall -Wextra -Werror -I"$top_srcdir/include" -c "$tmp/use.cc" -o "$tmp/use.o"; then
		echo "ok: compiles with $std"
	else
		echo "FAIL: does not compile with $std"
		fail=1
		continue
	fi
	for fn in timerfd_create timerfd_settime timerfd_gettime; do
		if $NM "$tmp/use.o" | grep -q " U $fn\$"; then
			echo "ok: $fn has C linkage ($std)"
		else
			echo "FAIL: $fn is not referenced with C linkage ($std)"
			fail=1
		fi
	done
done
exit $fail
