#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the installed copy builds a program through pkg-config, and that program calls our functions.
set -eu
: "${prefix:?}" "${libdir:?}" "${CC:=cc}" "${NM:=nm}"
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH

cflags=$(pkg-config --cflags timerfd)
libs=$(pkg-config --libs timerfd)
echo "pkg-config --cflags --libs timerfd: $cflags $libs"
case " $cflags " in
*"/include/libtimerfd "*) ;;
*) echo "FAIL: Cflags do not name the libtimerfd include overlay"; exit 1 ;;
esac
case " $libs " in
*" -ltimerfd "*) ;;
*) echo "FAIL: Libs do not name -ltimerfd"; exit 1 ;;
esac
hdr=$(echo "$cflags" | sed 's/^-I//; s/ .*//')/sys/timerfd.h
[ -f "$hdr" ] || { echo "FAIL: $hdr is not installed"; exit 1; }

# shellcheck disable=SC2086 # pkg-config output is a list of flags
$CC $cflags "$srcdir/examples/periodic.c" -o "$tmp/periodic" $libs
if ! $NM -D --with-symbol-versions "$tmp/periodic" | grep -q ' U timerfd_create@LIBTIMERFD_1$'; then
	echo "FAIL: the consumer does not reference timerfd_create@LIBTIMERFD_1"
	exit 1
fi
out=$(LD_LIBRARY_PATH=$libdir LD_DEBUG=bindings "$tmp/periodic" 10 2 2>"$tmp/bindings")
echo "$out"
if ! grep "symbol \`timerfd_create'" "$tmp/bindings" | grep -q "$libdir/libtimerfd.so"; then
	echo "FAIL: timerfd_create did not bind to $libdir/libtimerfd.so:"
	grep timerfd "$tmp/bindings" || true
	exit 1
fi
echo "ok: the installed consumer ran and called $libdir/libtimerfd.so"
