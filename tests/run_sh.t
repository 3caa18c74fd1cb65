#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh: its stream parses as TAP, results land in -o DIR, timeouts and
# failures are reported as kselftest's runner does, bad input exits 1.
. "$(dirname "$0")/lib.sh"

plan 12

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
read -r planned passed failed skipped errors < <(tap_summary "$TMP/stream")
[ "$planned" -eq "$ntests" ] && [ "$passed" -eq "$ntests" ] && [ "$failed" -eq 0 ] && [ "$errors" = none ]
ok $? "TAP::Parser: $planned planned, $passed passed, $failed failed, parse errors: $errors"
grep -q '^ok 1 selftests: isolbench: getpid_bench$' "$TMP/stream"; ok $? "kselftest-shaped result line"
grep -q '^# KTAP version 1$' "$TMP/stream"; ok $? "each program's KTAP is nested with '# '"
for t in $("$TOP/run.sh" --list); do
	[ -s "$TMP/res/$t.json" ] && [ -s "$TMP/res/$t.ktap" ] && json_check "$TMP/res/$t.json" 'd["schema"]=="isolbench-result"' || break
done
ok $? "every program left NAME.json and NAME.ktap in -o DIR"

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
"$TOP/run.sh" --timeout -3 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "bad timeout: one line, exit 1"
done_testing
