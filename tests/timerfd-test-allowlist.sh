#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the whole timerfd suite on the emulation under a program's own seccomp
# allowlist: the calls the suite makes on the kernel's timerfd (as strace -f sees them) and
# exactly those src/emu/syscalls.list names (libtimerfd(7), SYSTEM CALLS); the timerfd calls
# answer ENOSYS, so the library falls back by itself; every other call kills the program
# (KILL_PROCESS), then fails with EPERM.  A call the emulation makes that the list lacks
# fails a case (killed by SIGSYS, or a timer that never fires).
set -eu
: "${top_builddir:=.}"
suite=$top_builddir/tests/timerfd-test
if [ -n "${TEST_RUNNER:-}${TEST_WRAPPER:-}" ]; then
	echo "SKIP: ${TEST_RUNNER:-}${TEST_WRAPPER:-} cannot run a program's seccomp filter (its own calls would meet it)"
	exit 77
fi
if ! command -v strace >/dev/null 2>&1; then
	echo "SKIP: no strace here, to see the suite's own calls (install-deps.sh --all installs it)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The suite's own calls: on the kernel's timerfd, every process it starts followed, each
# call's name once (from the whole trace: a summary, strace -c, leaves out the calls that
# never return, such as a pause() that its SIGKILL ends, and the exits).
names_of_calls='match($0, /^[0-9]+ +[a-z0-9_]+\(/) {
	n = substr($0, RSTART, RLENGTH - 1); sub(/^[0-9]+ +/, "", n)
	if (n !~ /^timerfd_/) seen[n] = 1
}
END { for (n in seen) print n > names; close(names); print "" > done }'
if ! LIBTIMERFD_BACKEND=kernel strace -f -qq \
	-o "|awk -v names='$tmp/names' -v done='$tmp/done' '$names_of_calls'" \
	"$suite" >"$tmp/kernel.out" 2>&1; then
	echo "FAIL: the suite failed on the kernel's timerfd under strace -f:"
	grep -E ':(F|E):' "$tmp/kernel.out" || tail -n 20 "$tmp/kernel.out"
	exit 1
fi
# strace's output command may end just after strace.
for _ in $(seq 1 30); do
	[ ! -e "$tmp/done" ] || break
	sleep 1
done
[ -e "$tmp/done" ] || { echo "FAIL: the trace's reader did not end"; exit 1; }
echo "the suite's own calls on the kernel's timerfd: $(wc -l <"$tmp/names")"
failed=0
for mode in kill eperm; do
	status=0
	"$top_builddir/tests/syscall-list-test" --exec "$tmp/names" "$mode" "$suite" >"$tmp/$mode.out" 2>&1 ||
		status=$?
	[ "$status" -ne 77 ] || { cat "$tmp/$mode.out"; exit 77; }
	grep -E '^[0-9]+%: Checks:' "$tmp/$mode.out" | sed "s/^/$mode: /" || true
	if [ "$status" -ne 0 ]; then
		echo "FAIL: default $mode: exit status $status:"
		grep -E ':(F|E):|syscall-list-test' "$tmp/$mode.out" || tail -n 20 "$tmp/$mode.out"
		failed=1
	fi
done
exit "$failed"
