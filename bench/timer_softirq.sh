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
#     quiet window starts and ends: TIMER softirqs per second of each
#     tool's own window (timer_softirq's window_s, perf's run time) agree
#     within 5%.
# Usage: bench/timer_softirq.sh [-c CPU] [-i US] [-p PRIO] [-D SECS] [-r ROUNDS] [-Q QUIET_SECS] [-L]
# (defaults: last CPU, 1000 us, 95, 1 s x 16 rounds, quiet window 10 s x 2)
# Prints ratios; exits 1 when a target is missed, 4 when a peer is missing.
set -u
cd "$(dirname "$0")/.."
CPU=$(($(nproc) - 1)) INTERVAL=1000 PRIO=95 DUR=1 ROUNDS=16 QDUR=10 QROUNDS=2 LAPTOP=""
while getopts "c:i:p:D:r:Q:L" o; do
	case $o in
	c) CPU=$OPTARG ;; i) INTERVAL=$OPTARG ;; p) PRIO=$OPTARG ;;
	D) DUR=$OPTARG ;; r) ROUNDS=$OPTARG ;; Q) QDUR=$OPTARG ;; L) LAPTOP=--laptop ;;
	*) echo "usage: $0 [-c CPU] [-i US] [-p PRIO] [-D SECS] [-r ROUNDS] [-Q QUIET_SECS] [-L]" >&2; exit 2 ;;
	esac
done
for t in cyclictest perf python3; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (rt-tests, linux-perf)"; exit 4; }
done
[ -x ./timer_softirq ] || make -s timer_softirq || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
HMAX=20000
fail=0
DMA="cpu_dma_latency held at 0 (the default of both tools)"
[ -n "$LAPTOP" ] && DMA="--laptop: cpu_dma_latency left alone"

echo "cyclic: cpu $CPU, -i $INTERVAL us, SCHED_FIFO $PRIO, -D $DUR s, -m, $DMA, $ROUNDS rounds each, alternating"
for r in $(seq "$ROUNDS"); do
	./timer_softirq --phase cyclic -q -c "$CPU" -i "$INTERVAL" -p "$PRIO" -D "$DUR" -r 1 -m \
		$LAPTOP --histogram $HMAX -o "$T/ours$r.json" >"$T/ours$r.out" || { cat "$T/ours$r.out"; exit 1; }
	cyclictest -q -m $LAPTOP -a "$CPU" -p "$PRIO" -i "$INTERVAL" -D "$DUR" -h $HMAX \
		--json="$T/ct$r.json" >"$T/ct$r.out" 2>&1 || { cat "$T/ct$r.out"; exit 1; }
done
python3 - "$T" "$ROUNDS" <<'PY' || fail=1
import json, sys
from collections import Counter
d, rounds = sys.argv[1], int(sys.argv[2])
# Pool each tool's rounds into one histogram of whole microseconds (what
# cyclictest records; timer_softirq's JSON buckets are [i, i+1) us).
ours, ct = Counter(), Counter()
for i in range(1, rounds + 1):
    m = [m for m in json.load(open(f"{d}/ours{i}.json"))["metrics"] if m["name"] == "wakeup_latency_us"][0]
    h = m["histogram"]
    for idx, c in h["buckets"]:
        ours[int(h["lo"] + idx * h["width"])] += c
    ours[10**9] += h["overflow"]
    t = json.load(open(f"{d}/ct{i}.json"))["thread"]["0"]
    for k, v in t["histogram"].items():
        ct[int(k)] += v
    ct[10**9] += t["cycles"] - sum(t["histogram"].values())
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
for r in $(seq "$QROUNDS"); do
	mkfifo "$T/ctl$r" "$T/ack$r"
	perf stat -D -1 --control "fifo:$T/ctl$r,$T/ack$r" -x, -C "$CPU" \
		-e irq:softirq_entry --filter 'vec == 1' -o "$T/perf$r.txt" \
		-- sleep $((QDUR + 30)) 2>"$T/perf$r.err" &
	perf_pid=$!
	exec 7>"$T/ctl$r" 8<"$T/ack$r"
	./timer_softirq --phase quiet -v -c "$CPU" -D "$QDUR" -r 1 -o "$T/q$r.json" 2>&1 |
	while IFS= read -r line; do
		case $line in
		"# quiet window: counting on cpu"*) echo enable >&7; read -r -t 5 _ <&8 ;;
		"# quiet window: done"*) echo disable >&7; read -r -t 5 _ <&8 ;;
		esac
		echo "$line" >>"$T/q$r.out"
	done
	exec 7>&- 8<&-
	# end perf's workload (its sleep); perf then prints the counts and exits
	kill $(pgrep -P $perf_pid) 2>/dev/null
	wait $perf_pid 2>/dev/null
	python3 - "$T/q$r.json" "$T/perf$r.txt" "$r" <<'PY' || fail=1
import json, sys
m = [m for m in json.load(open(sys.argv[1]))["metrics"] if m["name"] == "quiet_timer_softirqs_per_s"][0]
ours, ours_s = m["extra"]["timer_softirqs_run"], m["extra"]["window_s"]
# perf stat -x: count,unit,event,run time in ns,... (its own enabled time)
f = [l.split(",") for l in open(sys.argv[2]) if "softirq_entry" in l][0]
perf, perf_s = int(f[0]), int(f[3]) / 1e9
# the two windows start and end a pipe's delay apart: compare rates
a, b = ours / ours_s, perf / perf_s
ok = abs(a - b) <= 0.05 * b or abs(ours - perf) <= 1
print(f"round {sys.argv[3]}: timer_softirq {ours:.0f} TIMER softirqs in {ours_s:.2f} s ({a:.2f}/s), "
      f"perf stat {perf} in {perf_s:.2f} s ({b:.2f}/s), ratio {a / max(b, 1e-9):.3f} "
      f"{'AGREE' if ok else 'DISAGREE'} (within 5%)")
sys.exit(0 if ok else 1)
PY
done
exit $fail
