#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs from Debian's archive what the project needs, from one list for the Quick start,
# `make deps` and .ci/run.
#   ./install-deps.sh          what builds the library and runs make check
#   ./install-deps.sh --all    that, and what make check-cross, make check-vm and the hardening
#                              checks need (cross compilers, qemu, Check for every architecture
#                              of tests/cross/targets, clang, valgrind, cppcheck, musl)
#   ./install-deps.sh --list [--all]   print the packages, one a line, and install nothing
# As root, or through sudo. A package index that fails to download (a mirror in sync, a
# foreign architecture's security index) is tried again, then what is there is used: the run
# fails only if a package cannot be installed, and then it names each such package.
# For its own test: INSTALL_DEPS_APT_GET and INSTALL_DEPS_DPKG replace the commands (no sudo
# then), INSTALL_DEPS_TRIES and INSTALL_DEPS_DELAY the number of tries and seconds between.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

all=no list=no
for arg; do
	case $arg in
	--all) all=yes ;;
	--list) list=yes ;;
	*)
		echo "usage: $0 [--all] [--list]" >&2
		exit 2
		;;
	esac
done

# What the Quick start needs: the build tools and Check.
base_packages="gcc g++ make autoconf automake libtool pkgconf check"
# Debian architectures that ship Check (tests/cross/targets names them), added to dpkg.
foreign_arches=
# Everything else, and what is installed without recommends (qemu-system's are many).
more_packages=
bare_packages=
# Downloaded, not installed, by make check-vm at run time (apt-get download): known to apt.
download_packages=
if [ "$all" = yes ]; then
	foreign_arches=$(awk '$1 !~ /^#/ && $2 == "run" && $4 != "minicheck" { print $4 }' \
		"$here/tests/cross/targets" | sort -u | tr '\n' ' ')
	foreign_arches="$foreign_arches i386" # musl-dev:i386 (the i386 musl build)
	foreign_arches=$(echo "$foreign_arches" | tr ' ' '\n' | sort -u | tr '\n' ' ')
	# Sanitizers and fuzzing (clang), valgrind, cppcheck, musl for x86_64 and i386; strace and
	# gdb (tests/tracers-end-with-program.sh).
	more_packages="clang libclang-rt-14-dev valgrind cppcheck musl-tools musl-dev:i386 strace gdb"
	# make check-cross: qemu-user, each target's cross compilers, Check where Debian has it.
	more_packages="$more_packages qemu-user-static gcc-x86-64-linux-gnux32"
	for t in $(awk '$1 !~ /^#/ && $2 == "run" { print $1 }' "$here/tests/cross/targets"); do
		more_packages="$more_packages gcc-$t g++-$t"
	done
	for arch in $foreign_arches; do
		more_packages="$more_packages check:$arch pkgconf:$arch"
	done
	# make check-vm: qemu-system for x86_64 and arm64 guests, cpio for their initramfs; the
	# kernel without timerfd is built from Debian's source (tests/vm/build-kernel.sh).
	bare_packages="qemu-system-x86 qemu-system-arm cpio"
	bare_packages="$bare_packages linux-source-6.1 bc flex bison libelf-dev xz-utils"
	download_packages="linux-image-cloud-amd64 linux-image-cloud-arm64:arm64 busybox-static"
	download_packages="$download_packages busybox-static:i386 busybox-static:arm64 busybox-static:armhf"
fi

if [ "$list" = yes ]; then
	# shellcheck disable=SC2086 # lists of package names
	printf '%s\n' $base_packages $more_packages $bare_packages
	exit 0
fi

if [ -n "${INSTALL_DEPS_APT_GET:-}${INSTALL_DEPS_DPKG:-}" ]; then
	sudo=
elif [ "$(id -u)" = 0 ]; then
	sudo=
elif command -v sudo >/dev/null; then
	sudo=sudo
else
	echo "install-deps: needs root, or sudo" >&2
	exit 1
fi
apt_get=${INSTALL_DEPS_APT_GET:-apt-get}
dpkg=${INSTALL_DEPS_DPKG:-dpkg}
tries=${INSTALL_DEPS_TRIES:-4}
delay=${INSTALL_DEPS_DELAY:-20}
export DEBIAN_FRONTEND=noninteractive

for arch in $foreign_arches; do
	$sudo "$dpkg" --add-architecture "$arch"
done

# The indexes: tried again after a failure; after the last, the ones that did download
# (and those from before) are used.
update() {
	local try
	for ((try = 1; try <= tries; try++)); do
		if $sudo "$apt_get" update -q; then
			return 0
		fi
		echo "install-deps: apt-get update failed (try $try of $tries)" >&2
		[ "$try" -lt "$tries" ] && sleep "$delay"
	done
	echo "install-deps: going on with the package indexes there are" >&2
}

# apt-get install of the packages given, with the options before "--".
install() {
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	[ $# -gt 0 ] || return 0
	$sudo "$apt_get" install -y -q "${opts[@]}" "$@"
}

# Each package of the list that apt-get cannot install (a dry run of it alone).
not_installable() {
	local p
	for p; do
		$sudo "$apt_get" install -s -y -q "$p" >/dev/null 2>&1 || echo "$p"
	done
}

# Whether every package given is installed already (then nothing is downloaded at all).
# A name installed for several architectures is ambiguous to dpkg: the native one is meant.
all_installed() {
	local p native
	native=$("$dpkg" --print-architecture 2>/dev/null || true)
	for p; do
		"$dpkg" -s "$p" >/dev/null 2>&1 || "$dpkg" -s "$p:$native" >/dev/null 2>&1 || return 1
	done
}

updated=no
# shellcheck disable=SC2086 # lists of package names
if all_installed $base_packages $more_packages $bare_packages; then
	echo "install-deps: every package is installed already"
else
	update
	updated=yes
fi
# shellcheck disable=SC2086 # lists of package names
if all_installed $base_packages $more_packages $bare_packages; then
	:
elif ! { install -- $base_packages $more_packages && install --no-install-recommends -- $bare_packages; }; then
	# A download that failed halfway is worth one more try, with fresh indexes.
	echo "install-deps: apt-get install failed; trying again" >&2
	update
	# shellcheck disable=SC2086
	if ! { install -- $base_packages $more_packages &&
		install --no-install-recommends -- $bare_packages; }; then
		# shellcheck disable=SC2086
		missing=$(not_installable $base_packages $more_packages $bare_packages | tr '\n' ' ')
		missing=${missing% }
		echo "install-deps: cannot install: ${missing:-none alone (see the messages above)}" >&2
		exit 1
	fi
fi
# What make check-vm will download must be in the indexes that are there (fresh ones, if
# they lack it).
not_downloadable() {
	local p
	for p in $download_packages; do
		"$apt_get" download --print-uris -q "$p" >/dev/null 2>&1 || echo " $p"
	done
}
missing=$(not_downloadable | tr -d '\n')
if [ -n "$missing" ] && [ "$updated" = no ]; then
	update
	missing=$(not_downloadable | tr -d '\n')
fi
if [ -n "$missing" ]; then
	echo "install-deps: not in apt's package lists (make check-vm downloads them):$missing" >&2
	exit 1
fi
echo "install-deps: done"
