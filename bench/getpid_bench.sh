#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# getpid_bench's speed targets, measured side by side in one run:
#  1. getppid ns/call through the default entry (libc's syscall(3))
#     agrees within 5% with `perf bench syscall basic` (which calls
#     getppid() through libc) pinned to the same CPU: the best of many
#     short rounds, the tools interleaved in a rotating order so drift
#     hits all alike. Best, not median: on a shared machine time slices
#     given to other tasks only add to a round's time, so the fastest
#     round is the one nearest the call's own cost (medians are printed
#     beside it). Each round of every tool runs at SCHED_FIFO 1 (chrt)
#     when the kernel throttles real-time tasks (sched_rt_runtime_us is
#     not -1): a round lasts about 0.1 s and then ends, and meanwhile the
#     ordinary tasks of a shared machine do not take the CPU from it.
#     FIFO=0 runs them as ordinary tasks.
#     The --entry raw figure (the inline syscall instruction) is printed
#     beside them, with its ratio, for reference (no target: it skips
#     the libc return and is expected to differ);
#  2. the harness's own cost per measured call (--syscall none) <= 1 ns
#     with --entry raw (the bare loop); with --entry libc (the loop plus
#     one out-of-line call) it is printed;
#  3. a default getpid_bench run (5 x 10M calls) spends at least 80% of
#     its wall time in its measured runs (setup, calibration, warm-up
#     and the kernel-count pass are the rest: wall / runs <= 1.25; the
#     runs themselves take what this machine's syscall takes); ./run.sh
#     --quick takes < 30 s.
# Prints each ratio and PASS/FAIL; exits 1 if any target is missed.
# A run that failed (exited non-zero or printed no figure) is never a
# figure: it is named ("round N: failed, left out: ...") and left out of
# the best and the median, which need more than half of each tool's
# rounds (else exit 1); a failed harness-cost, default or --quick run is
# a FAIL of its target.
# ISOLBENCH_BIN=DIR runs DIR/getpid_bench (and DIR/run.sh when DIR has
# one) instead of the repository's.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${ISOLBENCH_BIN:-$top}
runsh=$top/run.sh
[ ! -x "$bin/run.sh" ] || runsh=$bin/run.sh
cpu=${CPU:-$(($(nproc) - 1))}
rounds=${ROUNDS:-21}
loops=${LOOPS:-300000}
fail=0
# digits without a leading zero, checked before any arithmetic
[[ $rounds =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench: ROUNDS must be a whole number from 1 to 9999, not '$rounds'" >&2; exit 2; }
[[ $loops =~ ^[1-9][0-9]{0,9}$ ]] || { echo "bench: LOOPS must be a whole number from 1, not '$loops'" >&2; exit 2; }
[ -x "$bin/getpid_bench" ] || { echo "bench: no $bin/getpid_bench (build first: make)" >&2; exit 1; }
need=$((rounds / 2 + 1))

command -v perf >/dev/null || { echo "bench: perf not installed (linux-perf)"; exit 4; }
perf bench syscall basic --loop 1 >/dev/null 2>&1 ||
	{ echo "bench: this perf has no 'bench syscall basic'"; exit 4; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
best() { sort -g | head -1; }

verdict() {	# verdict OK_EXPR TEXT
	if awk "BEGIN {exit !($1)}"; then echo "PASS  $2"; else echo "FAIL  $2"; fail=1; fi
}

rt=()
if [ "${FIFO:-1}" = 1 ] && command -v chrt >/dev/null &&
   [ "$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null)" != -1 ] &&
   chrt -f 1 true 2>/dev/null; then
	rt=(chrt -f 1)
	echo "each round at SCHED_FIFO 1 (RT throttling: $(cat /proc/sys/kernel/sched_rt_runtime_us) of $(cat /proc/sys/kernel/sched_rt_period_us) us; FIFO=0 to run them as ordinary tasks)"
else
	echo "each round as an ordinary task (FIFO=${FIFO:-1}; chrt -f unavailable or RT throttling off)"
fi

# figure WHAT SED-SCRIPT CMD...: run CMD; print "ok FIGURE" (what the
# sed script finds in its output, a plain number) or "failed WHY"
figure() {
	local what=$1 script=$2 out rc fig
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	fig=$(printf '%s\n' "$out" | sed -n "$script" | head -n1)
	if [ $rc -ne 0 ]; then
		echo "failed $what exited $rc: $(printf '%s\n' "$out" | grep -v '^[[:space:]]*$' | tail -n1 | cut -c1-160)"
	elif ! [[ $fig =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		echo "failed $what printed no figure"
	else
		echo "ok $fig"
	fi
}
ours_entry() {	# ours_entry ENTRY: ns/call of one getppid run
	figure "getpid_bench --entry $1" "s/^# getppid: .*, entry $1, \([0-9.]*\) ns (1 run)\$/\1/p" \
		"${rt[@]}" "$bin/getpid_bench" -c "$cpu" -s getppid --entry "$1" -n "$loops" -r 1 -q
}
theirs() {	# perf prints usecs per call: in ns
	figure "perf bench syscall basic" 's/^ *\([0-9][0-9]*\.[0-9]*\) usecs\/op.*/\1/p' \
		"${rt[@]}" taskset -c "$cpu" perf bench syscall basic --loop "$loops" |
		awk '$1 == "ok" { printf "ok %.3f\n", $2 * 1000; next } { print }'
}
# take ROUND RESULT: the figure in FIG, or the round reported and left out
take() {
	case $2 in
	"ok "*) FIG=${2#ok }; return 0 ;;
	*) echo "round $1: failed, left out: ${2#failed }"; return 1 ;;
	esac
}

libc=() raw=() perfb=()
for r in $(seq "$rounds"); do
	# rotate the order each round: libc raw perf, raw perf libc, ...
	for k in 0 1 2; do
		case $(((r + k) % 3)) in
		0) take "$r" "$(ours_entry libc)" && libc+=("$FIG") ;;
		1) take "$r" "$(ours_entry raw)" && raw+=("$FIG") ;;
		2) take "$r" "$(theirs)" && perfb+=("$FIG") ;;
		esac
	done
done
if [ ${#libc[@]} -lt "$need" ] || [ ${#raw[@]} -lt "$need" ] || [ ${#perfb[@]} -lt "$need" ]; then
	echo "FAIL  too few rounds measured to judge: --entry libc ${#libc[@]}, --entry raw ${#raw[@]}, perf ${#perfb[@]} of $rounds; each needs at least $need (more than half)"
	exit 1
fi
bl=$(printf '%s\n' "${libc[@]}" | best)
br=$(printf '%s\n' "${raw[@]}" | best)
bp=$(printf '%s\n' "${perfb[@]}" | best)
rl=$(awk "BEGIN {printf \"%.3f\", $bl / $bp}")
rr=$(awk "BEGIN {printf \"%.3f\", $br / $bp}")
echo "getppid on cpu $cpu, $loops calls x $rounds rounds each (measured: libc ${#libc[@]}, raw ${#raw[@]}, perf ${#perfb[@]}), side by side (ns per call):"
printf '  %-38s %9s %9s  %s\n' "" "best" "median" "best/perf"
printf '  %-38s %9.1f %9.1f  %s\n' \
	"getpid_bench --entry libc (default)" "$bl" "$(printf '%s\n' "${libc[@]}" | median)" "$rl" \
	"getpid_bench --entry raw" "$br" "$(printf '%s\n' "${raw[@]}" | median)" "$rr" \
	"perf bench syscall basic" "$bp" "$(printf '%s\n' "${perfb[@]}" | median)" "1.000"
verdict "$rl >= 0.95 && $rl <= 1.05" "getpid_bench default entry (libc) agrees with perf bench syscall basic within 5% (ratio $rl; --entry raw $rr)"

none_cost() {	# none_cost ENTRY: harness ns per measured call
	figure "getpid_bench -s none --entry $1" 's/^# none: .*, avg \([0-9.]*\) ns .*/\1/p' \
		"${rt[@]}" "$bin/getpid_bench" -c "$cpu" -s none --entry "$1" -n 20000000 -r 5 -q
}
none=$(none_cost raw)
if [ "${none%% *}" = ok ]; then
	verdict "${none#ok } <= 1.0" "harness cost per measured call ${none#ok } ns, --entry raw (target <= 1 ns)"
else
	echo "FAIL  harness cost per measured call, --entry raw: failed: ${none#failed }"
	fail=1
fi
none=$(none_cost libc)
if [ "${none%% *}" = ok ]; then
	echo "      harness cost per measured call ${none#ok } ns, --entry libc (the loop and one out-of-line call; no target)"
else
	echo "FAIL  harness cost per measured call, --entry libc: failed: ${none#failed }"
	fail=1
fi

json=$(mktemp)
s=$(date +%s.%N)
"$bin/getpid_bench" -q -o "$json" >"$json.out" 2>&1
rc=$?
d=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $s}")
runs=$(python3 -c 'import json, sys
t = [s for m in json.load(open(sys.argv[1]))["metrics"] if m["name"] == "run_time_s" for s in m["samples"]]
assert t and min(t) > 0
print("%.1f" % sum(t))' "$json" 2>/dev/null)
if [ $rc -ne 0 ]; then
	echo "FAIL  a default getpid_bench run failed (exit $rc: $(grep -v '^[[:space:]]*$' "$json.out" | tail -n1 | cut -c1-120))"
	fail=1
elif [ -z "$runs" ]; then
	echo "FAIL  a default getpid_bench run left no measured run (run_time_s) in its result"
	fail=1
else
	verdict "$d / $runs <= 1.25" "default getpid_bench run took $d s, its 5 measured runs $runs s of it (ratio $(awk "BEGIN {printf \"%.2f\", $d / $runs}"), target <= 1.25)"
fi
rm -f "$json" "$json.out"

s=$(date +%s.%N)
"$runsh" --quick >/dev/null 2>&1
rc=$?
d=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $s}")
if [ $rc -ne 0 ]; then
	echo "FAIL  ./run.sh --quick failed (exit $rc): its time is not that of a whole run"
	fail=1
else
	verdict "$d < 30" "./run.sh --quick took $d s (target < 30 s)"
fi
exit $fail
