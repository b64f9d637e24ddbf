#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: each example answers --help and does its job briefly: counts expirations, wakes, drives several timers.
set -eu
: "${top_builddir:=.}"
ex=$top_builddir/examples
run() { ${TEST_RUNNER:-} ${TEST_WRAPPER:-} "$@"; }
fail=0
for prog in periodic alarm epoll-timers; do
	if run "$ex/$prog" --help | grep -q '^Usage:'; then echo "ok: $prog --help"; else echo "FAIL: $prog --help"; fail=1; fi
done
out=$(run "$ex/periodic" 20 3)
echo "$out"
echo "$out" | tail -n 1 | grep -Eq ' [3-9] in all$' || { echo "FAIL: periodic did not count 3"; fail=1; }
out=$(run "$ex/alarm" +1)
echo "$out"
echo "$out" | grep -q '^alarm: woke at ' || { echo "FAIL: alarm did not wake"; fail=1; }
out=$(run "$ex/epoll-timers" -d 1 100 300)
echo "$out"
# In one second a 100 ms timer fires about ten times and a 300 ms one about three.
echo "$out" | grep -Eq '^timer 0 \(100 ms\): ([5-9]|1[0-9]) expirations$' || { echo "FAIL: 100 ms timer"; fail=1; }
echo "$out" | grep -Eq '^timer 1 \(300 ms\): [1-4] expirations$' || { echo "FAIL: 300 ms timer"; fail=1; }
exit $fail
