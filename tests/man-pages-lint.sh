#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: every man page formats with groff's warnings all on (-ww) and prints none.
set -eu
: "${top_srcdir:=.}"
if ! command -v groff >/dev/null 2>&1; then
	echo "SKIP: groff is not installed (Debian: groff-base)"
	exit 77
fi
man=$(cd "$top_srcdir/man" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A man tree, so that ".so man3/page.3" stubs resolve as they do once installed.
mkdir "$tmp/man3" "$tmp/man7"
ln -s "$man"/*.3 "$tmp/man3/"
ln -s "$man"/*.7 "$tmp/man7/"
fail=0 pages=0
for page in "$tmp"/man3/*.3 "$tmp"/man7/*.7; do
	pages=$((pages + 1))
	if out=$(cd "$tmp" && groff -ww -z -man "$page" 2>&1) && [ -z "$out" ]; then
		echo "ok: $(basename "$page")"
	else
		echo "FAIL: $(basename "$page"):"
		echo "$out"
		fail=1
	fi
done
[ "$pages" -ge 4 ] || { echo "FAIL: only $pages pages found in $man"; exit 1; }
exit $fail
