#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm/run.sh's runs saved to be rerun and judged again, without a kernel:
# --dry-run prints what a run would do and starts no qemu; a run whose
# qemu is a stand-in playing vm/guest-init.sh's end of the channel saves
# its qemu command as a shell script naming the kernel and the
# initramfs; --judge gives a saved run's verdict and exit status again,
# from its channel, and a run that failed fails again.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
if [ ! -x /bin/busybox ] || ! command -v cpio >/dev/null; then
	echo "1..0 # SKIP no busybox or cpio (vm/run.sh needs them)"
	exit 0
fi
plan 42
RS=vm/run.sh
export ISOLBENCH_VM_CACHE=$TMP/cache TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR"

# qemu: a stand-in that records each call in $CALLS; with $FAKE_ARGV
# set it writes its arguments there, one a line, and stops; else it
# plays the guest: the channel's lines with the nonce the initramfs
# carries, run.sh's KTAP, the results, and the exit line with
# $FAKE_STATUS ("none": the guest panics after its KTAP).
CALLS=$TMP/qemu-calls
QEMU=$TMP/qemu
cat >"$QEMU" <<'EOF'
#!/bin/bash
echo "$*" >>"$CALLS"
FAKE_STATUS=${FAKE_STATUS:-0}
if [ "$1" = --version ]; then
	echo "QEMU emulator version 0 (a stand-in)"
	exit 0
fi
if [ -n "${FAKE_ARGV:-}" ]; then
	printf '%s\n' "$@" >"$FAKE_ARGV"
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	-initrd) initrd=$2 ;;
	-chardev)
		case $2 in
		*,id=con,path=*) con=${2#*,path=} ;;
		*,id=chan,path=*) chan=${2#*,path=} ;;
		esac ;;
	esac
	shift
done
nonce=$(gzip -dc "$initrd" | cpio -i --quiet --to-stdout etc/isolbench-vm.conf |
	sed -n 's/^NONCE=//p')
say() { echo "@@isolbench-vm@@ $nonce $*" >>"$chan"; }
echo "Linux version 6.12.0 (a stand-in)" >>"$con"
say boot 6.12.0
say cpu nohz_full=2-3
say ktap-begin
res=$(mktemp -d)
word=ok
[ "$FAKE_STATUS" = 0 ] || word="not ok"
printf 'TAP version 13\n1..1\n%s 1 selftests: isolbench: getpid_bench\n' "$word" |
	tee "$res/ktap.txt" >>"$chan"
# FAKE_JSON: a result to bring back; FAKE_SLEEP: seconds the guest runs
if [ -n "${FAKE_JSON:-}" ]; then
	# (each guest's result its own: the time it finished)
	mkdir -p "$res/suite" &&
		sed "s/\"finished\": *\"[^\"]*\"/\"finished\": \"$(date -u +%FT%T.%NZ)\"/" \
			"$FAKE_JSON" >"$res/suite/getpid_bench.json"
fi
# FAKE_RESULTS: saved runs, DIR/NAME/suite/: the guest whose results
# directory is NAME (OUT/NAME/console.log) brings that suite/ back;
# FAKE_SLEEPS "NAME=SECS ...": how long the guest of NAME runs
name=$(basename "$(dirname "$con")")
if [ -n "${FAKE_RESULTS:-}" ] && [ -d "$FAKE_RESULTS/$name/suite" ]; then
	cp -r "$FAKE_RESULTS/$name/suite" "$res/"
fi
secs=${FAKE_SLEEP:-0}
for s in ${FAKE_SLEEPS:-}; do
	[ "${s%%=*}" != "$name" ] || secs=${s#*=}
done
# FAKE_WAITS "NAME=OTHER ...": the guest of NAME runs until the guest of
# OTHER has started (at most 60 s); NAME any: every guest; OTHER any:
# until another guest has run beside it (started before it ended)
other=
for s in ${FAKE_WAITS:-}; do
	[ "${s%%=*}" != "$name" ] && [ "${s%%=*}" != any ] || other=${s#*=}
done
joined() {	# whether $other has started (any: run beside this guest)
	awk -v me=$$ -v other="$other" '
		$1 == "start" { running++; if ($3 == me) mine = 1; if ($4 == other) seen = 1 }
		$1 == "end" { running-- }
		other == "any" && mine && running >= 2 { seen = 1 }
		END { exit !seen }' "$CALLS"
}
echo "start $(date +%s.%N) $$ $name" >>"$CALLS"
# (stopped, as qemu is, with its sleep: the trap set before the sleep starts)
sleep_pid=
trap 'kill $sleep_pid 2>/dev/null; exit 143' TERM
sleep "$secs" &
sleep_pid=$!
wait $sleep_pid
t=0
while [ -n "$other" ] && ! joined && [ $t -lt 600 ]; do
	sleep 0.1 &
	sleep_pid=$!
	wait $sleep_pid
	t=$((t + 1))
done
trap - TERM
echo "end $(date +%s.%N) $$" >>"$CALLS"
if [ "$FAKE_STATUS" = none ]; then
	echo "Kernel panic - not syncing: a stand-in" >>"$con"
	rm -rf "$res"
	exit 0
fi
say ktap-end "$FAKE_STATUS"
say results-begin
tar -C "$res" -czf - . | base64 >>"$chan"
say results-end
say exit "$FAKE_STATUS"
rm -rf "$res"
EOF
chmod +x "$QEMU"
export QEMU CALLS
# a bzImage to the eye of vm/run.sh ("HdrS" at 0x202)
BZ=$TMP/bzImage
head -c 4096 /dev/zero >"$BZ"
printf HdrS | dd of="$BZ" bs=1 seek=$((0x202)) conv=notrunc 2>/dev/null
# a suite: run.sh alone (the stand-in qemu plays it)
SUITE=$TMP/suite
mkdir -p "$SUITE"
printf '#!/bin/sh\nexit 0\n' >"$SUITE/run.sh"
chmod +x "$SUITE/run.sh"
MACHINE=(--accel tcg --suite "$SUITE")

# arg_after FILE OPTION: the argument after OPTION in FILE's lines
arg_after() {
	awk -v o="$2" 'prev == o { print; exit } { prev = $0 }' "$1"
}

# --dry-run: what a run would do, with nothing started, made or fetched
$RS --dry-run --kernel "$BZ" "${MACHINE[@]}" -o "$TMP/dry" -- -t getpid_bench -- --quick \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^kernel: kernel $BZ (--kernel)$" "$TMP/out" &&
	grep -qx 'in the guest: ./run.sh -o /results/suite -t getpid_bench -- --quick' "$TMP/out" &&
	grep -q '^kernel command line: console=ttyS0 .*isolbench.vm=tcg nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3$' "$TMP/out"
ok $? "dry-run: exit 0, the kernel, run.sh in the guest and the kernel command line (rc=$rc: $(head -c 300 "$TMP/err"))"
sed -n '/^qemu command:$/,$p' "$TMP/out" | tail -n +2 >"$TMP/dry-cmd"
bash -n "$TMP/dry-cmd" && head -n1 "$TMP/dry-cmd" | grep -q "^$QEMU " &&
	grep -q "^	-kernel $BZ \\\\$" "$TMP/dry-cmd" &&
	grep -q "^	-initrd $TMPDIR/isolbench-vm.XXXXXX/initramfs.cpio.gz \\\\$" "$TMP/dry-cmd" &&
	grep -q "path=$TMP/dry/console.log" "$TMP/dry-cmd"
ok $? "dry-run: the qemu command, as shell, with the kernel, the initramfs and the results"
sed 's/^/#   /' "$TMP/dry-cmd"
[ ! -e "$CALLS" ] && [ ! -e "$TMP/dry" ] && [ -z "$(ls -A "$TMPDIR")" ]
ok $? "dry-run: no qemu started ($(head -c 100 "$CALLS" 2>/dev/null)), no results or work directory made"
# a kernel to build: said, not built
K=$TMP/linux
mkdir -p "$K/arch/x86" "$K/kernel"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n' >"$K/Makefile"
echo 'mainmenu "stand-in"' >"$K/Kconfig"
git -C "$K" init -q && git -C "$K" add -A &&
	git -C "$K" -c user.name=t -c user.email=t@t commit -q -m "a commit"
$RS --dry-run --build "$K" "${MACHINE[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^kernel: would build $K (make -j[0-9]*) into $ISOLBENCH_VM_CACHE/kernels/[0-9a-f]\{16\}$" "$TMP/out" &&
	grep -q "^	-kernel $ISOLBENCH_VM_CACHE/kernels/[0-9a-f]\{16\}/bzImage" "$TMP/out" &&
	[ ! -e "$ISOLBENCH_VM_CACHE/kbuild" ] && [ ! -e "$ISOLBENCH_VM_CACHE/kernels" ]
ok $? "dry-run --build: the kernel it would build and where, nothing built (rc=$rc: $(grep '^kernel:' "$TMP/out"; head -c 200 "$TMP/err"))"
$RS --dry-run --build "$K" --build-only >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q '^kernel: would build' "$TMP/out"
ok $? "dry-run --build-only: the kernel alone (rc=$rc)"
# a Debian source not yet fetched: the version apt would fetch, named
pver=$(apt-cache show linux-source-6.12 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
if [ -z "$pver" ]; then
	skip "apt knows no linux-source-6.12" "dry-run --build debian:6.12: the version it would fetch"
else
	$RS --dry-run --build debian:6.12 --build-only >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -qF "kernel: would fetch linux-source-6.12 $pver (apt-get download), unpack it into $ISOLBENCH_VM_CACHE/src/linux-source-6.12-$pver," "$TMP/out" &&
		[ ! -e "$ISOLBENCH_VM_CACHE/src" ]
	ok $? "dry-run --build debian:6.12: the version it would fetch ($pver), nothing fetched (rc=$rc: $(head -c 200 "$TMP/out"))"
fi
# a Debian kernel in the cache
REL=6.12.99+deb12-amd64
mkdir -p "$ISOLBENCH_VM_CACHE/debian/$REL/root/boot"
cp "$BZ" "$ISOLBENCH_VM_CACHE/debian/$REL/root/boot/vmlinuz-$REL"
touch "$ISOLBENCH_VM_CACHE/debian/$REL/.image-ok"
$RS --dry-run --debian "$REL" --no-headers "${MACHINE[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^kernel: Debian kernel $REL from the cache ($ISOLBENCH_VM_CACHE/debian/$REL)$" "$TMP/out" &&
	grep -q "^	-kernel $ISOLBENCH_VM_CACHE/debian/$REL/root/boot/vmlinuz-$REL \\\\$" "$TMP/out" &&
	grep -q "^results: $TOP/vm/out/[0-9-]*-$REL$" "$TMP/out"
ok $? "dry-run --debian: a cache hit, its image, the default results directory (rc=$rc: $(grep '^kernel:' "$TMP/out"; head -c 200 "$TMP/err"))"
# one apt knows and the cache does not hold: what would be fetched
apt_rel=$(apt-cache pkgnames linux-image-6.12 2>/dev/null | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
	sort -V | tail -n1)
if [ -n "$apt_rel" ]; then
	$RS --dry-run --debian 6.12 "${MACHINE[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^kernel: would fetch $apt_rel (apt-get download) into $ISOLBENCH_VM_CACHE; would fetch linux-headers-" "$TMP/out" &&
		[ ! -e "$ISOLBENCH_VM_CACHE/debs" ]
	ok $? "dry-run --debian 6.12: what it would fetch, nothing fetched (rc=$rc: $(grep '^kernel:' "$TMP/out"; head -c 200 "$TMP/err"))"
else
	skip "apt knows no linux-image-6.12.*+deb12-amd64" "dry-run --debian 6.12: what it would fetch"
fi
[ ! -e "$CALLS" ] && [ -z "$(ls -A "$TMPDIR")" ]
ok $? "dry-run: still no qemu started and no work directory made"
# what goes with neither
expect 2 "dry-run with --keep" "^$RS: --dry-run makes no work directory for --keep to keep$" \
	$RS --dry-run --keep --kernel "$BZ" "${MACHINE[@]}"
expect 2 "dry-run with a bad option all the same" "^$RS: --cpus must be a whole number from 1 to 1024, not '0'" \
	$RS --dry-run --kernel "$BZ" --cpus 0

# a run: its qemu command saved, to be rerun by hand with --keep
APPEND="vm_judge.quote=\"a b\" vm_judge.apostrophe=it's"
$RS --kernel "$BZ" "${MACHINE[@]}" --keep --append "$APPEND" -o "$TMP/pass" \
	>"$TMP/pass.out" 2>"$TMP/pass.err" </dev/null
rc=$?
[ $rc -eq 0 ] && grep -qx 'status 0' "$TMP/pass/vm-info.txt" &&
	grep -qx 'ok 1 selftests: isolbench: getpid_bench' "$TMP/pass/ktap.txt"
ok $? "a run of the stand-in guest passes (rc=$rc: $(tail -n 3 "$TMP/pass.err"))"
C=$TMP/pass/qemu-cmd.sh
sed 's/^/#   /' "$C"
sh -n "$C" && bash -n "$C" && grep -q '^# initramfs: .*(kept with --keep)$' "$C"
ok $? "qemu-cmd.sh parses as shell; its header says the initramfs is kept"
: >"$CALLS"
FAKE_ARGV=$TMP/argv sh "$C"
kernel=$(arg_after "$TMP/argv" -kernel) initrd=$(arg_after "$TMP/argv" -initrd)
[ "$(head -n1 "$CALLS" | cut -d' ' -f1)" = -nodefaults ] && [ "$kernel" = "$BZ" ] &&
	gzip -dc "$initrd" | cpio -t --quiet 2>/dev/null | grep -qx init
ok $? "qemu-cmd.sh runs qemu on the kernel and the kept initramfs (-kernel $kernel -initrd $initrd)"
[ "cmdline $(arg_after "$TMP/argv" -append)" = "$(grep '^cmdline ' "$TMP/pass/vm-info.txt")" ] &&
	grep -q 'vm_judge.quote="a b" vm_judge.apostrophe=it'"'"'s$' "$TMP/argv"
ok $? "qemu-cmd.sh: the kernel command line, quotes and spaces in it, as the run passed it"
work=$(sed -n 's/^vm\/run.sh: work directory kept: //p' "$TMP/pass.err")
[ -n "$work" ] && [ "$initrd" = "$work/initramfs.cpio.gz" ]
ok $? "the initramfs it names is in the work directory --keep kept ($work)"

# --judge: the same verdict, status and stream, from the results directory
judge_same() {	# judge_same NAME DESC: --judge of run NAME repeats it
	local rc want
	want=$(sed -n 's/^status //p' "$TMP/$1/vm-info.txt")
	[ "$want" != none ] || want=3
	$RS --judge "$TMP/$1" >"$TMP/j.out" 2>"$TMP/j.err"
	rc=$?
	[ $rc -eq "$want" ] &&
		diff <(sed -n '/^vm\/run.sh: accelerator: /,$p' "$TMP/$1.err" | grep -v ': work directory kept: ') \
			<(sed -n '/^vm\/run.sh: accelerator: /,$p' "$TMP/j.err") >"$TMP/j.diff" &&
		diff "$TMP/$1.out" "$TMP/j.out" >>"$TMP/j.diff"
	ok $? "--judge: $2 (exit $rc, recorded $want; $(head -c 300 "$TMP/j.diff"))"
	sed 's/^/#   /' "$TMP/j.err"
}
judge_same pass "the passed run again: exit 0, the same verdict lines and KTAP"
$RS --judge "$work" >"$TMP/jw.out" 2>"$TMP/jw.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$TMP/j.out" "$TMP/jw.out" && cmp -s "$TMP/j.err" "$TMP/jw.err"
ok $? "--judge of the work directory --keep kept: the same as of its results (rc=$rc)"
FAKE_STATUS=1 $RS --kernel "$BZ" "${MACHINE[@]}" -o "$TMP/fail" >"$TMP/fail.out" 2>"$TMP/fail.err" </dev/null
rc=$?
[ $rc -eq 1 ] && grep -q '^vm/run.sh: run.sh exited 1 in the guest$' "$TMP/fail.err"
ok $? "a run whose guest fails exits 1 (rc=$rc)"
judge_same fail "the failed run fails again: exit 1, run.sh's status named"
grep -q '^# initramfs: .*: removed with the work directory$' "$TMP/fail/qemu-cmd.sh" &&
	[ ! -e "$(sed -n 's/^# initramfs: \(.*\): removed .*/\1/p' "$TMP/fail/qemu-cmd.sh")" ]
ok $? "qemu-cmd.sh of a run without --keep says its initramfs is gone, and it is"
FAKE_STATUS=none $RS --kernel "$BZ" "${MACHINE[@]}" -o "$TMP/panic" >"$TMP/panic.out" 2>"$TMP/panic.err" </dev/null
rc=$?
[ $rc -eq 3 ] && grep -qx 'status none' "$TMP/panic/vm-info.txt"
ok $? "a guest that panics before its status: exit 3 (rc=$rc)"
judge_same panic "the panicked run again: exit 3, the console's end shown"
grep -q '^  | Kernel panic - not syncing: a stand-in$' "$TMP/j.err"
ok $? "--judge: ... with the panic from console.log"

# hand-made runs: what --judge reads is the channel, not the recorded status
fixture() {	# fixture NAME STATUS-LINE: a saved run, by hand
	local d=$TMP/$1
	mkdir -p "$d"
	printf 'accel tcg\nseconds 61\nstatus 0\nend guest\nnonce 0123abcd\n' >"$d/vm-info.txt"
	printf 'Linux version 6.12.0\nrun.sh: a complaint\n' >"$d/console.log"
	{
		echo "@@isolbench-vm@@ 0123abcd boot 6.12.0"
		echo "@@isolbench-vm@@ 0123abcd ktap-begin"
		printf 'TAP version 13\n1..1\nnot ok 1 selftests: isolbench: getpid_bench\n'
		echo "@@isolbench-vm@@ 0123abcd ktap-end 1"
		[ -z "$2" ] || echo "$2"
	} >"$d/channel.txt"
}
fixture hand-fail "@@isolbench-vm@@ 0123abcd exit 1"
$RS --judge "$TMP/hand-fail" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -qx 'vm/run.sh: run.sh exited 1 in the guest' "$TMP/err" &&
	grep -qx 'not ok 1 selftests: isolbench: getpid_bench' "$TMP/out" &&
	grep -qx "vm/run.sh: accelerator: tcg; 61s; results in $TMP/hand-fail" "$TMP/err" &&
	grep -qx '  | run.sh: a complaint' "$TMP/err"
ok $? "--judge of a hand-made run whose channel says exit 1 (its vm-info.txt 0): exit 1, its KTAP, summary and console (rc=$rc)"
fixture hand-none ""
$RS --judge "$TMP/hand-none" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 3 ] && grep -q 'stopped without reporting a status' "$TMP/err"
ok $? "--judge of a hand-made run without an exit line: exit 3 (rc=$rc)"
fixture hand-forged "@@isolbench-vm@@ ffffffff exit 0"
$RS --judge "$TMP/hand-forged" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 3 ]
ok $? "--judge: an exit line with another nonce is not the guest's: exit 3 (rc=$rc)"
fixture hand-timeout ""
sed -i 's/^end guest$/end timeout/' "$TMP/hand-timeout/vm-info.txt"
$RS --judge "$TMP/hand-timeout" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 3 ] && grep -q '^vm/run.sh: the guest reported no status before the timeout$' "$TMP/err"
ok $? "--judge of a run stopped at its timeout: exit 3, said (rc=$rc)"
cp -r "$TMP/pass" "$TMP/edited"
sed -i 's/\( exit \)0$/\12/' "$TMP/edited/channel.txt"
$RS --judge "$TMP/edited" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q '^vm/run.sh: run.sh exited 2 in the guest$' "$TMP/err"
ok $? "--judge of the passed run with its channel's exit line made 2: exit 2 (rc=$rc)"

# what --judge refuses: one line, exit 2
expect 2 "--judge of a directory that is no saved run" \
	"^$RS: --judge '$SUITE' is not a results directory of vm/run.sh \(no vm-info.txt\)$" \
	$RS --judge "$SUITE"
mkdir -p "$TMP/nochan"
cp "$TMP/pass/vm-info.txt" "$TMP/pass/console.log" "$TMP/nochan/"
expect 2 "--judge of results without channel.txt" \
	"^$RS: --judge '$TMP/nochan' is not a results directory of vm/run.sh \(no channel.txt\)$" \
	$RS --judge "$TMP/nochan"
cp "$TMP/pass/channel.txt" "$TMP/nochan/"
sed -i '/^nonce /d' "$TMP/nochan/vm-info.txt"
expect 2 "--judge of results whose vm-info.txt has no nonce" \
	"^$RS: --judge '$TMP/nochan' is not a results directory of vm/run.sh \(no nonce in vm-info.txt\)$" \
	$RS --judge "$TMP/nochan"
expect 2 "--judge of what does not exist" "^$RS: --judge '$TMP/none': no such directory$" \
	$RS --judge "$TMP/none"
expect 2 "--judge with another option" "^$RS: --judge takes no other option" \
	$RS --judge "$TMP/pass" --cpus 2
expect 2 "--judge with --dry-run" "^$RS: --judge takes no other option" \
	$RS --dry-run --judge "$TMP/pass"
expect 2 "--judge with run.sh arguments" "^$RS: --judge takes no other option" \
	$RS --judge "$TMP/pass" -- --quick
expect 2 "--judge without a directory" "^$RS: option --judge needs a value$" \
	$RS --judge
rm -rf "$work"

# vm/ab.sh on the stand-in: alternately, or with --together both guests
# of a round at once (one suite installed for all rounds)
# (--together: each guest runs until the other one of its round ran
# beside it, however long vm/run.sh's setup of that one takes)
ab_run() {	# ab_run OUT [--together]: two rounds, 2 s guests; rc in RC
	local secs=2 waits=
	[ "${2:-}" != --together ] || { secs=0; waits=any=any; }
	: >"$CALLS"
	FAKE_JSON=$TOP/tests/data/base.json FAKE_SLEEP=$secs FAKE_WAITS=$waits \
		vm/ab.sh --base "--kernel $BZ" \
		--patched "--kernel $BZ" --rounds 2 --accel tcg -o "$1" "${@:2}" >"$1.out" 2>"$1.err"
	RC=$?
}
# overlaps: how many guests started while another one ran
overlaps() {
	awk '$1 == "start" && running++ { n++ } $1 == "end" { running-- } END { print n + 0 }' "$CALLS"
}
ab_run "$TMP/ab-alt"
n=$(overlaps)
[ $RC -eq 0 ] && [ "$n" -eq 0 ] && [ -x "$TMP/ab-alt/suite/run.sh" ] &&
	[ "$(grep -c '^vm/ab.sh: round [12] \(base\|patched\): vm/run.sh exit 0' "$TMP/ab-alt.out")" -eq 4 ]
ok $? "vm/ab.sh: four guests one after another, one suite for all (rc=$RC, $n overlapping)"
ab_run "$TMP/ab-tog" --together
n=$(overlaps)
[ $RC -eq 0 ] && [ "$n" -eq 2 ] &&
	grep -E '^vm/ab.sh: round [12] ' "$TMP/ab-tog.out" | awk '{ printf "%s%s ", $3, $4 }' |
	grep -qx 'base:1 patched:1 base:2 patched:2 \|1base: 1patched: 2base: 2patched: ' &&
	[ -f "$TMP/ab-tog/B-2/suite/getpid_bench.json" ] && grep -q 'patched' "$TMP/ab-tog/compare.txt"
ok $? "vm/ab.sh --together: each round's two guests at once, reported A then B, compared (rc=$RC, $n overlapping: $(tail -n 3 "$TMP/ab-tog.err" | tr '\n' ' '))"

# vm/cid_batches.sh on the stand-in (--reduced without the posted
# kernel: b8, b32, off), each guest bringing back the saved run of its
# name (tests/data/cid/): one after another, or with --together two at a
# time, the oldest waited for first: b8 and b32 start together, b8 runs
# until b32 has started, b32 until off has (which starts when b8 ends);
# alone, each guest runs 3 s (off 1 s)
CB=(vm/cid_batches.sh --reduced --no-posted --batch-kernel "$BZ" --accel tcg)
cb_run() {	# cb_run OUT [ARGS]: the matrix on the stand-in; rc in RC
	local sleeps="b8-cyclic=3 b32-cyclic=3 off-cyclic=1" waits=
	[ "${2:-}" != --together ] ||
		{ sleeps=; waits="b8-cyclic=b32-cyclic b32-cyclic=off-cyclic"; }
	: >"$CALLS"
	FAKE_RESULTS=$TOP/tests/data/cid FAKE_SLEEPS=$sleeps FAKE_WAITS=$waits \
		"${CB[@]}" -o "$1" "${@:2}" >"$1.out" 2>"$1.err"
	RC=$?
}
cb_kept() {	# cb_kept OUT: each run's result and log where they belong
	local name
	for name in b8-cyclic b32-cyclic off-cyclic; do
		cmp -s "$1/$name/suite/cid_scan.json" "$TOP/tests/data/cid/$name/suite/cid_scan.json" &&
			grep -q '^vm/run.sh: accelerator: tcg' "$1/$name.log" || return 1
	done
	[ "$(compgen -G "$1/*/suite/cid_scan.json" | wc -l)" -eq 3 ]
}
cb_run "$TMP/cb-alt"
n=$(overlaps)
[ $RC -eq 0 ] && [ "$n" -eq 0 ] && cb_kept "$TMP/cb-alt" &&
	grep -q '^PASS cyclic: per-call p10 grows with the batch' "$TMP/cb-alt.out"
ok $? "vm/cid_batches.sh: three guests one after another, the results, logs and table (rc=$RC, $n overlapping: $(tail -n 3 "$TMP/cb-alt.err" | tr '\n' ' '))"
cb_run "$TMP/cb-tog" --together
n=$(overlaps)
[ $RC -eq 0 ] && [ "$n" -eq 2 ] && cb_kept "$TMP/cb-tog" &&
	[ "$(awk '$1 == "start" { last = $4 } END { print last }' "$CALLS")" = off-cyclic ] &&
	[ "$(sed -n 's/^vm\/cid_batches.sh: \([a-z0-9-]*\): vm\/run.sh exit 0 after [0-9]* s$/\1/p' "$TMP/cb-tog.err" | paste -sd' ')" = \
		"b8-cyclic b32-cyclic off-cyclic" ] &&
	cmp -s "$TMP/cb-alt/table.txt" "$TMP/cb-tog/table.txt"
ok $? "vm/cid_batches.sh --together: two guests at a time, off once b8 ended; results, logs and table as alone (rc=$RC, $n overlapping: $(tail -n 3 "$TMP/cb-tog.err" | tr '\n' ' '))"
# TERM while two guests run: both stopped (vm/run.sh stops its qemu)
: >"$CALLS"
FAKE_SLEEPS="b8-cyclic=60 b32-cyclic=60" "${CB[@]}" --together -o "$TMP/cb-term" \
	>"$TMP/cb-term.out" 2>"$TMP/cb-term.err" &
cb=$!
for _ in $(seq 300); do
	[ "$(grep -c '^start ' "$CALLS")" -lt 2 ] || break
	sleep 0.1
done
t=$SECONDS
kill -TERM $cb
wait $cb
RC=$?
gone=1
while read -r p; do
	! kill -0 "$p" 2>/dev/null || gone=0
done < <(awk '$1 == "start" { print $3 }' "$CALLS")
[ $RC -eq 143 ] && [ "$(grep -c '^start ' "$CALLS")" -eq 2 ] && [ $gone -eq 1 ] &&
	[ $((SECONDS - t)) -lt 30 ] && grep -q '^vm/cid_batches.sh: interrupted$' "$TMP/cb-term.err"
ok $? "vm/cid_batches.sh --together: TERM stops both guests under way, exit 143 (rc=$RC, $((SECONDS - t)) s, guests gone: $gone)"
done_testing
