#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: programs linked with libtimerfd reference and, at run time, bind to our functions, not the C library's.
set -eu
: "${NM:=nm}" "${top_builddir:=.}"
test_prog=$top_builddir/tests/timerfd-test
example=$top_builddir/examples/periodic
fail=0
if [ ! -f "$top_builddir"/src/.libs/libtimerfd.so ]; then
	echo "SKIP: no shared library was built (configured with --disable-shared)"
	exit 77
fi

# A sanitizer runtime (--enable-sanitizers) defines interceptors for some of the calls in the
# program itself; they forward to the next definition by dlsym(RTLD_NEXT), unversioned.
intercepted() {
	$NM -D "$1" | grep -q " T __interceptor_$2\$"
}

for fn in timerfd_create timerfd_settime timerfd_gettime; do
	if $NM -D --with-symbol-versions "$test_prog" | grep -q " U $fn@LIBTIMERFD_1\$"; then
		echo "ok: $test_prog references $fn@LIBTIMERFD_1"
	elif intercepted "$test_prog" "$fn"; then
		echo "ok: $test_prog has a sanitizer's interceptor for $fn (its binding is checked below)"
	else
		echo "FAIL: $test_prog does not reference $fn@LIBTIMERFD_1"
		fail=1
	fi
done

# The dynamic linker says where each call really goes.
# shellcheck disable=SC2086 # TEST_RUNNER may be a command with options
log=$(LD_DEBUG=bindings ${TEST_RUNNER:-} "$example" 1 1 2>&1 >/dev/null)
if [ -z "$log" ]; then
	echo "SKIP: this dynamic linker does not report bindings (LD_DEBUG)"
	exit 77
fi
for fn in timerfd_create timerfd_settime; do
	line=$(printf '%s\n' "$log" | grep "symbol \`$fn'" || true)
	case $line in
	*libtimerfd.so*"[LIBTIMERFD_1]"*) echo "ok: $fn binds to libtimerfd" ;;
	*" to "*/libtimerfd.so.*) if intercepted "$example" "$fn"; then
		echo "ok: the sanitizer's interceptor of $fn forwards to libtimerfd"
	else
		echo "FAIL: $fn binds to libtimerfd without its version: $line"; fail=1
	fi ;;
	*) echo "FAIL: $fn binds elsewhere: ${line:-no binding seen}"; fail=1 ;;
	esac
done
exit $fail
