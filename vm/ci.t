#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/ci.t - the whole suite in qemu guests booted from Debian's kernels
# with the default isolation (nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3,
# 4 vCPUs), quick mode: what CI must see on 6.12 and on 6.1. TAP, for
# prove. Takes a few minutes under TCG; .ci/run runs it.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP qemu-system-x86_64 not installed"
	exit 0
fi
plan 21

# verdict RESULTS_DIR TEST PREFIX: the result ("pass", "skip", "fail")
# of the first verdict of TEST's JSON whose name starts with PREFIX
verdict() {
	python3 - "$1/suite/$2.json" "$3" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["verdicts"]:
    if v["name"].startswith(sys.argv[2]):
        print(v["result"]); break
PY
}

guest() {	# guest VERSION: boot it, run the quick suite, keep the results
	local start=$(date +%s)
	"$TOP/vm/run.sh" --debian "$1" --timeout 900 -o "$TMP/vm-$1" -- --quick \
		>"$TMP/out-$1" 2>"$TMP/err-$1"
	RC=$?
	diag "vm/run.sh --debian $1 -- --quick: exit $RC after $(($(date +%s) - start)) s"
	grep -E '^(not )?ok [0-9]+ selftests' "$TMP/out-$1" | sed 's/^/# /'
	[ $RC -eq 0 ] || tail -n 30 "$TMP/err-$1" | sed 's/^/# /'
}

guest 6.12
r=$TMP/vm-6.12
ok $RC "6.12: the whole suite passed in the guest"
grep -qx 'nohz_full 2-3' "$r/guest-cpus.txt"; ok $? "6.12: the guest has nohz_full=2-3"
[ "$(verdict "$r" timer_softirq 'quiet: the tick stopped')" = pass ]
ok $? "6.12: timer_softirq asserted that the tick stopped on a nohz_full CPU"
[ "$(verdict "$r" timer_softirq 'quiet: ')" = pass ] &&
	[ "$(python3 -c 'import json,sys; print(sum(1 for v in json.load(open(sys.argv[1]))["verdicts"] if v["result"]=="skip"))' "$r/suite/timer_softirq.json")" = 0 ]
ok $? "6.12: timer_softirq ran every check, none skipped"
[ "$(verdict "$r" timer_softirq 'control: TIMER softirqs')" = pass ]
ok $? "6.12: the positive control saw the TIMER softirqs it caused"
[ "$(verdict "$r" timer_softirq 'quiet: cpu 2 raised TIMER softirqs for due timers only')" = pass ]
ok $? "6.12: timer_softirq asserted seed 004's rule (raised only for due timers) on cpu 2"
[ "$(verdict "$r" timer_softirq 'quiet: the counting sent no IPI to cpu 2')" = pass ]
ok $? "6.12: the ipi tracepoints saw no IPI from the counting to cpu 2 inside the windows"
json_check "$r/suite/timer_softirq.json" '[m for m in d["metrics"] if m["name"]=="timer_softirq_raised_per_tick" and m["unit"]=="softirqs/tick" and len(m["samples"])>=2] and all(len(m["samples"])>=2 for m in d["metrics"])'
ok $? "6.12: timer_softirq_raised_per_tick and every metric with a sample per window or run"
grep -q 'watching the IPIs sent to cpus 2-3' "$r/suite/ipistorm_watch.ktap"
ok $? "6.12: ipistorm's interference mode watched cpus 2-3"
[ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "6.12: ipistorm's kernel module loaded and delivered its IPIs"
[ "$(verdict "$r" cid_scan 'function_graph timed')" = pass ]
ok $? "6.12: cid_scan used the traced method (function_graph)"
json_check "$r/suite/getpid_bench.json" 'd["system"]["emulated"] and d["system"]["nohz_full"]=="2-3" and "isolbench.vm=" in d["system"]["cmdline"]'
ok $? "6.12: results say they come from an emulated guest"

guest 6.1
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
[ "$(verdict "$r" timer_softirq 'quiet: cpu 2 raised TIMER softirqs for due timers only')" = pass ]
ok $? "6.1: timer_softirq asserted seed 004's rule on cpu 2"
[ "$(verdict "$r" timer_softirq 'quiet: the counting sent no IPI')" = skip ]
ok $? "6.1: the IPI check skips (no ipi tracepoints before 6.3)"
[ "$(verdict "$r" ipistorm_kmod 'cpu ')" = pass ]
ok $? "6.1: ipistorm's kernel module loaded and delivered its IPIs"
done_testing
