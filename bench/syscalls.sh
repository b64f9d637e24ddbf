#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: system calls per emulated settime (the caller's, by strace) and per delivery of
# expirations (the timer thread's; a delivery is one write), counted per thread by perf's
# syscall tracepoints at full speed (strace would slow the thread and change what it does).
set -eu
bench=${1:-bench/timerfd-bench}
if ! perf stat -e raw_syscalls:sys_enter true >/dev/null 2>&1; then
	echo "SKIP: perf cannot count syscall tracepoints here (install linux-perf; needs root)"
	exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# perf stat per thread of a running process: lines "<comm>-<tid>  <count>  <event>".
count() {
	LIBTIMERFD_BACKEND=kernel "$bench" --syscall-loop "$1" >/dev/null &
	pid=$!
	perf stat --per-thread -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_write -p "$pid" \
		-o "$out" 2>/dev/null || true
	wait "$pid"
}
# A settime is the caller's own: strace counts it exactly (perf attaches too late for a short loop).
LIBTIMERFD_BACKEND=kernel strace -o "$out" "$bench" --syscall-loop settime >/dev/null
printf '%-44s %6.2f\n' "syscalls per emulated settime (caller)" "$(echo "$(wc -l <"$out") / 10000" | bc -l)"
for loop in expire-read expire-unread; do
	count "$loop"
	# The timer thread: every thread but the main one (whose tid is the pid).
	calls=$(awk -F, -v main="-$pid" '$4 == "raw_syscalls:sys_enter" && index($1, main) == 0 { n += $2 } END { print n + 0 }' "$out")
	writes=$(awk -F, -v main="-$pid" '$4 == "syscalls:sys_enter_write" && index($1, main) == 0 { n += $2 } END { print n + 0 }' "$out")
	printf '%-44s %6.2f  (%s calls, %s deliveries)\n' "syscalls per delivery, $loop (thread)" \
		"$(echo "$calls / $writes" | bc -l)" "$calls" "$writes"
done
