#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the program in each man page's EXAMPLES section compiles and links against the library.
set -eu
: "${CC:=cc}" "${top_srcdir:=.}" "${top_builddir:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 found=0
for page in "$top_srcdir"/man/*.[37]; do
	name=$(basename "$page")
	# The .EX ... .EE block after ".SH EXAMPLES", with groff escapes undone.
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$page" |
		sed -n '/^\.EX/,/^\.EE/p' | sed '/^\.EX/d; /^\.EE/d; s/\\-/-/g; s/\\e/\\/g' \
		> "$tmp/$name.c"
	[ -s "$tmp/$name.c" ] || continue
	found=$((found + 1))
	if $CC -Wall -Wextra -Werror -I"$top_srcdir/include" "$tmp/$name.c" \
		${LDFLAGS:-} -L"$top_builddir/src/.libs" -ltimerfd -o "$tmp/$name.out"; then
		echo "ok: the example of $name compiles and links"
	else
		echo "FAIL: the example of $name does not compile"
		fail=1
	fi
done
[ "$found" -gt 0 ] || { echo "FAIL: no EXAMPLES program found"; exit 1; }
exit $fail
