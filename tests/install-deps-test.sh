#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: install-deps.sh (the Quick start's, make deps' and CI's installer) against a
# stand-in apt-get: it goes on after apt-get update fails every time, and stops, naming the
# packages, only when one cannot be installed.
set -eu
: "${top_srcdir:=.}"
script=$top_srcdir/install-deps.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# The stand-in: logs each call; "update" fails while $work/update-fails holds a number > 0
# (one less each time); a package named in $work/missing is found nowhere.
cat >"$work/apt-get" <<'EOF'
#!/bin/sh
work=${0%/*}
echo "apt-get $*" >>"$work/log"
if [ "$1" = update ]; then
	left=$(cat "$work/update-fails")
	if [ "$left" -gt 0 ]; then
		echo $((left - 1)) >"$work/update-fails"
		echo "E: Failed to fetch http://deb.example/dists/x/InRelease (stand-in)" >&2
		exit 100
	fi
	exit 0
fi
for p; do
	if grep -qx -- "$p" "$work/missing"; then
		echo "E: Unable to locate package $p" >&2
		exit 100
	fi
done
exit 0
EOF
# dpkg: logs each call; "dpkg -s P" finds P installed only if $work/installed names it.
cat >"$work/dpkg" <<'EOF'
#!/bin/sh
work=${0%/*}
echo "dpkg $*" >>"$work/log"
[ "$1" != -s ] || grep -qx -- "$2" "$work/installed"
EOF
: >"$work/installed"
chmod +x "$work/apt-get" "$work/dpkg"

# Runs the script with the stand-ins: @1 failures of update to come, @2 a missing package
# (or ""), then the script's arguments. Its status in $status, its output in $work/out.
run() {
	echo "$1" >"$work/update-fails"
	printf '%s\n' "$2" >"$work/missing"
	shift 2
	: >"$work/log"
	# shellcheck disable=SC2034 # read by the conditions check() evaluates
	status=0
	INSTALL_DEPS_APT_GET=$work/apt-get INSTALL_DEPS_DPKG=$work/dpkg INSTALL_DEPS_DELAY=0 \
		INSTALL_DEPS_TRIES=3 bash "$script" "$@" >"$work/out" 2>&1 || status=$?
}
check() {
	if eval "$2"; then echo "ok: $1"; else
		echo "FAIL: $1"
		sed 's/^/  | /' "$work/out" "$work/log"
		fail=1
	fi
}
updates() { grep -c '^apt-get update' "$work/log" || true; }

run 0 "" --all
check "all is installed when every index downloads" \
	'[ $status -eq 0 ] && [ "$(updates)" -eq 1 ] && grep -q "install -y -q .* check:arm64" "$work/log" &&
	 grep -q "install -y -q --no-install-recommends qemu-system-x86" "$work/log" &&
	 grep -q "^dpkg --add-architecture i386" "$work/log"'

run 1 "" --all
check "a failed update is tried again, once enough" '[ $status -eq 0 ] && [ "$(updates)" -eq 2 ]'

run 100 "" --all
check "an update failing every time: goes on after 3 tries and installs" \
	'[ $status -eq 0 ] && [ "$(updates)" -eq 3 ] && grep -q "going on with the package indexes there are" "$work/out" &&
	 grep -q "^apt-get install -y -q .*valgrind" "$work/log"'

run 100 "musl-dev:i386" --all
check "a package that cannot be installed fails the run, named alone" \
	'[ $status -ne 0 ] && grep -qx "install-deps: cannot install: musl-dev:i386" "$work/out"'

run 100 "linux-image-cloud-arm64:arm64" --all
check "a kernel make check-vm downloads, missing from the lists, fails the run, named" \
	'[ $status -ne 0 ] && grep -qx "install-deps: not in apt.s package lists (make check-vm downloads them): linux-image-cloud-arm64:arm64" "$work/out"'

bash "$script" --list --all >"$work/installed"
run 100 "" --all
check "everything installed already: no update, no install" \
	'[ $status -eq 0 ] && [ "$(updates)" -eq 0 ] && ! grep -q "^apt-get install" "$work/log" &&
	 grep -q "every package is installed already" "$work/out"'
run 0 "linux-image-cloud-amd64" --all
check "everything installed, a kernel missing from the lists: they are updated, then it is named" \
	'[ $status -ne 0 ] && [ "$(updates)" -eq 1 ] && grep -q "downloads them): linux-image-cloud-amd64$" "$work/out"'
: >"$work/installed"

run 0 "qemu-system-arm"
check "the Quick start's list leaves out what only --all needs" \
	'[ $status -eq 0 ] && ! grep -q "qemu\|add-architecture" "$work/log" &&
	 grep -q "^apt-get install -y -q gcc g++ make autoconf automake libtool pkgconf check$" "$work/log"'

# The list comes from tests/cross/targets: each target run under qemu has its compiler.
list=$(bash "$script" --list --all)
missed=0
for t in $(awk '$1 !~ /^#/ && $2 == "run" { print $1 }' "$top_srcdir/tests/cross/targets"); do
	echo "$list" | grep -qx "gcc-$t" || { echo "FAIL: --list --all lacks gcc-$t"; missed=1; }
done
[ $missed -eq 0 ] && echo "ok: --list --all names a compiler for each target run under qemu"
[ $missed -eq 0 ] || fail=1
exit $fail
