# SPDX-License-Identifier: MIT
# LIBTIMERFD_SANITIZERS: --enable-sanitizers=LIST builds everything (library, tests,
# examples) with -fsanitize=LIST, e.g. address,undefined or thread.  Any report stops the
# program (-fno-sanitize-recover=all), so a test with a report fails.
AC_DEFUN([LIBTIMERFD_SANITIZERS], [
	AC_ARG_ENABLE([sanitizers],
		[AS_HELP_STRING([--enable-sanitizers=LIST],
			[build with -fsanitize=LIST (e.g. address,undefined or thread)])],
		[], [enable_sanitizers=no])
	SANITIZER_CFLAGS=
	SANITIZER_LDFLAGS=
	AS_CASE([$enable_sanitizers],
		[no|""], [],
		[yes], [AC_MSG_ERROR([--enable-sanitizers needs a list, e.g. --enable-sanitizers=address,undefined])],
		[AC_MSG_CHECKING([whether $CC links with -fsanitize=$enable_sanitizers])
		 SANITIZER_CFLAGS="-fsanitize=$enable_sanitizers -fno-sanitize-recover=all -fno-omit-frame-pointer"
		 SANITIZER_LDFLAGS="-fsanitize=$enable_sanitizers"
		 tfd_save_CFLAGS=$CFLAGS
		 tfd_save_LDFLAGS=$LDFLAGS
		 CFLAGS="$CFLAGS $SANITIZER_CFLAGS"
		 LDFLAGS="$LDFLAGS $SANITIZER_LDFLAGS"
		 AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
			[AC_MSG_RESULT([no])
			 AC_MSG_ERROR([$CC cannot build with -fsanitize=$enable_sanitizers (with clang, install its runtime: libclang-rt-dev)])])
		 CFLAGS=$tfd_save_CFLAGS
		 LDFLAGS=$tfd_save_LDFLAGS])
	AC_SUBST([SANITIZER_CFLAGS])
	AC_SUBST([SANITIZER_LDFLAGS])
	AM_CONDITIONAL([SANITIZERS], [test -n "$SANITIZER_CFLAGS"])
])

# LIBTIMERFD_FUZZING: --enable-fuzzing builds the libFuzzer target tests/fuzz/timerfd-fuzz
# (make fuzz) with clang; everything else is built with -fsanitize=fuzzer-no-link, so that
# the library's own branches guide the fuzzer.
AC_DEFUN([LIBTIMERFD_FUZZING], [
	AC_ARG_ENABLE([fuzzing],
		[AS_HELP_STRING([--enable-fuzzing],
			[build the libFuzzer target for make fuzz (clang)])],
		[], [enable_fuzzing=no])
	FUZZER_CFLAGS=
	AS_IF([test "x$enable_fuzzing" = xyes], [
		AC_MSG_CHECKING([whether $CC links with -fsanitize=fuzzer])
		tfd_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS -fsanitize=fuzzer"
		AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
]])], [AC_MSG_RESULT([yes])],
			[AC_MSG_RESULT([no])
			 AC_MSG_ERROR([--enable-fuzzing needs libFuzzer: CC=clang, with libclang-rt-dev])])
		CFLAGS=$tfd_save_CFLAGS
		FUZZER_CFLAGS=-fsanitize=fuzzer-no-link])
	AC_SUBST([FUZZER_CFLAGS])
	AM_CONDITIONAL([FUZZING], [test "x$enable_fuzzing" = xyes])
])
