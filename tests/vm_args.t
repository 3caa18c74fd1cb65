#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every argument of vm/run.sh is checked before anything is fetched,
# built or booted: one line on stderr, exit 2.
# Nothing here fetches, builds or boots: qemu and apt-get are stand-ins
# that record a call, and a kernel build would find no disk space.
. "$(dirname "$0")/lib.sh"

plan 11
cd "$TOP" || exit 1
T0=$SECONDS
export ISOLBENCH_VM_CACHE=$TMP/cache ISOLBENCH_VM_MIN_FREE_MB=999999999
GUARD=$TMP/guard
mkdir -p "$GUARD"
for g in qemu-system-x86_64 apt-get; do
	printf '#!/bin/sh\necho "%s $*" >>%s/called\nexit 1\n' "$g" "$GUARD" >"$GUARD/$g"
	chmod +x "$GUARD/$g"
done
export PATH=$GUARD:$PATH QEMU=$GUARD/qemu-system-x86_64
# vm/run.sh checks for busybox and cpio before the kernel
tools=1
[ -x /bin/busybox ] && command -v cpio >/dev/null || tools=0

# expect CODE DESC PATTERN CMD...: exit CODE, one line on stderr matching PATTERN
expect() {
	local want=$1 desc=$2 pat=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$? lines
	lines=$(wc -l <"$TMP/err")
	[ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -qE -- "$pat" "$TMP/err"
	ok $? "$desc: exit $want, one line (rc=$rc, lines=$lines: $(head -c 300 "$TMP/err"))"
}

# a bzImage to the eye of vm/run.sh ("HdrS" at 0x202)
BZ=$TMP/bzImage
head -c 4096 /dev/zero >"$BZ"
printf HdrS | dd of="$BZ" bs=1 seek=$((0x202)) conv=notrunc 2>/dev/null
# a kernel git tree to the eye of kbuild's first checks, one commit
K=$TMP/linux
mkdir -p "$K/arch/x86" "$K/kernel"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n' >"$K/Makefile"
echo 'mainmenu "fake"' >"$K/Kconfig"
echo 'int a;' >"$K/kernel/a.c"
git -C "$K" init -q && git -C "$K" add -A &&
	git -C "$K" -c user.name=t -c user.email=t@t commit -q -m "a commit"
# vm/run.sh: what it checked only after fetching or building a kernel
RS=vm/run.sh
expect 2 "run: --build-failure-exit abc" "^$RS: --build-failure-exit must be a whole number from 1 to 255, not 'abc'" \
	$RS --kernel "$BZ" --build-failure-exit abc
expect 2 "run: --headers with --build" "^$RS: --headers and --modules go with --kernel or --debian" \
	$RS --build "$K" --headers "$TMP"
if [ $tools -eq 1 ]; then
	expect 2 "run: --suite that does not exist" "^$RS: suite directory '$TMP/none' has no executable run.sh" \
		$RS --debian 6.12 --suite "$TMP/none"
	expect 2 "run: --src without a Makefile" "^$RS: no Makefile in $TMP/none to build the suite" \
		$RS --debian 6.12 --src "$TMP/none"
	expect 2 "run: --add-bin of no program" "^$RS: --add-bin: 'no-such-program' not found" \
		$RS --debian 6.12 --add-bin no-such-program
	expect 2 "run: -o naming a file" "^$RS: results directory '$BZ' exists and is not a directory" \
		$RS --debian 6.12 -o "$BZ"
	expect 2 "run: --modules that does not exist" "^$RS: modules directory '$TMP/none' does not exist" \
		$RS --debian 6.12 --modules "$TMP/none"
	expect 2 "run: --headers without a Makefile" "^$RS: headers directory '$TMP' has no Makefile" \
		$RS --debian 6.12 --headers "$TMP"
	expect 2 "run: -o in run.sh's arguments" "^$RS: run.sh arguments: no --output" \
		$RS --debian 6.12 -- --output "$TMP/x"
else
	for _ in 1 2 3 4 5 6 7; do skip "no busybox or cpio" "vm/run.sh checks after the tools"; done
fi

[ ! -e "$GUARD/called" ]
ok $? "nothing was fetched or booted ($(head -c 200 "$GUARD/called" 2>/dev/null))"
left=$(find "$ISOLBENCH_VM_CACHE" -path '*/kbuild/*' -type f 2>/dev/null | wc -l)
[ "$left" -eq 0 ] && [ ! -d "$ISOLBENCH_VM_CACHE/src" ] && [ ! -d "$ISOLBENCH_VM_CACHE/debian" ]
ok $? "nothing was built or unpacked ($left files under kbuild/)"
diag "vm_args.t: $((SECONDS - T0)) s"
done_testing
