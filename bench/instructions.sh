#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: user-space instructions per call of our entry points and the C library's, for this
# machine's ABI and for i686 (32-bit time_t and _TIME_BITS=64), counted by callgrind (deterministic).
# Where this kernel does not run i386 binaries, callgrind cannot count them: the i686 rows are then
# counted by single-stepping the same loops under qemu-i386 with gdb, which the table says.
# Usage: instructions.sh BENCH [I686_DIR]   (I686_DIR: from make bench-i686)
set -eu
bench=${1:-bench/timerfd-bench}
i686=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
loops="settime gettime pair"

# callgrind_annotate's inclusive count of each count_<who>_<op> loop, per call made.
callgrind_counts() {
	LIBTIMERFD_BACKEND=kernel valgrind -q --tool=callgrind --callgrind-out-file="$work/cg" \
		"$1" --instruction-loops "$2" >/dev/null
	callgrind_annotate --inclusive=yes "$work/cg" | awk -v calls="$2" '
		match($0, /:count_(ours|libc)_(settime|gettime|pair) /) {
			n = $1; gsub(",", "", n)
			name = substr($0, RSTART + 7, RLENGTH - 8)
			if (!(name in seen)) { seen[name] = 1; printf "%s %.1f\n", name, n / calls }
		}'
}

# The same loops single-stepped under qemu-i386 by gdb: every instruction from a loop
# function's entry to its return, per call made.
gdb_counts() {
	port=$((20000 + $$ % 20000))
	cat >"$work/step.py" <<PY
import gdb
gdb.execute("set pagination off")
gdb.execute("target remote :$port")
for fn in ["count_ours_settime", "count_libc_settime", "count_ours_gettime",
           "count_libc_gettime", "count_ours_pair", "count_libc_pair"]:
    gdb.execute("tbreak *" + fn, to_string=True)
    gdb.execute("continue", to_string=True)
    ret = int(gdb.parse_and_eval("*(unsigned int *)\$esp")) & 0xffffffff
    n = 0
    while int(gdb.parse_and_eval("\$pc")) & 0xffffffff != ret:
        gdb.execute("stepi", to_string=True)
        n += 1
    gdb.write("COUNT %s %.1f\n" % (fn[6:], n / $2.0))
gdb.execute("kill", to_string=True)
PY
	LIBTIMERFD_BACKEND=kernel qemu-i386-static -g "$port" "$1" --instruction-loops "$2" \
		>/dev/null 2>&1 &
	sleep 1
	gdb -batch -nx -x "$work/step.py" "$1" 2>/dev/null | sed -n 's/^COUNT //p'
	wait
}

# One table: per loop, instructions per call of ours and the C library's, and the ratio.
table() {
	title=$1
	counts=$2
	echo "$title"
	printf '  %-30s %10s %10s %8s\n' "per call, loop included" libtimerfd "C library" ratio
	for op in $loops; do
		ours=$(echo "$counts" | awk -v k="ours_$op" '$1 == k { print $2 }')
		libc=$(echo "$counts" | awk -v k="libc_$op" '$1 == k { print $2 }')
		if [ -z "$ours" ] || [ -z "$libc" ]; then
			echo "  $op: not counted"
			continue
		fi
		label="timerfd_$op"
		[ "$op" = pair ] && label="settime + gettime pair"
		printf '  %-30s %10s %10s %8.2f\n' "$label" "$ours" "$libc" "$(echo "$ours / $libc" | bc -l)"
	done
}

table "$(uname -m), $(LIBTIMERFD_BACKEND=kernel "$bench" --instruction-loops 1 | sed 's/.*(//; s/)//'), callgrind" \
	"$(callgrind_counts "$bench" 10000)"
# The entry points alone: callgrind's own count per function, the loop left out.
callgrind_annotate "$work/cg" 2>/dev/null | awk '
	/:(__)?timerfd_[gs]ettime(64)? \[/ {
		n = $1; gsub(",", "", n)
		who = $0 ~ /libc\.so/ ? "C library" : "libtimerfd"
		fn = $0; sub(/ \[.*/, "", fn); sub(/.*:/, "", fn)
		printf "  %-30s %10.1f  (%s, the function alone)\n", fn, n / 10000 / 2, who
	}' | sort
echo "  (each function runs in two loops of 10000 calls: its own and the pair's)"

if [ -z "$i686" ]; then
	exit 0
fi
if [ -f "$i686/why" ]; then
	echo "i686: skipped: $(cat "$i686/why")"
	exit 0
fi
for variant in timerfd-bench timerfd-bench-time64; do
	bin=$i686/build/bench/$variant
	case $variant in *time64) what="_TIME_BITS=64" ;; *) what="32-bit time_t" ;; esac
	if why=$(sh "$here/i686.sh" native "$i686"); then
		table "i686, $what, callgrind (natively)" "$(callgrind_counts "$bin" 10000)"
	elif command -v qemu-i386-static >/dev/null 2>&1 && command -v gdb >/dev/null 2>&1; then
		table "i686, $what: $why; counted under qemu-i386 by gdb (no vDSO there: int \$0x80)" \
			"$(gdb_counts "$bin" 50)"
	else
		echo "i686, $what: skipped: $why, and no qemu-i386-static with gdb to count instead"
	fi
done
