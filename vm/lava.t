#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/lava.t - isolbench's LAVA job as a lab runs it: Debian's
# lava-dispatcher (lava-run) on a qemu device, Debian's 6.12 kernel
# booted with nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3, the test
# definition lava/isolbench.yaml from a git repository, getpid_bench and
# timer_softirq quick (lava/qemu-job.sh).  Reads what LAVA recorded, the
# results in the job's log, and runs the job twice: the same test case
# names.  TAP, for prove; .ci/run runs it after vm/ci.t.  Installs
# nothing (scripts/install-deps.sh --vm does).

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

needs qemu-system-x86_64 lava-run
plan 14

TESTS=(getpid_bench timer_softirq)

# job N: the job, its output in $TMP/jobN, its exit status in
# $TMP/rcN. The two jobs run at once (each lava-run has its own job id
# and work directory; the kernel cache and LAVA's server files are
# fetched under a lock): about half the time of one after the other.
job() {
	local start=$SECONDS rc
	"$TOP/lava/qemu-job.sh" --debian 6.12 --tests "${TESTS[*]}" -o "$TMP/job$1" \
		>"$TMP/out$1" 2>"$TMP/err$1"
	rc=$?
	echo "$rc $((SECONDS - start))" >"$TMP/rc$1"
}

# job_result N: job N's exit status in RC, said in a # line
job_result() {
	local secs
	read -r RC secs <"$TMP/rc$1" || { RC=255; secs='?'; }
	diag "lava/qemu-job.sh --tests '${TESTS[*]}' (job $1): exit $RC after $secs s"
	[ "$RC" -eq 0 ] || tail -n 20 "$TMP/err$1" | sed 's/^/# /'
}

# bad input: refused before anything is built or booted
"$TOP/lava/qemu-job.sh" --tests nosuch -o "$TMP/bad" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "unknown test 'nosuch'" "$TMP/err" && [ ! -e "$TMP/bad" ]
ok $? "an unknown test: exit 2, one line ($(cat "$TMP/err"))"
mkdir -p "$TMP/mine" && echo keep >"$TMP/mine/notes"
"$TOP/lava/qemu-job.sh" -o "$TMP/mine" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(cat "$TMP/mine/notes")" = keep ] && grep -q 'not clearing it' "$TMP/err"
ok $? "an output directory it did not make is left alone: exit 2"

job 1 &
job1=$!
job 2 &
job2=$!
wait $job1 $job2
job_result 1
J=$TMP/job1
sed 's/^/# /' "$J/results.txt"
[ "$RC" -eq 0 ] && grep -qx 'result: pass' "$J/lava/result.yaml"
ok $? "lava-run ran the job to its end: job pass (rc=$RC)"
grep -q '^isolation\.nohz_full pass$' "$J/results.txt" &&
	grep -q '^isolation\.isolcpus pass$' "$J/results.txt"
ok $? "LAVA recorded isolation.nohz_full and isolation.isolcpus pass: the guest has nohz_full=2-3"
grep -Eq '"Boot command: .*-append \\"console=ttyS0,115200 .*nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3\\"' "$J/output.yaml"
ok $? "LAVA booted the kernel with the isolation on its command line"
grep -q '^getpid_bench pass$' "$J/results.txt" && grep -q '^timer_softirq pass$' "$J/results.txt" &&
	! awk '$2 == "fail"' "$J/results.txt" | grep -q .
ok $? "both programs pass, no test case failed ($(wc -l <"$J/results.txt") cases)"
tick=$(awk '$1 ~ /^timer_softirq\.quiet_the_tick_stopped/ { print $2 }' "$J/results.txt")
[ "$tick" = pass ]
ok $? "the nohz_full assertion ran for real: timer_softirq's stopped tick passed ($tick)"

# The JSON results the job printed, read back from LAVA's log
bad=0
for t in "${TESTS[@]}"; do
	json_check "$J/json/$t.json" 'd["test"] == "'"$t"'" and d["system"]["nohz_full"] == "2-3" and d["system"]["emulated"] and d["run"]["cpus_isolation"] == "nohz_full,isolated"' ||
		bad=1
done
ok $bad "the JSON results kept in the job's log: 6.12 guest, nohz_full 2-3, measured on an isolated CPU"
python3 "$TOP/tests/lava_cases.py" "$J/json" "${TESTS[@]}" >"$TMP/expected"
grep -Ev '^(isolation\.[a-z_]+|getpid_bench|timer_softirq) ' "$J/results.txt" >"$TMP/got"
diff "$TMP/expected" "$TMP/got" | sed 's/^/# /'
cmp -s "$TMP/expected" "$TMP/got" && [ -s "$TMP/got" ]
ok $? "every check of the results under its name, every paste metric with its measurement and unit ($(wc -l <"$TMP/got") cases)"
grep -Eq '^getpid_bench\.syscall_ns pass [0-9.e+-]+ ns$' "$J/results.txt" &&
	grep -Eq '^timer_softirq\.control_timer_softirqs_per_s pass [0-9.e+-]+ softirqs/s$' "$J/results.txt"
ok $? "getpid_bench.syscall_ns in ns and timer_softirq's control softirqs/s recorded as measurements"
grep -Eq '"lvl": "results", "msg": \{"case": "getpid_bench.syscall_ns", "definition": "0_isolbench", .*"measurement": (! )?"[0-9.e+-]+", .*"units": "ns"' "$J/output.yaml"
ok $? "in LAVA's own record: a test case with measurement and units"
! awk '{ print $1 }' "$J/results.txt" | grep -qvE '^[A-Za-z0-9_.-]{1,100}$'
ok $? "every name LAVA recorded is [A-Za-z0-9_.-], at most 100 long"

job_result 2
K=$TMP/job2
[ "$RC" -eq 0 ] && grep -qx 'result: pass' "$K/lava/result.yaml"
ok $? "the second job passed too (rc=$RC)"
awk '{ print $1 }' "$J/results.txt" | sort >"$TMP/names1"
awk '{ print $1 }' "$K/results.txt" | sort >"$TMP/names2"
diff "$TMP/names1" "$TMP/names2" | sed 's/^/# /'
cmp -s "$TMP/names1" "$TMP/names2" && [ -s "$TMP/names1" ]
ok $? "the two jobs recorded the same set of test case names ($(wc -l <"$TMP/names1"))"
done_testing
