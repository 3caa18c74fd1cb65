#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every argument of vm/run.sh, vm/ab.sh, vm/bisect-step.sh and
# vm/cid_batches.sh is checked before anything is fetched, built or
# booted: one line on stderr, exit 2 (255 for the bisect step, so that
# git bisect run stops). And no script deletes what it did not make: an
# output directory is cleared only when it is the same script's earlier
# output, and a bisection's baseline is never written over.
# Nothing here fetches, builds or boots: qemu and apt-get are stand-ins
# that record a call, and a kernel build would find no disk space.
. "$(dirname "$0")/lib.sh"

plan 83
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

# sums DIR: what is in DIR, file by file
sums() {
	(cd "$1" && find . -type f -exec sha256sum {} + | sort)
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
# a baseline
B=$TMP/base
mkdir -p "$B"
cp tests/data/base.json "$B/"

# vm/bisect-step.sh: every argument before the build
BS=vm/bisect-step.sh
expect 255 "bisect-step: --threshold abc" "^$BS: --threshold: 'abc' is not a percentage" \
	$BS --baseline "$B" --tree "$K" --threshold abc
expect 255 "bisect-step: --threshold-abs x" "^$BS: --threshold-abs: 'x' is not" \
	$BS --baseline "$B" --tree "$K" --threshold-abs x
expect 255 "bisect-step: --metric nosuch" "^$BS: metric nosuch is in no result of the baseline" \
	$BS --baseline "$B" --tree "$K" --metric nosuch
# an IPI source the baseline never saw, a member of its complete family:
# past the self-check, refused at the next check (--out over the baseline)
mkdir -p "$TMP/watch"
cp tests/data/watch-a.json "$TMP/watch/"
expect 255 "bisect-step: --metric of a source the baseline never saw" "^$BS: --out '$TMP/watch/out' and the baseline" \
	$BS --baseline "$TMP/watch" --tree "$K" --metric ipis_from_generic_exec_single_per_s \
	--threshold-abs 1 --out "$TMP/watch/out"
# a baseline that cannot be judged even against itself: every step
# would build and boot only to answer 125
mkdir -p "$TMP/interrupted"
python3 - "$B/base.json" "$TMP/interrupted/base.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"].update(interrupted=True, signal=15, exit_code=143)
json.dump(d, open(sys.argv[2], "w"))
PY
expect 255 "bisect-step: an interrupted baseline" "^$BS: baseline '$TMP/interrupted' cannot be judged even against itself: .*interrupted" \
	$BS --baseline "$TMP/interrupted" --tree "$K" --out "$TMP/step-interrupted"
[ ! -e "$TMP/step-interrupted" ]; ok $? "bisect-step: ... refused before the build"
expect 255 "bisect-step: --threshold and --threshold-abs" "do not go together" \
	$BS --baseline "$B" --tree "$K" --threshold 5 --threshold-abs 1
expect 255 "bisect-step: --metric with --save-baseline" "--save-baseline takes none of them" \
	$BS --save-baseline "$TMP/new-base" --tree "$K" --metric syscall_ns
mkdir -p "$TMP/notgit"
expect 255 "bisect-step: --tree that is no git tree" "^$BS: --tree '$TMP/notgit' is not in a git tree" \
	$BS --baseline "$B" --tree "$TMP/notgit"
expect 255 "bisect-step: run where no git tree is" "^$BS: the current directory $TMP/notgit is not in a git tree" \
	sh -c "cd '$TMP/notgit' && '$TOP/$BS' --baseline '$B'"
expect 255 "bisect-step: --tree that does not exist" "^$BS: --tree '$TMP/none': no such directory" \
	$BS --baseline "$B" --tree "$TMP/none"
mkdir -p "$TMP/gitnok"
git -C "$TMP/gitnok" init -q && echo x >"$TMP/gitnok/x" && git -C "$TMP/gitnok" add x &&
	git -C "$TMP/gitnok" -c user.name=t -c user.email=t@t commit -q -m x
expect 255 "bisect-step: a git tree that is no kernel tree" "is not a kernel source tree" \
	$BS --baseline "$B" --tree "$TMP/gitnok"
expect 255 "bisect-step: --cpus 0" "^$BS: --cpus must be a whole number from 1 to 1024, not '0'" \
	$BS --baseline "$B" --tree "$K" --cpus 0
expect 255 "bisect-step: --accel foo" "^$BS: --accel must be kvm, tcg or auto, not 'foo'" \
	$BS --baseline "$B" --tree "$K" --accel foo
expect 255 "bisect-step: --timeout 08" "^$BS: --timeout must be a whole number of seconds from 10 to 604800, not '08'" \
	$BS --baseline "$B" --tree "$K" --timeout 08
expect 255 "bisect-step: a missing --config fragment" "^$BS: --config '$TMP/none.config': no such file" \
	$BS --baseline "$B" --tree "$K" --config "$TMP/none.config"
expect 255 "bisect-step: -o in run.sh's arguments" "^$BS: run.sh arguments: no -o" \
	$BS --baseline "$B" --tree "$K" -- -t timer_softirq -o "$TMP/x"

# vm/bisect-step.sh --out: what it did not make is never deleted
before=$(sums "$B")
expect 255 "bisect-step: --out equal to the baseline" "^$BS: --out '$B' and the baseline '$B' overlap" \
	$BS --baseline "$B" --tree "$K" --out "$B"
[ "$(sums "$B")" = "$before" ]; ok $? "bisect-step: the baseline is intact"
expect 255 "bisect-step: --out inside the baseline" "and the baseline '$B' overlap" \
	$BS --baseline "$B" --tree "$K" --out "$B/step"
expect 255 "bisect-step: --out holding the baseline" "and the baseline '$B' overlap" \
	$BS --baseline "$B" --tree "$K" --out "$TMP"
[ "$(sums "$B")" = "$before" ] && [ ! -e "$B/step" ]
ok $? "bisect-step: the baseline is intact, nothing made in it"
mkdir -p "$TMP/mine"
echo "keep me" >"$TMP/mine/notes.txt"
expect 255 "bisect-step: --out holding someone's file" "^$BS: --out '$TMP/mine' is not empty and not an earlier output of $BS --out" \
	$BS --baseline "$B" --tree "$K" --out "$TMP/mine"
[ "$(cat "$TMP/mine/notes.txt")" = "keep me" ]; ok $? "bisect-step: the unrelated file is still there"
expect 255 "bisect-step: --save-baseline holding someone's file" "^$BS: --save-baseline '$TMP/mine' is not empty and not an earlier output of $BS --save-baseline" \
	$BS --save-baseline "$TMP/mine" --tree "$K"
[ "$(cat "$TMP/mine/notes.txt")" = "keep me" ]; ok $? "bisect-step: ... still there"
expect 255 "bisect-step: --save-baseline equal to --out" "overlap" \
	$BS --save-baseline "$TMP/sb" --tree "$K" --out "$TMP/sb"
# an earlier --out of the step is cleared, and then the build stops
# at once (no disk space): nothing is built
O=$TMP/step
mkdir -p "$O/suite"
echo "vm/bisect-step.sh --out" >"$O/.isolbench-vm-out"
echo '{}' >"$O/suite/stale.json"
$BS --baseline "$B" --tree "$K" --out "$O" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 255 ] && grep -qE "no disk space for a kernel build|busybox|cpio" "$O/run.err" 2>/dev/null
ok $? "bisect-step: an earlier --out is taken, the build stopped before compiling (rc=$rc: $(tail -n1 "$TMP/err"))"
[ ! -e "$O/suite/stale.json" ] && [ "$(cat "$O/.isolbench-vm-out" 2>/dev/null)" = "vm/bisect-step.sh --out" ]
ok $? "bisect-step: ... cleared of the earlier step's results, and marked as the step's"
[ "$(sums "$B")" = "$before" ]; ok $? "bisect-step: the baseline is still intact"

# vm/ab.sh: every argument before the first build or boot
AB=vm/ab.sh
KS="--kernel $BZ"
expect 2 "ab: --labels a,a" "^$AB: --labels 'a,a': the two sides need two names" \
	$AB --base "$KS" --patched "$KS" --labels a,a -o "$TMP/ab1"
expect 2 "ab: --labels .,b" "^$AB: --labels must be two names" \
	$AB --base "$KS" --patched "$KS" --labels .,b -o "$TMP/ab1"
expect 2 "ab: --labels A-1,b" "A-N and B-N name the rounds' directories" \
	$AB --base "$KS" --patched "$KS" --labels A-1,b -o "$TMP/ab1"
expect 2 "ab: --rounds 08" "^$AB: --rounds must be a whole number from 1 to 50, not '08'" \
	$AB --base "$KS" --patched "$KS" --rounds 08 -o "$TMP/ab1"
expect 2 "ab: --rounds of 20 digits" "^$AB: --rounds must be a whole number from 1 to 50" \
	$AB --base "$KS" --patched "$KS" --rounds 99999999999999999999 -o "$TMP/ab1"
expect 2 "ab: --cpus 0" "^$AB: --cpus must be a whole number from 1 to 1024, not '0'" \
	$AB --base "$KS" --patched "$KS" --cpus 0 -o "$TMP/ab1"
expect 2 "ab: --accel foo" "^$AB: --accel must be kvm, tcg or auto, not 'foo'" \
	$AB --base "$KS" --patched "$KS" --accel foo -o "$TMP/ab1"
expect 2 "ab: --max-cpus below --cpus" "^$AB: --max-cpus must be a whole number from --cpus \(8\) to 1024, not '4'" \
	$AB --base "$KS" --patched "$KS" --cpus 8 --max-cpus 4 -o "$TMP/ab1"
expect 2 "ab: --mem 64" "^$AB: --mem must be a whole number of MB from 128" \
	$AB --base "$KS" --patched "$KS" --mem 64 -o "$TMP/ab1"
expect 2 "ab: --timeout 5" "^$AB: --timeout must be a whole number of seconds from 10" \
	$AB --base "$KS" --patched "$KS" --timeout 5 -o "$TMP/ab1"
expect 2 "ab: --cmdline isolating every vCPU" "isolates all 4 vCPUs: no housekeeping CPU left" \
	$AB --base "$KS" --patched "$KS" --cmdline "nohz_full=0-3" -o "$TMP/ab1"
expect 2 "ab: -o in run.sh's arguments" "^$AB: run.sh arguments: no -o" \
	$AB --base "$KS" --patched "$KS" -o "$TMP/ab1" -- -o /tmp/x
expect 2 "ab: a --base kernel that does not exist" "^$AB: --base: kernel image '$TMP/none' does not exist" \
	$AB --base "--kernel $TMP/none" --patched "$KS" -o "$TMP/ab1"
expect 2 "ab: a --base Debian kernel apt does not know" "^$AB: --base: no Debian package linux-image-6.99-amd64" \
	$AB --base "--debian 6.99" --patched "$KS" -o "$TMP/ab1"
expect 2 "ab: a missing --patch in --patched" "^$AB: --patched: --patch '$TMP/none.patch': no such file" \
	$AB --base "$KS" --patched "--build $K --patch $TMP/none.patch" -o "$TMP/ab1"
expect 2 "ab: --patch without --build" "--patch and --config need --build" \
	$AB --base "--kernel $BZ --patch x" --patched "$KS" -o "$TMP/ab1"
expect 2 "ab: --arch sparc" "^$AB: --arch must be x86_64 or arm64, not 'sparc'" \
	$AB --base "$KS" --patched "$KS" --arch sparc -o "$TMP/ab1"
expect 2 "ab: --arch arm64 with a kernel to --build" "^$AB: --base: --build makes x86_64 kernels only; arm64 guests boot --debian or --kernel" \
	$AB --base "--build $K" --patched "--debian 6.12" --arch arm64 -o "$TMP/ab1"
expect 2 "ab: --arch arm64 with an x86 bzImage" "^$AB: --base: '$BZ' is not an arm64 Image" \
	$AB --base "$KS" --patched "--debian 6.12" --arch arm64 -o "$TMP/ab1"
expect 2 "ab: -o holding someone's file" "^$AB: -o '$TMP/mine' is not empty and not an earlier output of $AB -o" \
	$AB --base "$KS" --patched "$KS" -o "$TMP/mine"
[ "$(cat "$TMP/mine/notes.txt")" = "keep me" ]; ok $? "ab: the unrelated file is still there"

# vm/cid_batches.sh: each number in its range, before the build
CB=vm/cid_batches.sh
expect 2 "cid_batches: -D 0" "^$CB: --duration must be a whole number of seconds from 1 to 240, not '0'" \
	$CB -D 0 -o "$TMP/cb1"
expect 2 "cid_batches: -D 99999999" "^$CB: --duration must be a whole number of seconds from 1 to 240" \
	$CB -D 99999999 -o "$TMP/cb1"
expect 2 "cid_batches: --cpus 2000 --max-cpus 99999" "^$CB: --cpus must be a whole number from 1 to 1024, not '2000'" \
	$CB --cpus 2000 --max-cpus 99999 -o "$TMP/cb1"
expect 2 "cid_batches: --max-cpus 99999" "^$CB: --max-cpus must be a whole number from --cpus \(4\) to 1024, not '99999'" \
	$CB --max-cpus 99999 -o "$TMP/cb1"
expect 2 "cid_batches: --max-cpus above the built kernels' NR_CPUS" "^$CB: --max-cpus 512: the kernels built here have NR_CPUS=256" \
	$CB --max-cpus 512 -o "$TMP/cb1"
expect 2 "cid_batches: --period-us 5" "^$CB: --period-us must be a whole number of microseconds from 10 to 1000000" \
	$CB --period-us 5 -o "$TMP/cb1"
expect 2 "cid_batches: a batch of 20 digits" "^$CB: --batches: '99999999999999999999' is not a batch size \(1 to 256\)" \
	$CB --batches 99999999999999999999 -o "$TMP/cb1"
expect 2 "cid_batches: a batch given twice" "^$CB: --batches: 8 is given twice" \
	$CB --batches "8 8" -o "$TMP/cb1"
expect 2 "cid_batches: a workload given twice" "^$CB: --workloads: cyclic is given twice" \
	$CB --workloads "cyclic cyclic" -o "$TMP/cb1"
expect 2 "cid_batches: --accel foo" "^$CB: --accel must be kvm, tcg or auto, not 'foo'" \
	$CB --accel foo -o "$TMP/cb1"
expect 2 "cid_batches: --src that is no kernel tree" "^$CB: --src: --build '$TMP/notgit' is not a kernel source tree" \
	$CB --src "$TMP/notgit" -o "$TMP/cb1"
expect 2 "cid_batches: --base-kernel that is no bzImage" "^$CB: '/bin/sh' is not an x86 bzImage" \
	$CB --base-kernel /bin/sh -o "$TMP/cb1"
expect 2 "cid_batches: -o holding someone's file" "^$CB: -o '$TMP/mine' is not empty and not an earlier output of $CB -o" \
	$CB -o "$TMP/mine"
[ "$(cat "$TMP/mine/notes.txt")" = "keep me" ]; ok $? "cid_batches: the unrelated file is still there"

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

# --arch: the guest's architecture, checked with the rest
expect 2 "run: --arch riscv" "^$RS: --arch must be x86_64 or arm64, not 'riscv'" \
	$RS --arch riscv --debian 6.12
expect 2 "run: --arch arm64 with --build" "^$RS: --build makes x86_64 kernels only; an arm64 guest boots --debian or --kernel" \
	$RS --arch arm64 --build "$K"
expect 2 "run: --arch arm64 --accel kvm on an x86 host" "^$RS: --accel kvm: an arm64 guest cannot run under KVM on this x86_64 host" \
	$RS --arch arm64 --accel kvm --debian 6.12
expect 2 "run: --arch arm64 with an amd64 kernel" "^$RS: --debian 6.1.0-50-amd64 is not a kernel of the guest's architecture arm64" \
	$RS --arch arm64 --debian 6.1.0-50-amd64
expect 2 "run: --arch arm64 with a bzImage" "^$RS: '$BZ' is not an arm64 Image" \
	$RS --arch arm64 --kernel "$BZ"
expect 2 "run: --arch arm64 with --add-bin" "^$RS: --add-bin copies the host's programs, which an arm64 guest cannot run" \
	$RS --arch arm64 --kernel "$BZ" --add-bin sh
# an arm64 Image to the eye of vm/run.sh ("ARMd" at 0x38), its dry run:
# the virt board, the UART console and the virtio channel
IMG=$TMP/Image
head -c 4096 /dev/zero >"$IMG"
printf ARMd | dd of="$IMG" bs=1 seek=$((0x38)) conv=notrunc 2>/dev/null
mkdir -p "$ISOLBENCH_VM_CACHE/userland-arm64" && touch "$ISOLBENCH_VM_CACHE/userland-arm64/.ok"
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	$RS --arch arm64 --kernel "$IMG" --dry-run >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^kernel command line: console=ttyAMA0 " "$TMP/out" &&
		grep -q -- "-machine virt,gic-version=3" "$TMP/out" &&
		grep -q -- "-device virtconsole,chardev=chan" "$TMP/out" &&
		grep -q "^accelerator: tcg$" "$TMP/out" &&
		grep -q "^suite: make CROSS_COMPILE=aarch64-linux-gnu- LDFLAGS=-static install" "$TMP/out"
	ok $? "run: --arch arm64 --dry-run: the virt board, ttyAMA0, the virtio channel, TCG, the suite cross-built (rc=$rc)"
else
	skip "no aarch64-linux-gnu-gcc" "run: --arch arm64 --dry-run"
fi
rm -rf "$ISOLBENCH_VM_CACHE/userland-arm64"

[ ! -e "$GUARD/called" ]
ok $? "nothing was fetched or booted ($(head -c 200 "$GUARD/called" 2>/dev/null))"
left=$(find "$ISOLBENCH_VM_CACHE" -path '*/kbuild/*' -type f 2>/dev/null | wc -l)
[ "$left" -eq 0 ] && [ ! -d "$ISOLBENCH_VM_CACHE/src" ] && [ ! -d "$ISOLBENCH_VM_CACHE/debian" ]
ok $? "nothing was built or unpacked ($left files under kbuild/)"
diag "vm_args.t: $((SECONDS - T0)) s"
done_testing
