#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ipistorm end to end: each storm mode this machine has, with small
# counts; the delivered counts against /proc/interrupts read here; the
# delivery check failing when another process keeps dst busy; the
# watch mode; bad input; cleanup on signals.
. "$(dirname "$0")/lib.sh"

plan 53

# cal CPU: the "Function call interrupts" count of CPU right now
cal() {
	awk -v c="$1" '/^ *CPU/ { for (i = 1; i <= NF; i++) col[$i] = i }
		/^ *CAL:/ { print $(col["CPU" c] + 1) }' /proc/interrupts
}
extra() {	# extra JSON KEY: the first metric's extra value
	python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"][0]["extra"][sys.argv[2]]))' "$1" "$2"
}

if ! is_root || [ "$(nproc)" -lt 2 ]; then
	for i in $(seq 53); do skip "needs root and 2 CPUs" "ipistorm"; done
	done_testing
fi
dst=$(($(nproc) - 1))

# storm MODE ARGS...: one small run, checks of KTAP, JSON and the counts.
# A failed delivery verdict is allowed only when the program says why
# (on this loaded VM other tasks also run on dst).
storm() {
	local mode=$1
	shift
	local c0 c1 real elided calls
	c0=$(cal $dst)
	run_prog ipistorm -m "$mode" -n 2000 -r 2 -o "$TMP/$mode.json" "$@"
	c1=$(cal $dst)
	{ [ $RC -eq 0 ] || { [ $RC -eq 1 ] && grep -q '^not ok 2 .*reached dst' "$TMP/out" &&
		grep -Eq '^# (cpu [0-9]+ also ran other tasks|[0-9]+ calls reached no CPU)' "$TMP/out"; }; } &&
		grep -q '^ok 1 cpu 0 -> cpu 1 .*2 of 2 runs, 4000 calls' "$TMP/out"
	ok $? "$mode $*: ran 2 x 2000 calls; delivery passed or said why not (rc=$RC)"
	ktap_valid "$TMP/out"; ok $? "$mode: valid KTAP"
	json_check "$TMP/$mode.json" '[m for m in d["metrics"] if m["name"]=="ipi_ns" and len(m["samples"])==2 and m["extra"]["calls"]==4000] and [m for m in d["metrics"] if m["name"]=="ipis_per_s"]'
	ok $? "$mode: JSON ipi_ns (2 samples, 4000 calls) and ipis_per_s"
	real=$(extra "$TMP/$mode.json" ipis_real)
	elided=$(extra "$TMP/$mode.json" sends_elided)
	[ "$real" -le $((c1 - c0)) ] && [ "$(extra "$TMP/$mode.json" dst_cal_irqs)" -le $((c1 - c0)) ] &&
		[ "$(extra "$TMP/$mode.json" calls_reached_no_cpu)" -eq $((4000 - real - elided < 0 ? 0 : 4000 - real - elided)) ]
	ok $? "$mode: $real real IPIs, $elided elided; CAL on cpu $dst rose by $((c1 - c0)) here (>= real), split adds up"
}

storm membarrier
storm perf-read
storm perf-read --target busy
storm tlb
storm tlb --tlb-op mprotect

run_prog ipistorm -m perf-read -n 2000 -r 1
[ $RC -eq 0 ] && grep -q '^ok 2 .*reached dst' "$TMP/out"
ok $? "perf-read to a CPU: every call reached it (real or elided), whatever else runs there"

# kmod: this kernel has no module support, or the module is not built
run_prog ipistorm -m kmod -n 100
[ $RC -eq 4 ] && grep -Eq '^1\.\.0 # SKIP .*(CONFIG_MODULES|not built|module)' "$TMP/out"
ok $? "kmod SKIPs with the reason here (rc=$RC: $(grep SKIP "$TMP/out"))"

# topology: CPUs 0 and 1 of this VM share the LLC, other relations skip
run_prog ipistorm -m perf-read -n 500 -r 1 --pair llc
[ $RC -eq 0 ] && grep -q 'cpu [0-9] -> cpu [0-9] (core' "$TMP/out"
ok $? "--pair llc picks a pair of cores sharing the LLC and names it"
for rel in smt cross-llc cross-node; do
	if "$BIN/ipistorm" -m perf-read -n 10 -r 1 --pair $rel >"$TMP/rel" 2>&1; then
		ok 0 "--pair $rel found a pair on this machine"
	else
		[ $? -eq 4 ] && grep -q "SKIP no pair of CPUs with relation $rel" "$TMP/rel"
		ok $? "--pair $rel SKIPs where the machine has no such pair"
	fi
done

# Another busy process on dst (its own session, so it weighs as much as
# we do): membarrier calls then return without IPIs and the check fails.
setsid taskset -c $dst sh -c 'end=$(($(date +%s) + 30)); while [ $(date +%s) -lt $end ]; do :; done' &
busy=$!
sleep 0.3
run_prog ipistorm -m membarrier -n 5000 -r 1 --pairs 0:$dst
kill $busy 2>/dev/null; wait $busy 2>/dev/null
[ $RC -eq 1 ] && grep -q '^not ok 2 .*reached dst' "$TMP/out" &&
	grep -q "also ran other tasks: the spinner was switched out [1-9][0-9]* times.*membarrier returns at once, without an IPI" "$TMP/out"
ok $? "dst kept busy by another process: delivery fails and says why (rc=$RC)"

# watch mode
run_prog ipistorm --watch 0-1 -D 2 -o "$TMP/w.json"
[ $RC -eq 0 ] && grep -q '^ok 1 traced every IPI sent to cpus 0-1 for' "$TMP/out" &&
	grep -Eq '^# by kind: [0-9]+ function call, [0-9]+ reschedule, [0-9]+ TLB shootdown' "$TMP/out"
ok $? "watch: traced, with the split by kind"
ktap_valid "$TMP/out"; ok $? "watch: valid KTAP"
json_check "$TMP/w.json" '[m for m in d["metrics"] if m["name"]=="ipis_per_min" and len(m["samples"])>=1 and "reschedule_ipis" in m["extra"] and "cpu1_ipis" in m["extra"]]'
ok $? "watch: JSON per-minute buckets, kinds and per-CPU totals"
# IPIs we make ourselves must show up and trip --max
"$BIN/ipistorm" -m perf-read -n 100000000 -r 1 --timeout 3 --pairs 0:1 >/dev/null 2>&1 &
stormer=$!
run_prog ipistorm --watch 1 -D 1.5 --max 10
kill $stormer 2>/dev/null; wait $stormer 2>/dev/null
[ $RC -eq 1 ] && grep -q '^not ok 2 at most 10 IPIs to the watched cpus' "$TMP/out"
ok $? "watch --max 10 fails while a perf-read storm hits cpu 1 ($(grep 'at most' "$TMP/out"))"

# --method procfs: the IPIs cpu 1 received, from /proc/interrupts, while
# a perf-read storm hits it; its CAL count lies within what we read here
grep -q 'method: traced sends (ipi tracepoints)' "$TMP/out"
ok $? "watch --method auto on this kernel (ipi tracepoints exist): traced, and says so"
"$BIN/ipistorm" -m perf-read -n 100000000 -r 1 --timeout 3 --pairs 0:1 >/dev/null 2>&1 &
stormer=$!
sleep 0.3
c0=$(cal 1)
run_prog ipistorm --watch 1 -D 1.5 --method procfs --max 10 -o "$TMP/wp.json"
c1=$(cal 1)
kill $stormer 2>/dev/null; wait $stormer 2>/dev/null
[ $RC -eq 1 ] && grep -q '^ok 1 counted the IPIs received by cpus 1 for 1\.[0-9] s in /proc/interrupts ([0-9]* samples)' "$TMP/out" &&
	grep -q '^not ok 2 at most 10 IPIs to the watched cpus' "$TMP/out" &&
	grep -q '^# method: received, /proc/interrupts' "$TMP/out" &&
	grep -q '^# callbacks: unavailable: /proc/interrupts counts interrupts' "$TMP/out"
ok $? "watch --method procfs: counted from /proc/interrupts, says so, --max 10 trips (rc=$RC)"
ktap_valid "$TMP/out"; ok $? "watch --method procfs: valid KTAP"
calls=$(( $(extra "$TMP/wp.json" function_call_ipis) + $(extra "$TMP/wp.json" tlb_ipis) ))
json_check "$TMP/wp.json" '"method: received, /proc/interrupts" in d["run"]["notes"] and d["metrics"][0]["extra"]["procfs_samples"] >= 2 and "events_lost" not in d["metrics"][0]["extra"] and d["metrics"][0]["extra"]["ipis_total"] == d["metrics"][0]["extra"]["cpu1_ipis"]' &&
	[ "$calls" -ge 1000 ] && [ "$calls" -le $((c1 - c0)) ] &&
	grep -q "^# cpu 1: [0-9]* IPIs received .*CAL +$calls," "$TMP/out"
ok $? "watch --method procfs: $calls CAL on cpu 1 during the storm (CAL rose by $((c1 - c0)) around it here), JSON names the method"

"$BIN/ipistorm" --watch 1 -D 600 --method procfs -o "$TMP/wpi.json" >"$TMP/wpi.out" 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && json_check "$TMP/wpi.json" 'd["run"]["interrupted"] and d["metrics"][0]["extra"]["watch_s"] < 30 and d["metrics"][0]["extra"]["procfs_samples"] >= 2'
ok $? "SIGINT ends a procfs watch: counts reported and saved (rc=$rc)"

# Ctrl-C ends a long watch with the counts so far, saved, instance removed
"$BIN/ipistorm" --watch 1 -D 600 -o "$TMP/wi.json" >"$TMP/wi.out" 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && json_check "$TMP/wi.json" 'd["run"]["interrupted"] and d["metrics"][0]["extra"]["watch_s"] < 30' &&
	! ls -d /sys/kernel/tracing/instances/isolbench-ipistorm-$pid 2>/dev/null
ok $? "SIGINT ends a watch: counts reported and saved, trace instance removed (rc=$rc)"

# SIGTERM during a storm with a spinner: reported, nothing left behind
"$BIN/ipistorm" -m membarrier -n 100000000 -r 1 >"$TMP/st.out" 2>&1 &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid
rc=$?
sleep 0.2
[ $rc -eq 143 ] && grep -q 'interrupted by signal 15' "$TMP/st.out" && ! kill -0 $pid 2>/dev/null
ok $? "SIGTERM ends a storm: spinner stopped, partial run reported (rc=$rc)"

expect_usage_error "src equal to dst" ipistorm --pairs 1:1
expect_usage_error "offline CPU" ipistorm --pairs 0:1000
expect_usage_error "CPU outside the set" ipistorm --pairs 0:5000
taskset -c 0 "$BIN/ipistorm" --pairs 0:1 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]
ok $? "CPU outside our affinity mask: exit 1 with one line ($(cat "$TMP/err"))"
expect_usage_error "bad pair syntax" ipistorm --pairs 0-1
expect_usage_error "CPU in two pairs" ipistorm --pairs 0:1,1:0
expect_usage_error "zero count" ipistorm -n 0
expect_usage_error "negative count" ipistorm -n -5
expect_usage_error "unknown mode" ipistorm --mode smoke
expect_usage_error "unknown pair relation" ipistorm --pair sibling
expect_usage_error "--offset without --src-list" ipistorm --offset 1
expect_usage_error "--max without --watch" ipistorm --max 3
expect_usage_error "offline watched CPU" ipistorm --watch 1000 -D 1
expect_usage_error "unknown --method" ipistorm --watch 1 -D 1 --method smoke
expect_usage_error "--method without --watch" ipistorm --method procfs
done_testing
