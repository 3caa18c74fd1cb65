#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ipistorm against the floor, side by side in one run:
#  1. membarrier mode vs a minimal loop of the same membarrier call
#     (written below): cost per call and per delivered IPI, alternated
#     ROUNDS times; target: ipistorm at most 2% dearer per IPI.
#  2. --guest: kmod, membarrier and perf-read modes for the same pair
#     and count inside the qemu guest (vm/run.sh, Debian 6.12), where the
#     module loads: the kernel-side cost is the floor.
# Usage: bench/ipistorm.sh [--guest] [-n CALLS] [--rounds N] [--pair SRC:DST]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
n=50000 rounds=5 guest="" pair=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--pair) pair=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	-h|--help) sed -n '3,12p' "$0"; exit 0 ;;
	*) echo "bench/ipistorm.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -x "$here/ipistorm" ] || { echo "build first: make" >&2; exit 1; }
last=$(($(nproc) - 1))
pair=${pair:-0:$last}
src=${pair%:*} dst=${pair#*:}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/mb.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
/* The floor: N membarrier(PRIVATE_EXPEDITED_RSEQ, FLAG_CPU, dst) calls. */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *spin(void *arg)
{
	pin(*(int *)arg);
	setpriority(PRIO_PROCESS, syscall(SYS_gettid), -20);	/* as ipistorm's */
	while (!stop)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int src = atoi(argv[1]), dst = atoi(argv[2]);
	long n = atol(argv[3]);
	struct timespec a, b;
	pthread_t t;

	syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0);
	pthread_create(&t, NULL, spin, &dst);
	pin(src);
	usleep(10000);
	for (long i = 0; i < n / 10; i++)	/* warm up as ipistorm does */
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
			MEMBARRIER_CMD_FLAG_CPU, dst);
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	for (long i = 0; i < n; i++)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
			MEMBARRIER_CMD_FLAG_CPU, dst);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	stop = 1;
	pthread_join(t, NULL);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
C
cc -O2 -o "$tmp/mb" "$tmp/mb.c" -lpthread || exit 1

cal() {
	awk -v c="$1" '/^ *CPU/ { for (i = 1; i <= NF; i++) col[$i] = i }
		/^ *CAL:/ { print $(col["CPU" c] + 1) }' /proc/interrupts
}

echo "membarrier IPIs cpu $src -> cpu $dst, $n calls, $rounds alternating rounds"
printf "%-6s %14s %14s %14s %14s\n" round loop_ns/call loop_ns/IPI ipistorm_ns/call ipistorm_ns/IPI
for r in $(seq "$rounds"); do
	c0=$(cal "$dst")
	lns=$("$tmp/mb" "$src" "$dst" "$n")
	c1=$(cal "$dst")
	"$here/ipistorm" -m membarrier --pairs "$pair" -n "$n" -r 1 -o "$tmp/i.json" >/dev/null 2>&1
	read -r ins ireal < <(python3 -c 'import json,sys
m=json.load(open(sys.argv[1]))["metrics"][0]
print(m["samples"][0], m["extra"]["ipis_real"])' "$tmp/i.json")
	# the loop's IPIs: CAL on dst over the run (warm-up included: n/10 more calls)
	lipi=$(( (c1 - c0) * 10 / 11 ))
	awk -v r="$r" -v l="$lns" -v li="$lipi" -v n="$n" -v i="$ins" -v ir="$ireal" 'BEGIN {
		printf "%-6s %14.1f %14.1f %14.1f %14.1f\n", r, l, li ? l * n / li : 0, i, ir ? i * n / ir : 0 }'
	echo "$lns $lipi $ins $ireal" >>"$tmp/rows"
done
awk -v n="$n" '
function median(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
{ k++; lc[k] = $1; ic[k] = $3; lp[k] = $2 ? $1 * n / $2 : 0; ip[k] = $4 ? $3 * n / $4 : 0
  ld[k] = $2 / n; id[k] = $4 / n }
END {
	mlc = median(lc, k); mic = median(ic, k); mlp = median(lp, k); mip = median(ip, k)
	printf "median ns per call: loop %.1f, ipistorm %.1f: ratio %.3f\n", mlc, mic, mic / mlc
	printf "median ns per delivered IPI: loop %.1f, ipistorm %.1f: ratio %.3f (target <= 1.02)\n", mlp, mip, mlp ? mip / mlp : 0
	printf "median share of calls that were real IPIs: loop %.2f, ipistorm %.2f (dst shared with other tasks lowers both)\n", median(ld, k), median(id, k)
}' "$tmp/rows"

if [ -n "$guest" ]; then
	vm=${VM_RUN:-$here/vm/run.sh}
	[ -x "$vm" ] || { echo "--guest: no $vm (set VM_RUN=)" >&2; exit 1; }
	make -C "$here" install INSTALL_PATH="$tmp/suite" >/dev/null || exit 1
	echo
	echo "in the qemu guest (Debian 6.12, nohz_full=2-3): cpu 0 -> cpu 1, $n calls, 3 runs"
	for mode in kmod membarrier perf-read; do
		"$vm" --suite "$tmp/suite" --src "$here" -o "$tmp/vm-$mode" -- -t ipistorm -- \
			-m $mode --pairs 0:1 -n "$n" -r 3 >"$tmp/vm-$mode.log" 2>&1
		line=$(grep -h '# # IPI round trip:' "$tmp/vm-$mode/ktap.txt" 2>/dev/null | sed 's/^# # //')
		echo "${line:-$mode: no result (see $tmp/vm-$mode.log)}"
	done
fi
