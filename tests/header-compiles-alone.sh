#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: <sys/timerfd.h> compiles first and alone in each C standard, and beside <time.h>, <fcntl.h>, <poll.h>.
set -eu
: "${CC:=cc}" "${top_srcdir:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Uses every name the header provides, so a missing one is an error.
cat > "$tmp/uses.h" <<'SRC'
int use_api(int fd);
int use_api(int fd)
{
	struct itimerspec its = { { 0, 0 }, { 1, 0 } }, old;
	clockid_t clock = 1; /* CLOCK_MONOTONIC, a name strict ISO C <time.h> hides */
	int flags = TFD_CLOEXEC | TFD_NONBLOCK;
	unsigned long ioc = TFD_IOC_SET_TICKS;

	(void)ioc;
	if (timerfd_create(clock, flags) < 0)
		return -1;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, &old) < 0)
		return -1;
	return timerfd_gettime(fd, &old);
}
#ifndef _SYS_TIMERFD_H
#error "the include guard must be the C library's own"
#endif
SRC

printf '#include <sys/timerfd.h>\n#include "uses.h"\n' > "$tmp/alone.c"
# What the C library's own header offers in every mode it can be used in.
cat > "$tmp/libc.c" <<'SRC'
#include <sys/timerfd.h>
int use_libc(void);
int use_libc(void)
{
	struct itimerspec its = { { 0, 0 }, { 1, 0 } };

	return timerfd_settime(0, 0, &its, 0);
}
SRC
printf '#include <sys/timerfd.h>\n#include <time.h>\n#include <fcntl.h>\n#include <poll.h>\n#include "uses.h"\n' > "$tmp/first.c"
printf '#include <time.h>\n#include <fcntl.h>\n#include <poll.h>\n#include <sys/timerfd.h>\n#include "uses.h"\n' > "$tmp/last.c"

fail=0
for std in "-std=c99 -pedantic" "-std=c11 -pedantic" "-std=gnu17" "-std=gnu99 -D_GNU_SOURCE"; do
	# A drop-in for the C library's header: a mode where the C library's own <sys/timerfd.h>
	# cannot be used either (musl hides clockid_t and struct itimerspec in strict ISO C)
	# is not one a program can use it in.
	# shellcheck disable=SC2086
	if ! $CC $std -Wall -Wextra -Werror -c "$tmp/libc.c" -o "$tmp/libc.o" 2>/dev/null; then
		echo "skip: $std: the C library's own <sys/timerfd.h> does not compile in it either"
		continue
	fi
	for src in alone first last; do
		# shellcheck disable=SC2086 # $std holds two flags on purpose
		if $CC $std -Wall -Wextra -Werror -I"$top_srcdir/include" -I"$tmp" \
			-c "$tmp/$src.c" -o "$tmp/$src.o"; then
			echo "ok: $src.c with $std"
		else
			echo "FAIL: $src.c with $std"
			fail=1
		fi
	done
done
exit $fail
