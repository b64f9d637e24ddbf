#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the whole timerfd suite again, in a simulated kernel without timerfd, so the emulation serves it.
set -eu
: "${top_builddir:=.}"
if [ -n "${TEST_RUNNER:-}" ]; then
	# Under an emulator the launcher could not exec the suite (no binfmt) nor install
	# seccomp (qemu-user refuses it): force the emulation by its environment variable.
	echo "under $TEST_RUNNER: forcing LIBTIMERFD_BACKEND=emulation (no seccomp in qemu-user)"
	# shellcheck disable=SC2086 # TEST_RUNNER may be a command with options
	LIBTIMERFD_BACKEND=emulation exec $TEST_RUNNER "$top_builddir/tests/timerfd-test"
fi
# Each timer server of this run inherits this mark in its environment (it is a clone of
# the program): none may be left once the suite has ended (every program process has).
mark=$$-$(date +%s%N)
status=0
# shellcheck disable=SC2086 # TEST_WRAPPER may be a command with options (make check-valgrind)
TFD_TEST_RUN_MARK=$mark "$top_builddir/tests/enosys-launcher" ${TEST_WRAPPER:-} \
	"$top_builddir/tests/timerfd-test" || status=$?
servers_left() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		libtimerfd*)
			if tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "TFD_TEST_RUN_MARK=$mark"; then
				echo "${p#/proc/}"
			fi
			;;
		esac
	done
}
# A server ends at once when its creator is gone, else after its linger (seconds): 30 s.
for _ in $(seq 1 30); do
	[ -n "$(servers_left)" ] || exit "$status"
	sleep 1
done
left=$(servers_left)
if [ -n "$left" ]; then
	echo "FAIL: timer servers of this run still running 30 s after the suite ended: $left"
	ps -o pid,ppid,stat,etimes,comm -p "$(echo $left | tr ' ' ',')" || true
	# shellcheck disable=SC2086 # one pid a word
	kill -9 $left 2>/dev/null || true
	exit 1
fi
exit "$status"
