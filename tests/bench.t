#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prove: alone (its verdicts hang on the host's timing: make check runs it by itself)
# The bench/ scripts never turn a failed measurement into a number: a
# round whose program failed is named with its reason and left out, and
# the script exits 1 when too few rounds are left to judge. Each runs on
# stand-ins (ISOLBENCH_BIN, and peers first in PATH) that fail where told
# to, so that nothing is measured and no test depends on the machine.
. "$(dirname "$0")/lib.sh"

needs python3 pgrep
plan 26
FAKES=$TMP/bin
STATE=$TMP/state
export FAKES STATE
mkdir -p "$FAKES" "$STATE"
export PATH=$FAKES:$PATH ISOLBENCH_BIN=$FAKES

# fail_here NAME: true when the stand-in NAME is to fail this time: its
# calls are counted in $STATE/NAME, and $FAIL_NAME lists the calls that
# fail ("all" for every one).
cat >"$FAKES/fail_here" <<'EOF'
#!/bin/bash
n=$(($(cat "$STATE/$1" 2>/dev/null || echo 0) + 1))
echo "$n" >"$STATE/$1"
v=FAIL_$1
case " ${!v:-} " in *" all "*|*" $n "*) exit 0 ;; esac
exit 1
EOF

# cc: builds the bare membarrier loop; the stand-in "loop" prints
# $MB_OUT or fails
cat >"$FAKES/cc" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
cat >"$out" <<'MB'
#!/bin/bash
if "$FAKES/fail_here" mb; then
	echo "membarrier(REGISTER_PRIVATE_EXPEDITED_RSEQ): Operation not permitted"
	exit 1
fi
echo "${MB_OUT:-1000.0 100}"
MB
chmod +x "$out"
EOF

# ipistorm: fails without a result; with $IPISTORM_CHECK, one of its
# checks fails but its result is written (exit 1 all the same)
cat >"$FAKES/ipistorm" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
if "$FAKES/fail_here" ipistorm; then
	echo "# ipistorm: cpu 1 is in use by ipistorm (pid 4242) (lock /run/lock/isolbench-cpu1.lock; --wait waits for it)"
	exit 4
fi
if "$FAKES/fail_here" ipistorm_json; then
	echo "ipistorm: --pairs: cpu 1 is not online" >&2
	exit 1
fi
cat >"$out" <<'J'
{"metrics": [{"name": "ipi_ns", "samples": [1000.0], "extra": {"dst_cal_irqs": 100}},
 {"name": "call_ns", "samples": [1000.0]}]}
J
if [ -n "${IPISTORM_CHECK:-}" ]; then
	echo "# cpu 0 -> cpu 1 (core, busy target): 92 of 100 calls reached dst"
	echo "not ok 2 cpu 0 -> cpu 1 (core, busy target): calls reached dst as a real IPI or an elided send"
	exit 1
fi
EOF

# timer_softirq: the cyclic phase's histogram, the quiet phase's window
cat >"$FAKES/timer_softirq" <<'EOF'
#!/bin/bash
phase="" out=""
while [ $# -gt 0 ]; do
	case $1 in --phase) phase=$2 ;; -o) out=$2 ;; esac
	shift
done
if "$FAKES/fail_here" "ts_$phase"; then
	echo "# timer_softirq: cannot set SCHED_FIFO 95 on cpu 1: Operation not permitted"
	exit 1
fi
if [ "$phase" = cyclic ]; then
	echo '{"metrics": [{"name": "wakeup_latency_us", "histogram": {"lo": 0, "width": 1, "buckets": [[50, 900], [60, 100]], "overflow": 0}}]}' >"$out"
else
	echo "# quiet window: counting on cpu 1"
	echo "# quiet window: done"
	echo '{"metrics": [{"name": "quiet_timer_softirqs_per_s", "extra": {"timer_softirqs_run": 100, "window_s": 10.0}}]}' >"$out"
fi
EOF

cat >"$FAKES/cyclictest" <<'EOF'
#!/bin/bash
"$FAKES/fail_here" cyclictest && { echo "Unable to change scheduling policy!"; exit 255; }
for a; do case $a in --json=*) out=${a#--json=} ;; esac; done
echo '{"thread": {"0": {"histogram": {"50": 900, "60": 100}, "cycles": 1000}}}' >"$out"
EOF

# perf: "bench syscall basic" prints a figure or fails; "stat" answers
# its control fifo and writes its count when its workload is killed
cat >"$FAKES/perf" <<'EOF'
#!/bin/bash
if [ "$1" = bench ]; then
	"$FAKES/fail_here" perf && { echo "perf: bench syscall: not supported"; exit 1; }
	echo "       0.500000 usecs/op"
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	--control) c=${2#fifo:}; ctl=${c%,*}; ack=${c#*,}; shift ;;
	-o) out=$2; shift ;;
	--) shift; break ;;
	esac
	shift
done
exec 3<"$ctl" 4>"$ack"
(while read -r _ <&3; do echo ack >&4; done) &
"$@"
echo "100,,irq:softirq_entry,10000000000,100.00,," >"$out"
EOF

cat >"$FAKES/getpid_bench" <<'EOF'
#!/bin/bash
s="" entry="" out=""
while [ $# -gt 0 ]; do
	case $1 in -s) s=$2 ;; --entry) entry=$2 ;; -o) out=$2 ;; esac
	shift
done
if "$FAKES/fail_here" "gb_${s:-default}_$entry"; then
	echo "getpid_bench: cpu 1 is in use by timer_softirq (pid 4242)" >&2
	exit 1
fi
case $s in
getppid) echo "# getppid: cpu 1 (not isolated), entry $entry, 500.0 ns (1 run)" ;;
none) echo "# none: cpu 1 (not isolated), entry $entry, avg 0.5 ns (5 runs)" ;;
*) echo '{"metrics": [{"name": "run_time_s", "samples": [1, 1, 1, 1, 1]}]}' >"$out" ;;
esac
EOF

# run.sh --quick: fails when told to
cat >"$FAKES/run.sh" <<'EOF'
#!/bin/bash
"$FAKES/fail_here" runsh && { echo "run.sh: no test is built" >&2; exit 1; }
exit 0
EOF
chmod +x "$FAKES"/*

# run NAME CMD...: a fresh count of calls, output in $TMP/NAME.out, exit in RC
run() {
	local name=$1
	shift
	rm -f "$STATE"/*
	timeout 120 "$@" >"$TMP/$name.out" 2>&1
	RC=$?
	sed 's/^/#   /' "$TMP/$name.out"
}
# no_zero NAME: no figure of 0 (0.0, 0.00, ...) is printed
no_zero() {
	! grep -En '(^|[ (])0\.0+( |$|,|\))' "$TMP/$1.out"
}

# bench/ipistorm.sh: ipistorm fails in every round, without a result
FAIL_ipistorm_json=all run ipi_all "$TOP/bench/ipistorm.sh" -n 100 --rounds 3 --pair 0:1
[ $RC -eq 1 ]; ok $? "ipistorm.sh, ipistorm failing: exit 1 (rc=$RC)"
[ "$(grep -c '^round [123]: failed, left out: ipistorm exited 1 without a result: ipistorm: --pairs: cpu 1 is not online' "$TMP/ipi_all.out")" -eq 3 ]
ok $? "ipistorm.sh: each failed round is named with ipistorm's reason"
grep -q '^only 0 of 3 rounds measured; judging needs at least 2 (more than half)' "$TMP/ipi_all.out"
ok $? "ipistorm.sh: too few rounds: says how many it needs"
no_zero ipi_all; ok $? "ipistorm.sh: no 0 reported as a measurement (ipi_ns 0.0)"

# ... in round 2 only (a skip: its CPU in use): left out of the
# medians, judged on the other two
FAIL_ipistorm=2 run ipi_one "$TOP/bench/ipistorm.sh" -n 100 --rounds 3 --pair 0:1
[ $RC -eq 0 ]; ok $? "ipistorm.sh, one round failing of 3: judged on the 2 others (rc=$RC)"
grep -q '^round 2: failed, left out: ipistorm exited 4: # ipistorm: cpu 1 is in use' "$TMP/ipi_one.out" &&
	grep -q 'over the 2 of 3 rounds measured' "$TMP/ipi_one.out" &&
	[ "$(grep -cE '^[13] +1000\.0 +1000\.0 +1000\.0 +1000\.0 +1000\.0$' "$TMP/ipi_one.out")" -eq 2 ]
ok $? "ipistorm.sh: round 2 named and left out, rounds 1 and 3 measured"
no_zero ipi_one; ok $? "ipistorm.sh: no 0 reported for the failed round"

# ... one of ipistorm's checks fails, its result written: the figures
# per delivered IPI stand, the failed check is shown
IPISTORM_CHECK=1 run ipi_check "$TOP/bench/ipistorm.sh" -n 100 --rounds 3 --pair 0:1
[ $RC -eq 0 ] && [ "$(grep -c '^ *(ipistorm.s own check: not ok 2 .*elided send (cpu 0 -> cpu 1 (core, busy target): 92 of 100 calls reached dst))' "$TMP/ipi_check.out")" -eq 3 ] &&
	grep -q 'over the 3 of 3 rounds measured' "$TMP/ipi_check.out"
ok $? "ipistorm.sh, ipistorm's check failing with a result: rounds kept, the check shown (rc=$RC)"

# ... the bare loop fails: ipistorm is not judged against nothing
FAIL_mb=all run ipi_mb "$TOP/bench/ipistorm.sh" -n 100 --rounds 3 --pair 0:1
[ $RC -eq 1 ] && [ "$(grep -c '^round [123]: failed, left out: the bare loop exited 1: membarrier' "$TMP/ipi_mb.out")" -eq 3 ] &&
	no_zero ipi_mb
ok $? "ipistorm.sh, the bare loop failing: each round named, no 0, exit 1 (rc=$RC)"

# ... no IPI counted on dst: no figure per IPI
MB_OUT="1000.0 0" run ipi_cal "$TOP/bench/ipistorm.sh" -n 100 --rounds 3 --pair 0:1
[ $RC -eq 1 ] && grep -q '^round 1: failed, left out: no IPI counted on cpu 1 during the bare loop' "$TMP/ipi_cal.out" &&
	no_zero ipi_cal
ok $? "ipistorm.sh, no IPI counted: rounds named, no 0 per IPI, exit 1 (rc=$RC)"

# bench/timer_softirq.sh: cyclic round 2 and quiet round 1 fail
FAIL_ts_cyclic=2 FAIL_ts_quiet=1 run ts "$TOP/bench/timer_softirq.sh" -c 1 -r 4 -D 1 -Q 1
[ $RC -eq 1 ]; ok $? "timer_softirq.sh, rounds failing: exit 1 (rc=$RC)"
grep -q '^cyclic round 2: failed, left out: timer_softirq exited 1: # timer_softirq: cannot set SCHED_FIFO' "$TMP/ts.out"
ok $? "timer_softirq.sh: the failed cyclic round is named with its reason"
grep -q '^cyclic: 3 of 4 rounds pooled' "$TMP/ts.out" && grep -q '^median: .*(3000 wakeups).*AGREE' "$TMP/ts.out"
ok $? "timer_softirq.sh: the other 3 cyclic rounds pooled and judged"
grep -q '^quiet round 1: failed, left out: timer_softirq exited 1' "$TMP/ts.out" &&
	grep -q '^round 2: timer_softirq 100 TIMER softirqs' "$TMP/ts.out"
ok $? "timer_softirq.sh: the failed quiet round is named, the other measured"
grep -q '^quiet: only 1 of 2 rounds measured; judging needs at least 2' "$TMP/ts.out"
ok $? "timer_softirq.sh: too few quiet rounds: says how many it needs"
no_zero ts; ok $? "timer_softirq.sh: no 0 reported as a measurement"

# ... cyclictest fails in every round
FAIL_cyclictest=all run ts_ct "$TOP/bench/timer_softirq.sh" -c 1 -r 3 -D 1 -Q 1
[ $RC -eq 1 ] && grep -q '^cyclic: only 0 of 3 rounds measured; judging needs at least 2' "$TMP/ts_ct.out" &&
	grep -q '^cyclic round 1: failed, left out: cyclictest exited 255: Unable to change' "$TMP/ts_ct.out" &&
	! grep -q '^median:' "$TMP/ts_ct.out"
ok $? "timer_softirq.sh, cyclictest failing: no median, exit 1 (rc=$RC)"

# bench/getpid_bench.sh: --entry raw fails in every round
export FIFO=0 ROUNDS=3 LOOPS=1000 CPU=1
FAIL_gb_getppid_raw=all run gb_raw "$TOP/bench/getpid_bench.sh"
[ $RC -eq 1 ]; ok $? "getpid_bench.sh, --entry raw failing: exit 1 (rc=$RC)"
[ "$(grep -c '^round [123]: failed, left out: getpid_bench --entry raw exited 1: getpid_bench: cpu 1 is in use' "$TMP/gb_raw.out")" -eq 3 ]
ok $? "getpid_bench.sh: each failed round is named with its reason"
grep -q '^FAIL  too few rounds measured to judge: --entry libc 3, --entry raw 0, perf 3 of 3; each needs at least 2' "$TMP/gb_raw.out" &&
	! grep -q 'best/perf' "$TMP/gb_raw.out"
ok $? "getpid_bench.sh: too few rounds: no ratio, says how many it needs"

# ... one libc round, the harness cost, the default run and run.sh fail
FAIL_gb_getppid_libc=2 FAIL_gb_none_libc=all FAIL_gb_default_=all FAIL_runsh=all \
	run gb_some "$TOP/bench/getpid_bench.sh"
[ $RC -eq 1 ]; ok $? "getpid_bench.sh, some runs failing: exit 1 (rc=$RC)"
grep -q '^round 2: failed, left out: getpid_bench --entry libc exited 1' "$TMP/gb_some.out" &&
	grep -q 'measured: libc 2, raw 3, perf 3' "$TMP/gb_some.out" &&
	grep -q '^PASS  getpid_bench default entry (libc) agrees' "$TMP/gb_some.out"
ok $? "getpid_bench.sh: the failed round left out, the rest judged"
grep -q '^FAIL  harness cost per measured call, --entry libc: failed: getpid_bench -s none --entry libc exited 1' "$TMP/gb_some.out" &&
	grep -q '^PASS  harness cost per measured call 0.5 ns, --entry raw' "$TMP/gb_some.out"
ok $? "getpid_bench.sh: a failed harness-cost run is a FAIL, not a figure"
grep -q '^FAIL  a default getpid_bench run failed (exit 1' "$TMP/gb_some.out"
ok $? "getpid_bench.sh: a failed default run is a FAIL, not a ratio"
grep -q '^FAIL  ./run.sh --quick failed (exit 1' "$TMP/gb_some.out"
ok $? "getpid_bench.sh: a failed ./run.sh --quick is a FAIL, not a time"
no_zero gb_some; ok $? "getpid_bench.sh: no 0 reported as a measurement"
done_testing
