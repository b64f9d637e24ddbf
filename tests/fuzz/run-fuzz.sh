#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: make fuzz: runs the libFuzzer target for SECONDS in all, half with each backend,
# from the seed corpus; new inputs go to fuzz-work/<backend>/corpus, findings to fuzz-work/<backend>/.
# Usage: run-fuzz.sh FUZZER SRCDIR SECONDS
set -eu
fuzzer=$1 srcdir=$2 seconds=$3
status=0
for backend in kernel emulation; do
	work=fuzz-work/$backend
	mkdir -p "$work/corpus"
	echo "fuzz: LIBTIMERFD_BACKEND=$backend for $((seconds / 2)) s"
	if ! LIBTIMERFD_BACKEND=$backend "$fuzzer" -max_total_time=$((seconds / 2)) -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$srcdir/tests/fuzz/corpus"; then
		echo "fuzz: FINDING with LIBTIMERFD_BACKEND=$backend:"
		for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
			[ -f "$f" ] && echo "  $f (add it to tests/fuzz/regressions/ with a name that says what it found)"
		done
		status=1
	fi
done
exit $status
