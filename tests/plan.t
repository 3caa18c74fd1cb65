#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plan derived from declared phases (lib/harness/plan.c, bench_phases) and
# its check at the end: tests/harness/planned.c declares 1 + --pairs
# results and prints --print of them. The phase table and its driver
# (lib/harness/phase.c): tests/harness/phased.c runs three phases that
# say which of their hooks ran. A program's table: ipistorm's watch.
. "$(dirname "$0")/lib.sh"

plan 22
P=${ISOLBENCH_BIN:-$TOP/build/san}/harness/planned
PH=${ISOLBENCH_BIN:-$TOP/build/san}/harness/phased
W=${ISOLBENCH_BIN:-$TOP/build/san}/ipistorm
if [ ! -x "$P" ] || [ ! -x "$PH" ] || [ ! -x "$W" ]; then
	for _ in $(seq 22); do skip "not built (make san)" "plan check"; done
	exit 0
fi

"$P" --print 3 -o "$TMP/ok.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -qx '1\.\.3' "$TMP/out"
ok $? "plan 1 + 2 pairs = 3, 3 printed: passes (rc=$rc)"
ktap_valid "$TMP/out"; ok $? "its output is valid KTAP"
[ -s "$TMP/ok.json" ] && ! grep -q 'harness bug' "$TMP/out" "$TMP/err"
ok $? "its result file is written, no harness bug reported"

"$P" --print 2 -o "$TMP/short.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ]; ok $? "one result short of the plan: exit 1 (rc=$rc)"
grep -qx 'Bail out! harness bug: 2 results printed, the plan declared 3: once 1 x 1, per pair 1 x 2' "$TMP/out"
ok $? "the KTAP stream bails out naming the phases: $(grep 'Bail' "$TMP/out")"
grep -qx 'planned: harness bug: 2 results printed, the plan declared 3: once 1 x 1, per pair 1 x 2' "$TMP/err"
ok $? "and stderr says it too: $(head -1 "$TMP/err")"
[ ! -e "$TMP/short.json" ]; ok $? "no result file from a run with a broken plan"

"$P" --print 4 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q '^Bail out! harness bug: 4 results printed, the plan declared 3' "$TMP/out"
ok $? "one result more than the plan: exit 1, bails out (rc=$rc)"

"$P" --pairs 0 --print 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -qx '1\.\.1' "$TMP/out"
ok $? "a phase that runs 0 times adds nothing to the plan (rc=$rc)"
"$P" --pairs 5 --print 6 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -qx '1\.\.6' "$TMP/out"
ok $? "one result per pair: 1 + 5 = 6 (rc=$rc)"
"$P" --many >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -qx 'Bail out! harness bug: planned declares more than 8 phases' "$TMP/out" &&
	! grep -q '^1\.\.' "$TMP/out"
ok $? "more phases than the harness holds: harness bug before any plan, exit 1 (rc=$rc)"
"$P" --print 1 --hold >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do grep -q '^ok 1 ' "$TMP/out" && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ! grep -q 'harness bug' "$TMP/out" "$TMP/err"
ok $? "an interrupted run (1 of 3 printed) ends by its signal, no harness bug (rc=$rc)"

# hooks: the driver's order, and the results between them
hooks() {
	grep -E '^(# [a-z ]+: (setup|run|teardown|release)|(not )?ok [0-9]+ .*|1\.\.[0-9]+)$' "$1"
}
"$PH" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat >"$TMP/want" <<'EOF'
1..4
# first: setup
# first: run
ok 1 first: one
ok 2 first: two
# first: teardown
# baseline: run
# counting: release
# per pair: run
ok 3 per pair: pair 0
ok 4 per pair: pair 1
# per pair: teardown
EOF
hooks "$TMP/out" | diff -u "$TMP/want" - | sed 's/^/# /'
[ $rc -eq 0 ] && hooks "$TMP/out" | cmp -s "$TMP/want" -
ok $? "phases run in the table's order: setup, run, verdicts, teardown; a baseline unjudged; plan 2 + 2 pairs; what two share released after the second (rc=$rc)"

# without the baseline, what it shares with the first goes after the first
"$PH" --pairs 0 >"$TMP/out" 2>"$TMP/err"
rc=$?
printf '%s\n' '1..2' '# first: setup' '# first: run' 'ok 1 first: one' 'ok 2 first: two' \
	'# first: teardown' '# counting: release' >"$TMP/want"
hooks "$TMP/out" | diff -u "$TMP/want" - | sed 's/^/# /'
[ $rc -eq 0 ] && hooks "$TMP/out" | cmp -s "$TMP/want" -
ok $? "what phases share is released once, after the last of them that runs (rc=$rc)"

"$PH" --off >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -qx '1\.\.2' "$TMP/out" && ! grep -q '^# first:' "$TMP/out"
ok $? "a phase the options turn off neither runs nor counts in the plan (rc=$rc)"

"$PH" --pairs 0 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -qx '1\.\.2' "$TMP/out" && ! grep -q '^# per pair:' "$TMP/out" &&
	! grep -q '^# baseline:' "$TMP/out"
ok $? "judged 0 times: no run without a runs() of its own, nothing in the plan (rc=$rc)"

"$PH" --wrong >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] &&
	grep -qx 'Bail out! harness bug: phase first printed 1 results, it declares 2 x 1' "$TMP/out" &&
	grep -qx 'phased: harness bug: phase first printed 1 results, it declares 2 x 1' "$TMP/err" &&
	! grep -q '^# baseline:' "$TMP/out"
ok $? "a phase that prints other than it declares: harness bug naming it, at once, exit 1 (rc=$rc)"

"$PH" --misnamed >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] &&
	grep -qx 'Bail out! harness bug: phase first printed "first: three" where it declares "first: two"' "$TMP/out" &&
	! grep -q '^# baseline:' "$TMP/out"
ok $? "a result under another name than its phase declares: harness bug naming both, exit 1 (rc=$rc)"

"$PH" --interrupt >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 130 ] && grep -qx 'ok 3 per pair: pair 0 # SKIP interrupted' "$TMP/out" &&
	grep -qx 'ok 4 per pair: pair 1 # SKIP interrupted' "$TMP/out" &&
	grep -qx '# per pair: teardown' "$TMP/out" && ! grep -q '^# per pair: run' "$TMP/out" &&
	! grep -q 'harness bug' "$TMP/out" "$TMP/err"
ok $? "after an interruption a phase's results are SKIPs under their declared names, its teardown still runs, exit 130 (rc=$rc)"
released=$(grep -n '^# counting: release$' "$TMP/out" | cut -d: -f1)
[ "$(echo "$released" | wc -w)" -eq 1 ] &&
	[ "$released" -lt "$(grep -n '^ok 3 ' "$TMP/out" | cut -d: -f1)" ]
ok $? "and what the interrupted phases share is still released, once, before the next phase"
# ipistorm's watch, two phases in ipistorm.c's table (watch with its
# limit, control): each prints the results it declares, whichever method the
# watch counts by (procfs needs no root; trace needs tracefs, else the
# watch skips whole)
for method in procfs trace; do
	"$W" --watch 0 -D 0.3 --method "$method" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	planned=$(sed -n 's/^1\.\.//p' "$TMP/out")
	printed=$(grep -cE '^(not )?ok ' "$TMP/out")
	if [ $rc -eq 4 ] && [ "$printed" -eq 0 ]; then
		skip "$(grep -m1 '^# SKIP' "$TMP/out")" "ipistorm's watch by $method: as many results as its phases declare"
		continue
	fi
	grep 'harness bug' "$TMP/out" | sed 's/^/# /'
	[ $rc -le 1 ] && [ -n "$planned" ] && [ "$printed" -eq "$planned" ] &&
		! grep -q 'harness bug' "$TMP/out" "$TMP/err"
	ok $? "ipistorm's watch by $method: as many results as its phases declare ($printed of $planned, rc=$rc)"
done
done_testing
