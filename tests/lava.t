#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lava/isolbench.sh, the script of the LAVA test definition, run here
# without LAVA (it then prints its test cases and writes result.txt):
# the test case names it makes from the KTAP, the measurements from the
# JSON, the isolation it is told to expect failing on a machine without
# it, and its bad input.  vm/lava.t runs it under lava-run.
. "$(dirname "$0")/lib.sh"

if ! is_root || { [ ! -d /sys/kernel/tracing ] && [ ! -d /sys/kernel/debug/tracing ]; }; then
	echo "1..0 # SKIP needs root and tracefs (timer_softirq runs)"
	exit 0
fi
plan 15

LAVA_SH=$TOP/lava/isolbench.sh
# A suite directory as make install makes it, of the programs under test.
SUITE=$TMP/suite
mkdir -p "$SUITE"
ln -s "$TOP/run.sh" "$TOP/settings" "$SUITE/"
for p in getpid_bench timer_softirq ipistorm cid_scan compare; do
	ln -s "$BIN/$p" "$SUITE/$p"
done

# lava_run DIR ARGS...: isolbench.sh with its output in DIR
lava_run() {
	local dir=$1
	shift
	mkdir -p "$dir"
	(cd "$dir" && "$LAVA_SH" "$@" >"$dir/log" 2>"$dir/err")
	RC=$?
}
# result DIR NAME: the result of test case NAME in DIR's result.txt
result() {
	awk -v n="$2" '$1 == n { print $2 }' "$1/output/result.txt"
}

# 1: a machine without nohz_full, told to expect it
R=$TMP/expect
lava_run "$R" -d "$SUITE" -t "getpid_bench timer_softirq" -e "nohz_full=1"
[ $RC -eq 0 ] && [ -s "$R/output/result.txt" ]
ok $? "isolbench.sh ran getpid_bench and timer_softirq, result.txt written (rc=$RC)"
sed 's/^/# /' "$R/output/result.txt"
[ "$(result "$R" isolation.nohz_full)" = fail ] &&
	grep -q "^isolbench.sh: expected nohz_full=1, the kernel has '$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)'" "$R/err"
ok $? "isolation.nohz_full fails where the kernel has no nohz_full=1"
tick=$(awk '$1 ~ /^timer_softirq\.quiet_the_tick_stopped/ { print $2 }' "$R/output/result.txt")
[ "$tick" = fail ]
ok $? "with nohz_full expected, timer_softirq's stopped-tick check fails instead of skipping ($tick)"
grep -q '^isolbench.sh: .*/run.sh .* -- --assert-nohz$' "$R/log"
ok $? "run.sh got --assert-nohz, for the programs that take it"

# 2: what is reported, name by name
awk '{ print $1 }' "$R/output/result.txt" | sort | uniq -d >"$TMP/dups"
! awk '{ print $1 }' "$R/output/result.txt" | grep -qvE '^[A-Za-z0-9_.-]{1,100}$' && [ ! -s "$TMP/dups" ]
ok $? "every name is LAVA's [A-Za-z0-9_.-], at most 100 long, and unique"
python3 "$TOP/tests/lava_cases.py" "$R/output/suite" getpid_bench timer_softirq >"$TMP/expected"
grep -Ev '^(isolation\.|getpid_bench |timer_softirq )' "$R/output/result.txt" >"$TMP/got"
diff "$TMP/expected" "$TMP/got" | sed 's/^/# /'
cmp -s "$TMP/expected" "$TMP/got"
ok $? "a case per verdict under its description's name, a measurement per paste metric ($(wc -l <"$TMP/got") cases)"
grep -q '^getpid_bench pass$' "$R/output/result.txt" &&
	grep -Eq '^getpid_bench\.syscall_ns pass [0-9.e+-]+ ns$' "$R/output/result.txt"
ok $? "the program's own result and getpid's syscall_ns in ns"
sed -n '/^isolbench-json-begin getpid_bench.json$/,/^isolbench-json-end getpid_bench.json$/p' "$R/log" |
	sed '1d;$d' | cmp -s - "$R/output/suite/getpid_bench.json"
ok $? "the JSON result printed whole between its markers"

# 3: nothing expected: the same check skips on this machine
R=$TMP/plain
lava_run "$R" -d "$SUITE" -t timer_softirq
tick=$(awk '$1 ~ /^timer_softirq\.quiet_the_tick_stopped/ { print $2 }' "$R/output/result.txt")
[ $RC -eq 0 ] && [ "$tick" = skip ] && ! grep -q '^isolation' "$R/output/result.txt"
ok $? "without -e the stopped-tick check skips and no isolation case is made (rc=$RC, $tick)"

# 4: names from descriptions LAVA would refuse: a run.sh of our own
# printing one test's KTAP
FAKE=$TMP/fake
mkdir -p "$FAKE"
long=$(printf 'x%.0s' $(seq 120))
cat >"$FAKE/run.sh" <<EOF
#!/bin/bash
while [ \$# -gt 0 ] && [ "\$1" != -o ]; do shift; done
mkdir -p "\$2"
printf '%s\n' 'KTAP version 1' '1..6' 'ok 1 cpu 0 -> cpu 1 (core): done' \
	'not ok 2 cpu 0 -> cpu 1 (core): done' 'ok 3 # SKIP nothing to do' \
	'ok 4 $long' 'ok 5 ${long}y' 'not ok 6 - a.b/c  d # SKIP later' >"\$2/fake.ktap"
echo 'not ok 1 selftests: isolbench: fake # exit=1'
EOF
chmod +x "$FAKE/run.sh"
lava_run "$FAKE" -d "$FAKE"
cut -c1-130 "$FAKE/output/result.txt" | sed 's/^/# /'
x100=$(printf 'x%.0s' $(seq 95))
printf '%s\n' "fake fail" "fake.cpu_0_-_cpu_1_core_done pass" \
	"fake.cpu_0_-_cpu_1_core_done_2 fail" "fake.check skip" \
	"fake.$x100 pass" "fake.${x100%xx}_2 pass" "fake.a_b_c_d skip" |
	cmp -s - "$FAKE/output/result.txt"
ok $? "odd descriptions: runs of other characters one _, repeats _2, cut to 100, SKIP as skip"

# 5: bad input: exit 1, one line on stderr
bad() {	# bad DESC ARGS...
	local desc=$1
	shift
	lava_run "$TMP/bad" "$@"
	[ $RC -eq 1 ] && [ "$(wc -l <"$TMP/bad/err")" -eq 1 ]
	ok $? "$desc: exit 1, one line ($(cat "$TMP/bad/err"))"
}
bad "an isolation word it cannot check" -d "$SUITE" -e "rcu_nocbs=1"
bad "a cpulist that is none" -d "$SUITE" -e "nohz_full=3-1"
bad "no suite" -d "$TMP/none"
bad "-q neither true nor false" -d "$SUITE" -q yes
bad "an argument after the options" -d "$SUITE" getpid_bench
done_testing
