#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cid_scan end to end: detection, the user-space estimate, compaction
# with the CID invariants, the model, workloads, bad input, cleanup.
. "$(dirname "$0")/lib.sh"

plan 25

# rc 0 (pass) or 4 (the only scan verdict skipped: a busy machine)
pass_or_skip() { [ "$RC" -eq 0 ] || [ "$RC" -eq 4 ]; }

tfs=/sys/kernel/tracing
tracer_before=$(cat $tfs/current_tracer 2>/dev/null)

run_prog cid_scan --quick -D 1 -o "$TMP/c.json"
pass_or_skip; ok $? "quick run passes or skips (rc=$RC)"
ktap_valid "$TMP/out"; ok $? "output is valid KTAP"
grep -Eq '^# rseq: registered by (glibc|cid_scan itself) \(__rseq_offset -?[0-9]+, __rseq_size [0-9]+\), AT_RSEQ_FEATURE_SIZE [0-9]+: mm_cid available' "$TMP/out"
ok $? "rseq registration and mm_cid detected"
if grep -qw task_mm_cid_work /proc/kallsyms; then
	grep -Eq '^# scan model: periodic (full scan|scan in batches)' "$TMP/out"
	ok $? "periodic scan detected (task_mm_cid_work in kallsyms)"
else
	grep -q '^# scan model: no periodic scan' "$TMP/out"
	ok $? "no periodic scan detected (6.19 or later)"
fi
if grep -q '^# function_graph not usable' "$TMP/out"; then
	grep -Eq '^# estimate: [0-9]+ recorded gaps, [0-9]+ marked without a context switch \([0-9]+ more with one\), [0-9]+ periodic' "$TMP/out"
	ok $? "no function tracer: the user-space estimate ran and says what it counted"
	grep -Eq '^(ok 1 scan seen from user space: [0-9]+ periodic|ok 1 .*# SKIP swamped)' "$TMP/out"
	ok $? "estimate verdict: scan seen, or skipped as swamped with the reason"
else
	grep -Eq '^ok 1 function_graph timed [1-9][0-9]* calls' "$TMP/out"
	ok $? "function_graph timed the scan"
	skip "function_graph used" "estimate verdict"
fi
grep -Eq "^(ok 2 survivor's mm_cid went from [1-9][0-9]* to 0 in [0-9.]+ s|ok 2 .*# SKIP)" "$TMP/out"
ok $? "compaction: the survivor's mm_cid reached 0 within the bound (or SKIP with reason)"
grep -Eq '^ok 3 mm_cid invariants over [1-9][0-9]* running stretches: max cid [0-9]+ < [0-9]+ possible CPUs \(0 above\), 0 duplicates' "$TMP/out"
ok $? "CID invariants held: below the possible CPUs, unique at each moment"
grep -Eq '^#   (full scan|batch [0-9]+) +spin ' "$TMP/out"
ok $? "paste-ready table row"
json_check "$TMP/c.json" 'd["program"]=="cid_scan" and any(m["name"]=="compaction_s" and m["unit"]=="s" for m in d["metrics"])'
ok $? "JSON has the compaction metric"
json_check "$TMP/c.json" 'not (any(m["name"]=="scan_call_us" for m in d["metrics"]) and any(m["name"]=="scan_call_estimate_us" for m in d["metrics"])) and not any(m["name"].startswith("model_") for m in d["metrics"])'
ok $? "JSON keeps traced, estimated and model numbers apart"
[ "$(cat $tfs/current_tracer 2>/dev/null)" = "$tracer_before" ]
ok $? "tracefs current_tracer unchanged ($tracer_before)"

# glibc's registration switched off: cid_scan registers its own areas.
GLIBC_TUNABLES=glibc.pthread.rseq=0 run_prog cid_scan --quick -D 0.5
pass_or_skip && grep -q '^# rseq: registered by cid_scan itself' "$TMP/out" &&
	grep -Eq '^ok 3 mm_cid invariants over [1-9]' "$TMP/out"
ok $? "own rseq registration when glibc's is off, invariants hold (rc=$RC)"

run_prog cid_scan --model --model-max-cpus 64 --quick -o "$TMP/m.json"
[ $RC -eq 0 ] && grep -Eq '^# MODEL batch +8, +64 CPUs: +8 calls, +[0-9.]+ us per batch' "$TMP/out" &&
	grep -Eq '^# MODEL batch 32: a full scan passes 100 ms at about [0-9]+ CPUs' "$TMP/out"
ok $? "model: batches 8/16/32 over up to 64 simulated CPUs"
json_check "$TMP/m.json" 'sorted(m["name"] for m in d["metrics"])==["model_batch_cost_ns_batch16","model_batch_cost_ns_batch32","model_batch_cost_ns_batch8"] and all("MODEL" in m["aggregate"] for m in d["metrics"])'
ok $? "model JSON: only model_ metrics, each labelled MODEL"

run_prog cid_scan --quick -D 1 --workload cyclic --period-us 200 --no-compaction
pass_or_skip; ok $? "cyclic workload runs (rc=$RC)"
run_prog cid_scan --quick -D 1 --workload hackbench --threads 4 --no-compaction
pass_or_skip && [ -z "$(pgrep -P $$ -f cid_scan)" ]
ok $? "hackbench workload (processes) runs and leaves nothing (rc=$RC)"
run_prog cid_scan --quick -D 1 --workload hackbench --hackbench-threads --threads 4 --no-compaction
pass_or_skip; ok $? "hackbench workload (threads) runs (rc=$RC)"

# SIGTERM half way: what was measured is reported, children are gone.
"$BIN/cid_scan" -D 20 --workload hackbench --threads 4 >"$TMP/term.out" 2>&1 &
pid=$!
sleep 1.5
nkids=$(pgrep -P $pid | wc -l)
kill -TERM $pid
wait $pid
rc=$?
sleep 0.3
[ "$nkids" -gt 0 ] && [ -z "$(pgrep -P $pid)" ] && [ $rc -eq 143 ] &&
	grep -q '^# Totals:' "$TMP/term.out"
ok $? "SIGTERM stops the run and its $nkids hackbench processes, still reports (rc=$rc)"

expect_usage_error "zero threads" cid_scan --threads 0
expect_usage_error "unknown workload" cid_scan --workload fork
expect_usage_error "negative period" cid_scan --period-us -5
expect_usage_error "absurd period" cid_scan --period-us 99999999999
expect_usage_error "offline CPU" cid_scan -c 1000
expect_usage_error "hackbench with one thread" cid_scan --workload hackbench --threads 1
done_testing
