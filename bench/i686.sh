#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the i686 side of make bench and make bench-instructions: builds the benchmark for
# i686 (32-bit time, and _TIME_BITS=64 for the time64 entry points) and says whether this kernel
# runs it natively.
# Usage: i686.sh build DIR     (DIR/src: an unconfigured source tree, e.g. from make distdir)
#        i686.sh native DIR    exit 0 if DIR's build runs natively here; else prints why not
#        i686.sh wall DIR      wall time per settime+gettime pair against the C library, natively
#                              where this kernel runs i386, and in a guest (tests/vm/check-vm.sh)
set -eu
mode=$1
dir=$(cd "$2" && pwd)
bench=$dir/build/bench/timerfd-bench

build() {
	if command -v i686-linux-gnu-gcc >/dev/null 2>&1; then
		cc=i686-linux-gnu-gcc
	elif echo 'int main(void) { return 0; }' | ${CC:-cc} -m32 -x c - -o /dev/null 2>/dev/null; then
		cc="${CC:-cc} -m32"
	else
		echo "no i686 compiler here (gcc-i686-linux-gnu, or gcc-multilib for gcc -m32)"
		return 1
	fi
	mkdir -p "$dir/build"
	if ! (cd "$dir/build" && ../src/configure --host=i686-linux-gnu CC="$cc" --with-minicheck \
		--disable-shared >configure.out 2>&1); then
		echo "configure for i686 failed (see $dir/build/configure.out)"
		return 1
	fi
	if ! (cd "$dir/build" && make bench/timerfd-bench bench/timerfd-bench-time64 >build.out 2>&1); then
		echo "the i686 build failed (see $dir/build/build.out)"
		return 1
	fi
}

# Some kernels run i386 binaries (IA32 emulation), some refuse them with ENOEXEC.
native() {
	if [ -f "$dir/why" ]; then
		cat "$dir/why"
		return 1
	fi
	if ! "$bench" --help >/dev/null 2>"$dir/exec.err"; then
		echo "this kernel does not run i386 binaries ($(tr -d '\n' <"$dir/exec.err" | sed 's/.*: //'))"
		return 1
	fi
}

case $mode in
build)
	build >"$dir/why" && rm -f "$dir/why"
	;;
native)
	native
	;;
wall)
	if why=$(native); then
		echo "  i686, 32-bit time_t (native):"
		"$bench" --pair-wall
		echo "  i686, _TIME_BITS=64 (native):"
		"$bench-time64" --pair-wall
	else
		echo "  i686 natively: skipped: $why"
	fi
	# And on every machine: on Debian's x86_64 kernel under qemu-system, through its vDSO.
	if command -v qemu-system-x86_64 >/dev/null 2>&1 && command -v cpio >/dev/null 2>&1; then
		kernels=${VM_KERNELS:-$PWD/vm-build/kernels}
		(cd "$dir" && VM_KERNELS=$kernels bash src/tests/vm/check-vm.sh src bench) ||
			echo "  i686 in a guest: failed (see $dir/vm-build)"
	else
		echo "  i686 in a guest: skipped: no qemu-system-x86_64 or cpio here (packages qemu-system-x86, cpio)"
	fi
	;;
*)
	echo "usage: $0 build|native|wall DIR" >&2
	exit 2
	;;
esac
