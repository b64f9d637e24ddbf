# SPDX-License-Identifier: MIT
# LIBTIMERFD_WARN_CFLAGS: the warning flags the compiler accepts, in WARN_CFLAGS,
# plus -Werror with --enable-werror (as CI configures).
AC_DEFUN([LIBTIMERFD_WARN_CFLAGS], [
	AC_ARG_ENABLE([werror],
		[AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
		[], [enable_werror=no])
	WARN_CFLAGS=
	for flag in -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
		-Wpointer-arith -Wformat=2 -Wundef -Wvla; do
		AC_MSG_CHECKING([whether $CC accepts $flag])
		tfd_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS -Werror $flag"
		AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
			[AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $flag"],
			[AC_MSG_RESULT([no])])
		CFLAGS=$tfd_save_CFLAGS
	done
	AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
	AC_SUBST([WARN_CFLAGS])
])
