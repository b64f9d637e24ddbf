#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Description: prints "PASSED FAILED SKIPPED" for a build tree whose make check has run, counting each Check case
# of a test program that reports them (a program that crashed before its summary counts as one failure).
# Usage: count-results.sh BUILDDIR EXPECTED_CASES [STATIC_ONLY]
# A suite that ran fewer cases than EXPECTED_CASES counts the missing ones as failed; without
# STATIC_ONLY, a suite that left no result at all (its build failed) counts as one failure.
set -uo pipefail
dir=$1 expected=$2 static_only=${3:-}
p=0 f=0 s=0
for trs in "$dir"/tests/*.trs; do
	[ -f "$trs" ] || continue
	name=$(basename "$trs" .trs)
	res=$(sed -n 's/^:test-result: //p' "$trs")
	line=$(grep -h '^[0-9]*%: Checks:' "$dir/tests/$name.log" 2>/dev/null || true)
	if [ -n "$line" ]; then
		read -r checks fails errs < <(echo "$line" |
			sed 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/')
		# Check has no skipped state: a case that does not apply here says so (case_skipped()).
		skipped=$(grep -c '^skipped case: ' "$dir/tests/$name.log" || true)
		p=$((p + checks - fails - errs - skipped))
		f=$((f + fails + errs))
		s=$((s + skipped))
		# The timerfd suites (plain and time64 builds) must each run every case.
		case $name in timerfd-test*) [ "$checks" -ge "$expected" ] || f=$((f + expected - checks)) ;; esac
		continue
	fi
	case $res in
	PASS) p=$((p + 1)) ;;
	SKIP) s=$((s + 1)) ;;
	*) f=$((f + 1)) ;;
	esac
done
[ -f "$dir/tests/timerfd-test.trs" ] || [ -n "$static_only" ] || f=$((f + 1))
echo "$p $f $s"
