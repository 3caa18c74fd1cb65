#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prove: alone (its verdicts hang on the host's timing: make check runs it by itself)
# run.sh: its stream parses as TAP, results land in -o DIR, timeouts and
# failures are reported as kselftest's runner does, bad input exits 1.
. "$(dirname "$0")/lib.sh"

plan 20

# tap_summary FILE: "planned passed failed skipped" as Perl's TAP::Parser sees them
tap_summary() {
	perl -MTAP::Parser -e '
		open(my $f, "<", $ARGV[0]) or die;
		my $p = TAP::Parser->new({ tap => do { local $/; <$f> } });
		while (my $r = $p->next) {}
		printf "%d %d %d %d %s\n", $p->tests_planned, scalar($p->passed),
			scalar($p->failed), scalar($p->skipped),
			join(",", $p->parse_errors) || "none";
	' "$1"
}

"$TOP/run.sh" --quick -o "$TMP/res" >"$TMP/stream" 2>"$TMP/err"
rc=$?
ok $rc "run.sh --quick passes (rc=$rc)"
head -1 "$TMP/stream" | grep -qx 'TAP version 13'; ok $? "stream starts with TAP version 13"
ntests=$("$TOP/run.sh" --list | wc -l)
read -r planned passed failed _ errors < <(tap_summary "$TMP/stream")
[ "$planned" -eq "$ntests" ] && [ "$passed" -eq "$ntests" ] && [ "$failed" -eq 0 ] && [ "$errors" = none ]
ok $? "TAP::Parser: $planned planned, $passed passed, $failed failed, parse errors: $errors"
grep -q '^ok 1 selftests: isolbench: getpid_bench$' "$TMP/stream"; ok $? "kselftest-shaped result line"
grep -q '^# KTAP version 1$' "$TMP/stream"; ok $? "each program's KTAP is nested with '# '"
for t in $("$TOP/run.sh" --list); do
	[[ -s $TMP/res/$t.json && -s $TMP/res/$t.ktap ]] || break
	json_check "$TMP/res/$t.json" 'd["schema"]=="isolbench-result"' || break
done
ok $? "every program left NAME.json and NAME.ktap in -o DIR"
for t in $("$TOP/run.sh" --list); do
	json_check "$TMP/res/$t.json" "d['test'] == '$t'" || break
done
ok $? "each test of the table is its own result: NAME.json says test NAME"

# The README's commands on two such directories (one of them also
# exported as KCIDB records), as documented: exit 0 or 1, never 2 or 255
"$TOP/run.sh" --quick --kcidb "$TMP/k.json" -o "$TMP/res2" >"$TMP/stream4" 2>&1
rc=$?
tests=$("$TOP/run.sh" --list | tr '\n' ' ')
[ $rc -eq 0 ] && json_check "$TMP/k.json" "sorted(t['path'] for t in d['tests'] if t['path'].count('.') == 1) == sorted('isolbench.' + n for n in '$tests'.split())"
ok $? "run.sh --quick --kcidb k.json -o DIR: exit 0, a record per test (rc=$rc)"
"$TOP/compare" "$TMP/res" "$TMP/res2" >"$TMP/cmp" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^ipistorm_watch: ' "$TMP/cmp" && grep -q '^ipistorm: ' "$TMP/cmp"
ok $? "compare DIR DIR2 of two run.sh -o directories: exit 0, the storm and the watch apart (rc=$rc)"
"$TOP/run.sh" --bisect --baseline "$TMP/res" -t ipistorm --threshold 900 >"$TMP/bis" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^# bisect: ipistorm ' "$TMP/bis"
ok $? "run.sh --bisect --baseline DIR -t ipistorm: judged, good within 900% (rc=$rc: $(grep -m1 'bisect:' "$TMP/bis"))"
"$TOP/run.sh" --bisect --baseline "$TMP/res/ipistorm_watch.json" --threshold 900 >"$TMP/bis" 2>&1
rc=$?
grep -q '^# selftests: isolbench: ipistorm_watch$' "$TMP/bis" &&
	! grep -q 'selftests: isolbench: ipistorm$' "$TMP/bis" &&
	grep -q "^# run.sh: ipistorm_watch runs with its baseline's arguments: --quick" "$TMP/bis" &&
	! grep -q 'not measured' "$TMP/bis" && [ $rc -ne 255 ] && [ $rc -ne 2 ]
ok $? "--bisect --baseline DIR/ipistorm_watch.json runs the watch with the baseline's arguments (rc=$rc)"

# A test that overruns its timeout is ended, reported, and fails the run.
"$TOP/run.sh" -t getpid_bench --timeout 2 -- -n 1000000000 -r 1 >"$TMP/stream2" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q '^not ok 1 selftests: isolbench: getpid_bench # TIMEOUT 2 seconds' "$TMP/stream2"
ok $? "timeout: not ok ... # TIMEOUT and a non-zero exit (rc=$rc)"
! pgrep -f 'getpid_bench -n 1000000000' >/dev/null; ok $? "the timed-out program is gone"
grep -q '# # interrupted by signal 15' "$TMP/stream2"; ok $? "the timed-out program reported what it had measured"

# A failing program fails the run (--housekeeping overlaps --cpu).
"$TOP/run.sh" -t getpid_bench -- --cpu 0-1 --load --housekeeping 1 >"$TMP/stream3" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q '^not ok 1 selftests: isolbench: getpid_bench # exit=1' "$TMP/stream3"
ok $? "a program's failure makes run.sh fail (rc=$rc)"

"$TOP/run.sh" -t no_such_test >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "unknown test: one line, exit 1"
# a pattern is a name like any other, never expanded against files
(cd "$TOP" && ./run.sh -t 'getpid*' -l >/dev/null 2>"$TMP/err")
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "unknown test 'getpid\*'" "$TMP/err"
ok $? "-t 'getpid*' beside getpid_bench.c: unknown test, not a glob (rc=$rc)"
"$TOP/run.sh" -t getpid_bench -o /proc/x >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "-o where no directory can be made: one line, exit 1 (rc=$rc: $(cat "$TMP/err"))"

# a test that leaves a child holding its output: the run ends at the
# timeout all the same, and the child with it
fake=$TMP/fake
mkdir -p "$fake"
cp "$TOP/run.sh" "$TOP/settings" "$fake/"
cat >"$fake/getpid_bench" <<'SH'
#!/bin/bash
case " $* " in *" --list-options "*) exit 0 ;; esac
echo "KTAP version 1"; echo "1..1"
sleep 37 &
sleep 38
SH
chmod +x "$fake/getpid_bench"
t0=$SECONDS
"$fake/run.sh" -t getpid_bench --timeout 2 >"$TMP/orphan" 2>&1
took=$((SECONDS - t0))
[ $took -le 8 ] && ! pgrep -f 'sleep 3[78]$' >/dev/null &&
	grep -q '^not ok 1 selftests: isolbench: getpid_bench # TIMEOUT 2 seconds' "$TMP/orphan"
ok $? "an orphaned child holding the output: --timeout 2 ends in $took s, the child is gone"
"$TOP/run.sh" --timeout -3 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "bad timeout: one line, exit 1"
done_testing
