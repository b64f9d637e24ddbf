# SPDX-License-Identifier: MIT
# LIBTIMERFD_VERSION_SCRIPT: whether the linker takes a symbol version script
# (GNU ld, gold, lld do); sets the HAVE_VERSION_SCRIPT conditional.
AC_DEFUN([LIBTIMERFD_VERSION_SCRIPT], [
	AC_MSG_CHECKING([whether the linker accepts --version-script])
	tfd_save_LDFLAGS=$LDFLAGS
	printf 'TEST_1 { global: main; local: *; };\n' > conftest.map
	LDFLAGS="$LDFLAGS -Wl,--version-script=conftest.map"
	AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
		[have_version_script=yes], [have_version_script=no])
	LDFLAGS=$tfd_save_LDFLAGS
	rm -f conftest.map
	AC_MSG_RESULT([$have_version_script])
	AM_CONDITIONAL([HAVE_VERSION_SCRIPT], [test "x$have_version_script" = xyes])
])
