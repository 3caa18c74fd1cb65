#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/ci.t - the whole suite in qemu guests booted from Debian's kernels
# with the default isolation (nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3,
# 4 vCPUs), quick mode: what CI must see on 6.12 and on 6.1, x86_64, and
# on 6.12 arm64 (qemu's virt board, the suite cross-built). TAP, for
# prove. Takes a few minutes under TCG; .ci/run runs it.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

needs qemu-system-x86_64 qemu-system-aarch64 aarch64-linux-gnu-gcc
plan 52

# verdict RESULTS_DIR TEST PREFIX: the result ("pass", "skip", "fail")
# of the first verdict of TEST's JSON whose name starts with PREFIX
verdict() {
	verdict_of "$1/suite/$2.json" "$3"
}

# tick_controls_pass RESULTS_DIR: timer_softirq's three tick controls passed
tick_controls_pass() {
	[ "$(verdict "$1" timer_softirq 'tick: a POSIX CPU-time timer')" = pass ] &&
		[ "$(verdict "$1" timer_softirq 'tick: a perf event')" = pass ] &&
		[ "$(verdict "$1" timer_softirq 'tick: a second runnable task')" = pass ]
}

# verdict_of JSON PREFIX: the same, of a result file a --guest-pre wrote
verdict_of() {
	python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["verdicts"]:
    if v["name"].startswith(sys.argv[2]):
        print(v["result"]); break
PY
}

# rows_within_window JSON: the quiet phase's /proc rows were read over
# at most 1.3 times its traced windows (both summed over the windows)
rows_within_window() {
	python3 - "$1" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["metrics"]:
    e = m.get("extra", {})
    if "proc_rows_s" in e:
        print(f"# /proc rows over {e['proc_rows_s']:.3f} s, traced {e['window_s']:.3f} s")
        sys.exit(0 if 0 < e["proc_rows_s"] <= 1.3 * e["window_s"] else 1)
print("# no proc_rows_s in the quiet metric")
sys.exit(1)
PY
}

# Four guests, three then one: single-threaded TCG keeps each qemu on
# one host CPU. The runs that need a kernel of their own but no boot of
# their own go before a guest's suite (--guest-pre). The suite is
# installed once for the x86 guests (two builds of one tree at once
# would race).
SUITE=$TMP/suite
make -s -C "$TOP" install INSTALL_PATH="$SUITE" >"$TMP/install.log" 2>&1 ||
	{ tail -n 20 "$TMP/install.log" | sed 's/^/# /'; echo "Bail out! make install failed"; exit 1; }
declare -A PID START
# boot NAME VM-RUN-ARGS...: vm/run.sh with those arguments in the
# background, its results in $TMP/vm-NAME
boot() {
	local name=$1
	shift
	START[$name]=$(date +%s)
	"$TOP/vm/run.sh" --suite "$SUITE" --timeout 900 -o "$TMP/vm-$name" "$@" \
		>"$TMP/out-$name" 2>"$TMP/err-$name" &
	PID[$name]=$!
}
# booted NAME: wait for it; its exit in RC, what it says as diag lines
booted() {
	local name=$1
	wait "${PID[$name]}"
	RC=$?
	diag "vm/run.sh ($name): exit $RC after $(($(date +%s) - START[$name])) s"
	grep -E '^(not )?ok [0-9]+ selftests' "$TMP/out-$name" | sed 's/^/# /'
	# a failed program's failed checks, so that a CI log says which
	grep -E '^# (# )?not ok ' "$TMP/out-$name" | sed 's/^/# /'
	[ $RC -le 1 ] || tail -n 30 "$TMP/err-$name" | sed 's/^/# /'
}

# arm64 beside the first two: a membarrier storm and a tlb storm (which
# has nothing to count there) before the quick suite
# shellcheck disable=SC2016  # run by the guest's shell
arm64_pre='./ipistorm -m membarrier --pairs 0:2 -n 2000 -r 2 -o /results/mb.json >/results/mb.ktap 2>&1
echo "membarrier exit $?"
./ipistorm -m tlb --pairs 1:3 -n 100 -r 1 >/results/tlb.ktap 2>&1
echo "tlb exit $?"'
START[arm64]=$(date +%s)
"$TOP/vm/run.sh" --arch arm64 --debian 6.12 --timeout 900 -o "$TMP/vm-arm64" \
	--guest-pre "$arm64_pre" -- --quick >"$TMP/out-arm64" 2>"$TMP/err-arm64" &
PID[arm64]=$!
# the storms strict on an isolated dst, before the 6.12 guest's suite
# shellcheck disable=SC2016  # run by the guest's shell
storms='./ipistorm -m membarrier --pairs 0:2 -n 2000 -r 2 -o /results/mb.json >/results/mb.ktap 2>&1
echo "membarrier exit $?"
./ipistorm -m tlb --pairs 1:3 -n 2000 -r 2 -o /results/tlb.json >/results/tlb.ktap 2>&1
echo "tlb exit $?"'
boot 6.12 --debian 6.12 --guest-pre "$storms" -- --quick
boot 6.1 --debian 6.1 -- --quick
# cid_scan's verdicts failing where their condition breaks: a trace
# buffer too small for 64 hackbench processes (events lost), and the
# compaction survivor kept asleep (no scan can run). Before it, a module
# run that hits its timeout, then a cid_scan SIGKILLed while
# function_graph traces: the next run puts the tracer back (the
# settings journal). Booted as soon as one of the x86 pair is done.
# shellcheck disable=SC2016  # run by the guest's shell
killed='./ipistorm_kmod -n 100000000 --timeout 1 -r 1 >/results/kto.ktap 2>&1
echo "kmod timeout exit $?"
t=/sys/kernel/tracing; ./cid_scan -m trace -D 60 --no-compaction >/tmp/k.out 2>&1 &
p=$!; i=0
while [ "$(cat $t/current_tracer)" != function_graph ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $p; wait $p
echo "after SIGKILL: current_tracer $(cat $t/current_tracer), journals: $(ls /run/isolbench)"'
while kill -0 "${PID[6.12]}" 2>/dev/null && kill -0 "${PID[6.1]}" 2>/dev/null; do sleep 2; done
boot cidfail --debian 6.12 --guest-pre "$killed" -- -t cid_scan -- \
	--workload hackbench --threads 64 --trace-buffer-kb 1 -D 4 \
	--compaction-control --compaction-timeout 0.5
booted 6.12
r=$TMP/vm-6.12
ok $RC "6.12: the whole suite passed in the guest"
grep -qx 'nohz_full 2-3' "$r/guest-cpus.txt"; ok $? "6.12: the guest has nohz_full=2-3"
[ "$(verdict "$r" timer_softirq 'quiet: the tick stopped')" = pass ]
ok $? "6.12: timer_softirq asserted that the tick stopped on a nohz_full CPU"
# the /proc rows span the traced window, not its records' reading too
# (which takes longer than the window here): at most 1.3 times it
rows_within_window "$r/suite/timer_softirq.json"
ok $? "6.12: timer_softirq read the quiet windows' /proc rows around the traced time only"
[ "$(verdict "$r" timer_softirq 'quiet: ')" = pass ] &&
	[ "$(python3 -c 'import json,sys; print(sum(1 for v in json.load(open(sys.argv[1]))["verdicts"] if v["result"]=="skip"))' "$r/suite/timer_softirq.json")" = 0 ]
ok $? "6.12: timer_softirq ran every check, none skipped"
[ "$(verdict "$r" timer_softirq 'control: TIMER softirqs')" = pass ]
ok $? "6.12: the positive control saw the TIMER softirqs it caused"
[ "$(verdict "$r" timer_softirq 'quiet: TIMER softirqs raised for due timers only')" = pass ]
ok $? "6.12: timer_softirq asserted the timer-softirq thread's rule (raised only for due timers) on cpu 2"
[ "$(verdict "$r" timer_softirq 'quiet: the counting sent no IPI')" = pass ]
ok $? "6.12: the ipi tracepoints saw no IPI from the counting to cpu 2 inside the windows"
json_check "$r/suite/timer_softirq.json" '[m for m in d["metrics"] if m["name"]=="timer_softirq_raised_per_tick" and m["unit"]=="softirqs/tick" and len(m["samples"])>=2] and all(len(m["samples"])>=2 for m in d["metrics"])'
ok $? "6.12: timer_softirq_raised_per_tick and every metric with a sample per window or run"
grep -q 'watching the IPIs sent to cpus 2-3' "$r/suite/ipistorm_watch.ktap"
ok $? "6.12: ipistorm's interference mode watched cpus 2-3"
[ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "6.12: ipistorm's kernel module loaded and delivered its IPIs"
[ "$(verdict "$r" cid_scan 'function_graph timed')" = pass ]
ok $? "6.12: cid_scan used the traced method (function_graph), no events lost"
[ "$(verdict "$r" cid_scan 'compaction by the scan')" = pass ]
ok $? "6.12: cid_scan's high cid survived exits and a scan-free sleep, then the scan compacted it"
grep -E '^(not )?ok [123] |compaction' "$r/suite/cid_scan.ktap" | sed 's/^/# /'
grep -Eq '^# both methods on this run: the estimate attributed [0-9]+ scans, [0-9]+ of them real' "$r/suite/cid_scan.ktap"
ok $? "6.12: cid_scan compared the estimate with the traced walks on one run"
json_check "$r/suite/getpid_bench.json" 'd["system"]["emulated"] and d["system"]["nohz_full"]=="2-3" and "isolbench.vm=" in d["system"]["cmdline"]'
ok $? "6.12: results say they come from an emulated guest"
# the positive controls of the attribution, on the guest's kernel
grep -E 'control: ' "$r/suite/ipistorm_watch.ktap" "$r/suite/timer_softirq.ktap" | sed 's/^/# /'
[ "$(verdict "$r" ipistorm_watch 'control: the watch named membarrier')" = pass ]
ok $? "6.12: the watch named membarrier the source of its control's IPIs (from the sender's stack)"
[ "$(verdict "$r" timer_softirq "control: the sleeper's preemptions")" = pass ] &&
	json_check "$r/suite/ipistorm_watch.json" '[m for m in d["metrics"] if m["name"]=="ipis_to_cpu2_per_s" and m["kind"]=="count" and len(m["samples"])>=2]'
ok $? "6.12: timer_softirq found its control's sleeper in the loop's gaps; the watch counted cpu 2 per window"
# why the tick runs: each planted dependency named by tick_stop
grep -E '^# tick cpu ' "$r/suite/timer_softirq.ktap" | sed 's/^/# /'
tick_controls_pass "$r"
ok $? "6.12: the tick phase's controls: tick_stop named POSIX_TIMER, PERF_EVENTS and SCHED on nohz_full cpu 2"
# who set them: the kprobe events on tick_nohz_dep_set*() and their stacks
grep -E '^# (quiet|tick [a-z]+) cpu 2: tick dependencies set' "$r/suite/timer_softirq.ktap" | sed 's/^/# /'
grep -qE '^# tick posix cpu 2: .*POSIX_TIMER [0-9]+ by posix_cpu_timer' "$r/suite/timer_softirq.ktap" &&
	grep -qE '^# tick perf cpu 2: .*PERF_EVENTS [0-9]+ by perf_event_alloc' "$r/suite/timer_softirq.ktap" &&
	json_check "$r/suite/timer_softirq.json" '[f for f in d["families"] if f["name"]=="tick_dep_setters" and f["pattern"]=="tick_dep_*_by_*_per_s"]'
ok $? "6.12: the setters of the planted dependencies named from their stacks, the setters' family declared"

booted 6.1
r=$TMP/vm-6.1
ok $RC "6.1: the suite passed in the guest (skips allowed)"
grep -qx 'nohz_full 2-3' "$r/guest-cpus.txt"; ok $? "6.1: the guest has nohz_full=2-3"
grep -q '^ok [0-9]* selftests: isolbench: cid_scan # SKIP' "$r/ktap.txt"
ok $? "6.1: cid_scan skips (no mm_cid)"
grep -q 'SKIP no mm_cid' "$r/suite/cid_scan.ktap"; ok $? "6.1: cid_scan says why"
[ "$(verdict "$r" timer_softirq 'quiet: the tick stopped')" = pass ]
ok $? "6.1: timer_softirq asserted that the tick stopped"
[ "$(verdict "$r" timer_softirq 'control: TIMER softirqs')" = pass ]
ok $? "6.1: the positive control saw its TIMER softirqs"
[ "$(verdict "$r" timer_softirq 'quiet: TIMER softirqs raised for due timers only')" = pass ]
ok $? "6.1: timer_softirq asserted the timer-softirq thread's rule on cpu 2"
[ "$(verdict "$r" timer_softirq 'quiet: the counting sent no IPI')" = skip ]
ok $? "6.1: the IPI check skips (no ipi tracepoints before 6.3)"
[ "$(verdict "$r" timer_softirq "control: the sleeper's preemptions")" = pass ] &&
	[ "$(verdict "$r" ipistorm_watch 'control: the watch named')" = skip ]
ok $? "6.1: the sleeper found in the loop's gaps; the watch's control skips (no sources without the ipi tracepoints)"
[ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "6.1: ipistorm's kernel module loaded and delivered its IPIs"
tick_controls_pass "$r"
ok $? "6.1: the tick phase's controls pass too"

# Storms whose delivery is deterministic on an isolated dst: strict.
# delivered SUITE_JSON: 99% to 100% of the counted calls reached dst
delivered() {
	json_check "$1" 'd["metrics"][0]["extra"]["counted_calls"] > 0 and 0.99 * d["metrics"][0]["extra"]["counted_calls"] <= d["metrics"][0]["extra"]["ipis_real"] + d["metrics"][0]["extra"]["sends_elided"] <= d["metrics"][0]["extra"]["counted_calls"]'
}

booted arm64
r=$TMP/vm-arm64
ok $RC "arm64: the quick suite passed in the guest"
json_check "$r/suite/getpid_bench.json" 'd["system"]["machine"]=="aarch64" and d["system"]["nohz_full"]=="2-3" and d["system"]["clock"]=="cntvct_el0" and d["system"]["clock_hz"]>0 and d["system"]["clock_hz_source"]=="CNTFRQ_EL0" and d["system"]["hypervisor"]=="tcg" and d["system"]["emulated"]'
ok $? "arm64: an emulated aarch64 guest with nohz_full=2-3, timed by CNTVCT_EL0 at CNTFRQ_EL0's rate"
[ "$(verdict "$r" timer_softirq 'quiet: the tick stopped')" = pass ] &&
	[ "$(verdict "$r" timer_softirq 'quiet: the counting sent no IPI')" = pass ] &&
	[ "$(python3 -c 'import json,sys; print(sum(1 for v in json.load(open(sys.argv[1]))["verdicts"] if v["result"]=="skip"))' "$r/suite/timer_softirq.json")" = 0 ]
ok $? "arm64: timer_softirq's nohz_full assertions ran and passed on cpu 2, none skipped"
tick_controls_pass "$r"
ok $? "arm64: the tick phase's controls: tick_stop named POSIX_TIMER, PERF_EVENTS and SCHED"
grep -E '^# (quiet|control) cpu 2: noise by source' "$r/suite/timer_softirq.ktap" | sed 's/^/# /'
noise=$(grep -E '^# (quiet|control) cpu 2: noise by source' "$r/suite/timer_softirq.ktap")
[ -n "$noise" ] && ! grep -Eq 'irq IPI [1-9]' <<<"$noise" &&
	grep -Eq '(ipi [^,]+|irq (IRQ work|Timer broadcast|CPU stop|CPU backtrace)) [1-9]' <<<"$noise"
ok $? "arm64: the noise timeline names the IPIs by kind (ipi_entry), none left as irq IPI"
sed 's/^/# guest-pre: /' "$r/pre.txt"
grep -q '^membarrier exit 0$' "$r/pre.txt" && delivered "$r/mb.json"
ok $? "arm64: membarrier storm cpu 0 -> isolated cpu 2 counted, delivery strict ($(grep -o '[0-9]* of [0-9]* calls reached' "$r/mb.ktap"))"
grep -q '^tlb exit 4$' "$r/pre.txt" &&
	grep -q '^1..0 # SKIP no TLB shootdown IPIs to count: /proc/interrupts has no TLB row' "$r/tlb.ktap"
ok $? "arm64: the tlb storm skips, saying why (no TLB row: flushes broadcast in hardware)"
[ "$(verdict "$r" ipistorm_watch 'control: the watch named membarrier')" = pass ]
ok $? "arm64: the watch named membarrier the source of its control's IPIs"
grep -E '^# cpu [23]: .*/proc/interrupts' "$r/suite/ipistorm_watch.ktap" | sed 's/^/# /'
grep -Eq '^# cpu 2: .* IPIs sent to it .*; /proc/interrupts: CAL \+[0-9]+, RES \+[0-9]+$' "$r/suite/ipistorm_watch.ktap" &&
	grep -Eq '^# by kind: [0-9]+ function call, [0-9]+ reschedule' "$r/suite/ipistorm_watch.ktap"
ok $? "arm64: the watch counts the IPI rows arm64 has (IPI1 as CAL, IPI0 as RES, no TLB) and the IPIs by kind"
[ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "arm64: ipistorm's kernel module, cross-built against Debian's arm64 headers, loaded and delivered its IPIs"
[ "$(verdict "$r" cid_scan 'function_graph timed')" = pass ]
ok $? "arm64: cid_scan ran (glibc's rseq registration found in the static build) and timed the scan"
r=$TMP/vm-6.12
grep -qx 'isolated 2-3' "$r/guest-cpus.txt"
ok $? "6.12: cpus 2-3 are isolated (the storms below target them)"
sed 's/^/# guest-pre: /' "$r/pre.txt"
grep -q '^membarrier exit 0$' "$r/pre.txt"
ok $? "6.12: membarrier storm cpu 0 -> isolated cpu 2 passed"
[ "$(verdict_of "$r/mb.json" 'cpu 0 -> cpu 2 (')" = pass ] &&
	grep -q '^ok 2 cpu 0 -> cpu 2 (.*reached dst' "$r/mb.ktap" &&
	delivered "$r/mb.json"
ok $? "6.12: membarrier to the isolated cpu: delivery strict ($(grep -o '[0-9]* of [0-9]* calls reached' "$r/mb.ktap"))"
grep -q '^tlb exit 0$' "$r/pre.txt"
ok $? "6.12: tlb storm cpu 1 -> isolated cpu 3 passed"
grep -q '^ok 2 cpu 1 -> cpu 3 (.*reached dst' "$r/tlb.ktap" &&
	delivered "$r/tlb.json"
ok $? "6.12: tlb shootdowns to the isolated cpu: delivery strict ($(grep -o '[0-9]* of [0-9]* calls reached' "$r/tlb.ktap"))"
# the watch says what its own setup and teardown sent the watched cpus
json_check "$r/suite/ipistorm_watch.json" '[m for m in d["metrics"] if m["name"] == "ipis_per_min" and "setup_ipis" in m["extra"] and "teardown_ipis" in m["extra"]]' &&
	grep -q '^# outside the window: [0-9]* IPIs (CAL + RES) to cpus 2-3 while the watch set itself up' "$r/suite/ipistorm_watch.ktap"
ok $? "6.12: the watch reports its setup/teardown IPIs ($(grep -o 'outside the window: [0-9]* IPIs.*down' "$r/suite/ipistorm_watch.ktap" | head -c 160))"
[ "$(verdict "$r" ipistorm 'cpu ')" = pass ] && [ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "6.12: quick storms of the suite complete"
booted cidfail
r=$TMP/vm-cidfail
sed 's/^/# guest-pre: /' "$r/pre.txt"
# a module run that hits its timeout is not a complete run
grep -q '^kmod timeout exit 1$' "$r/pre.txt" && grep -q '^# cpu .*: 0 of 1 runs complete' "$r/kto.ktap" &&
	grep -q '^not ok 1 cpu .*: every run complete$' "$r/kto.ktap" &&
	grep -q "^# incomplete: the module's run hit its timeout" "$r/kto.ktap"
ok $? "6.12: kmod run with timed_out set fails as incomplete ($(grep '^kmod timeout exit' "$r/pre.txt"))"
grep -E '^# function_graph (trace|timed)' "$r/suite/cid_scan.ktap" | sed 's/^/# /'
[ $RC -eq 1 ] && [ "$(verdict "$r" cid_scan 'function_graph timed')" = fail ] &&
	grep -Eq '^# function_graph timed .*the trace lost events' "$r/suite/cid_scan.ktap" &&
	grep -q '^not ok 1 function_graph timed the mm_cid scan$' "$r/suite/cid_scan.ktap"
ok $? "6.12: cid_scan's traced verdict fails when the trace lost events (rc=$RC)"
[ "$(verdict "$r" cid_scan 'compaction by the scan')" = fail ] &&
	grep -q '^not ok 2 compaction by the scan$' "$r/suite/cid_scan.ktap" &&
	grep -Eq '^# cid [1-9][0-9]* kept [0-9.]+ s asleep, through the 0.5 s bound \(control\)' "$r/suite/cid_scan.ktap"
ok $? "6.12: cid_scan's compaction fails when no scan can run"
grep -q '^after SIGKILL: current_tracer function_graph, journals: settings-[0-9]*$' "$r/pre.txt" &&
	grep -q "^# settings journal: put back /sys/kernel/tracing/current_tracer = 'nop', left changed by pid [0-9]* (gone before its cleanups)" "$r/suite/cid_scan.ktap"
ok $? "6.12: a SIGKILLed cid_scan left function_graph on; the next run put the tracer back"

done_testing
