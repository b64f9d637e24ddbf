#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: system calls per emulated settime (the caller's) and per expiration (the timer
# thread's, with timers read as they fire and never read), counted by strace per thread.
set -eu
bench=${1:-bench/timerfd-bench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
LIBTIMERFD_BACKEND=kernel strace -f -ff -o "$dir/settime" "$bench" --syscall-loop settime >/dev/null
main=$(find "$dir" -name 'settime.*' | sort -t. -k2 -n | head -n 1)
printf '%-40s %8.2f\n' "syscalls per emulated settime (caller)" "$(echo "$(wc -l <"$main") / 10000" | bc -l)"
for loop in expire-read expire-unread; do
	LIBTIMERFD_BACKEND=kernel strace -f -ff -o "$dir/$loop" "$bench" --syscall-loop "$loop" >"$dir/$loop.out"
	n=$(sed -n 's/^\([0-9]*\) expirations$/\1/p' "$dir/$loop.out")
	main=$(find "$dir" -name "$loop.*" ! -name '*.out' | sort -t. -k2 -n | head -n 1)
	others=$(find "$dir" -name "$loop.*" ! -name '*.out' ! -path "$main" -exec cat {} + | wc -l)
	printf '%-40s %8.2f  (%s expirations)\n' "syscalls per expiration, $loop (thread)" \
		"$(echo "$others / $n" | bc -l)" "$n"
done
