#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: system calls per emulated settime and gettime (the caller's, by strace, under the
# ENOSYS filter where enosys-launcher is given) and per delivery of expirations (the timer
# server's, counted by perf's syscall tracepoints at full speed: strace would slow it).
# Usage: syscalls.sh [BENCH [ENOSYS-LAUNCHER]]
set -eu
bench=${1:-bench/timerfd-bench}
launcher=${2:-}
out=$(mktemp)
log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
# The caller's calls are its own: strace counts them exactly.
for loop in settime gettime; do
	# shellcheck disable=SC2086 # an empty launcher is no word
	$launcher strace -o "$out" "$bench" --syscall-loop "$loop" >/dev/null
	printf '%-44s %6.2f\n' "syscalls per emulated $loop (caller)" \
		"$(echo "($(wc -l <"$out") - 1) / 10000" | bc -l | sed 's/0*$//')"
done
if ! perf stat -e raw_syscalls:sys_enter true >/dev/null 2>&1; then
	echo "deliveries not counted: perf cannot count syscall tracepoints here (linux-perf, root)"
	exit 0
fi
for loop in expire-read expire-unread; do
	"$bench" --syscall-loop "$loop" >"$log" &
	pid=$!
	while ! grep -q '^server' "$log"; do sleep 0.05; done
	server=$(sed -n 's/^server //p' "$log")
	perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_write -p "$server" -o "$out" \
		-- sleep 2 2>/dev/null || true
	wait "$pid"
	calls=$(awk -F, '$3 == "raw_syscalls:sys_enter" { print $1 }' "$out")
	writes=$(awk -F, '$3 == "syscalls:sys_enter_write" { print $1 }' "$out")
	printf '%-44s %6.2f  (%s calls, %s writes)\n' "syscalls per delivery, $loop (server)" \
		"$(echo "$calls / $writes" | bc -l)" "$calls" "$writes"
done
