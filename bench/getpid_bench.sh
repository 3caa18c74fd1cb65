#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# getpid_bench's speed targets, measured side by side in one run:
#  1. getppid ns/call agrees within 5% with `perf bench syscall basic`
#     (which times getppid()) pinned to the same CPU (median of rounds,
#     the two tools interleaved so drift hits both alike);
#  2. the harness's own cost per measured call (--syscall none) <= 1 ns;
#  3. a default getpid_bench run takes < 20 s; ./run.sh --quick < 30 s.
# Prints each ratio and PASS/FAIL; exits 1 if any target is missed.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cpu=${CPU:-$(($(nproc) - 1))}
rounds=${ROUNDS:-7}
loops=${LOOPS:-2000000}
fail=0

command -v perf >/dev/null || { echo "bench: perf not installed (linux-perf)"; exit 4; }
perf bench syscall basic --loop 1 >/dev/null 2>&1 ||
	{ echo "bench: this perf has no 'bench syscall basic'"; exit 4; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

verdict() {	# verdict OK_EXPR TEXT
	if awk "BEGIN {exit !($1)}"; then echo "PASS  $2"; else echo "FAIL  $2"; fail=1; fi
}

ours=() theirs=()
for r in $(seq "$rounds"); do
	o=$("$top/getpid_bench" -c "$cpu" -s getppid -n "$loops" -r 1 -q |
	    sed -n 's/^# getppid: .*, \([0-9.]*\) ns (1 run)$/\1/p')
	t=$(taskset -c "$cpu" perf bench syscall basic --loop "$loops" 2>/dev/null |
	    awk '/usecs\/op/ {print $1 * 1000}')
	ours+=("$o") theirs+=("$t")
done
mo=$(printf '%s\n' "${ours[@]}" | median)
mt=$(printf '%s\n' "${theirs[@]}" | median)
ratio=$(awk "BEGIN {printf \"%.3f\", $mo / $mt}")
echo "getppid on cpu $cpu, $loops calls x $rounds rounds: getpid_bench median $mo ns, perf bench median $mt ns, ratio $ratio"
verdict "$ratio >= 0.95 && $ratio <= 1.05" "getpid_bench agrees with perf bench syscall basic within 5% (ratio $ratio)"

none=$("$top/getpid_bench" -c "$cpu" -s none -n 100000000 -r 5 -q |
       sed -n 's/^# none: .*, avg \([0-9.]*\) ns .*/\1/p')
verdict "$none <= 1.0" "harness cost per measured call $none ns (target <= 1 ns)"

s=$(date +%s.%N)
"$top/getpid_bench" -q >/dev/null
d=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $s}")
verdict "$d < 20" "default getpid_bench run took $d s (target < 20 s)"

s=$(date +%s.%N)
"$top/run.sh" --quick >/dev/null
d=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $s}")
verdict "$d < 30" "./run.sh --quick took $d s (target < 30 s)"
exit $fail
