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
# The model took, and each case that unshares a PID namespace saw it: the two of families,
# the container's init of server-life (tests/case-families.c, tests/case-server-life.c).
seen=$(grep -c 'no PID namespaces (unshare(CLONE_NEWPID): EINVAL)' "$out.all" || true)
if [ "$seen" -ne 3 ]; then
	echo "FAIL: $seen cases said they skipped for unshare(CLONE_NEWPID)'s EINVAL, want 3"
	exit 1
fi
echo "PASS: the 3 cases that need a PID namespace detected a kernel without them"
