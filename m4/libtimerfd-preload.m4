# SPDX-License-Identifier: MIT
# LIBTIMERFD_PRELOAD: the symbol versions under which the C library exports the timerfd
# functions (e.g. GLIBC_2.8, and GLIBC_2.34 for the time64 ones), so that a preload build
# can define them under the same names and bind unmodified binaries' references.
# Sets LIBC_TIMERFD_VERSION, LIBC_TIMERFD_TIME64_VERSION and the ENABLE_PRELOAD conditional.
AC_DEFUN([LIBTIMERFD_PRELOAD], [
	AC_ARG_ENABLE([preload],
		[AS_HELP_STRING([--disable-preload],
			[do not build libtimerfd-preload.so for unmodified programs])],
		[], [enable_preload=auto])
	LIBC_TIMERFD_VERSION=
	LIBC_TIMERFD_TIME64_VERSION=
	AS_IF([test "x$enable_preload" != xno], [
		AC_MSG_CHECKING([the C library's symbol version of timerfd_create])
		AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <sys/timerfd.h>]],
				[[return timerfd_create(CLOCK_MONOTONIC, 0);]])],
			[LIBC_TIMERFD_VERSION=`$NM -D --with-symbol-versions conftest$EXEEXT 2>/dev/null |
				sed -n 's/.* U timerfd_create@\(.*\)$/\1/p'`])
		AC_MSG_RESULT([${LIBC_TIMERFD_VERSION:-none}])
		AS_IF([test "$ac_cv_sizeof_time_t" = 4], [
			AC_MSG_CHECKING([the C library's symbol version of __timerfd_settime64])
			tfd_save_CPPFLAGS=$CPPFLAGS
			CPPFLAGS="$CPPFLAGS -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64"
			AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <sys/timerfd.h>]],
					[[struct itimerspec its; return timerfd_gettime(0, &its);]])],
				[LIBC_TIMERFD_TIME64_VERSION=`$NM -D --with-symbol-versions conftest$EXEEXT 2>/dev/null |
					sed -n 's/.* U __timerfd_gettime64@\(.*\)$/\1/p'`])
			CPPFLAGS=$tfd_save_CPPFLAGS
			AC_MSG_RESULT([${LIBC_TIMERFD_TIME64_VERSION:-none}])
		])
	])
	AS_IF([test "x$enable_preload" = xyes && test -z "$LIBC_TIMERFD_VERSION"],
		[AC_MSG_ERROR([--enable-preload: the C library has no versioned timerfd_create])])
	AC_SUBST([LIBC_TIMERFD_VERSION])
	AC_SUBST([LIBC_TIMERFD_TIME64_VERSION])
	AM_CONDITIONAL([ENABLE_PRELOAD],
		[test -n "$LIBC_TIMERFD_VERSION" && test "x$have_version_script" = xyes])
	AM_CONDITIONAL([PRELOAD_TIME64], [test -n "$LIBC_TIMERFD_TIME64_VERSION"])
])
