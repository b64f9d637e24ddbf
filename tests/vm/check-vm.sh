#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Description: runs the test programs, statically linked, on Debian's own kernels booted under
# qemu-system (TCG: no KVM assumed), with an initramfs of the programs and tests/vm/init.c:
#   x86_64 kernel: i386 programs (glibc, musl) through the kernel's vDSO, and the clock-step cases;
#   arm64 kernel:  the arm64 and armhf suites, with the cases that qemu-user cannot run;
#   a kernel built without timerfd (tinyconfig, tests/vm/build-kernel.sh): the x86_64 (glibc,
#   musl) and i686 programs with no backend chosen, so the library meets ENOSYS by itself.
# Usage: check-vm.sh SRCDIR [check|bench]
#   SRCDIR: an unconfigured source tree with configure (make distdir); works under ./vm-build.
#   bench: only the i686 call-overhead comparison against glibc, in an x86_64 guest (check
#   runs it too, after the suites, in a guest that runs nothing else).
#   VM_GUESTS="x86_64 aarch64 notimerfd" limits the guests; VM_ONLY=REGEX the programs run (by label);
#   VM_KERNELS: where Debian's packages are kept once downloaded.
#   VM_ENV="NAME=VALUE ...": more of the programs' environment (CK_RUN_CASE=server-life, say).
# Kernels come from Debian's archive (apt-get download linux-image-cloud-ARCH), nothing else;
# the one without timerfd is built from Debian's linux-source-6.1, once per machine.
set -uo pipefail
srcdir=$(cd "${1:-.}" && pwd)
mode=${2:-check}
root=$PWD/vm-build
kernels=${VM_KERNELS:-$root/kernels}
guests=${VM_GUESTS:-x86_64 aarch64 notimerfd}
mkdir -p "$root" "$kernels"
# The test programs of the suite that run on their own (the .sh wrappers are spelled out in plans).
# Those run once each (no backend of their own to choose): one plan line per build.
own_programs="kernel-entry-test emulation-test emulation-10000-timers time64-fallback-test
	timer-state-test syscall-list-test"
# What the guest without timerfd runs: the programs whose result depends on the kernel
# (time64-fallback-test fakes its system calls, timer-state-test is the pure state machine,
# kernel-entry-test is i386's vDSO: they run natively and in the Debian guests).
notimerfd_programs="timerfd-test timerfd-test-time64 emulation-test emulation-10000-timers
	syscall-list-test"
# shellcheck disable=SC2086 # a list of program names
programs="tests/timerfd-test tests/enosys-launcher tests/basic-abi-launcher-test $(printf 'tests/%s ' $own_programs)"

fail() {
	echo "check-vm: $*" >&2
	exit 1
}

# Debian's package @pkg for @debian_arch, unpacked once into @dir.
fetch_deb() {
	local pkg=$1 arch=$2 dir=$3
	[ -f "$dir/.unpacked" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir"
	(cd "$dir" && apt-get download "$pkg:$arch" >download.out 2>&1) ||
		fail "apt-get download $pkg:$arch failed: $(tail -n 1 "$dir/download.out") (dpkg --add-architecture $arch; apt-get update)"
	dpkg-deb -x "$dir"/*.deb "$dir" && rm -f "$dir"/*.deb && touch "$dir/.unpacked"
}

# Debian's cloud kernel for @debian_arch, and busybox for the guest's /bin/sh (the suite
# spawns a shell, as programs do): prints the path of the kernel's image.
fetch_kernel() {
	local arch=$1 pkg
	pkg=$(apt-cache depends "linux-image-cloud-$arch:$arch" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n 1)
	[ -n "$pkg" ] || fail "no linux-image-cloud-$arch in apt's lists (dpkg --add-architecture $arch; apt-get update)"
	fetch_deb "$pkg" "$arch" "$kernels/$pkg-$arch" >&2 || exit 1
	fetch_deb busybox-static "$arch" "$kernels/busybox-static-$arch" >&2 || exit 1
	ls "$kernels/$pkg-$arch"/boot/vmlinuz-* | head -n 1
}

# Configures a build for one target (@name, @host triplet, @cc) in $root/@name.
configure_target() {
	local name=$1 host=$2 cc=$3 dir=$root/$1
	rm -rf "$dir" && mkdir -p "$dir"
	command -v "${cc%% *}" >/dev/null || fail "$name: no ${cc%% *} here"
	(cd "$dir" && "$srcdir/configure" --host="$host" CC="$cc" --with-minicheck --disable-shared \
		>configure.out 2>&1) || fail "$name: configure failed (see $dir/configure.out)"
}

# Configures and builds the test programs for one target, statically linked (once a run:
# two guests can run one build).
built=" "
build_target() {
	local dir=$root/$1 extra=
	[[ $built == *" $1 "* ]] && return 0
	built="$built$1 "
	configure_target "$@"
	grep -q '^time64_entry_points = yes' "$dir/Makefile" && extra=tests/timerfd-test-time64
	# shellcheck disable=SC2086 # lists of make targets
	(cd "$dir" && make -j2 LDFLAGS=-all-static $programs $extra >build.out 2>&1) ||
		fail "$1: build failed (see $dir/build.out)"
}

# The i686 benchmark, built against glibc's shared library (it compares with glibc's functions).
build_bench() {
	local dir=$root/i686-glibc
	(cd "$dir" && make -j2 bench/timerfd-bench bench/timerfd-bench-time64 >bench-build.out 2>&1) ||
		fail "i686 benchmark: build failed (see $dir/bench-build.out)"
}

# Copies the shared libraries @prog needs (from @cc's C library) into @dest/lib.
copy_libs() {
	local cc=$1 prog=$2 dest=$3 lib interp
	mkdir -p "$dest/lib"
	interp=$(readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	for lib in $(readelf -d "$prog" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p') "$(basename "$interp")"; do
		cp -L "$($cc -print-file-name="$lib")" "$dest/lib/$lib" || fail "no $lib for $prog"
	done
}

# The Debian arch of build @name's programs.
build_debarch() {
	case $1 in
	i686-*) echo i386 ;;
	x86_64-*) echo amd64 ;;
	aarch64-*) echo arm64 ;;
	armhf-*) echo armhf ;;
	esac
}

# What a plan line of build @name starts with: /bin/sh becomes the busybox of its arch, so
# that a shell it spawns is of its arch (tests/vm/init.c).
sh_of() {
	echo "CHECK_VM_SH=/bin/busybox.$(build_debarch "$1")"
}

# One suite run per backend: K the kernel, E the emulation under the launcher's ENOSYS filter.
suite_lines() {
	local name=$1 prog sh
	sh=$(sh_of "$name")
	for prog in timerfd-test timerfd-test-time64; do
		[ -x "$root/$name/tests/$prog" ] || continue
		printf '%s/kernel/%s\t%s /%s/%s\n' "$name" "$prog" "$sh" "$name" "$prog"
		printf '%s/emulation/%s\t%s /%s/enosys-launcher /%s/%s\n' "$name" "$prog" "$sh" "$name" "$name" "$prog"
	done
	for prog in $own_programs; do
		printf '%s/-/%s\t%s /%s/%s\n' "$name" "$prog" "$sh" "$name" "$prog"
	done
	# The basic ABI (a user-mode Linux's, a library OS's): what the launcher gives, checked
	# from inside; then the suite in it (the build's timerfd-test is the minicheck one).
	printf '%s/-/basic-abi-launcher-test\t%s /%s/enosys-launcher --basic-abi /%s/basic-abi-launcher-test\n' \
		"$name" "$sh" "$name" "$name"
	printf '%s/basic-abi/timerfd-test\t%s /%s/enosys-launcher --basic-abi /%s/timerfd-test\n' \
		"$name" "$sh" "$name" "$name"
}

# The runs on the kernel without timerfd: each program once, no launcher and no backend chosen
# (the library must find ENOSYS by itself), under the label NAME/notimerfd/PROGRAM.
notimerfd_lines() {
	local name=$1 prog args
	for prog in $notimerfd_programs; do
		[ -x "$root/$name/tests/$prog" ] || continue
		# Its filters need seccomp, which that kernel lacks: the workload alone.
		args=
		[ "$prog" = syscall-list-test ] && args=" nofilter"
		printf '%s/notimerfd/%s\t%s /%s/%s%s\n' "$name" "$prog" "$(sh_of "$name")" "$name" "$prog" "$args"
	done
}

# Lays out the guest's root @tree: the init, busybox as /bin/sh (of @debian_arch), the plan
# @plan, the programs of the builds @names.
make_tree() {
	local init_cc=$1 arch=$2 plan=$3 tree=$4 name p
	shift 4
	rm -rf "$tree" && mkdir -p "$tree/proc" "$tree/sys" "$tree/dev" "$tree/tmp" "$tree/bin"
	cp "$kernels/busybox-static-$arch/bin/busybox" "$tree/bin/busybox" && ln -s busybox "$tree/bin/sh"
	# And each build's own (its plan lines point /bin/sh at it).
	for name in "$@"; do
		p=$(build_debarch "$name")
		fetch_deb busybox-static "$p" "$kernels/busybox-static-$p" || exit 1
		cp "$kernels/busybox-static-$p/bin/busybox" "$tree/bin/busybox.$p"
	done
	$init_cc -static -O2 -Wall -o "$tree/init" "$srcdir/tests/vm/init.c" || fail "cannot build init with $init_cc"
	for name in "$@"; do
		mkdir -p "$tree/$name"
		for p in $programs tests/timerfd-test-time64 bench/timerfd-bench bench/timerfd-bench-time64; do
			[ -x "$root/$name/$p" ] && cp "$root/$name/$p" "$tree/$name/"
		done
	done
	cp "$plan" "$tree/plan"
}

# The initramfs of @tree, as @out (root owns everything in it).
pack() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$2"
}

# Boots @kernel with @initramfs on qemu-system-@arch; the console goes to @log.  The
# command line's NAME=VALUE words are the programs' environment: the clock is the suite's
# to set, and the CPU is emulated (the scale cases run at full scale natively, not here).
boot() {
	local arch=$1 kernel=$2 initramfs=$3 log=$4 machine console
	case $arch in
	x86_64) machine="-M q35 -cpu max" console=ttyS0 ;;
	aarch64) machine="-M virt -cpu max,pauth-impdef=on" console=ttyAMA0 ;;
	esac
	command -v "qemu-system-$arch" >/dev/null || fail "no qemu-system-$arch here"
	# shellcheck disable=SC2086 # $machine is a list of options
	timeout "${VM_TIMEOUT:-2400}" "qemu-system-$arch" $machine -accel tcg -m 2048 -smp 2 -nic none \
		-display none -serial stdio -no-reboot -kernel "$kernel" -initrd "$initramfs" \
		-append "console=$console quiet panic=-1 check_vm_timeout=900 CK_TIMEOUT_MULTIPLIER=10 TFD_TEST_CLOCK_STEPS=1 TFD_TEST_EMULATED_CPU=1${VM_ENV:+ $VM_ENV}" \
		</dev/null 2>&1 | tr -d '\r' >"$log"
}

# The kernel release and machine a guest's console log @log says it ran.
guest_of() {
	sed -n 's/^check-vm: guest kernel \([^,]*\),.*/\1/p' "$1" | head -n 1
}

# Reads a guest's console log: one result line per program; adds to the totals.
report() {
	local log=$1 guest label status seconds result want p f s out left
	guest=$(guest_of "$log")
	[ -n "$guest" ] || { tail -n 30 "$log"; echo "check-vm: the guest never started (see $log)"; total_f=$((total_f + 1)); return; }
	grep -q '^check-vm: done$' "$log" || { tail -n 30 "$log"; echo "check-vm: the guest stopped before its plan's end (see $log)"; total_f=$((total_f + 1)); }
	while read -r label status seconds; do
		out=$log.$(echo "$label" | tr / _)
		sed -n "\\|^check-vm: run $label\$|,\\|^check-vm: exit $label |p" "$log" >"$out"
		case $status in 0) result=PASS ;; 77) result=SKIP ;; *) result=FAIL ;; esac
		# The suite must run every case, as make check's must.
		case $label in */timerfd-test*) want=$expected ;; *) want= ;; esac
		read -r p f s < <("$srcdir/tests/count-results.sh" --log "$out" "$result" "$want")
		if [ "$f" -ne 0 ]; then
			grep -E ':(F|E):|FAIL|timeout' "$out" | head -n 20
		fi
		grep -h '^skipped case: ' "$out" | sed "s|^|  $label: |"
		printf 'check-vm: linux %s, %s: %s passed, %s failed, %s skipped (%s s%s)\n' "$guest" \
			"$(describe "$label")" "$p" "$f" "$s" "$seconds" "$([ "$status" = timeout ] && echo ', timed out')"
		total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
	done < <(sed -n 's/^check-vm: exit \(.*\) \([^ ]*\) after \([0-9]*\) s$/\1 \2 \3/p' "$log")
	# Servers or directories a program left behind (tests/vm/init.c waits 30 s for them):
	# a failure each (a kernel timer leaves nothing).
	left=$(grep -c '^check-vm: left by ' "$log" || true)
	if [ "$left" -ne 0 ]; then
		grep '^check-vm: left by ' "$log"
		total_f=$((total_f + left))
	fi
}

# The qemu-system-ARCH that boots @guest.
qemu_arch() {
	case $1 in notimerfd) echo x86_64 ;; *) echo "$1" ;; esac
}

# The guest without timerfd proves it first: its kernel answered the raw timerfd_create
# system call (made by /init, no library) with ENOSYS.
raw_call_report() {
	local log=$1 answer
	answer=$(sed -n 's/^check-vm: raw timerfd_create: //p' "$log" | head -n 1)
	if [ "$answer" = "Function not implemented" ]; then
		echo "check-vm: linux $(guest_of "$log") (built without CONFIG_TIMERFD): the raw timerfd_create system call answers ENOSYS"
		total_p=$((total_p + 1))
	else
		echo "check-vm: linux $(guest_of "$log"): the raw timerfd_create system call gave ${answer:-nothing}, want ENOSYS"
		total_f=$((total_f + 1))
	fi
}

# The i686 comparison's lines (ours, glibc's, their ratio), for make bench.
bench_report() {
	local log=$1
	echo "  i686 in a guest: linux $(guest_of "$log") under qemu-system-x86_64 (TCG: only the ratios mean anything)"
	echo "  (libtimerfd, glibc, ratio; each the median of rounds that interleave the two)"
	sed -n 's/^check-vm: run i686-glibc\/bench\/pair-wall-\(.*\)$/  \1-bit time_t:/p; /settime+gettime pair/p' "$log" |
		sed 's/  time64-bit time_t:/  _TIME_BITS=64:/'
	grep -q 'settime+gettime pair' "$log" || { tail -n 20 "$log"; return 1; }
}

# "i686-glibc/kernel/timerfd-test" -> "i686 programs, glibc, kernel backend: timerfd-test"
describe() {
	local target=${1%%/*} rest=${1#*/} backend prog
	backend=${rest%%/*} prog=${rest#*/}
	case $backend in
	kernel) backend=", kernel backend" ;;
	emulation) backend=", emulation (ENOSYS filter)" ;;
	basic-abi) backend=", emulation (basic ABI: /proc hidden, an allowlist of calls)" ;;
	notimerfd) backend=", kernel without timerfd (no backend chosen)" ;;
	*) backend= ;;
	esac
	echo "${target%%-*} programs, ${target#*-}$backend: $prog"
}

# Whether build @name has a plan line VM_ONLY selects (all do without it) in guest @guest:
# else it is not built for that guest.
wanted() {
	local name=$1 guest=$2 prog
	[ -z "${VM_ONLY:-}" ] && return 0
	if [ "$guest" = notimerfd ]; then
		for prog in $notimerfd_programs; do
			printf '%s/notimerfd/%s\n' "$name" "$prog"
		done
	else
		for prog in timerfd-test timerfd-test-time64 basic-abi-launcher-test $own_programs; do
			printf '%s/%s/%s\n' "$name" kernel "$prog" "$name" emulation "$prog" \
				"$name" basic-abi "$prog" "$name" - "$prog"
		done
	fi | grep -qE "$VM_ONLY"
}

# The builds each guest runs: the x86_64 kernel runs i386 programs through its vDSO; the arm64
# kernel runs 32-bit ARM programs too (COMPAT, with a vDSO).
guest_builds() {
	case $1 in
	x86_64) echo i686-glibc i686-musl ;;
	aarch64) echo aarch64-glibc armhf-glibc ;;
	notimerfd) echo x86_64-glibc x86_64-musl i686-glibc ;;
	*) fail "unknown guest $1 (x86_64, aarch64, notimerfd)" ;;
	esac
}

# A build's host triplet and compiler.
build_spec() {
	case $1 in
	i686-glibc) echo i686-linux-gnu i686-linux-gnu-gcc ;;
	i686-musl)
		[ -f /usr/lib/i386-linux-musl/musl-gcc.specs ] || fail "no musl for i386 here (musl-dev:i386)"
		echo i686-linux-musl "$srcdir/tests/cross/i686-linux-musl-gcc"
		;;
	aarch64-glibc) echo aarch64-linux-gnu aarch64-linux-gnu-gcc ;;
	armhf-glibc) echo arm-linux-gnueabihf arm-linux-gnueabihf-gcc ;;
	x86_64-glibc) echo x86_64-linux-gnu gcc ;;
	x86_64-musl) echo x86_64-linux-musl musl-gcc ;;
	esac
}

# Prepares guest @guest: builds, the plan, the root tree, the initramfs, the kernel. Returns 2
# (nothing done) when VM_ONLY selects none of its programs.
prepare() {
	local guest=$1 kernel names= name spec debian_arch=amd64 init_cc=${CC_FOR_VM:-cc}
	for name in $(guest_builds "$guest"); do
		if wanted "$name" "$guest"; then names="$names $name"; fi
	done
	[ -n "$names" ] || return 2
	for name in $names; do
		spec=$(build_spec "$name") || exit 1
		# shellcheck disable=SC2086 # the host triplet and the compiler
		build_target "$name" $spec
	done
	case $guest in
	x86_64) kernel=$(fetch_kernel amd64) || exit 1 ;;
	aarch64)
		kernel=$(fetch_kernel arm64) || exit 1
		debian_arch=arm64 init_cc=aarch64-linux-gnu-gcc
		;;
	notimerfd)
		kernel=$("$srcdir/tests/vm/build-kernel.sh" "$srcdir/tests/vm/notimerfd.config") || exit 1
		fetch_deb busybox-static amd64 "$kernels/busybox-static-amd64" || exit 1
		;;
	esac
	for name in $names; do
		if [ "$guest" = notimerfd ]; then notimerfd_lines "$name"; else suite_lines "$name"; fi
	done >"$root/$guest.plan"
	# shellcheck disable=SC2086 # a list of build names
	make_tree "$init_cc" "$debian_arch" "$root/$guest.plan" "$root/$guest.root" $names
	if [ -n "${VM_ONLY:-}" ]; then
		grep -E "$VM_ONLY" "$root/$guest.root/plan" >"$root/$guest.root/plan.only"
		mv "$root/$guest.root/plan.only" "$root/$guest.root/plan"
	fi
	pack "$root/$guest.root" "$root/$guest.cpio.gz"
	echo "$kernel" >"$root/$guest.kernel"
}

# The i686 comparison with glibc: its own boot, on a guest that runs nothing else.
bench() {
	local kernel
	kernel=$(fetch_kernel amd64) || exit 1
	[ -f "$root/i686-glibc/Makefile" ] || configure_target i686-glibc i686-linux-gnu i686-linux-gnu-gcc
	build_bench
	# Interleaved inside each run (bench --pair-wall); once per time_t.
	printf 'i686-glibc/bench/pair-wall-32\t/i686-glibc/timerfd-bench --pair-wall\n' >"$root/bench.plan"
	printf 'i686-glibc/bench/pair-wall-time64\t/i686-glibc/timerfd-bench-time64 --pair-wall\n' >>"$root/bench.plan"
	make_tree "${CC_FOR_VM:-cc}" amd64 "$root/bench.plan" "$root/bench.root" i686-glibc
	copy_libs i686-linux-gnu-gcc "$root/i686-glibc/bench/timerfd-bench" "$root/bench.root"
	pack "$root/bench.root" "$root/bench.cpio.gz"
	boot x86_64 "$kernel" "$root/bench.cpio.gz" "$root/bench.log"
	bench_report "$root/bench.log"
}

total_p=0 total_f=0 total_s=0
expected=$(cat "$srcdir"/tests/case-*.c | grep -c '^START_TEST(')
if [ "$mode" = bench ]; then
	bench
	exit
fi
active=
for guest in $guests; do
	status=0
	prepare "$guest" || status=$?
	case $status in
	0) active="$active $guest" ;;
	2) echo "check-vm: VM_ONLY selects nothing for the $guest guest" ;;
	*) exit 1 ;;
	esac
done
# One guest after the other: side by side they gained a minute in ten on two cores, and
# made the emulated CPUs slow enough to fail liveness bounds.
rm -f "$root"/*.log.*
for guest in $active; do
	echo "check-vm: booting $(basename "$(cat "$root/$guest.kernel")") on qemu-system-$(qemu_arch "$guest") (TCG)"
	start=$SECONDS
	boot "$(qemu_arch "$guest")" "$(cat "$root/$guest.kernel")" "$root/$guest.cpio.gz" "$root/$guest.log"
	echo "check-vm: the $guest guest ran $((SECONDS - start)) s"
	[ "$guest" = notimerfd ] && raw_call_report "$root/$guest.log"
	report "$root/$guest.log"
done
if [[ " $guests " == *" x86_64 "* ]] && [ -z "${VM_ONLY:-}" ]; then
	echo "check-vm: i686 call overhead against glibc, on a guest of its own:"
	if bench; then total_p=$((total_p + 1)); else total_f=$((total_f + 1)); fi
fi

# Every case of the suite must run somewhere: a case skipped by every suite run in the guests
# runs nowhere (the host's runs skip these same cases, or more: see each skip's reason). The
# basic ABI's runs skip by design what needs /proc, and the kernel without timerfd's what
# that kernel lacks (namespaces, seccomp, inotify, cgroups): neither is counted.
runs=$(ls "$root"/*.log.*_timerfd-test* 2>/dev/null | grep -v -e '_basic-abi_' -e '_notimerfd_')
if [ -n "$runs" ]; then
	nowhere=$(for f in $runs; do
		grep -h '^skipped case: ' "$f" | sed 's/^skipped case: \([^:]*\):.*/\1/' | sort -u
	done | sort | uniq -c | awk -v n="$(echo "$runs" | wc -l)" '$1 == n { print $2 }')
	if [ -n "$nowhere" ]; then
		echo "check-vm: cases skipped in every guest run (they run nowhere):"
		echo "$nowhere"
		total_f=$((total_f + 1))
	else
		echo "check-vm: every case of the suite ran in a guest"
	fi
fi
echo "check-vm: $total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
