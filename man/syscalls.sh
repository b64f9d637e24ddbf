#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: prints libtimerfd(7)'s SYSTEM CALLS section, made from src/emu/syscalls.list
# (the one source of the list; tests/syscall-list-man.sh checks the page holds this).
# Usage: man/syscalls.sh [LIST]              prints it
#        man/syscalls.sh --update PAGE [LIST]  writes it into PAGE (make update-man), in place
#                                              of the part made before
set -eu
if [ "${1:-}" = --update ]; then
	page=$2
	shift 2
	tmp=$(mktemp)
	sh "$0" "$@" >"$tmp.part"
	awk -v part="$tmp.part" '
	/^\.\\" Made from src\/emu\/syscalls.list/ { while ((getline l < part) > 0) print l; skip = 1; found = 1; next }
	skip && /^\.\\" End of the part made from src\/emu\/syscalls.list/ { skip = 0; next }
	!skip { print }
	END { if (!found) exit 1 }' "$page" >"$tmp" ||
		{ rm -f "$tmp" "$tmp.part"; echo "syscalls.sh: $page has no part made from the list" >&2; exit 1; }
	cat "$tmp" >"$page"
	rm -f "$tmp" "$tmp.part"
	exit 0
fi
list=${1:-$(dirname "$0")/../src/emu/syscalls.list}
[ -r "$list" ] || { echo "syscalls.sh: cannot read $list" >&2; exit 1; }
# The calls made at PLACE (program or server), one roff line a call (".BR name ," or, where
# the call has other names, ".B name" and "(or a, b),"); a full stop after the last.
calls_at() {
	awk -v place="$1" '
	/^#/ || NF == 0 { next }
	{
		here = 0; alt = ""; inalt = 0
		for (i = 2; i <= NF; i++) {
			if ($i == ":") { inalt = 1; continue }
			if (inalt) alt = alt (alt == "" ? "" : ", ") $i
			else if ($i == place) here = 1
		}
		if (here) { n++; name[n] = $1; alts[n] = alt }
	}
	END {
		for (i = 1; i <= n; i++) {
			end = (i == n) ? "." : ","
			if (alts[i] != "") print ".B " name[i] "\n(or " alts[i] ")" end
			else print ".BR " name[i] " " end
		}
	}' "$list"
}
cat <<'ROFF'
.\" Made from src/emu/syscalls.list by man/syscalls.sh (make update-man): edit the list.
.SH SYSTEM CALLS
Every system call the emulation makes, for a program that installs a
seccomp filter of its own
.RB ( seccomp (2)):
such a filter needs these calls besides the program's own, and the timerfd
calls answered with
.BR ENOSYS .
A program's
.BR read (2),
.BR poll (2),
.BR epoll (7)
and
.BR close (2)
on a timer are its own plain calls on a FIFO.
The names in parentheses are the same call as other architectures and C
libraries spell it.
The server inherits the program's filter, so it needs its calls too.
.PP
In the program's process (the emulated
.BR timerfd_create (),
.BR timerfd_settime ()
and
.BR timerfd_gettime ()):
ROFF
calls_at program
cat <<'ROFF'
.PP
In the timer server and its twin:
ROFF
calls_at server
cat <<'ROFF'
.PP
A call the filter refuses with an errno makes the library's call fail with
an errno (never a half-made timer); a filter that kills the process on a
call not listed kills it, or its server.
.\" End of the part made from src/emu/syscalls.list.
ROFF
