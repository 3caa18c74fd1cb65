#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prove: alone (its verdicts hang on the host's timing: make check runs it by itself)
# Issue 11: no hangs, no silent acceptance. Bad input to the programs,
# compare, run.sh and vm/run.sh is refused at once with one line; what
# compare and run.sh --bisect cannot judge is undecided, not good.
. "$(dirname "$0")/lib.sh"

D=$TOP/tests/data
# mutate OUT PYTHON: a copy of base.json changed by PYTHON over `d`
mutate() {
	python3 - "$D/base.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
PY
}
# compare_rc WANT DESC ARGS...: compare exits WANT within 10 s, one line on stderr
compare_rc() {
	local want=$1 desc=$2
	shift 2
	timeout 10 "$BIN/compare" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ $RC -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]
	ok $? "compare: $desc: exit $want, one line (rc=$RC: $(head -c 160 "$TMP/err"))"
}

# --- options, parsed one way ----------------------------------------------
expect_usage_error "-D ' 1'" timer_softirq -D ' 1'
expect_usage_error "-D 0x10" timer_softirq -D 0x10
expect_usage_error "-D 1e" timer_softirq -D 1e
expect_usage_error "-n +5" getpid_bench -n +5
expect_usage_error "-r ' 3'" getpid_bench -r ' 3'
# integers in the same syntax: whole numbers only, exactly
expect_refused "-n 1.5" "--loops: '1.5' is not a whole number" getpid_bench -n 1.5
expect_refused "-n 1e-3" "--loops: '1e-3' is not a whole number" getpid_bench -n 1e-3
expect_refused "-r 1.0000000001e3" "--runs: '1.0000000001e3' is not a whole number" \
	getpid_bench -r 1.0000000001e3
expect_refused "-n 1e13" "--loops: 1e13 is out of range (1..1000000000000)" getpid_bench -n 1e13
expect_refused "-n abc" "--loops: 'abc' is not a number" getpid_bench -n abc
expect_refused "-p 1e3" "--priority: 1e3 is out of range (1..99)" timer_softirq -p 1e3
run_prog getpid_bench -n 1e3 -r 2.0 -q
[ $RC -eq 0 ] && grep -q '^# getpid: .* 1000 calls, ' "$TMP/out" &&
	grep -q '^# 2 of 2 runs completed' "$TMP/out" && grep -q '^ok 3 every run completed$' "$TMP/out"
ok $? "-n 1e3 -r 2.0 runs 1000 calls twice (rc=$RC: $(head -c 160 "$TMP/err"))"
run_prog getpid_bench -n 2.5e3 -r 1 -q
[ $RC -eq 0 ] && grep -q '^# getpid: .* 2500 calls, ' "$TMP/out"
ok $? "-n 2.5e3 runs 2500 calls (rc=$RC)"
run_prog getpid_bench --quiet=1
[ $RC -eq 1 ] && grep -q "option '--quiet' takes no value" "$TMP/err" && ! grep -q "'-q'" "$TMP/err"
ok $? "--quiet=1 names --quiet, not -q (rc=$RC: $(cat "$TMP/err"))"
expect_usage_error "-q -v" getpid_bench -q -v
expect_usage_error "--mode membarrier --watch 1" ipistorm --mode membarrier --watch 1
# a watch sends nothing: the storms' options are refused, not ignored
expect_usage_error "--watch with --pairs" ipistorm --watch 1 --pairs 0:1
expect_usage_error "--watch with -n" ipistorm --watch 1 -n 5
expect_usage_error "--mode watch with -r" ipistorm --mode watch -r 2
expect_usage_error "--mode watch with --timeout" ipistorm --mode watch --timeout 3
expect_usage_error "--max without a watch" ipistorm --max 3
expect_usage_error "--pairs with --pair" ipistorm --pairs 0:1 --pair smt
# an option that would do nothing is refused, also at its default value
expect_refused "--hist-max without --distribution" "--hist-max needs --distribution" \
	getpid_bench --hist-max 5000
expect_refused "--hist-max at its default" "--hist-max needs --distribution" \
	getpid_bench --hist-max 100000
expect_refused "--housekeeping without load" "--housekeeping needs --load or --load-kind" \
	getpid_bench --housekeeping 0
run_prog getpid_bench --distribution --hist-max 5000 -n 1000 -r 1 -q
[ $RC -eq 0 ] && grep -q '^# getpid per call: p50 .* (1000 calls' "$TMP/out"
ok $? "--hist-max with --distribution is taken (rc=$RC: $(head -c 160 "$TMP/err"))"
! "$BIN/getpid_bench" --list-options | grep -q -- '^--hist-max ' &&
	"$BIN/getpid_bench" --distribution --list-options | grep -qx -- '--hist-max - 1' &&
	"$BIN/getpid_bench" --hist-max 500 --list-options | grep -qx -- '--distribution -d 0'
ok $? "--list-options: --hist-max only after --distribution"
# timer_softirq: a phase's options without that phase
expect_refused "--phase quiet -i 500 --laptop" "--interval needs --phase cyclic or --phase all" \
	timer_softirq --phase quiet -i 500 --laptop
expect_refused "--phase quiet -i 1000 (the default)" "--interval needs --phase cyclic or --phase all" \
	timer_softirq --phase quiet -i 1000
for o in --laptop -m "-p 50" "--policy other" "--histogram 500" "-n 100"; do
	read -ra opt <<<"$o"
	set -- "${opt[@]}"
	long=$("$BIN/timer_softirq" --list-options | awk -v o="$1" '$1 == o || $2 == o { print $1 }')
	expect_refused "--phase control $o" "$long needs --phase cyclic or --phase all" \
		timer_softirq --phase control "${opt[@]}"
done
for o in "--warmup 1" --perf-counters; do
	read -ra opt <<<"$o"
	expect_refused "--phase cyclic $o" "${o%% *} and --phase cyclic do not go together" \
		timer_softirq --phase cyclic "${opt[@]}"
done
for o in "--max-needless-per-tick 0.5" "--max-softirqs 5" "--max-ticks-per-s 10" --assert-nohz; do
	read -ra opt <<<"$o"
	phases="--phase quiet or --phase all"
	[ "$o" != --assert-nohz ] || phases="--phase quiet or --phase tick or --phase all"
	expect_refused "--phase cyclic $o" "${o%% *} needs $phases" \
		timer_softirq --phase cyclic "${opt[@]}"
	expect_refused "--phase control $o" "${o%% *} needs $phases" \
		timer_softirq --phase control "${opt[@]}"
done
expect_refused "--policy other -p 50" "--priority and --policy other do not go together" \
	timer_softirq --policy other -p 50
run_prog timer_softirq --phase cyclic -i 1000 -p 50 --laptop -m --histogram 500 -n 50 -r 1 -q
head -1 "$TMP/out" | grep -qx 'KTAP version 1' && ! grep -q 'needs\|go together' "$TMP/err"
ok $? "--phase cyclic takes the cyclic options (rc=$RC: $(head -c 160 "$TMP/err"))"
run_prog timer_softirq --phase quiet --warmup 0 --max-needless-per-tick 0.5 --max-softirqs 5 \
	--max-ticks-per-s 10 -D 0.2 -r 1 -q
head -1 "$TMP/out" | grep -qx 'KTAP version 1' && ! grep -q 'needs\|go together' "$TMP/err"
ok $? "--phase quiet takes the quiet options (rc=$RC: $(head -c 160 "$TMP/err"))"
"$BIN/timer_softirq" --phase quiet --list-options >"$TMP/lq"
"$BIN/timer_softirq" --phase cyclic --list-options >"$TMP/lc"
! grep -q -- '^--interval \|^--loops \|^--laptop ' "$TMP/lq" && grep -q -- '^--warmup ' "$TMP/lq" &&
	! grep -q -- '^--warmup \|^--assert-nohz ' "$TMP/lc" && grep -q -- '^--interval ' "$TMP/lc" &&
	[ "$("$BIN/timer_softirq" --list-options | wc -l)" -eq 29 ] &&
	! grep -q -- '^--explain ' "$TMP/lq" && grep -q -- '^--explain ' "$TMP/lc" &&
	! grep -q -- '^--noise-threshold ' "$TMP/lc" && grep -q -- '^--noise-threshold ' "$TMP/lq"
ok $? "--list-options after --phase: only that phase's options; all with none"
# ipistorm: what the pairs or the watch leave nothing to do
for o in "--pairs 0:1" "--pair smt" "--src-list 0 --offset 1" "--watch 1"; do
	read -ra opt <<<"$o"
	expect_refused "$o -c 1" "--cpu and ${o%% *} do not go together" ipistorm "${opt[@]}" -c 1
done
expect_refused "--mode watch --wait" "--wait and --mode watch do not go together" \
	ipistorm --mode watch --wait
expect_refused "--watch 1 --wait" "--wait and --watch do not go together" ipistorm --watch 1 --wait
expect_refused "-D with --timeout" "--timeout and --duration do not go together" \
	ipistorm -D 2 --timeout 60
for o in "--pairs 0:1" "--pair smt" "--src-list 0 --offset 1" "--watch 1" "--mode watch"; do
	w=${o%% *}
	[ "$w" = --mode ] && w=$o	# a mode is named with its value
	read -ra opt <<<"$o"
	expect_refused "$o --housekeeping 0" \
		"--housekeeping with $w needs --load or --load-kind" ipistorm "${opt[@]}" --housekeeping 0
done
expect_refused "-c 1 --load --housekeeping 1" "--housekeeping 1 overlaps the target CPUs" \
	ipistorm -c 1 --load --housekeeping 1
run_prog ipistorm --watch 0 --load-kind messaging --housekeeping 1 -D 0.2 -q
{ [ $RC -eq 0 ] || [ $RC -eq 4 ]; } && ! grep -q 'overlaps\|needs\|go together' "$TMP/err"
ok $? "--watch 0 --housekeeping 1 with the load: no target CPU to overlap (rc=$RC: $(head -c 160 "$TMP/err"))"
! "$BIN/ipistorm" --pairs 0:1 --list-options | grep -q -- '^--cpu ' &&
	"$BIN/ipistorm" --list-options | grep -q -- '^--cpu -c 1' &&
	! "$BIN/ipistorm" --mode watch --list-options | grep -q -- '^--wait \|^--housekeeping ' &&
	"$BIN/ipistorm" --mode watch --load --list-options | grep -q -- '^--housekeeping ' &&
	! "$BIN/ipistorm" -D 1 --list-options | grep -q -- '^--timeout '
ok $? "ipistorm --list-options: no -c after --pairs, no --wait in the watch, --housekeeping with the load"
# a list with an empty item is bad input, not the list without it
for l in '0:1,' ',0:1' '0:1,,1:0'; do
	expect_refused "--pairs '$l'" "--pairs: '$l': an empty pair (a leading, trailing or doubled ',')" \
		ipistorm --pairs "$l"
done
expect_usage_error "--all without kmod" ipistorm --all
expect_usage_error "--target with --mode tlb" ipistorm --mode tlb --target busy
expect_usage_error "cid_scan --model -w hackbench" cid_scan --model -w hackbench
expect_usage_error "--no-compaction --compaction-threads 4" cid_scan --no-compaction --compaction-threads 4
expect_usage_error "--period-us without the cyclic workload" cid_scan --period-us 200
# the compaction control with no compaction check to control
expect_refused "--no-compaction --compaction-control" \
	"--no-compaction and --compaction-control do not go together" \
	cid_scan --no-compaction --compaction-control
for o in --compaction-control --no-compaction "--compaction-timeout 5"; do
	read -ra opt <<<"$o"
	expect_refused "--model $o" "--model and ${o%% *} do not go together" cid_scan --model "${opt[@]}"
done
expect_refused "--method estimate --trace-buffer-kb" \
	"--trace-buffer-kb and --method estimate do not go together" \
	cid_scan --method estimate --trace-buffer-kb 1024
expect_refused "--method estimate --expect-batch" \
	"--expect-batch and --method estimate do not go together" \
	cid_scan --method estimate --expect-batch 8
expect_usage_error "--expect-batch 0" cid_scan --expect-batch 0
for w in cyclic hackbench; do
	expect_refused "--gap-min-ns with -m trace --no-compaction -w $w" \
		"--gap-min-ns with --method trace and --no-compaction needs --workload spin" \
		cid_scan -m trace --no-compaction -w $w --gap-min-ns 500
done
"$BIN/cid_scan" --model --list-options >"$TMP/lm"
"$BIN/cid_scan" -m trace --no-compaction -w cyclic --list-options >"$TMP/lt"
! grep -q -- '^--compaction-control \|^--no-compaction \|^--compaction-timeout ' "$TMP/lm" &&
	grep -q -- '^--model-max-cpus ' "$TMP/lm" &&
	! grep -q -- '^--gap-min-ns \|^--compaction-control ' "$TMP/lt" &&
	"$BIN/cid_scan" -m trace --no-compaction --list-options | grep -q -- '^--gap-min-ns ' &&
	"$BIN/cid_scan" -m trace -w cyclic --list-options | grep -q -- '^--gap-min-ns ' &&
	"$BIN/cid_scan" --list-options | grep -q -- '^--compaction-control '
ok $? "cid_scan --list-options leaves out what the rules refuse there, only that"
run_prog ipistorm --module /nonexistent.ko --mode kmod
[ $RC -eq 1 ] && grep -q "^ipistorm: --module /nonexistent.ko: No such file or directory$" "$TMP/err" &&
	! grep -q SKIP "$TMP/out"
ok $? "--module /nonexistent.ko --mode kmod is a usage error, not a SKIP (rc=$RC)"
run_prog ipistorm --mode watch --watch 1 -D 0.2 -q
[ $RC -eq 0 ] || [ $RC -eq 4 ]
ok $? "--mode watch --watch 1 still goes together (rc=$RC)"
"$BIN/timer_softirq" --list-options | grep -qx -- '--duration -D 1' &&
	"$BIN/timer_softirq" --list-options | grep -qx -- '--quick - 0'
ok $? "--list-options lists each option with its key and arity"

# --- compare ---------------------------------------------------------------
mkfifo "$TMP/fifo.json"
compare_rc 2 "a FIFO as a result" "$D/base.json" "$TMP/fifo.json"
mkdir "$TMP/fdir"
cp "$D/base.json" "$TMP/fdir/getpid_bench.json"
mkfifo "$TMP/fdir/x.json"
compare_rc 2 "a FIFO named *.json in a directory" "$D/base.json" "$TMP/fdir"
python3 - "$TMP/big.json" <<'PY'
import json, sys
d = {"schema": "isolbench-result", "schema_version": 1, "program": "getpid_bench",
     "metrics": [{"name": "m%d_ns" % i, "unit": "ns", "better": "lower",
                  "samples": [1.0, 2.0]} for i in range(100000)], "verdicts": []}
json.dump(d, open(sys.argv[1], "w"))
PY
t0=$SECONDS
compare_rc 2 "100000 metrics (refused, not compared for minutes)" "$D/base.json" "$TMP/big.json"
grep -q '100000 metrics, more than 1024' "$TMP/err" && [ $((SECONDS - t0)) -le 5 ]
ok $? "the metric limit answers at once ($((SECONDS - t0)) s)"
mutate "$TMP/inf.json" 'd["metrics"][0]["samples"] = [1.7e308, 1.7e308, 1.6e308]'
compare_rc 2 "samples whose mean overflows" "$D/base.json" "$TMP/inf.json"
grep -q 'samples too large' "$TMP/err" && ! grep -q 'inf%' "$TMP/out"
ok $? "no +inf% is printed"
compare_rc 255 "overflowing baseline in --bisect" --bisect "$TMP/inf.json" "$D/base.json"
# a base mean near 0: the change overflows a double as a percentage
mutate "$TMP/tiny.json" 'd["metrics"][0]["samples"] = [1e-300, 1e-300, 2e-300]'
mutate "$TMP/huge.json" 'd["metrics"][0]["samples"] = [1e10, 1e10, 2e10]'
"$BIN/compare" "$TMP/tiny.json" "$TMP/huge.json" >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 0 ] && ! grep -q 'inf' "$TMP/out" && [ "$(awk 'length > 72' "$TMP/out" | wc -l)" -eq 0 ] &&
	grep -q 'no test: base mean too small' "$TMP/out"
ok $? "a base mean of 1e-300: no inf%, no line past 72 columns, says why (rc=$RC)"
"$BIN/compare" --bisect "$TMP/tiny.json" "$TMP/huge.json" >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 125 ] && ! grep -q 'inf' "$TMP/out"
ok $? "... and the bisect cannot decide on it: 125 (rc=$RC)"
mutate "$TMP/v.json" 'd["schema_version"] = 1.0000000001'
compare_rc 2 "schema_version 1.0000000001" "$D/base.json" "$TMP/v.json"
grep -q 'schema_version 1.0000000001' "$TMP/err"; ok $? "the version is named as written"
python3 - "$D/base.json" "$TMP/utf.json" <<'PY'
import sys
b = open(sys.argv[1], "rb").read().replace(b'"program": "getpid_bench"', b'"program": "getpid_bench", "x": "a\xff\xfeb"', 1)
open(sys.argv[2], "wb").write(b)
PY
rm -f "$TMP/k.json"
compare_rc 2 "invalid UTF-8 in a string" --kcidb "$TMP/k.json" "$TMP/utf.json"
grep -q 'invalid UTF-8' "$TMP/err" && [ ! -e "$TMP/k.json" ]
ok $? "nothing is written to KCIDB"
mutate "$TMP/other.json" 'd["program"] = "timer_softirq"'
compare_rc 2 "two different programs" "$D/base.json" "$TMP/other.json"
grep -q 'no test in common' "$TMP/err"; ok $? "says there is nothing to compare"
compare_rc 2 "--metric without --bisect" --metric syscall_ns "$D/base.json" "$D/patched.json"
compare_rc 2 "--threshold without --bisect or --kcidb" --threshold 10 "$D/base.json" "$D/patched.json"
compare_rc 255 "--markdown with --bisect" --markdown --bisect "$D/base.json" "$D/patched.json"
compare_rc 2 "--kcidb-build without --kcidb" --kcidb-build x "$D/base.json" "$D/patched.json"
compare_rc 255 "--plot with --bisect" --plot --bisect "$D/base.json" "$D/patched.json"
compare_rc 255 "--threshold 0x10" --bisect --threshold 0x10 "$D/base.json" "$D/patched.json"
mkdir "$TMP/b2" "$TMP/n2"
cp "$D/base.json" "$TMP/b2/getpid_bench.json"
mutate "$TMP/b2/timer_softirq.json" 'd["program"] = "timer_softirq"'
cp "$D/equal.json" "$TMP/n2/getpid_bench.json"
timeout 10 "$BIN/compare" --bisect "$TMP/b2" "$TMP/n2" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 125 ] && grep -q 'timer_softirq: no result in' "$TMP/out"
ok $? "compare --bisect: a baseline program missing on the new side is undecided (rc=$RC)"
: >"$TMP/n2/timer_softirq.json"
timeout 10 "$BIN/compare" --bisect "$TMP/b2" "$TMP/n2" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 125 ]; ok $? "compare --bisect: an unreadable new result is undecided, not 255 (rc=$RC)"

# --- run.sh ----------------------------------------------------------------
run_sh_usage() {	# DESC PATTERN ARGS...: exit 1 (255 with --bisect), one line matching PATTERN, at once
	local desc=$1 pat=$2 want=1
	shift 2
	case " $* " in *" --bisect "*) want=255 ;; esac
	t0=$SECONDS
	timeout 20 "$TOP/run.sh" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ $RC -eq $want ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ $((SECONDS - t0)) -le 5 ] &&
		! grep -q '^ok\|^not ok' "$TMP/out" && grep -q -- "$pat" "$TMP/err"
	ok $? "run.sh $desc: exit $want before any test runs (rc=$RC: $(head -c 160 "$TMP/err"))"
}
run_sh_usage "-t ''" "-t needs a test name" -t ''
run_sh_usage "--timeout ''" "--timeout: '' is not" --timeout ''
run_sh_usage "--timeout 00" "--timeout: '00' is not" --timeout 00
run_sh_usage "--bisect --threshold 99999" "--threshold: '99999' is not a percentage" \
	--bisect --baseline "$D/base.json" --threshold 99999
run_sh_usage "--kcidb /nonexistent/x" "--kcidb /nonexistent/x: no directory" \
	--kcidb /nonexistent/x -t getpid_bench
run_sh_usage "--bisect --baseline FIFO" "not a regular file or a directory" \
	--bisect --baseline "$TMP/fifo.json"

"$TOP/run.sh" -t timer_softirq -t getpid_bench --quick -- --load -D 0.3 -n 1000 \
	--distribution --hist-max 5000 --housekeeping 0 >"$TMP/out" 2>&1
RC=$?
! grep -q "unknown option\|needs --" "$TMP/out" &&
	grep -q '^# run.sh: timer_softirq does not take --load --distribution --hist-max 5000: not passed to it$' "$TMP/out" &&
	grep -q '^# run.sh: getpid_bench does not take -D 0.3: not passed to it$' "$TMP/out" &&
	grep -q '^# # housekeeping load started' "$TMP/out" &&
	grep -q '^# # getpid per call: p50' "$TMP/out"
ok $? "run.sh -- --load: each program gets the options it takes, the rest is named (rc=$RC)"
# an option that needs another one given with it: taken by the program
# that has both (asked with the user's options), named for the others
"$TOP/run.sh" -t cid_scan -t getpid_bench --quick -- --model --model-max-cpus 16 -n 1000 >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 0 ] && ! grep -q "unknown option" "$TMP/out" &&
	grep -q '^# # MODEL batch *8, *16 CPUs' "$TMP/out" && ! grep -q '^# # MODEL batch *8, *32 CPUs' "$TMP/out" &&
	grep -q '^# run.sh: getpid_bench does not take --model --model-max-cpus 16: not passed to it$' "$TMP/out"
ok $? "run.sh -- --model --model-max-cpus 16: cid_scan takes both, getpid_bench neither (rc=$RC)"
"$TOP/run.sh" -t ipistorm_watch -- -n 1000 -D 0.3 >"$TMP/out" 2>&1
RC=$?
grep -q '^# run.sh: ipistorm_watch does not take -n 1000: not passed to it$' "$TMP/out" &&
	! grep -q 'do not go together' "$TMP/out"
ok $? "run.sh -- -n: the watch (ipistorm --mode watch) is not given the storms' -n (rc=$RC)"

# fake programs: a crash and an outside SIGKILL during --bisect
inst=$TMP/inst
mkdir -p "$inst"
cp "$TOP/run.sh" "$TOP/settings" "$inst/"
ln -s "$BIN/compare" "$inst/compare"
cat >"$inst/getpid_bench" <<'SH'
#!/bin/bash
[ "$1" = --list-options ] && exit 0
while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done
echo "KTAP version 1"
kill -SEGV $$
SH
chmod +x "$inst/getpid_bench"
"$inst/run.sh" --bisect --baseline "$D/base.json" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 125 ] && grep -q '^# getpid_bench: ended by SIGSEGV' "$TMP/out" &&
	grep -q '^not ok 1 selftests: isolbench: getpid_bench # exit=139$' "$TMP/out" &&
	! grep -q aborting "$TMP/out"
ok $? "run.sh --bisect: a crashed test leaving a 0-byte result is undecided, 125 (rc=$RC)"
# --threshold is read with the programs' number syntax, as compare reads it
"$inst/run.sh" --bisect --baseline "$D/base.json" --threshold 1e2 >"$TMP/out" 2>&1
RC=$?
timeout 10 "$BIN/compare" --bisect --threshold 1e2 "$D/base.json" "$D/equal.json" >/dev/null 2>&1
crc=$?
[ $RC -eq 125 ] && [ $crc -eq 0 ]
ok $? "--threshold 1e2 is a percentage to run.sh and compare alike (run.sh $RC, compare $crc)"
run_sh_usage "--bisect --threshold 1e3" "--threshold: '1e3' is not a percentage" \
	--bisect --baseline "$D/base.json" --threshold 1e3
cat >"$inst/getpid_bench" <<'SH'
#!/bin/bash
[ "$1" = --list-options ] && exit 0
echo "KTAP version 1"
kill -KILL $$
SH
"$inst/run.sh" --timeout 300 -t getpid_bench >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^# getpid_bench: ended by SIGKILL after [0-9]* s$' "$TMP/out" &&
	grep -q '^not ok 1 selftests: isolbench: getpid_bench # exit=137$' "$TMP/out" &&
	! grep -q TIMEOUT "$TMP/out"
ok $? "exit 137 before the timeout is 'ended by SIGKILL', not TIMEOUT (rc=$RC)"

# --- vm/run.sh ---------------------------------------------------------------
for c in 99999999999999999999 100000000 08 ' 1' 0; do
	timeout 10 "$TOP/vm/run.sh" -c "$c" --kernel /nonexistent >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ $RC -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "--cpus must be a whole number" "$TMP/err"
	ok $? "vm/run.sh -c '$c': a usage error at once (rc=$RC: $(head -c 120 "$TMP/err"))"
done
timeout 10 "$TOP/vm/run.sh" -m 099999 --kernel /nonexistent >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 2 ] && grep -q -- "--mem must be" "$TMP/err"; ok $? "vm/run.sh -m 099999 (rc=$RC)"
timeout 10 "$TOP/vm/run.sh" --cmdline 'isolcpus=0-99999999' --kernel /nonexistent >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 2 ]; ok $? "vm/run.sh isolcpus=0-99999999 does not spin (rc=$RC)"
echo "1..$_n"
done_testing
