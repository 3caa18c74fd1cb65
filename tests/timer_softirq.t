#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timer_softirq end to end: quiet phase (counts present; the nohz_full
# assertions SKIP here with the reason), the positive control (the same
# counting sees the keepalive timers' TIMER softirqs), a short cyclic
# phase, restore of policy and memory locking, bad input.
. "$(dirname "$0")/lib.sh"

plan 25

if ! is_root; then
	for i in $(seq 25); do skip "needs root for per-CPU tracepoint counting" "timer_softirq $i"; done
	done_testing
fi

run_prog timer_softirq --quick -D 1 -o "$TMP/t.json"
ok $RC "quick run of all phases passes (rc=$RC)"
ktap_valid "$TMP/out"; ok $? "output is valid KTAP"
cpu=$(sed -n 's/^# timer_softirq: target cpu \([0-9]*\) .*/\1/p' "$TMP/out")
if grep -q "^# timer_softirq: target cpu $cpu (nohz_full" "$TMP/out"; then
	grep -Eq "^ok 2 quiet: the tick stopped on cpu $cpu" "$TMP/out"
	ok $? "nohz_full cpu $cpu: the tick-stopped assertion ran and passed"
else
	grep -q "^ok 2 quiet: the tick stopped on cpu $cpu # SKIP cpu $cpu is not nohz_full" "$TMP/out"
	ok $? "not nohz_full: the tick assertion is a SKIP with the reason"
fi
grep -Eq "^# quiet cpu $cpu: [0-9.]+ s, [0-9]+ jiffies \(HZ [0-9]+\): TIMER softirqs raised [0-9]+ run [0-9]+ \([0-9.]+/s, [0-9.]+/tick\), HRTIMER run [0-9]+, timer expiries [0-9]+" "$TMP/out"
ok $? "quiet counts are reported per second and per tick"
grep -Eq "^# quiet cpu $cpu: local timer interrupts [0-9]+ .*/proc/softirqs TIMER [0-9]+ HRTIMER [0-9]+, tick_stop stopped [0-9]+ kept" "$TMP/out"
ok $? "quiet local timer interrupts, /proc/softirqs and tick_stop are reported"
json_check "$TMP/t.json" '[m for m in d["metrics"] if m["name"]=="quiet_timer_softirqs_per_s" and m["unit"]=="softirqs/s" and len(m["samples"])==1 and all(k in m["extra"] for k in ("timer_softirqs_raised","timer_softirqs_run","hrtimer_softirqs_run","timer_expiries","hrtimer_expiries","tick_stop_success","local_timer_irqs","proc_softirqs_timer","timer_softirqs_per_tick"))]'
ok $? "JSON: quiet metric with its counts"
# the same counting sees the control's timers
grep -Eq "^ok 4 control: each recv\(\) timeout was a timer-wheel expiry on cpu $cpu \([0-9]+ process_timeout expiries, [0-9]+ timeouts\)" "$TMP/out"
ok $? "control: the recv() timeouts were process_timeout expiries on cpu $cpu"
grep -Eq "^ok 5 control: TIMER softirqs on cpu $cpu rose from" "$TMP/out"
ok $? "control: TIMER softirqs rose above the quiet window"
json_check "$TMP/t.json" '[m for m in d["metrics"] if m["name"]=="control_timer_softirqs_per_s"][0]["extra"]["timer_softirqs_run"] > [m for m in d["metrics"] if m["name"]=="quiet_timer_softirqs_per_s"][0]["extra"]["timer_softirqs_run"]'
ok $? "JSON: control window counted more TIMER softirqs than the quiet one"
json_check "$TMP/t.json" '(lambda e: 10 <= e["recv_timeouts"] <= e["process_timeout_expiries"] + 2 and e["process_timeout_expiries"] <= e["timer_expiries"])([m for m in d["metrics"] if m["name"]=="control_timer_softirqs_per_s"][0]["extra"])'
ok $? "JSON: timeouts <= process_timeout expiries <= all timer expiries"

# cyclic phase, short
run_prog timer_softirq --phase cyclic -i 500 -n 400 -m -p 80 -o "$TMP/c.json"
ok $RC "cyclic phase: 400 loops at 500 us (rc=$RC)"
grep -Eq "^# cyclic: cpu $cpu \(.*\) SCHED_FIFO 80, 400 wakeups every 500 us: min [0-9.]+ avg [0-9.]+ p50 [0-9.]+ p90 [0-9.]+ p99 [0-9.]+ p99.9 [0-9.]+ max [0-9.]+ us" "$TMP/out"
ok $? "cyclic summary with min/avg/percentiles/max"
grep -Eq "^# cyclic per wakeup: TIMER softirqs [0-9.]+, HRTIMER softirqs [0-9.]+, local timer interrupts [0-9.]+" "$TMP/out"
ok $? "cyclic: softirqs and local timer interrupts per wakeup"
grep -Eq "^#  +[0-9]+ - [0-9]+ +[0-9]+ \|#" "$TMP/out"; ok $? "cyclic histogram printed"
json_check "$TMP/c.json" '[m for m in d["metrics"] if m["name"]=="wakeup_latency_us" and m["extra"]["wakeups"]==400 and m["histogram"]["count"]==400 and m["extra"]["min_us"]<=m["extra"]["p50_us"]<=m["extra"]["p99_us"]<=m["extra"]["max_us"]]'
ok $? "JSON: wakeup_latency_us with histogram and ordered percentiles"
grep -q "^ok 3 cyclic: scheduling policy and memory locking restored (policy 0, 0 kB locked)" "$TMP/out"
ok $? "SCHED_FIFO and mlockall restored after the phase"
run_prog timer_softirq --phase cyclic -q -i 1000 -D 0.3 --policy other
[ $RC -eq 0 ] && grep -q "SCHED_OTHER, [0-9]* wakeups every 1000 us" "$TMP/out" && ! grep -q '|#' "$TMP/out"
ok $? "--policy other runs SCHED_OTHER; -q leaves out the histogram"

expect_usage_error "negative interval" timer_softirq -i -5
expect_usage_error "interval below 1 us" timer_softirq -i 0.5
expect_usage_error "priority 0" timer_softirq -p 0
expect_usage_error "priority 100" timer_softirq -p 100
expect_usage_error "offline CPU" timer_softirq -c 1000
expect_usage_error "duration 0" timer_softirq -D 0

# RT throttling off (sched_rt_runtime_us -1): a tiny SCHED_FIFO interval is
# refused. The -1 is only seen in a private mount namespace (a file bound
# over the sysctl), so the machine's throttling is never changed.
echo -1 >"$TMP/rt_runtime"
if unshare -m true 2>/dev/null; then
	unshare -m sh -c 'mount --bind "$1" /proc/sys/kernel/sched_rt_runtime_us &&
		exec "$2" -i 1 --quick' sh "$TMP/rt_runtime" "$BIN/timer_softirq" \
		>"$TMP/out" 2>"$TMP/err"
	RC=$?
	lines=$(wc -l <"$TMP/err")
	[ "$RC" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q "needs RT throttling" "$TMP/err"
	ok $? "FIFO -i 1 without RT throttling: exit 1, one line (rc=$RC: $(head -c 200 "$TMP/err"))"
	unshare -m sh -c 'mount --bind "$1" /proc/sys/kernel/sched_rt_runtime_us &&
		exec "$2" -i 1 --policy other --phase cyclic --quick -D 0.3' sh \
		"$TMP/rt_runtime" "$BIN/timer_softirq" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ "$RC" -eq 0 ]
	ok $? "SCHED_OTHER -i 1 without RT throttling still runs (rc=$RC)"
else
	skip "unshare -m not available" "FIFO -i 1 without RT throttling refused"
	skip "unshare -m not available" "SCHED_OTHER -i 1 without RT throttling runs"
fi
done_testing
