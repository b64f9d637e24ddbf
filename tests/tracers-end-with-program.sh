#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: strace -f and gdb, the real ones, end within 0.5 s of a program whose timers the
# emulation serves, as they do on the kernel's timerfd (the server is no tracee of theirs).
set -eu
: "${top_builddir:=.}"
prog=$top_builddir/tests/traced-program
if [ -n "${TEST_RUNNER:-}${TEST_WRAPPER:-}" ]; then
	echo "SKIP: a tracer of a program run by ${TEST_RUNNER:-}${TEST_WRAPPER:-} is not what this checks"
	exit 77
fi
# LeakSanitizer cannot run under ptrace (a build with --enable-sanitizers=address): leaks are
# not what this checks.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CK_TIMEOUT_MULTIPLIER, as the suite's slowness(): a slower machine's allowance.
scale=${CK_TIMEOUT_MULTIPLIER:-1}
case $scale in '' | *[!0-9]*) scale=1 ;; esac
[ "$scale" -ge 1 ] || scale=1
bound_ms=$((500 * scale))
ran=0
failed=0
# run NAME BACKEND COMMAND...: the ms from the program's end to the tracer's, in $gap.
run() {
	name=$1 backend=$2
	shift 2
	rm -f "$tmp/end"
	if ! LIBTIMERFD_BACKEND=$backend "$@" >"$tmp/out" 2>&1; then
		echo "FAIL: $name ($backend) failed:"
		cat "$tmp/out"
		failed=1
		gap=
		return
	fi
	done_ns=$(date +%s%N)
	if [ ! -s "$tmp/end" ]; then
		echo "FAIL: $name ($backend): the program wrote no end time:"
		cat "$tmp/out"
		failed=1
		gap=
		return
	fi
	gap=$(((done_ns - $(cat "$tmp/end")) / 1000000))
}
# check NAME COMMAND...: on the kernel's timerfd (the control), then on the emulation.
check() {
	name=$1
	shift
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "no $1 here"
		return
	fi
	ran=$((ran + 1))
	run "$name" kernel "$@"
	[ -n "$gap" ] || return 0
	kernel_gap=$gap
	run "$name" emulation "$@"
	[ -n "$gap" ] || return 0
	echo "$name: ended $kernel_gap ms after the program on the kernel, $gap ms on the emulation"
	# Beyond the tracer's own ending (the control's gap), at most the bound.
	if [ "$gap" -gt $((kernel_gap + bound_ms)) ]; then
		echo "FAIL: $name ended $gap ms after the program on the emulation (bound: $kernel_gap + $bound_ms ms)"
		failed=1
	fi
}
check "strace -f" strace -f -o "$tmp/trace" "$prog" "$tmp/end"
check "gdb" gdb -q -batch -nx -ex run --args "$prog" "$tmp/end"
if [ "$ran" -eq 0 ]; then
	echo "SKIP: neither strace nor gdb is installed (install-deps.sh --all installs both)"
	exit 77
fi
exit "$failed"
