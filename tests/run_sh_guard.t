#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prove: alone (its verdicts hang on the host's timing: make check runs it by itself)
# run.sh keeps its inputs and its results: no output is written over an
# input, a baseline it cannot use is refused before anything runs (one
# line, exit 255 with --bisect), a signal to its whole process group
# still leaves the test's result saved and the interruption reported,
# and SIGKILL of run.sh takes its test with it and leaves nothing the
# next run does not clean up.
. "$(dirname "$0")/lib.sh"

plan 24

D=$TOP/tests/data
# run.sh in a directory of its own with the programs under test
inst=$TMP/inst
mkdir -p "$inst"
cp "$TOP/run.sh" "$TOP/settings" "$inst/"
for p in compare getpid_bench; do ln -s "$BIN/$p" "$inst/$p"; done
R=$inst/run.sh
# its work directories where this test sees them
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"

# sums DIR: what is in DIR, file by file
sums() {
	(cd "$1" && find . -type f -exec sha256sum {} + | sort)
}

# refused CODE DESC PATTERN ARGS...: run.sh exits CODE at once with one
# line on stderr matching PATTERN, and no test ran
refused() {
	local want=$1 desc=$2 pat=$3 rc
	shift 3
	timeout 60 "$R" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err" &&
		! grep -q '^1\.\.' "$TMP/out"
	ok $? "$desc: exit $want, one line, no test run (rc=$rc: $(head -c 200 "$TMP/err"))"
}

# a baseline directory as run.sh -o leaves it
B=$TMP/base
mkdir -p "$B"
cp "$D/base.json" "$B/getpid_bench.json"
before=$(sums "$B")

# no output over an input
refused 255 "--bisect --baseline DIR -o DIR" "overlap" \
	--bisect --baseline "$B" -o "$B" --timeout 20
refused 255 "--bisect --baseline DIR/getpid_bench.json -o DIR" "overlap" \
	--bisect --baseline "$B/getpid_bench.json" -o "$B" --timeout 20
refused 255 "--bisect --baseline DIR -o DIR/sub" "overlap" \
	--bisect --baseline "$B" -o "$B/sub" --timeout 20
refused 255 "--bisect --baseline bl.json --kcidb bl.json" "would write over the baseline" \
	--bisect --baseline "$B/getpid_bench.json" --kcidb "$B/getpid_bench.json" --timeout 20
ln -s "$B" "$TMP/base-link"
refused 255 "--bisect --baseline DIR --kcidb LINK/getpid_bench.json" "would write over the baseline" \
	--bisect --baseline "$B" --kcidb "$TMP/base-link/getpid_bench.json" --timeout 20
[ "$(sums "$B")" = "$before" ] && [ ! -e "$B/sub" ]
ok $? "the baseline is intact, nothing made in it"
mkdir -p "$TMP/res"
refused 1 "--kcidb DIR/getpid_bench.json -o DIR" "where -o $TMP/res keeps a result of getpid_bench" \
	-t getpid_bench --quick -o "$TMP/res" --kcidb "$TMP/res/getpid_bench.json"

# one result of a test once
cp "$D/base.json" "$B/getpid_bench.orig.json"
refused 255 "--bisect --baseline DIR with a copy of its result" \
	"two results of getpid_bench ($B/getpid_bench.json and $B/getpid_bench.orig.json)" \
	--bisect --baseline "$B" --timeout 20
rm "$B/getpid_bench.orig.json"
refused 255 "--bisect -t getpid_bench -t getpid_bench" "-t getpid_bench: given twice" \
	--bisect --baseline "$B" -t getpid_bench -t getpid_bench --timeout 20
refused 1 "-t getpid_bench -t getpid_bench" "-t getpid_bench: given twice" \
	-t getpid_bench -t getpid_bench --quick

# a baseline's test name is checked like an argument
python3 - "$D/base.json" "$TMP/forged.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["test"] = "getpid_bench\narg --syscall\narg getppid"
json.dump(d, open(sys.argv[2], "w"))
PY
refused 255 "--bisect --baseline with a test name of three lines" "not a name of one line" \
	--bisect --baseline "$TMP/forged.json" --timeout 20
mkdir -p "$TMP/forged"
cp "$TMP/forged.json" "$TMP/forged/getpid_bench.json"
refused 255 "--bisect --baseline DIR/getpid_bench.json of it, -t getpid_bench" "not a name of one line" \
	--bisect --baseline "$TMP/forged" -t getpid_bench --timeout 20

# a skipped baseline says so
refused 255 "--bisect --baseline skipped.json" "the baseline skipped getpid_bench: nothing to judge against" \
	--bisect --baseline "$D/skipped.json"

# past the self-check of the baseline (each test's result judged against
# itself): ipistorm is not installed here, so run.sh stops at the next
# step, its test not built (125), before anything runs
past_self_check() {
	local desc=$1 rc pass
	shift
	timeout 60 "$R" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 125 ] && grep -q "^run.sh: test 'ipistorm_watch' is not built" "$TMP/err"
	pass=$?
	diag "rc=$rc: $(head -c 200 "$TMP/err")"
	ok $pass "$desc: past the baseline's self-check"
}
# a baseline of two tests, as run.sh -o leaves it: each one's result is
# judged against itself, not the first's against both
mkdir -p "$TMP/two"
cp "$D/base.json" "$TMP/two/getpid_bench.json"
cp "$D/watch-a.json" "$TMP/two/ipistorm_watch.json"
past_self_check "--bisect --baseline DIR of two tests" \
	--bisect --baseline "$TMP/two" --threshold 20 --timeout 20
# a source the baseline never saw, a member of its complete family
past_self_check "--bisect --metric of an IPI source the baseline never saw" \
	--bisect --baseline "$D/watch-a.json" --metric ipis_from_generic_exec_single_per_s \
	--threshold-abs 1 --timeout 20
refused 255 "--bisect --metric matching no family (a typo)" "metric ipis_frm_x_per_s is in no result" \
	--bisect --baseline "$D/watch-a.json" --metric ipis_frm_x_per_s --threshold-abs 1 --timeout 20

# A signal to run.sh's whole process group (timeout(1) around it sends
# one): run.sh tells the test to stop (SIGTERM), the test reports and
# saves its result, and run.sh reports the interruption.
for sig in TERM HUP INT; do
	timeout -s "$sig" 3 "$R" -o "$TMP/sig$sig" -t getpid_bench -- -n 2e7 -r 10 >"$TMP/sig.out" 2>&1
	grep -q "^# getpid_bench: ended by SIGTERM after" "$TMP/sig.out" &&
		grep -q "^not ok 1 selftests: isolbench: getpid_bench # exit=143$" "$TMP/sig.out" &&
		grep -q '^# interrupted: the remaining tests did not run$' "$TMP/sig.out" &&
		grep -q '^# # interrupted by signal' "$TMP/sig.out" &&
		json_check "$TMP/sig$sig/getpid_bench.json" 'd["run"]["interrupted"]'
	ok $? "timeout -s $sig 3 run.sh -o DIR: the test's report passed through, its result saved ($(grep -m1 '^not ok' "$TMP/sig.out"))"
done

# SIGKILL of run.sh: the test is stopped (and saves), nothing of it
# keeps running, and the next run deletes the work directory left.
"$R" -o "$TMP/killed" -t getpid_bench -- -n 3100000000 -r 1 >"$TMP/kill.out" 2>&1 &
pid=$!
sleep 2
kill -KILL $pid
wait $pid 2>/dev/null
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pgrep -f -- '-n 3100000000' >/dev/null || pgrep -f -- "$TMPDIR" >/dev/null || break
	sleep 1
done
! pgrep -f -- '-n 3100000000' >/dev/null && ! pgrep -f -- "$TMPDIR" >/dev/null
ok $? "SIGKILL of run.sh: the test, its timeout and the tee of its output end too"
json_check "$TMP/killed/getpid_bench.json" 'd["run"]["interrupted"]'
ok $? "SIGKILL of run.sh: the test saved what it had measured"
left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -printf '%f ')
[ -n "$left" ]; ok $? "SIGKILL of run.sh leaves its work directory ($left)"
"$R" -t getpid_bench --quick >/dev/null 2>&1
rc=$?
left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -printf '%f ')
[ $rc -eq 0 ] && [ -z "$left" ]
ok $? "the next run deletes it, and its own (rc=$rc, left: $left)"
mkdir "$TMPDIR/isolbench-run.$$.keep"
"$R" -t getpid_bench --quick >/dev/null 2>&1
[ -d "$TMPDIR/isolbench-run.$$.keep" ]; ok $? "... but not the work directory of a run.sh still running"
done_testing
