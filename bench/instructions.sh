#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: user-space instructions per call of our entry points and the C library's, counted by
# callgrind (deterministic), with what each adds over the syscall instruction itself.
set -eu
bench=${1:-bench/timerfd-bench}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
LIBTIMERFD_BACKEND=kernel valgrind -q --tool=callgrind --callgrind-out-file="$out" "$bench" --instruction-loops
calls=10000
printf '%-22s %12s %12s\n' "instructions per call" libtimerfd "C library"
for op in settime gettime; do
	ours=$(callgrind_annotate --inclusive=yes "$out" | grep "count_ours_$op" | awk '{ gsub(",", "", $1); print $1 }' | head -n 1)
	libc=$(callgrind_annotate --inclusive=yes "$out" | grep "count_libc_$op" | awk '{ gsub(",", "", $1); print $1 }' | head -n 1)
	printf '%-22s %12.1f %12.1f\n' "timerfd_$op" "$(echo "$ours / $calls" | bc -l)" "$(echo "$libc / $calls" | bc -l)"
done
echo "(each includes the loop's own few instructions per call; the syscall instruction itself is one)"
