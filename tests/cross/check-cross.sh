#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Description: builds libtimerfd with each cross compiler in tests/cross/targets and runs its tests under qemu-user.
# Usage: check-cross.sh SRCDIR   (SRCDIR: an unconfigured source tree with configure, e.g. from
# make distdir; builds under ./cross-build; CROSS_TARGETS="triplet ..." limits the run;
# CROSS_TESTS=arch runs only the tests that can differ by architecture, below;
# CROSS_RUN="triplet ..." builds and tests those targets alone, and for the others
# compiles the syscall table and stub only, as for an ABI with no C library here)
set -uo pipefail
srcdir=$(cd "${1:-.}" && pwd)
root=$PWD/cross-build
jobs=${CROSS_JOBS:-3}
mkdir -p "$root"

# The number of Check cases in the suite: every target must run them all.
expected=$(cat "$srcdir"/tests/case-*.c | grep -c '^START_TEST(')

selected() {
	[ -z "${CROSS_TARGETS:-}" ] && return 0
	case " $CROSS_TARGETS " in *" $1 "*) return 0 ;; esac
	return 1
}
# Whether a target is built and tested (CROSS_RUN), or its table and stub compiled only.
built_here() {
	[ -z "${CROSS_RUN:-}" ] && return 0
	case " $CROSS_RUN " in *" $1 "*) return 0 ;; esac
	return 1
}

# Tests that only inspect what was built, for targets that cannot run here.
# (The C++ header check needs a C++ cross compiler, installed for the run targets only.)
static_tests="tests/header-compiles-alone.sh"
static_tests="$static_tests tests/exports-only-the-api.sh tests/stubs-make-the-calls.sh"
static_tests="$static_tests tests/syscall-numbers-match-kernel.sh"

# What depends on the architecture (CROSS_TESTS=arch, as CI runs it): the syscall numbers
# and stubs, the time64 entry points, the suite on both backends (the ENOSYS filter is per
# architecture), the emulation's own programs and the exported symbols.  Left out: what is
# the same on every architecture (man pages, install-deps, the C++ header, the preload and
# old-kernel runs of the suite, the fuzzers), which the native run covers.
arch_tests="tests/timerfd-test tests/timerfd-test-emulated.sh tests/timerfd-test-basic-abi.sh"
arch_tests="$arch_tests tests/time64-fallback-test tests/kernel-entry-test tests/emulation-test"
arch_tests="$arch_tests tests/timer-state-test $static_tests tests/examples-run.sh"
# The programs they run (with Check, the basic-ABI run's minicheck build of the suite too).
arch_programs="tests/timerfd-test tests/enosys-launcher tests/time64-fallback-test"
arch_programs="$arch_programs tests/kernel-entry-test tests/emulation-test tests/timer-state-test"

# One target: configure, build, test; writes its summary line to $root/<triplet>.result.
run_target() {
	local triplet=$1 mode=$2 qemu=$3 framework=$4 prefix=$5
	local dir=$root/$triplet result=$root/$triplet.result extra=() p f s tests progs= note status
	rm -rf "$dir" && mkdir -p "$dir"
	[ "$framework" = minicheck ] && extra+=(--with-minicheck)
	if ! command -v "$triplet-gcc" >/dev/null; then
		echo "$triplet: 0 passed, 1 failed, 0 skipped (no $triplet-gcc)" > "$result"
		return
	fi
	if ! (cd "$dir" && "$srcdir/configure" --host="$triplet" --enable-werror "${extra[@]}" \
		>configure.out 2>&1 && make -j2 >build.out 2>&1); then
		tail -n 30 "$dir"/configure.out "$dir"/build.out 2>/dev/null
		echo "$triplet: 0 passed, 1 failed, 0 skipped (configure or build failed; see $dir)" > "$result"
		return
	fi
	if [ "$mode" = run ]; then
		tests=
		case $qemu in
		native\|*)
			# Run natively if this kernel can execute the target's binaries.
			if "$dir/examples/periodic" --help >/dev/null 2>&1; then qemu=-; else qemu=${qemu#native|}; fi
			;;
		esac
		note="run under ${qemu/#-/the native kernel}"
		# CROSS_TESTS=arch: only the tests whose result can differ by architecture.
		if [ "${CROSS_TESTS:-}" = arch ]; then
			tests=$arch_tests
			# Only their programs are built (make check builds every one otherwise: four
			# builds of the suite, the fuzzers...).
			progs=$arch_programs
			[ "$framework" = minicheck ] || progs="$progs tests/timerfd-test-minicheck"
			# The time64 build of the suite exists where time_t has two widths.
			if grep -q '^TIME64_ENTRY_POINTS_TRUE *=$' "$dir/Makefile"; then
				tests="$tests tests/timerfd-test-time64"
				progs="$progs tests/timerfd-test-time64"
			fi
			note="$note, the architecture's tests"
		fi
	else
		tests=$static_tests
		note="built and inspected, not run: no way to run it here"
	fi
	[ "$qemu" = - ] && qemu=
	# qemu-user is slow: give every test case ten times Check's usual time.
	status=0
	(cd "$dir" && QEMU_LD_PREFIX=$prefix CK_TIMEOUT_MULTIPLIER=10 \
		make -j2 check ${tests:+TESTS="$tests"} ${progs:+check_PROGRAMS="$progs"} TEST_RUNNER="$qemu" \
			>check.out 2>&1) || status=$?
	read -r p f s < <("$srcdir/tests/count-results.sh" "$dir" "$expected" "$tests")
	# make check failed without a failed test to show for it: its build did.
	[ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	if [ "$f" -ne 0 ]; then
		grep -h -E ':(F|E):|^FAIL|^ERROR' "$dir"/tests/*.log | head -n 20
		grep -h -B2 -A2 -E 'error|Error' "$dir"/check.out | head -n 20
	fi
	echo "$triplet: $p passed, $f failed, $s skipped ($note)" > "$result"
}

# An ABI with no C library here: the table and the stub must still compile.
check_abi() {
	local triplet=$1 kind=$2 flags=$3 note=${4:-no C library for this ABI here} p=0 f=0
	local label="$triplet${flags:+ $flags}" result
	result=$root/$triplet$(echo "$flags" | tr -d ' =').result
	# shellcheck disable=SC2086 # $flags is a list of compiler flags
	if CC="$triplet-gcc" CFLAGS_ABI="$flags" top_srcdir=$srcdir \
		sh "$srcdir/tests/syscall-numbers-match-kernel.sh"; then p=$((p + 1)); else f=$((f + 1)); fi
	# shellcheck disable=SC2086
	if [ "$kind" = generic ]; then
		: # The generic path is syscall(2), which needs the C library absent here.
	elif "$triplet-gcc" $flags -O2 -Wall -Wextra -Werror -ffreestanding -I"$srcdir/src" \
		-c "$srcdir/tests/cross/stub-compiles.c" -o /dev/null; then
		p=$((p + 1))
	else
		echo "FAIL: the stub for $label does not compile"
		f=$((f + 1))
	fi
	echo "$label: $p passed, $f failed, 0 skipped (compiled only: $note)" > "$result"
}

order=()
running=0
while read -r triplet mode rest; do
	case $triplet in '' | '#'*) continue ;; esac
	selected "$triplet" || continue
	if [ "$mode" != abi ] && ! built_here "$triplet"; then
		check_abi "$triplet" stub "" "CROSS_RUN leaves its build out"
		order+=("$root/$triplet.result")
		continue
	fi
	if [ "$mode" = abi ]; then
		read -r kind flags <<<"$rest"
		check_abi "$triplet" "$kind" "$flags"
		order+=("$root/$triplet$(echo "$flags" | tr -d ' =').result")
		continue
	fi
	# shellcheck disable=SC2086 # $rest holds the remaining columns
	run_target "$triplet" "$mode" $rest &
	order+=("$root/$triplet.result")
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done < "$srcdir/tests/cross/targets"
wait

total_p=0 total_f=0 total_s=0
echo
for r in "${order[@]}"; do
	line=$(cat "$r")
	echo "$line"
	read -r p f s < <(echo "$line" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/')
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
done
echo "check-cross: $total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
