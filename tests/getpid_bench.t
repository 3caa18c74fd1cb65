#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# getpid_bench end to end: real KTAP, real JSON, bad input, load cleanup.
. "$(dirname "$0")/lib.sh"

plan 35

run_prog getpid_bench -n 20000 -r 3 -o "$TMP/g.json"
ok $RC "small run passes (rc=$RC)"
ktap_valid "$TMP/out"; ok $? "output is valid KTAP"
grep -q '^ok 1 getpid returned the expected' "$TMP/out"; ok $? "return value verdict"
if is_root; then
	grep -q '^ok 2 kernel counted 10000 of 10000 getpid syscalls (raw_syscalls:sys_enter)$' "$TMP/out"
	ok $? "kernel counted all 10000 syscalls of the check pass"
else
	grep -Eq '^ok 2 kernel counted the getpid syscalls # SKIP .+' "$TMP/out"
	ok $? "not root: the kernel count is a SKIP with its reason"
fi
grep -Eq '^# getpid: cpu [0-9]+ \(.*\) 20000 calls, entry libc, avg [0-9.]+ ns \(median [0-9.]+, 95% CI \+-[0-9.]+%, 3 runs\)$' "$TMP/out"
ok $? "paste-ready summary line names the default entry (libc)"
json_check "$TMP/g.json" 'd["run"]["params"]["entry"]=="libc"'
ok $? "JSON records the entry (run.params.entry libc)"
json_check "$TMP/g.json" 'd["schema"]=="isolbench-result" and d["program"]=="getpid_bench"'
ok $? "JSON names its schema and program"
json_check "$TMP/g.json" 'all(k in d["system"] for k in ("kernel_release","cmdline","cpu_model","online","isolated","nohz_full","mitigations","tsc_hz","governor","smt_active","emulated"))'
ok $? "JSON carries the system context"
json_check "$TMP/g.json" '[m for m in d["metrics"] if m["name"]=="syscall_ns" and m["unit"]=="ns" and m["better"]=="lower" and len(m["samples"])==3 and m["summary"]["n"]==3 and m["summary"]["min"]<=m["summary"]["median"]<=m["summary"]["max"]]'
ok $? "JSON metric syscall_ns has 3 samples and a consistent summary"
json_check "$TMP/g.json" '[m for m in d["metrics"] if m["name"]=="syscall_ns" and m["summary"]["ci95_median"]==[m["summary"]["min"],m["summary"]["max"]] and m["summary"]["ci_median_confidence"]==0.75]'
ok $? "the median interval of 3 runs is [min, max] at its real confidence, 75%"
json_check "$TMP/g.json" '[m for m in d["metrics"] if m["name"]=="system_time_s"] and all(v["result"]=="pass" or v["result"]=="skip" for v in d["verdicts"])'
ok $? "JSON has the user/system split and the verdicts"

run_prog getpid_bench -n 20000 -r 2 --entry raw -o "$TMP/raw.json"
[ $RC -eq 0 ] && grep -Eq '^# getpid: cpu [0-9]+ \(.*\) 20000 calls, entry raw, avg ' "$TMP/out" &&
	grep -q '^# run time: .* 20000 getpid calls, entry raw, avg ' "$TMP/out"
ok $? "--entry raw: passes and the summary lines say entry raw (rc=$RC)"
json_check "$TMP/raw.json" 'd["run"]["params"]["entry"]=="raw" and "--entry" in d["run"]["argv"]'
ok $? "--entry raw is recorded in the JSON"
for e in libc raw; do
	run_prog getpid_bench -n 100000 -r 2 --syscall none --entry $e
	[ $RC -eq 0 ] && grep -q "^# none: .* 100000 calls, entry $e, avg " "$TMP/out" &&
		grep -q '^ok 2 kernel counted the none syscalls # SKIP --syscall none issues no syscall' "$TMP/out"
	ok $? "--syscall none --entry $e: the harness baseline of that entry (rc=$RC)"
done

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
expect_usage_error "unknown entry" getpid_bench --entry vdso
expect_usage_error "unwritable output" getpid_bench -n 10 -o /nonexistent/dir/x.json

# No housekeeping CPU left for --load: a SKIP with the reason, exit 4.
run_prog getpid_bench -c "0-$(($(nproc) - 1))" --load -n 1000
[ $RC -eq 4 ] && grep -q '^1\.\.0 # SKIP --load needs a housekeeping CPU' "$TMP/out"
ok $? "--load without a housekeeping CPU: SKIP with the reason, exit 4 (rc=$RC)"

# The kernel-count check fails when the calls never reach the kernel:
# tests/preload/cached_getpid.c answers syscall(SYS_getpid) from a cached
# value (as glibc's getpid() did before 2.25), so every return value is
# right and only the count can tell. --entry raw bypasses libc and passes.
if ! is_root; then
	for i in 1 2 3; do skip "needs root for raw_syscalls:sys_enter" "cached getpid: kernel-count check"; done
elif ! cc -O2 -shared -fPIC -D_GNU_SOURCE "$TOP/tests/preload/cached_getpid.c" -o "$TMP/cached_getpid.so" -ldl 2>"$TMP/cc.err"; then
	for i in 1 2 3; do skip "no C compiler for the preload double: $(head -1 "$TMP/cc.err")" "cached getpid: kernel-count check"; done
else
	ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 LD_PRELOAD="$TMP/cached_getpid.so" \
		"$BIN/getpid_bench" -n 20000 -r 2 >"$TMP/out" 2>&1
	RC=$?
	[ $RC -eq 1 ] && grep -q '^not ok 2 kernel counted 0 of 10000 getpid syscalls' "$TMP/out"
	ok $? "calls answered in user space: the kernel-count check fails, exit 1 (rc=$RC)"
	grep -q '^ok 1 getpid returned the expected' "$TMP/out"
	ok $? "... while every return value was right (only the count can tell)"
	ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 LD_PRELOAD="$TMP/cached_getpid.so" \
		"$BIN/getpid_bench" -n 20000 -r 2 --entry raw >"$TMP/out" 2>&1
	RC=$?
	[ $RC -eq 0 ] && grep -q '^ok 2 kernel counted 10000 of 10000 getpid syscalls' "$TMP/out"
	ok $? "--entry raw does not go through libc: counted in full (rc=$RC)"
fi

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
