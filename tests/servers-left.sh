# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Description: sourced by the suite's emulated runs (tests/timerfd-test-emulated.sh,
# tests/timerfd-test-basic-abi.sh): run_marked COMMAND... runs the command with a mark in its
# environment, which every timer server of the run inherits (it is a clone of the program),
# then fails if one is still running 30 s after the command ended (a kernel timer leaves
# nothing). Its status: the command's, or 1 for a server left. Read through the host's /proc,
# outside whatever the command hid from itself.
run_marked() {
	mark=$$-$(date +%s%N)
	status=0
	TFD_TEST_RUN_MARK=$mark "$@" || status=$?
	# A server ends at once when its creator is gone, else after its linger (seconds): 30 s.
	for _ in $(seq 1 30); do
		[ -n "$(servers_left)" ] || return "$status"
		sleep 1
	done
	left=$(servers_left)
	if [ -n "$left" ]; then
		echo "FAIL: timer servers of this run still running 30 s after the suite ended: $left"
		# shellcheck disable=SC2086 # one pid a word
		ps -o pid,ppid,stat,etimes,comm -p "$(echo $left | tr ' ' ',')" || true
		# shellcheck disable=SC2086 # one pid a word
		kill -9 $left 2>/dev/null || true
		return 1
	fi
	return "$status"
}

# The running timer servers with this run's mark (an ended one's environ reads nothing).
servers_left() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		libtimerfd*)
			if tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "TFD_TEST_RUN_MARK=$mark"; then
				echo "${p#/proc/}"
			fi
			;;
		esac
	done
}
