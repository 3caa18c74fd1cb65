#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plan derived from declared phases (lib/harness/plan.c, bench_phases) and
# its check at the end: tests/harness/planned.c declares 1 + --pairs
# results and prints --print of them.
. "$(dirname "$0")/lib.sh"

plan 14
P=${ISOLBENCH_BIN:-$TOP/build/san}/harness/planned
if [ ! -x "$P" ]; then
	for _ in $(seq 14); do skip "not built (make san)" "plan check"; done
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
"$P" --skip "per pair" --print 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^ok 1 per pair phase # SKIP asked for$' "$TMP/out" &&
	grep -q '^ok 3 result 2$' "$TMP/out"
ok $? "bench_phase_skip prints one run's declared result of the phase as a SKIP (rc=$rc)"
"$P" --skip nosuch --print 3 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -qx 'Bail out! harness bug: planned has no phase nosuch' "$TMP/out"
ok $? "skipping a phase that was not declared: harness bug, exit 1 (rc=$rc)"
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
done_testing
