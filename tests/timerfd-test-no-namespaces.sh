#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the suite's test cases that make namespaces (families, server-life) again, in a
# simulated kernel built without timerfd and without namespaces (tinyconfig's, as in make
# check-vm's guest without timerfd): unshare(2) answers EINVAL. Each case that needs one must
# detect that and say why it skips; none may fail.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: the simulated kernel needs seccomp, which qemu-user ($TEST_RUNNER) cannot give"
	exit 77
fi
# shellcheck source=tests/servers-left.sh
. "${top_srcdir:-.}/tests/servers-left.sh"
out=$(mktemp)
trap 'rm -f "$out" "$out.all"' EXIT
status=0
for tcase in families server-life; do
	# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
	CK_RUN_CASE=$tcase run_marked "$top_builddir/tests/enosys-launcher" --no-namespaces \
		${TEST_WRAPPER:-} "$top_builddir/tests/timerfd-test" >"$out" 2>&1 || status=$?
	cat "$out"
	[ "$status" -eq 0 ] || exit "$status"
	cat "$out" >>"$out.all"
done
# Each case that unshares a PID namespace skipped (the two of families, the container's init of
# server-life: tests/case-families.c, tests/case-server-life.c), and the model took: at least
# one of them said why with unshare's EINVAL (under a sanitizer some skip before, for /proc).
for name in timers_work_in_a_pid_namespace a_pid_namespace_waiting a_containers_init; do
	if ! grep -q "^skipped case: $name" "$out.all"; then
		echo "FAIL: $name did not skip, on a kernel without PID namespaces"
		exit 1
	fi
done
if ! grep -q 'no PID namespaces (unshare(CLONE_NEWPID): EINVAL)' "$out.all"; then
	echo "FAIL: no case said it skipped for unshare(CLONE_NEWPID)'s EINVAL"
	exit 1
fi
echo "PASS: the cases that need a PID namespace skipped on a kernel without them"
