#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# getpid_bench end to end: real KTAP, real JSON, bad input, load cleanup.
. "$(dirname "$0")/lib.sh"

plan 25

run_prog getpid_bench -n 20000 -r 3 -o "$TMP/g.json"
ok $RC "small run passes (rc=$RC)"
ktap_valid "$TMP/out"; ok $? "output is valid KTAP"
grep -q '^ok 1 getpid returned the expected' "$TMP/out"; ok $? "return value verdict"
grep -Eq '^ok 2 kernel counted 10000 of 10000 getpid|^ok 2 # SKIP' "$TMP/out"; ok $? "kernel counted the syscalls (or said why not)"
grep -Eq '^# getpid: cpu [0-9]+ \(.*\) 20000 calls, avg [0-9.]+ ns \(median [0-9.]+, 95% CI \+-[0-9.]+%, 3 runs\)$' "$TMP/out"
ok $? "paste-ready summary line"
json_check "$TMP/g.json" 'd["schema"]=="isolbench-result" and d["program"]=="getpid_bench"'
ok $? "JSON names its schema and program"
json_check "$TMP/g.json" 'all(k in d["system"] for k in ("kernel_release","cmdline","cpu_model","online","isolated","nohz_full","mitigations","tsc_hz","governor","smt_active","emulated"))'
ok $? "JSON carries the system context"
json_check "$TMP/g.json" '[m for m in d["metrics"] if m["name"]=="syscall_ns" and m["unit"]=="ns" and m["better"]=="lower" and len(m["samples"])==3 and m["summary"]["n"]==3 and m["summary"]["min"]<=m["summary"]["median"]<=m["summary"]["max"]]'
ok $? "JSON metric syscall_ns has 3 samples and a consistent summary"
json_check "$TMP/g.json" '[m for m in d["metrics"] if m["name"]=="system_time_s"] and all(v["result"]=="pass" or v["result"]=="skip" for v in d["verdicts"])'
ok $? "JSON has the user/system split and the verdicts"

for sc in getppid gettid getpriority; do
	run_prog getpid_bench -n 1000 -r 2 --syscall $sc
	[ $RC -eq 0 ] && grep -q "^ok 1 $sc returned the expected" "$TMP/out"
	ok $? "--syscall $sc returns the value the kernel should"
done

run_prog getpid_bench -n 5000 -r 2 --distribution
[ $RC -eq 0 ] && grep -Eq '^# getpid per call: p50 [0-9]+ ns, p90 [0-9]+, p99 [0-9]+, p99.9 [0-9]+, max [0-9]+' "$TMP/out"
ok $? "--distribution reports percentiles"

expect_usage_error "bad cpulist" getpid_bench -c 1-x
expect_usage_error "offline CPU" getpid_bench -c 1000
expect_usage_error "zero loops" getpid_bench -n 0
expect_usage_error "negative loops" getpid_bench -n -5
expect_usage_error "non-numeric runs" getpid_bench -r many
expect_usage_error "unknown syscall" getpid_bench --syscall fork
expect_usage_error "unwritable output" getpid_bench -n 10 -o /nonexistent/dir/x.json

# No housekeeping CPU left for --load: a SKIP with the reason, exit 4.
run_prog getpid_bench -c "0-$(($(nproc) - 1))" --load -n 1000
[ $RC -eq 4 ] && grep -q '^1\.\.0 # SKIP --load needs a housekeeping CPU' "$TMP/out"
ok $? "--load without a housekeeping CPU: SKIP with the reason, exit 4 (rc=$RC)"

# Without privilege the kernel-side checks SKIP with a reason, never fail.
if is_root && command -v setpriv >/dev/null; then
	cp "$BIN/getpid_bench" "$TMP/gb" && chmod 755 "$TMP" "$TMP/gb"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/gb" -n 1000 -r 2 >"$TMP/out" 2>&1
	RC=$?
	[ $RC -eq 0 ] && grep -q '^ok 2 kernel counted the getpid syscalls # SKIP ' "$TMP/out"
	ok $? "as an unprivileged user: the syscall count is a SKIP with a reason (rc=$RC)"
	ktap_valid "$TMP/out"; ok $? "unprivileged output is valid KTAP"
else
	skip "needs root and setpriv" "unprivileged run skips kernel-side checks"
	skip "needs root and setpriv" "unprivileged output is valid KTAP"
fi

# A run with --load killed half way leaves no load process behind.
if [ "$(nproc)" -lt 2 ]; then
	skip "needs 2 CPUs" "killed --load run leaves nothing behind"
	skip "needs 2 CPUs" "load ran on the housekeeping CPUs"
else
	"$BIN/getpid_bench" --load -n 100000000 -r 1 >"$TMP/load.out" 2>&1 &
	pid=$!
	sleep 1.5
	nload=$(pgrep -g "$(ps -o pgid= -p $(pgrep -P $pid | head -1) 2>/dev/null | tr -d ' ')" 2>/dev/null | wc -l)
	kill -TERM $pid
	wait $pid
	sleep 0.3
	left=$(pgrep -P $pid | wc -l)
	[ "$nload" -gt 0 ] && [ "$left" -eq 0 ] && ! pgrep -f 'getpid_bench --load' >/dev/null
	ok $? "SIGTERM on a --load run stops all $nload load processes (left: $left)"
	grep -q 'housekeeping load stopped: .* [1-9][0-9]* messages' "$TMP/load.out"
	ok $? "the load really ran (messages exchanged) and the partial run was reported"
fi
done_testing
