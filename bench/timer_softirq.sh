#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timer_softirq against its peers, side by side in one run:
#  1. cyclic phase vs rt-tests' cyclictest on the same CPU, interval,
#     priority and duration, alternating short runs (ROUNDS each, so that
#     drift in the machine's load hits both alike), histograms pooled per
#     tool: median and p99 wakeup latency must agree within 10% or 2 us,
#     whichever is larger. Both at their defaults: /dev/cpu_dma_latency
#     held at 0 while they run (-L: both with --laptop, left alone).
#  2. quiet phase vs perf stat -C CPU -e irq:softirq_entry --filter
#     'vec == 1' enabled and disabled through its control fifo when the
#     quiet window starts and ends: TIMER softirq counts agree within 5%
#     (each tool's window length and rate are printed beside them).
# Usage: bench/timer_softirq.sh [-c CPU] [-i US] [-p PRIO] [-D SECS] [-r ROUNDS] [-Q QUIET_SECS] [-L]
# (defaults: last CPU, 1000 us, 95, 1 s x 16 rounds, quiet window 10 s x 2)
# Prints ratios; exits 1 when a target is missed, 4 when a peer is missing.
# A round in which either tool failed (exited non-zero, or left no
# usable result) is named ("cyclic round N: failed, left out: ...") and
# left out; the verdicts need more than half of each phase's rounds,
# else exit 1 (cannot judge).
# ISOLBENCH_BIN=DIR runs DIR/timer_softirq instead of the repository's.
set -u
cd "$(dirname "$0")/.." || exit 1
bin=${ISOLBENCH_BIN:-.}
CPU=$(($(nproc) - 1)) INTERVAL=1000 PRIO=95 DUR=1 ROUNDS=16 QDUR=10 QROUNDS=2 LAPTOP=""
usage() {
	[ $# -eq 0 ] || echo "bench/timer_softirq.sh: $*" >&2
	echo "usage: $0 [-c CPU] [-i US] [-p PRIO] [-D SECS] [-r ROUNDS] [-Q QUIET_SECS] [-L]" >&2
	exit 2
}
while getopts "c:i:p:D:r:Q:L" o; do
	case $o in
	c) CPU=$OPTARG ;; i) INTERVAL=$OPTARG ;; p) PRIO=$OPTARG ;;
	D) DUR=$OPTARG ;; r) ROUNDS=$OPTARG ;; Q) QDUR=$OPTARG ;; L) LAPTOP=--laptop ;;
	*) usage ;;
	esac
done
# whole numbers without a leading zero, checked before any arithmetic
# (the rest the tools check themselves)
[[ $ROUNDS =~ ^[1-9][0-9]{0,3}$ ]] || usage "-r must be a whole number of rounds from 1 to 9999, not '$ROUNDS'"
[[ $DUR =~ ^[1-9][0-9]{0,4}$ ]] || usage "-D must be a whole number of seconds from 1 to 99999, not '$DUR'"
[[ $QDUR =~ ^[1-9][0-9]{0,4}$ ]] || usage "-Q must be a whole number of seconds from 1 to 99999, not '$QDUR'"
for t in cyclictest perf python3; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (rt-tests, linux-perf)"; exit 4; }
done
if [ -n "${ISOLBENCH_BIN:-}" ]; then
	[ -x "$bin/timer_softirq" ] || { echo "no $bin/timer_softirq" >&2; exit 1; }
else
	[ -x ./timer_softirq ] || make -s timer_softirq || exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
HMAX=20000
fail=0
# the verdicts judge only when more than half of a phase's rounds measured
need=$((ROUNDS / 2 + 1)) qneed=$((QROUNDS / 2 + 1))
# why FILE: the reason a tool gave, one line: its first "not ok" line,
# else the last line it printed
why() {
	local l
	l=$(grep -m1 '^not ok' "$1" 2>/dev/null)
	[ -n "$l" ] || l=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n1)
	echo "${l:-no output}" | cut -c1-160
}
DMA="cpu_dma_latency held at 0 (the default of both tools)"
[ -n "$LAPTOP" ] && DMA="--laptop: cpu_dma_latency left alone"

echo "cyclic: cpu $CPU, -i $INTERVAL us, SCHED_FIFO $PRIO, -D $DUR s, -m, $DMA, $ROUNDS rounds each, alternating"
good=()
for r in $(seq "$ROUNDS"); do
	rm -f "$T/ours$r.json" "$T/ct$r.json"
	# shellcheck disable=SC2086  # $LAPTOP: no word or one
	"$bin/timer_softirq" --phase cyclic -q -c "$CPU" -i "$INTERVAL" -p "$PRIO" -D "$DUR" -r 1 -m \
		$LAPTOP --histogram $HMAX -o "$T/ours$r.json" >"$T/ours$r.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "cyclic round $r: failed, left out: timer_softirq exited $rc: $(why "$T/ours$r.out")"
		continue
	fi
	# shellcheck disable=SC2086
	cyclictest -q -m $LAPTOP -a "$CPU" -p "$PRIO" -i "$INTERVAL" -D "$DUR" -h $HMAX \
		--json="$T/ct$r.json" >"$T/ct$r.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "cyclic round $r: failed, left out: cyclictest exited $rc: $(why "$T/ct$r.out")"
		continue
	fi
	good+=("$r")
done
python3 - "$T" "$ROUNDS" "$need" "${good[@]}" <<'PY' || fail=1
import json, sys
from collections import Counter
d, rounds, need, good = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
# Pool each tool's rounds into one histogram of whole microseconds (what
# cyclictest records; timer_softirq's JSON buckets are [i, i+1) us). A
# round whose results cannot be read is left out, named.
ours, ct = Counter(), Counter()
pooled = 0
for i in good:
    try:
        m = [m for m in json.load(open(f"{d}/ours{i}.json"))["metrics"] if m["name"] == "wakeup_latency_us"][0]
        h = m["histogram"]
        o = Counter()
        for idx, c in h["buckets"]:
            o[int(h["lo"] + idx * h["width"])] += c
        o[10**9] += h["overflow"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print(f"cyclic round {i}: failed, left out: timer_softirq's result has no wakeup_latency_us histogram ({e!r})")
        continue
    try:
        t = json.load(open(f"{d}/ct{i}.json"))["thread"]["0"]
        c = Counter()
        for k, v in t["histogram"].items():
            c[int(k)] += v
        c[10**9] += t["cycles"] - sum(t["histogram"].values())
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"cyclic round {i}: failed, left out: cyclictest's result has no histogram ({e!r})")
        continue
    if not sum(o.values()) or not sum(c.values()):
        print(f"cyclic round {i}: failed, left out: no wakeup recorded "
              f"(timer_softirq {sum(o.values())}, cyclictest {sum(c.values())})")
        continue
    ours += o
    ct += c
    pooled += 1
if pooled < need:
    print(f"cyclic: only {pooled} of {rounds} rounds measured; judging needs at least {need} "
          f"(more than half): cannot judge; FAIL")
    sys.exit(1)
print(f"cyclic: {pooled} of {rounds} rounds pooled")
def q(h, p):
    n, acc = sum(h.values()), 0
    for us in sorted(h):
        acc += h[us]
        if acc >= p * n:
            return us + 0.5
bad = 0
for name, p in (("median", 0.5), ("p99", 0.99)):
    a, b = q(ours, p), q(ct, p)
    tol = max(0.10 * b, 2.0)
    ok = abs(a - b) <= tol
    bad += not ok
    print(f"{name}: timer_softirq {a:.1f} us ({sum(ours.values())} wakeups), cyclictest {b:.1f} us "
          f"({sum(ct.values())} cycles), ratio {a / b:.3f}, diff {a - b:+.1f} us (tolerance {tol:.1f}) "
          f"{'AGREE' if ok else 'DISAGREE'}")
sys.exit(1 if bad else 0)
PY

# perf stat runs disabled (-D -1) and is switched on and off through its
# control fifo when timer_softirq -v says its window begins and ends.
echo "quiet: cpu $CPU, TIMER softirqs in a $QDUR s window, timer_softirq vs perf stat over the same window"
qgood=0
for r in $(seq "$QROUNDS"); do
	mkfifo "$T/ctl$r" "$T/ack$r"
	perf stat -D -1 --control "fifo:$T/ctl$r,$T/ack$r" -x, -C "$CPU" \
		-e irq:softirq_entry --filter 'vec == 1' -o "$T/perf$r.txt" \
		-- sleep $((QDUR + 30)) 2>"$T/perf$r.err" &
	perf_pid=$!
	exec 7>"$T/ctl$r" 8<"$T/ack$r"
	: >"$T/q$r.out"
	: >"$T/q$r.ctl"
	"$bin/timer_softirq" --phase quiet -v -c "$CPU" -D "$QDUR" -r 1 -o "$T/q$r.json" 2>&1 |
	while IFS= read -r line; do
		case $line in
		"# quiet window: counting on cpu"*)
			echo enable >&7
			read -r -t 5 _ <&8 || echo "perf stat did not acknowledge the enable within 5 s" >>"$T/q$r.ctl" ;;
		"# quiet window: done"*)
			echo disable >&7
			read -r -t 5 _ <&8 || echo "perf stat did not acknowledge the disable within 5 s" >>"$T/q$r.ctl" ;;
		esac
		echo "$line" >>"$T/q$r.out"
	done
	rc=${PIPESTATUS[0]}
	exec 7>&- 8<&-
	# end perf's workload (its sleep); perf then prints the counts and exits
	kill $(pgrep -P $perf_pid) 2>/dev/null
	wait $perf_pid 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		echo "quiet round $r: failed, left out: timer_softirq exited $rc: $(why "$T/q$r.out")"
		continue
	fi
	if [ -s "$T/q$r.ctl" ]; then
		echo "quiet round $r: failed, left out: $(head -n1 "$T/q$r.ctl")"
		continue
	fi
	python3 - "$T/q$r.json" "$T/perf$r.txt" "$r" "$T/perf$r.err" <<'PY'
import json, sys
r = sys.argv[3]
def failed(why):
    print(f"quiet round {r}: failed, left out: {why}")
    sys.exit(2)
try:
    m = [m for m in json.load(open(sys.argv[1]))["metrics"] if m["name"] == "quiet_timer_softirqs_per_s"][0]
    ours, ours_s = m["extra"]["timer_softirqs_run"], m["extra"]["window_s"]
except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
    failed(f"timer_softirq's result has no quiet window count ({e!r})")
# perf stat -x: count,unit,event,run time in ns,... (its own enabled time)
try:
    f = [l.split(",") for l in open(sys.argv[2]) if "softirq_entry" in l][0]
    perf, perf_s = int(f[0]), int(f[3]) / 1e9
except (OSError, ValueError, IndexError) as e:
    try:
        err = [l.strip() for l in open(sys.argv[4]) if l.strip()][-1:]
    except OSError:
        err = []
    failed(f"perf stat gave no count ({e!r}{'; ' + err[0] if err else ''})")
if ours_s <= 0 or perf_s <= 0:
    failed(f"a window of no length (timer_softirq {ours_s} s, perf stat {perf_s} s)")
# perf is switched on and off a pipe's delay after each edge of the window
a, b = ours / ours_s, perf / perf_s
ok = abs(ours - perf) <= 0.05 * max(perf, 1) or abs(ours - perf) <= 1
print(f"round {r}: timer_softirq {ours:.0f} TIMER softirqs in {ours_s:.2f} s ({a:.2f}/s), "
      f"perf stat {perf} in {perf_s:.2f} s ({b:.2f}/s), ratio {a / max(b, 1e-9):.3f} "
      f"{'AGREE' if ok else 'DISAGREE'} (within 5%)")
sys.exit(0 if ok else 1)
PY
	case $? in
	0) qgood=$((qgood + 1)) ;;
	1) qgood=$((qgood + 1)); fail=1 ;;
	esac
done
if [ "$qgood" -lt "$qneed" ]; then
	echo "quiet: only $qgood of $QROUNDS rounds measured; judging needs at least $qneed (more than half): cannot judge; FAIL"
	fail=1
fi
exit $fail
