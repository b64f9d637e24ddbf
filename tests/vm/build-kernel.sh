#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Description: builds, once per machine, the x86_64 kernel of make check-vm's guest without
# timerfd: Debian's linux-source-6.1 (the registry's source, nothing downloaded otherwise),
# tinyconfig plus tests/vm/notimerfd.config. Prints the path of the kernel image.
# Usage: build-kernel.sh FRAGMENT
#   The image is kept outside the checkout, in VM_KERNEL_CACHE (default
#   ${XDG_CACHE_HOME:-$HOME/.cache}/libtimerfd-vm), under a key made of the source package's
#   version and the fragment's hash, so that a clean clone (CI) on the same machine pays the
#   build once; a changed fragment or source package builds anew. About 7 min on 2 idle cores.
set -euo pipefail
fragment=$(realpath "$1")
tarball=/usr/src/linux-source-6.1.tar.xz

fail() {
	echo "build-kernel: $*" >&2
	exit 1
}

[ -f "$tarball" ] || fail "no $tarball (apt-get install linux-source-6.1; tests/install-deps.sh --all)"
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# The fragment's settings, not its comments, make the key.
key=$version-$(grep -v '^#' "$fragment" | sha256sum | cut -c1-12)
cache=${VM_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libtimerfd-vm}/notimerfd-$key
mkdir -p "$cache"
# One build at a time per key (two check-vm runs on one machine wait for each other).
exec 9>"$cache/.lock"
flock 9
if [ -f "$cache/bzImage" ]; then
	echo "$cache/bzImage"
	exit 0
fi

src=$cache/src
rm -rf "$src" && mkdir -p "$src"
echo "build-kernel: building linux-source-6.1 $version without timerfd in $cache (once per machine)" >&2
tar -xf "$tarball" -C "$src" --strip-components=1
start=$SECONDS
{
	make -C "$src" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "$fragment"
	make -C "$src" ARCH=x86_64 olddefconfig
} >"$cache/config.out" 2>&1 || fail "configuring failed (see $cache/config.out)"
# Every line of the fragment must have held: a dependency that turned one off is an error.
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) grep -qx "# ${line%=n} is not set" "$src/.config" || fail "$line did not hold" ;;
	CONFIG_*) grep -qx "$line" "$src/.config" || fail "$line did not hold (see $src/.config)" ;;
	esac
done <"$fragment"
make -C "$src" ARCH=x86_64 -j"$(nproc)" bzImage >"$cache/build.out" 2>&1 ||
	fail "the build failed (see $cache/build.out)"
cp "$src/.config" "$cache/config"
cp "$src/arch/x86/boot/bzImage" "$cache/bzImage.new" && mv "$cache/bzImage.new" "$cache/bzImage"
echo "build-kernel: built in $((SECONDS - start)) s" >&2
# The tree (over 1 GB) is not needed again.
rm -rf "$src"
echo "$cache/bzImage"
