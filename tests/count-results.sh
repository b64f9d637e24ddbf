#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Description: prints "PASSED FAILED SKIPPED" for a build tree whose make check has run, counting each Check case
# of a test program that reports them (a program that crashed before its summary counts as one failure).
# Usage: count-results.sh BUILDDIR EXPECTED_CASES [STATIC_ONLY]
#        count-results.sh --log LOG RESULT [EXPECTED_CASES]   one program's output and its result
#                        (PASS, SKIP or anything else for a failure), as make check-vm reads them
# A suite that ran fewer cases than EXPECTED_CASES counts the missing ones as failed; without
# STATIC_ONLY, a suite that left no result at all (its build failed) counts as one failure.
set -uo pipefail

# "P F S" of one program: its Check summary and skipped-case lines, else its @result alone.
count_log() {
	local log=$1 res=$2 expected=${3:-} lines checks fails errs skipped passed
	lines=$(grep -h '^[0-9]*%: Checks:' "$log" 2>/dev/null)
	if [ -z "$lines" ]; then
		case $res in
		PASS) echo "1 0 0" ;;
		SKIP) echo "0 0 1" ;;
		*) echo "0 1 0" ;;
		esac
		return
	fi
	# Every run of the program the log holds (a script may run chosen test cases one by one).
	read -r checks fails errs < <(echo "$lines" |
		sed 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/' |
		awk '{ c += $1; f += $2; e += $3 } END { print c + 0, f + 0, e + 0 }')
	# Check has no skipped state: a case that does not apply here says so (case_skipped()).
	skipped=$(grep -c '^skipped case: ' "$log" || true)
	fails=$((fails + errs))
	# A program that failed after its summary (a crash at exit, say): one case failed.
	[ "$res" != PASS ] && [ "$fails" -eq 0 ] && fails=1
	passed=$((checks - fails - skipped))
	# A suite must run every case: the missing ones count as failed.
	[ -n "$expected" ] && [ "$checks" -lt "$expected" ] && fails=$((fails + expected - checks))
	echo "$passed $fails $skipped"
}

if [ "$1" = --log ]; then
	count_log "$2" "$3" "${4:-}"
	exit
fi
dir=$1 expected=$2 static_only=${3:-}
p=0 f=0 s=0
for trs in "$dir"/tests/*.trs; do
	[ -f "$trs" ] || continue
	name=$(basename "$trs" .trs)
	res=$(sed -n 's/^:test-result: //p' "$trs")
	# The timerfd suites (plain and time64 builds, each backend) must each run every case;
	# the run without namespaces runs the test cases that make them, alone.
	case $name in timerfd-test-no-namespaces) want= ;; timerfd-test*) want=$expected ;; *) want= ;; esac
	read -r tp tf ts < <(count_log "$dir/tests/$name.log" "$res" "$want")
	p=$((p + tp)) f=$((f + tf)) s=$((s + ts))
done
[ -f "$dir/tests/timerfd-test.trs" ] || [ -n "$static_only" ] || f=$((f + 1))
echo "$p $f $s"
