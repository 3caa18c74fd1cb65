#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/kernels.t - the checks that build kernels (make check-kernels, run by
# .ci/run): linux-source-6.12 built with a patch and booted with nohz_full
# CPUs running the suite; trace filters without CPUS{} (as in 6.3-6.5)
# under ipistorm's storm and watch; the build's bad input (an option that
# does not stick, a build that fails); an A/B of the base kernel against
# one with two planted regressions, each on a count metric (the TIMER
# softirq raised on every tick, an IPI to isolated cpu 3 every 100 ms
# whose source the watch names); and git bisect run over a series of
# six commits, twice, which must name each planted one. TAP, for prove.
# Prints the wall time of each part. A cold vm/cache costs one download,
# one full kernel build and incremental ones; see docs/vm.md for the
# measured times.
#
# Every kernel here carries vm/patches/cid-scan-batch.patch (batch 8; it
# does not touch the timers all the checks below are about): it changes
# struct mm_struct, which nearly every object includes, so that with it
# vm/cid_batches.t, run next, rebuilds a few files rather than the whole
# kernel. One build without it would cost two full rebuilds.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

needs qemu-system-x86_64 gcc
plan 28
cd "$TOP" || exit 1
SERIES=$TOP/vm/patches/bisect-demo
BATCH=$TOP/vm/patches/cid-scan-batch.patch
# vm/'s cache, where vm/lib.sh puts it (ISOLBENCH_VM_CACHE or vm/cache)
CACHE=${ISOLBENCH_VM_CACHE:-$TOP/vm/cache}
# The planted commits: 0003 raises the TIMER softirq on every tick;
# 0005 has the timekeeping CPU send the last nohz_full CPU (3) an IPI
# every 100 ms from its tick.
METRIC=timer_softirq_raised_per_tick
# A quiet cpu 1 raises 1 to 4 TIMER softirqs in a window of 250 ticks,
# about 0.01 per tick: as a percentage of that, windows vary by +-150%
# (a threshold of 300% left two good commits undecided in one CI run);
# the planted commit raises on every tick, about 1.0. Judged on the
# difference: a good kernel raises at most 0.1 more per tick.
THRESHOLD=(--threshold-abs 0.1)
# timer_softirq's quiet phase on cpu 1, a housekeeping CPU whose tick runs
# (the default guest isolates 2-3): three windows, three samples.
TEST_ARGS=(-t timer_softirq -- --phase quiet --cpu 1 --runs 3 --duration 1)
# The watch of cpus 2-3 (nohz_full): IPIs per CPU in 1 s windows of the
# guest's time, a count. cpu 3 gets about 0.5 a second from the base
# kernel and 10 more from the planted one: a good kernel at most 3 more.
WATCH_METRIC=ipis_to_cpu3_per_s
WATCH_THRESHOLD=(--threshold-abs 3)
WATCH_ARGS=(-t ipistorm_watch -- -D 5)
# The A/B runs both tests in each boot: 3 windows of 3 s each (the watch
# takes -D, not the quiet phase's --phase, --cpu or --runs: run.sh says so)
AB_ARGS=(-t timer_softirq -t ipistorm_watch -- --phase quiet --cpu 1 --runs 3 --duration 3)
T0=$SECONDS

elapsed() { echo "$(($(date +%s) - $1)) s"; }
# Parts run at once where a guest would leave a host CPU idle: vm/kbuild.sh
# builds one kernel of a family at a time (the family's lock), so their
# builds queue and their guests overlap. Each is judged in this order.
declare -A JOB
# started NAME CMD...: CMD in the background, its output in $TMP/NAME.out
# and $TMP/NAME.err; finished NAME: wait for it, its exit in rc and its
# wall time in secs
started() {
	local name=$1
	shift
	(
		t=$(date +%s)
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
		echo "$? $(($(date +%s) - t))" >"$TMP/$name.rc"
	) &
	JOB[$name]=$!
}
finished() {
	wait "${JOB[$1]}"
	read -r rc secs <"$TMP/$1.rc"
}

# 1. One command: Debian's linux-source-6.12, patches, nohz_full, the suite;
# beside it 1b, another kernel of the same tree.
started one vm/run.sh --build debian:6.12 --patch "$BATCH" \
	--patch "$SERIES/0001-timers-Fix-the-grammar-of-a-comment-in-run_local_tim.patch" -o "$TMP/one" -- --quick
started nocpus vm/run.sh --build debian:6.12 --patch "$BATCH" --patch "$TOP/vm/patches/no-cpus-filter.patch" \
	-o "$TMP/nocpus" -- --quick -t ipistorm -t ipistorm_watch
# 1c. The suite built the kselftest way, by the lib.mk of the tree 1.
# unpacks (6.12's adds -D_GNU_SOURCE= to CFLAGS: our own definition must
# not clash with it under -Werror); beside the builds, as soon as the
# tree is there (vm/kbuild.sh marks it .unpacked last).
# shellcheck disable=SC2317  # run by started
kselftest_build() {
	local src kst=$TMP/kst/tools/testing/selftests
	until src=$(compgen -G "$CACHE/src/linux-source-6.12-*/.unpacked" | head -n1) && [ -n "$src" ]; do
		kill -0 "${JOB[one]}" 2>/dev/null || return 1
		sleep 1
	done
	src=${src%.unpacked}
	mkdir -p "$kst/isolbench" "$TMP/kst/out"
	cp "${src}tools/testing/selftests/lib.mk" "$kst/" &&
		git ls-files | tar -cf - -T - | tar -xf - -C "$kst/isolbench" &&
		make -C "$kst/isolbench" OUTPUT="$TMP/kst/out" >"$TMP/kst.log" 2>&1
}
started kst kselftest_build
finished one
diag "vm/run.sh --build debian:6.12 --patch batch --patch 0001 -- --quick: exit $rc after $secs s"
grep -E 'built .* in [0-9]+ s|from the cache' "$TMP/one.err" | sed 's/^/# /'
grep -E '^(not )?ok [0-9]+ selftests' "$TMP/one.out" | sed 's/^/# /'
[ "$rc" -le 1 ] || tail -n 30 "$TMP/one.err" | sed 's/^/# /'
# the whole suite ran to the end and passed on the kernel just built
n=$(grep -cE '^(not )?ok [0-9]+ selftests' "$TMP/one/ktap.txt" 2>/dev/null)
plan_n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$TMP/one/ktap.txt" 2>/dev/null | head -n1)
grep '^not ok [0-9]* selftests' "$TMP/one/ktap.txt" | sed 's/^/# failed in the guest: /'
[ "$rc" -eq 0 ] && [ -n "$plan_n" ] && [ "$n" -eq "$plan_n" ]
ok $? "the whole suite passed on the built kernel ($n of ${plan_n:-?} results, exit $rc)"
grep -qx 'nohz_full 2-3' "$TMP/one/guest-cpus.txt" && grep -qx 'online 0-3' "$TMP/one/guest-cpus.txt"
ok $? "all 4 vCPUs came up, 2-3 nohz_full"
json_check "$TMP/one/suite/timer_softirq.json" \
	'd["kernel_build"]["source"]=="debian:6.12" and [p["file"].rsplit("/",1)[-1] for p in d["kernel_build"]["patches"]]==["cid-scan-batch.patch","0001-timers-Fix-the-grammar-of-a-comment-in-run_local_tim.patch"] and all(len(p["sha256"])==64 for p in d["kernel_build"]["patches"]) and d["kernel_build"]["source_id"].startswith("debian:linux-source-6.12=")'
ok $? "the JSON says how the kernel was made (source, the patches in order, their hashes)"
json_check "$TMP/one/suite/timer_softirq.json" \
	'any(m["name"]=="timer_softirq_raised_per_tick" and m.get("extra",{}).get("ticks",0)>0 for m in d["metrics"])'
ok $? "timer_softirq counted ticks in the guest"
grep -q 'module: ipistorm_kmod.ko built with' "$TMP/one.err" &&
	grep -q '^ok [0-9]* selftests: isolbench: ipistorm_kmod$' "$TMP/one/ktap.txt"
ok $? "the ipistorm module was built against the new kernel and loaded"
grep -q 'mm_cid available' "$TMP/one/suite/cid_scan.ktap"
ok $? "cid_scan found mm_cid (SCHED_MM_CID is in the guest config)"
secs=$(sed -n 's/^seconds //p' "$TMP/one/vm-info.txt")
! grep -q 'timeout' "$TMP/one.err" && [ -n "$secs" ]
ok $? "the guest ended by itself after its results (${secs:-?} s in qemu)"

finished kst
[ "$rc" -eq 0 ] || tail -n 5 "$TMP/kst.log" | sed 's/^/# /'
[ "$rc" -eq 0 ] && [ -x "$TMP/kst/out/getpid_bench" ] && [ -x "$TMP/kst/out/compare" ] &&
	grep -q -- '-D_GNU_SOURCE=' "$TMP/kst.log"
ok $? "built in a kernel tree through linux-source-6.12's lib.mk (rc=$rc)"

# 1b. Trace filters without the CPUS{} operand, as Linux 6.3-6.5 have
# them (vm/patches/no-cpus-filter.patch; Debian has no such kernel): the
# storm still counts its sends to dst from what such a kernel filters,
# and the watch falls back to /proc/interrupts. Two files rebuilt (the
# filter parser, and timer.c without 0001).
finished nocpus
diag "vm/run.sh --build debian:6.12 --patch batch --patch no-cpus-filter -- --quick -t ipistorm -t ipistorm_watch: exit $rc after $secs s"
grep -E 'built .* in [0-9]+ s' "$TMP/nocpus.err" | sed 's/^/# /'
[ "$rc" -le 1 ] || tail -n 20 "$TMP/nocpus.err" | sed 's/^/# /'
k=$TMP/nocpus/suite
grep -E 'CPUS|^(not )?ok' "$k/ipistorm.ktap" "$k/ipistorm_watch.ktap" 2>/dev/null | sed 's/^/# /'
[ "$rc" -eq 0 ] && grep -q 'trace filters without CPUS{} (Linux 6.3-6.5).*none were made' "$k/ipistorm.ktap" &&
	grep -Eq '^# .*[0-9]+ of [0-9]+ calls reached dst' "$k/ipistorm.ktap" &&
	grep -Eq '^ok [0-9]+ .*calls reached dst as a real IPI or an elided send$' "$k/ipistorm.ktap"
ok $? "no CPUS{} filter (as 6.3-6.5): the storm counted its sends to dst all the same (rc=$rc)"
grep -q 'the kernel refused the CPUS{} trace filter.*counting the IPIs received instead' "$k/ipistorm_watch.ktap" &&
	grep -q '^ok 1 counted the IPIs received by the watched cpus in /proc/interrupts$' "$k/ipistorm_watch.ktap"
ok $? "no CPUS{} filter: the watch counted the IPIs received (/proc/interrupts) and passed"

# 4.'s scratch git tree: linux-source-6.12 (as 1. unpacked it) with the
# batch patch as its base commit and the series on top.
src=$(compgen -G "$CACHE/src/linux-source-6.12-*/" | head -n1)
G=$CACHE/bisect-demo/linux
export GIT_AUTHOR_NAME=isolbench GIT_AUTHOR_EMAIL=isolbench@example.invalid
export GIT_COMMITTER_NAME=isolbench GIT_COMMITTER_EMAIL=isolbench@example.invalid
# (git mailinfo unfolds the long subjects as git log prints them)
BASE_SUBJECT="$(basename "$src") with cid-scan-batch.patch $(sha256sum <"$BATCH" | cut -c1-12)"
want=$(for p in "$SERIES"/0*.patch; do
	git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
done | tac; echo "$BASE_SUBJECT")
# (and the same patches: a patch edited under the same subject is new)
series_sum=$(cat "$BATCH" "$SERIES"/0*.patch | sha256sum | cut -c1-16)
# scratch_tree: the tree made by an earlier run from the same series,
# reset (prints "reset"), or a new one (prints "made")
# shellcheck disable=SC2317  # run by started
scratch_tree() {
	if [ -d "$G/.git" ] && [ "$(cat "$G.series" 2>/dev/null)" = "$series_sum" ] &&
	   git -C "$G" bisect reset >/dev/null 2>&1 &&
	   git -C "$G" checkout -q -f master 2>/dev/null &&
	   [ "$(git -C "$G" log --format=%s -"$(echo "$want" | wc -l)" master)" = "$want" ]; then
		echo reset
		git -C "$G" config gc.auto 0
		git -C "$G" clean -qfdx && git -C "$G" reset -q --hard master
		return
	fi
	echo made
	rm -rf "$G" "$G.series"
	mkdir -p "$G"
	if [ -n "$src" ]; then
		for f in "$src"* "$src".[!.]*; do
			[ -e "$f" ] && [ "${f##*/}" != .unpacked ] && cp -al "$f" "$G/"
		done
	fi
	# -f: the .gitignore of Debian's linux-source ignores its top level
	# (git apply replaces the files it changes: the hard links to the
	# unpacked source stay untouched). The index trusts no ctime from the
	# start: the A/B's builds link the same inodes meanwhile, which
	# changes their ctimes, and git am would stop on a file that "does
	# not match index". Nor does the tree pack itself: the gc that git am
	# starts in the background can still be packing when 4. hard-links
	# the tree (cp -al then fails on the objects it removes).
	(cd "$G" && git init -q -b master && git config core.trustctime false &&
		git config gc.auto 0 &&
		git apply "$BATCH" && git add -A -f &&
		git commit -q -m "$BASE_SUBJECT" && git am -q "$SERIES"/0*.patch) >"$TMP/git.log" 2>&1 &&
		echo "$series_sum" >"$G.series"
}

# 3. A/B: the base kernel against both planted regressions, count
# metrics; beside it 4.'s scratch tree.
# (0003 and 0005 apply on top of 0001-0002: base has those, patched 0003-0005 too)
before=" --patch $BATCH"
for p in "$SERIES"/000[1-2]-*.patch; do before="$before --patch $p"; done
after=$before
for p in "$SERIES"/000[3-5]-*.patch; do after="$after --patch $p"; done
started ab vm/ab.sh --base "--build debian:6.12$before" --patched "--build debian:6.12$after" \
	--rounds 2 --together -o "$TMP/ab" -- "${AB_ARGS[@]}"
started scratch scratch_tree
# 2. Bad input that needs a real tree, once the A/B's kernels are built:
# their builds take the family's lock, which the A/B's would wait for.
until_line "${JOB[ab]}" "$TMP/ab.out" '^vm/ab.sh: kernels ready'
printf 'CONFIG_NR_CPUS=99999\nCONFIG_NO_SUCH_OPTION=y\n' >"$TMP/bad.config"
started sticky vm/run.sh --build debian:6.12 --patch "$BATCH" --config "$TMP/bad.config" --build-only
cat >"$TMP/broken.patch" <<'EOF'
--- a/kernel/time/timer.c
+++ b/kernel/time/timer.c
@@ -1,3 +1,4 @@
+#error isolbench: this kernel does not build
 // SPDX-License-Identifier: GPL-2.0
 /*
  *  Kernel internal timers
EOF
started failing vm/run.sh --build debian:6.12 --patch "$BATCH" --patch "$TMP/broken.patch" --build-only

finished sticky
diag "an option that does not stick: exit $rc after $secs s: $(tail -n1 "$TMP/sticky.err")"
[ "$rc" -eq 2 ] && tail -n1 "$TMP/sticky.err" | grep -q 'did not stick after olddefconfig: CONFIG_NR_CPUS=99999 (got [0-9]*) CONFIG_NO_SUCH_OPTION=y (got n)'
ok $? "options that did not stick are named, exit 2"
finished failing
diag "a build that fails: exit $rc after $secs s"
[ "$rc" -eq 2 ] && grep -q 'isolbench: this kernel does not build' "$TMP/failing.err" &&
	tail -n1 "$TMP/failing.err" | grep -q 'the kernel build of debian:6.12 failed'
ok $? "a failing build: its last log lines, one closing message, exit 2"

finished ab
diag "vm/ab.sh --rounds 2 --together: exit $rc after $secs s"
[ "$rc" -eq 0 ] || tail -n 20 "$TMP/ab.err" | sed 's/^/# /'
[ "$rc" -eq 0 ]; ok $? "vm/ab.sh ran both kernels"
grep -A4 "timer_softirq: $METRIC" "$TMP/ab.out" | sed 's/^/# /'
grep -A4 "timer_softirq: $METRIC" "$TMP/ab.out" | grep -Eq '^  patched .* regression \*$'
ok $? "the table calls the TIMER softirq count a significant regression"
grep -A4 "timer_softirq: $METRIC" "$TMP/ab.out" | grep -Eq '^  base +6 '
ok $? "two rounds of three windows pooled: 6 samples a side"
grep -A4 "ipistorm_watch: $WATCH_METRIC" "$TMP/ab.out" | sed 's/^/# /'
grep -A4 "ipistorm_watch: $WATCH_METRIC" "$TMP/ab.out" | grep -Eq '^  patched +6 .* regression \*$'
ok $? "the watch's IPIs to cpu 3 per window: a significant regression, 6 windows a side"
# where they came from: the planted IPI's source, named from the sender's
# stack in each patched round, none of it in the base rounds (the table
# counts it 0 there where the base's family of sources is complete)
for r in 1 2; do
	grep -E '^# source tick_' "$TMP/ab/B-$r/suite/ipistorm_watch.ktap" | sed 's/^/# B-'"$r"': /'
done
grep -Eq '^# source tick_nohz_handler: [0-9]+ IPIs .* named from the sender.s stack; from .* on cpu [01] ' "$TMP/ab/B-1/suite/ipistorm_watch.ktap" &&
	grep -Eq '^# source tick_nohz_handler: ' "$TMP/ab/B-2/suite/ipistorm_watch.ktap" &&
	! grep -q '^# source tick_nohz_handler: ' "$TMP/ab/A-1/suite/ipistorm_watch.ktap" "$TMP/ab/A-2/suite/ipistorm_watch.ktap" &&
	grep -A4 "ipistorm_watch: ipis_from_tick_nohz_handler_per_s" "$TMP/ab.out" |
		grep -Eq '^  base +([0-9]+ +0\.0000 |- +\(not in this result\))'
ok $? "the watch names the planted IPI's source (tick_nohz_handler, from the stack), in the patched rounds only"
grep -Eq '^ok [0-9]+ control: the watch named membarrier the source' "$TMP/ab/A-1/suite/ipistorm_watch.ktap" &&
	grep -Eq '^ok [0-9]+ control: the watch named membarrier the source' "$TMP/ab/B-1/suite/ipistorm_watch.ktap"
ok $? "the watch's control named membarrier on both built kernels"
long=$(awk 'length > 72' "$TMP/ab.out" | wc -l)
[ "$long" -eq 0 ]; ok $? "every line vm/ab.sh printed fits 72 columns ($long longer)"
ls "$TMP"/ab/A-1/suite/timer_softirq.json "$TMP"/ab/B-2/suite/timer_softirq.json >/dev/null 2>&1 &&
	grep -q '^```' "$TMP/ab.out" && grep -q 'significant)' "$TMP/ab.out"
ok $? "every round's JSON kept; Markdown and paste lines printed"
grep -E 'round [0-9] ' "$TMP/ab.out" | awk '{ sub(":", "", $4); printf "%s", $4 }' | grep -qx 'basepatchedbasepatched'
ok $? "rounds reported in order: base patched base patched"

# 4. git bisect run over the series names the planted commit.
finished scratch
if [ "$(cat "$TMP/scratch.out")" = reset ]; then
	ok "$rc" "the scratch git tree of an earlier run, reset ($secs s)"
else
	[ "$rc" -eq 0 ] || tail -n 5 "$TMP/git.log" | sed 's/^/# /'
	ok "$rc" "a scratch git tree: linux-source-6.12 with the batch patch, and the 6 commits ($secs s)"
fi
# (core.trustctime is false in it: vm/kbuild.sh hard-links this tree's
# files for each build, which changes their ctimes, and git bisect's own
# checkouts would read the whole tree again after each step; docs/vm.md)
base=$(git -C "$G" rev-list --max-parents=0 HEAD)

# The two bisections run at once, each in its own tree: a step's guest
# keeps one host CPU busy, its build (incremental, one family: vm/kbuild.sh
# builds them one at a time) both. The watch's tree is a hard-linked copy:
# git replaces the files it changes rather than writing into them.
G2=$CACHE/bisect-demo/linux-watch
rm -rf "$G2"
cp -al "$G" "$G2"
# bisection P TREE METRIC JUDGE... -- ARGS...: the baseline of the test
# ARGS on the base commit of TREE in $TMP/${P}baseline, then git bisect
# run over the series judging METRIC with the options JUDGE, each step's
# results in $TMP/${P}step; logs and exits in $TMP/${P}baseline.* and
# $TMP/${P}bisect.*
# shellcheck disable=SC2317  # run by started
bisection() {
	local p=$1 tree=$2 metric=$3 judge=() t
	shift 3
	while [ "$1" != -- ]; do judge+=("$1"); shift; done
	shift
	t=$(date +%s)
	(cd "$tree" && git checkout -q "$base" &&
		"$TOP/vm/bisect-step.sh" --save-baseline "$TMP/${p}baseline" -- "$@") \
		>"$TMP/${p}baseline.out" 2>&1
	echo "$? $(elapsed "$t")" >"$TMP/${p}baseline.rc"
	t=$(date +%s)
	(cd "$tree" && git checkout -q master && git bisect start master "$base" &&
		git bisect run "$TOP/vm/bisect-step.sh" --baseline "$TMP/${p}baseline" \
			--out "$TMP/${p}step" --metric "$metric" "${judge[@]}" -- "$@") \
		>"$TMP/${p}bisect.out" 2>&1
	echo "$? $(elapsed "$t")" >"$TMP/${p}bisect.rc"
	git -C "$tree" bisect reset >/dev/null 2>&1
}
# bisect_judged P WHAT METRIC: wait for bisection P (started as
# ${P}bisection); one check "WHAT on the base commit", its steps as diag
# lines; sets first, the commit named
bisect_judged() {
	local p=$1 what=$2 metric=$3 rc secs
	finished "${p}bisection"
	read -r rc secs _ <"$TMP/${p}baseline.rc"
	[ "$rc" -eq 0 ] || tail -n 10 "$TMP/${p}baseline.out" | sed 's/^/# /'
	[ "$rc" -eq 0 ]; ok $? "$what on the base commit ($secs s)"
	read -r rc secs _ <"$TMP/${p}bisect.rc"
	grep -E 'is the first bad commit|^vm/bisect-step.sh: [0-9a-f]{12}|^bisect: (verdict|[a-z_]+ [a-z_0-9]+:)' \
		"$TMP/${p}bisect.out" | sed 's/^/# /'
	diag "git bisect run on $metric: exit $rc, wall time $secs s"
	first=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$TMP/${p}bisect.out")
}

t=$(date +%s)
started bisection bisection "" "$G" "$METRIC" "${THRESHOLD[@]}" -- "${TEST_ARGS[@]}"
started wbisection bisection w "$G2" "$WATCH_METRIC" "${WATCH_THRESHOLD[@]}" -- "${WATCH_ARGS[@]}"
planted=$(git -C "$G" log --format=%H -1 --grep='^timers: Let the softirq decide' master)
bisect_judged "" "the baseline" "$METRIC"
[ -n "$planted" ] && [ "$first" = "$planted" ]
ok $? "git bisect run named the planted commit (${first:-none}; planted ${planted:-not found})"
steps=$(grep -c '^vm/bisect-step.sh: [0-9a-f]\{12\} ' "$TMP/bisect.out")
[ "$steps" -ge 2 ] && [ "$steps" -le 4 ]; ok $? "in $steps steps (6 commits)"

# 4b. The same series bisected on the watch's IPIs to cpu 3: the commit
# that sends them every 100 ms, not the TIMER one
planted_ipi=$(git -C "$G" log --format=%H -1 --grep='^tick/nohz: Refresh the statistics' master)
bisect_judged w "the watch's baseline" "$WATCH_METRIC"
[ -n "$planted_ipi" ] && [ "$first" = "$planted_ipi" ]
ok $? "git bisect run on the watch's IPIs to cpu 3 named the commit that sends them (${first:-none}; planted ${planted_ipi:-not found})"
diag "both bisections: $(elapsed "$t")"

# bisect-step's own exits: a commit that does not build is skipped (125)
# (judged as the bisect above judges: without its threshold the baseline
# cannot be judged even against itself, which bisect-step refuses, 255,
# before it builds anything)
(cd "$G" && git checkout -q master && git apply "$TMP/broken.patch" &&
	git commit -q -am "broken" &&
	"$TOP/vm/bisect-step.sh" --baseline "$TMP/baseline" --metric "$METRIC" "${THRESHOLD[@]}" \
		-- "${TEST_ARGS[@]}") \
	>"$TMP/broken.out" 2>&1
rc=$?
[ "$rc" -eq 125 ]; ok $? "bisect-step: a commit that does not build exits 125 (rc=$rc)"
[ "$rc" -eq 125 ] || tail -n 5 "$TMP/broken.out" | sed 's/^/# /'
git -C "$G" reset -q --hard HEAD~1
diag "vm/kernels.t: $((SECONDS - T0)) s in all"
done_testing
