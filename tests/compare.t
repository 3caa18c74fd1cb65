#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare: golden tables, bisect exit codes, KCIDB shape, bad input;
# run.sh --bisect and --kcidb end to end. Data: tests/data/*.json
# (hand-made results); expected output: tests/golden/ (regenerate with
# UPDATE_GOLDEN=1 after checking the difference by eye).
. "$(dirname "$0")/lib.sh"

plan 194
cd "$TOP" || exit 1
D=tests/data

# golden NAME ARGS...: compare's stdout equals tests/golden/NAME
golden() {
	local name=$1
	shift
	"$BIN/compare" "$@" >"$TMP/golden.out" 2>"$TMP/err"
	local rc=$?
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$TMP/golden.out" "tests/golden/$name"
	fi
	diff -u "tests/golden/$name" "$TMP/golden.out" >"$TMP/diff"
	local d=$?
	[ $d -ne 0 ] && sed 's/^/# /' "$TMP/diff" | head -40
	[ $rc -eq 0 ] && [ $d -eq 0 ]
	ok $? "golden $name (rc=$rc)"
}

golden base-patched.txt $D/base.json $D/patched.json
golden base-patched.md --markdown $D/base.json $D/patched.json
golden plot.txt --plot --labels base,faster $D/base.json $D/faster.json
golden three.txt $D/base.json $D/one-sample.json $D/emulated.json
golden emulated.txt --labels base,patched $D/emu-base.json $D/emu-patched.json
# (timer_softirq in the 6.12 guest: metric names that fill a line)
golden long-names.txt --labels base,patched $D/ts-base.json $D/ts-patched.json
golden long-names.md --markdown --labels base,patched $D/ts-base.json $D/ts-patched.json
# results of vm/run.sh --build: each kernel's build in the header
golden kernel-build.txt --labels base,patched $D/kb-base.json $D/kb-patched.json

# every line fits a 72-column email, the paste lines and Markdown too
long=$(cat tests/golden/*.txt tests/golden/*.md | awk 'length > 72' | wc -l)
[ "$long" -eq 0 ]; ok $? "every golden line fits 72 columns ($long longer)"
grep -A1 -x 'timer_softirq: timer_softirq_raised_per_tick' tests/golden/long-names.txt |
	tail -n1 | grep -qx '  (softirqs/tick, lower is better)' &&
	grep -A2 -x '#### timer_softirq: timer_softirq_raised_per_tick' tests/golden/long-names.md |
	tail -n1 | grep -qx '(softirqs/tick, lower is better)'
ok $? "a heading past 72 columns: unit and direction on the next line"
grep -A1 -x 'getpid: base avg 770.0 ns, patched avg 1340.0 ns (74.0% increase,' tests/golden/base-patched.txt |
	tail -n1 | grep -qx '  significant)'
ok $? "paste line in the IPI-deferral series' form, wrapped at 72 with an indented continuation"
grep -Eq '^  patched +5 +1340.0 +1340.0 +0.1% +\+74.0% +\+-0.3% regression \*$' tests/golden/base-patched.txt
ok $? "table row: n, mean, median, CoV, change, CI, regression, significant"
grep -Eq 'calls_per_s .*higher is better' tests/golden/base-patched.txt &&
	grep -Eq '^  patched .*-42.6% .* regression \*$' tests/golden/base-patched.txt
ok $? "better=higher: a decrease is a regression"
grep -q "Welch's t-test" tests/golden/base-patched.txt; ok $? "the output names its test"
grep -q '^  patched +- *(not in this result)$' tests/golden/base-patched.txt ||
	grep -Eq '^  patched +- +\(not in this result\)$' tests/golden/base-patched.txt
ok $? "a metric of one side only is listed as such"
grep -q 'no test: fewer than 2 samples' tests/golden/three.txt; ok $? "n < 2: reported, no test"
grep -q '^warning: emulated ran emulated (TCG), base did not' tests/golden/three.txt; ok $? "warning: emulated against native"
grep -q '^warning: base and emulated ran on different machines or CPUs' tests/golden/three.txt
ok $? "warning: different machines"
grep -q 'cpu 3 (nohz_full)' tests/golden/base-patched.txt && grep -q 'cmdline: ' tests/golden/base-patched.txt
ok $? "system context: target CPU, nohz_full, cmdline"

# kernel_build (docs/result-schema.md): the source, each patch and each
# config fragment of each side's build; one build per side or each of
# those its results disagree on; nothing where the results carry none
kb=tests/golden/kernel-build.txt
sed -n '/^  base /,/^  patched /p' $kb >"$TMP/kb-base.txt"
sed -n '/^  patched /,/^$/p' $kb >"$TMP/kb-patched.txt"
grep -A1 -x '            build: /home/dev/linux,' "$TMP/kb-base.txt" | grep -qx '                   git:[0-9a-f]\{40\}' &&
	grep -qx '            patches: none' "$TMP/kb-base.txt" &&
	grep -A1 -x '            patch: 0002-sched-isolation-Name-the-deferred-IPIs.patch' "$TMP/kb-patched.txt" |
	grep -qx '                   [0-9a-f]\{12\}' &&
	[ "$(grep -c '^            patch: ' "$TMP/kb-patched.txt")" -eq 2 ] &&
	[ "$(grep -c '^            config: ' "$TMP/kb-base.txt")" -eq 2 ] &&
	grep -qx '            config: defer.config [0-9a-f]\{12\}' "$TMP/kb-patched.txt"
ok $? "two kernels built from different patches: each side's source, patches and config fragments"
"$BIN/compare" --markdown $D/kb-base.json $D/kb-patched.json >"$TMP/kb.md" 2>&1 &&
	sed -n '1,/^#### /p' "$TMP/kb.md" | grep -qx '            patch: 0002-sched-isolation-Name-the-deferred-IPIs.patch'
ok $? "--markdown: the builds in the context's code block"
"$BIN/compare" $D/base.json $D/kb-patched.json >"$TMP/kb.txt" 2>&1 &&
	sed -n '/^  base /,/^  kb-patch /p' "$TMP/kb.txt" | grep -c 'build:' | grep -qx 0 &&
	sed -n '/^  kb-patch /,/^$/p' "$TMP/kb.txt" | grep -q '^            build: /home/dev/linux,'
ok $? "a side whose results carry no kernel_build says nothing of builds, the other its own"
"$BIN/compare" --labels a,a,b $D/kb-base.json $D/kb-other.json $D/kb-patched.json >"$TMP/kb.txt" 2>&1
rc=$?
sed -n '/^  a /,/^  b /p' "$TMP/kb.txt" >"$TMP/kb-a.txt"
[ $rc -eq 0 ] && grep -qx '            build: its results disagree: 2 different kernel builds' "$TMP/kb-a.txt" &&
	grep -A2 -x '            build 1: /home/dev/linux,' "$TMP/kb-a.txt" | tail -n1 |
	grep -qx '                     (tests/data/kb-base.json)' &&
	grep -A2 -x '            build 2: /home/dev/linux,' "$TMP/kb-a.txt" | tr -d '\n' |
	grep -q '+dirty- *[0-9a-f]* (tests/data/kb-other.json)$' &&
	grep -qx '            patch: 0001-tick-Trace-the-stopped-tick.patch [0-9a-f]\{12\}' "$TMP/kb-a.txt" &&
	[ "$(awk 'length > 72' "$TMP/kb.txt" | wc -l)" -eq 0 ]
ok $? "runs of two builds pooled as one kernel: says they disagree and shows each (rc=$rc)"
sed 's/"finished": "2026-11-01T12:00:00Z"/"finished": "2026-11-01T12:20:00Z"/' $D/equal.json >"$TMP/equal3.json"
"$BIN/compare" --labels a,a,a,b $D/kb-base.json $D/equal.json "$TMP/equal3.json" $D/kb-patched.json >"$TMP/kb.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx '            build: its results disagree: 2 different kernel builds' "$TMP/kb.txt" &&
	grep -qx '            build 2: none recorded (tests/data/equal.json and 1 more)' "$TMP/kb.txt"
ok $? "runs with and without a kernel_build pooled: those without are a build of their own (rc=$rc)"

# the widest value each column can take: a change of a base near 0 (the
# A/B's +10782.5%), a base of 1e-7, 12345 samples, means of -1.2e150, a
# CoV of a mean near 0, a 63-character name, 8-character labels
python3 - "$D/base.json" "$TMP/wide-a.json" "$TMP/wide-b.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
def side(vals):
	d = json.loads(json.dumps(t))
	d["metrics"] = [{"name": n, "unit": u, "better": b, "aggregate": "x",
			 "label": n[:20], "samples": v} for n, u, b, v in vals]
	return d
near0 = [0.0075, 0.01, 0.0125, 0.005, 0.01, 0.0122]
big = [(-1.2345e150 - i * 1e147) for i in range(12345)]
a = side([("near_zero_base", "softirqs/tick", "lower", near0),
	  ("tiny_base", "IPIs", "lower", [1e-7, 2e-7, 1.5e-7]),
	  ("many_huge_negative", "ns", "higher", big),
	  ("cov_of_a_mean_near_0", "ns", "none", [-1, 1, -1, 1.0001]),
	  ("m" * 63, "softirqs/s", "lower", [1, 2, 3])])
b = side([("near_zero_base", "softirqs/tick", "lower", [1.0] * 6),
	  ("tiny_base", "IPIs", "lower", [1.0, 1.1, 0.9]),
	  ("many_huge_negative", "ns", "higher", [v * 0.999 for v in big]),
	  ("cov_of_a_mean_near_0", "ns", "none", [-1, 1, -1, 1.0002]),
	  ("m" * 63, "softirqs/s", "lower", [4, 5, 6])])
json.dump(a, open(sys.argv[2], "w"))
json.dump(b, open(sys.argv[3], "w"))
PY
"$BIN/compare" --labels baseline,patched1 "$TMP/wide-a.json" "$TMP/wide-b.json" >"$TMP/wide.txt" &&
	"$BIN/compare" --markdown --labels baseline,patched1 "$TMP/wide-a.json" "$TMP/wide-b.json" >"$TMP/wide.md"
ok $? "compare takes the widest values"
long=$(awk 'length > 72' "$TMP/wide.txt" "$TMP/wide.md" | tee "$TMP/long" | wc -l)
sed 's/^/# /' "$TMP/long"
[ "$long" -eq 0 ]; ok $? "the widest values fit 72 columns, table, Markdown and paste lines ($long longer)"
grep -Eq '^  patched1 +6 +1.000 +1.000 +0.0% +\+[0-9]{5}% +\+-[0-9.]+% regression \*$' "$TMP/wide.txt" &&
	grep -Eq '^  baseline +12k +-7.41e150 +-7.41e150 ' "$TMP/wide.txt" &&
	grep -Eq '^  patched1 +3 .* \+[0-9.]+e[0-9]+% +\+-[0-9.]+e[0-9]+% regression \*$' "$TMP/wide.txt"
ok $? "the widest values are still shown: a change of 5 digits, 12k samples, short exponents"
grep -qx "getpid_bench:" "$TMP/wide.txt" && grep -qx "  $(printf 'm%.0s' $(seq 63))" "$TMP/wide.txt"
ok $? "a name too long for its program's line goes on the next"

# bisect exit codes on crafted results
bisect_rc() {	# bisect_rc EXPECTED DESC ARGS...
	local want=$1 desc=$2
	shift 2
	"$BIN/compare" --bisect "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ $rc -eq "$want" ]
	ok $? "bisect $desc: exit $want (rc=$rc: $(tail -1 "$TMP/out") $(head -c 150 "$TMP/err"))"
}
bisect_rc 0 "equal" $D/base.json $D/equal.json
bisect_rc 0 "faster" $D/base.json $D/faster.json
bisect_rc 1 "clearly worse" $D/base.json $D/patched.json
bisect_rc 125 "too noisy" $D/base.json $D/noisy.json
bisect_rc 125 "one sample" $D/base.json $D/one-sample.json
bisect_rc 125 "test skipped" $D/base.json $D/skipped.json
bisect_rc 1 "higher-is-better metric dropped" --metric calls_per_s $D/base.json $D/patched.json
bisect_rc 0 "threshold above the change" --threshold 80% $D/base.json $D/patched.json
bisect_rc 125 "threshold inside the CI" --threshold 74 $D/base.json $D/patched.json
bisect_rc 255 "missing file (an argument error)" $D/base.json $D/nonexistent.json
bisect_rc 255 "malformed baseline" $D/malformed.json $D/equal.json
bisect_rc 255 "bad threshold" --threshold five $D/base.json $D/equal.json
bisect_rc 255 "unknown metric" --metric nosuch_ns $D/base.json $D/equal.json
bisect_rc 255 "metric without direction" --metric base_only_count $D/base.json $D/equal.json
bisect_rc 255 "three results" $D/base.json $D/equal.json $D/noisy.json
# under emulation timings are undecided unless forced; counts are judged
bisect_rc 125 "emulated timing" --metric syscall_ns $D/emu-base.json $D/emu-patched.json
bisect_rc 1 "emulated timing, --emulated-timings" --emulated-timings --metric syscall_ns $D/emu-base.json $D/emu-patched.json
bisect_rc 1 "emulated count (softirqs per tick)" --metric timer_softirq_raised_per_tick $D/emu-base.json $D/emu-patched.json
bisect_rc 1 "emulated, kind count despite an ns unit" --metric walk_calls_ns $D/emu-base.json $D/emu-patched.json
bisect_rc 1 "native timing is judged" --metric syscall_ns $D/base.json $D/patched.json
bisect_rc 255 "kind neither timing nor count" $D/bad-kind.json $D/emu-patched.json
grep -Eq '^  patched +5 +1340.0 .* emulated$' tests/golden/emulated.txt &&
	grep -Eq '^  patched +5 +2.000 .* regression \*$' tests/golden/emulated.txt
ok $? "table: an emulated timing says emulated, an emulated count is judged"

# a family of counts (the watch's IPIs per source, written for the
# sources seen): a source seen on either side is a count on both, 0 in each
# window where the result declares the family complete
bisect_rc 1 "a source that appeared (0 in the base's windows), --threshold-abs" \
	--metric ipis_from_generic_exec_single_per_s --threshold-abs 1 $D/watch-a.json $D/watch-b.json
bisect_rc 0 "a source that disappeared (0 in the new windows)" \
	--metric ipis_from_flush_tlb_mm_range_per_s --threshold-abs 1 $D/watch-a.json $D/watch-b.json
# in the table, what appeared is a change in the metric's unit, judged
# (a percentage of a base of 0 is none); both 0 is no test
"$BIN/compare" $D/watch-a.json $D/watch-b.json >"$TMP/appeared.out" 2>&1
grep -A4 '^ipistorm_watch: ipis_from_generic_exec_single_per_s' "$TMP/appeared.out" |
	grep -Eq '^  watch-b +5 +30\.00 +30\.00 +2\.4% +\+30\.00 +\+-0\.[0-9]+ regression \*$' &&
	grep -A1 '^ipis_from_generic_exec_single_per_s: ' "$TMP/appeared.out" | grep -q '(appeared from 0, significant)'
ok $? "a source that appeared: +30.00 IPIs/s with its 95% CI, a significant regression; pasted as appeared from 0"
"$BIN/compare" $D/watch-b.json $D/watch-b.json >"$TMP/appeared.out" 2>&1
! grep -q 'appeared from 0' "$TMP/appeared.out" &&
	grep -A4 '^ipistorm_watch: ipis_from_generic_exec_single_per_s' "$TMP/appeared.out" | grep -Eq ' \+0\.0% '
ok $? "the same result twice: nothing appeared, the source's change 0.0%"
# a source no side saw: a member by the pattern of a complete family, 0
# on both (a wrapper's self-check of the baseline before the bisect)
bisect_rc 0 "a source absent from both, its name matching the family's pattern" \
	--metric ipis_from_generic_exec_single_per_s --threshold-abs 1 $D/watch-a.json $D/watch-a.json
bisect_rc 255 "a metric absent from both matching no family's pattern (a typo)" \
	--metric ipis_frm_generic_exec_single_per_s --threshold-abs 1 $D/watch-a.json $D/watch-a.json
sed '/"families"/,$ {/"pattern"/d; /"unit"/d}' $D/watch-a.json >"$TMP/watch-old.json"
bisect_rc 255 "a source absent from both, the family without a pattern (an older result)" \
	--metric ipis_from_generic_exec_single_per_s --threshold-abs 1 "$TMP/watch-old.json" "$TMP/watch-old.json"
sed '/"families"/,$ {/"unit"/d}' $D/watch-a.json >"$TMP/watch-nounit.json"
bisect_rc 255 "a family with a pattern and no unit is refused" \
	"$TMP/watch-nounit.json" "$TMP/watch-nounit.json"
grep -q 'family 1 has a pattern and no unit' "$TMP/err"
ok $? "... naming the family and what it lacks"
bisect_rc 1 "the default metric of the watch (its first) is unchanged" $D/watch-a.json $D/watch-b.json
grep -q 'bisect: ipistorm_watch ipis_to_cpu1_per_s: baseline 10.80' "$TMP/out"
ok $? "... it judges ipis_to_cpu1_per_s"
"$BIN/compare" $D/watch-a.json $D/watch-b.json >"$TMP/fam.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -Eq '^  watch-a +5 +0.0000 +0.0000 +- *$' "$TMP/fam.txt" &&
	grep -Eq '^  watch-b +5 +0.0000 +0.0000 +- +-100.0% .* improvement \*$' "$TMP/fam.txt" &&
	! grep -q 'not measured' "$TMP/fam.txt" &&
	grep -A1 '^ipis_from_flush_tlb_mm_range_per_s: watch-a avg 1.600 IPIs/s, watch-b$' "$TMP/fam.txt" |
	grep -q '^  avg 0.0000 IPIs/s (100.0% decrease, significant)$'
ok $? "table and paste line: a source absent from a complete family is 0 in 5 windows, not 'not measured' (rc=$rc)"
grep -A1 '^ipistorm_watch: watch-a: ipis_from_generic_exec_single_per_s absent,$' "$TMP/fam.txt" |
	grep -q '^  counted 0 in each of its 5 samples (family ipi_sources)$'
ok $? "the table says which counts were absent and taken as 0"
"$BIN/compare" --kcidb "$TMP/kfam.json" --threshold-abs 1 $D/watch-a.json $D/watch-b.json >/dev/null 2>&1 &&
	json_check "$TMP/kfam.json" '[t for t in d["tests"] if t["path"] == "isolbench.ipistorm_watch.ipis_from_generic_exec_single_per_s.vs_base" and t["status"] == "FAIL"] and [t for t in d["tests"] if t["path"] == "isolbench.ipistorm_watch.ipis_from_flush_tlb_mm_range_per_s.vs_base" and t["status"] == "PASS"]'
ok $? "kcidb: a source that appeared FAILs, one that disappeared PASSes, against the base"
"$BIN/compare" $D/watch-a.json $D/watch-b-lost.json >"$TMP/fam.txt" 2>&1
grep -q '^ipis_from_flush_tlb_mm_range_per_s: watch-a avg 1.600 IPIs/s, watch-b-' "$TMP/fam.txt" &&
	grep -A1 '^ipis_from_flush_tlb_mm_range_per_s:' "$TMP/fam.txt" | grep -q 'not measured'
ok $? "a result that does not declare the family complete (events lost): absent stays not measured"
"$BIN/compare" --labels a,a,b $D/watch-a.json $D/watch-a2.json $D/watch-b.json >"$TMP/fam.txt" 2>&1
grep -A3 '^ipistorm_watch: ipis_from_flush_tlb_mm_range_per_s$' "$TMP/fam.txt" | grep -Eq '^  a +10 +0.8000 '
ok $? "pooled runs: a source absent from one run counts 0 in that run's windows (10 samples)"

# bad input: exit 2 and one line on stderr
bad_input() {	# bad_input DESC ARGS...
	local desc=$1
	shift
	"$BIN/compare" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$? lines
	lines=$(wc -l <"$TMP/err")
	[ $rc -eq 2 ] && [ "$lines" -eq 1 ]
	ok $? "bad input, $desc: exit 2, one line (rc=$rc: $(head -c 160 "$TMP/err"))"
}
: >"$TMP/empty.json"
mkdir -p "$TMP/nojson"
bad_input "missing file" $D/base.json $D/nonexistent.json
bad_input "malformed JSON" $D/base.json $D/malformed.json
bad_input "other schema version" $D/base.json $D/schema-v2.json
bad_input "not a result" $D/base.json $D/wrong-schema.json
bad_input "empty file" $D/base.json "$TMP/empty.json"
bad_input "directory without results" $D/base.json "$TMP/nojson"
bad_input "only one result" $D/base.json
bad_input "bad threshold" --threshold 5x $D/base.json $D/equal.json
bad_input "labels do not match" --labels a $D/base.json $D/equal.json
for l in "a,b," ",a,b" "a,,b"; do
	bad_input "--labels $l" --labels "$l" $D/base.json $D/equal.json
	[ "$(cat "$TMP/err")" = "compare: --labels: '$l': an empty label (a leading, trailing or doubled ',')" ]
	ok $? "--labels $l: says the label is empty ($(cat "$TMP/err"))"
done
bad_input "unknown option" --frobnicate $D/base.json $D/equal.json
# options for compared results, with one result only exported
for o in --markdown "--labels a" --emulated-timings "--threshold 5" "--threshold-abs 5"; do
	read -ra opt <<<"$o"
	bad_input "--kcidb with one result and $o" --kcidb "$TMP/k1.json" "${opt[@]}" $D/base.json
	[ "$(cat "$TMP/err")" = "compare: ${o%% *} needs two results or more: a single one is only exported (--kcidb)" ] &&
		[ ! -e "$TMP/k1.json" ]
	ok $? "... says why and writes nothing ($(cat "$TMP/err"))"
done
sed 's/"finished": "2026-11-01T12:00:00Z"/"finished": "2026-11-01T12:10:00Z"/' $D/equal.json >"$TMP/equal2.json"
"$BIN/compare" --bisect --labels a,b,b $D/base.json $D/equal.json "$TMP/equal2.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^bisect: verdict good' "$TMP/out"
ok $? "--bisect --labels: the operands of one name are one kernel, their runs pooled (rc=$rc)"
"$BIN/compare" --bisect --labels a,b $D/base.json $D/equal.json >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 255 ] && [ "$(cat "$TMP/err")" = "compare: --labels with --bisect names the kernels only for --kcidb; without it, give a name twice to pool runs" ]
ok $? "--bisect --labels naming each kernel once, no --kcidb: does nothing, refused (rc=$rc: $(cat "$TMP/err"))"
"$BIN/compare" --bisect --labels a,b --kcidb "$TMP/kb.json" $D/base.json $D/equal.json >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && json_check "$TMP/kb.json" '[t for t in d["tests"] if t["path"].endswith(".vs_base") and t["misc"]["base"] == "a"]'
ok $? "--bisect --labels with --kcidb: the base's label is in the records (rc=$rc)"
# a member of the wrong type is refused, naming the file and the member,
# never read as missing ("interrupted": "yes" is not false)
while read -r f member; do
	bad_input "hostile types: $f" $D/base.json "$D/hostile/$f.json"
	case $(cat "$TMP/err") in
	"compare: $D/hostile/$f.json: $member "*) ok 0 "... names the file and $member";;
	*) ok 1 "... names the file and $member ($(cat "$TMP/err"))";;
	esac
done <<'EOF'
argv-number run.argv: argument 3 is a number,
argv-string run.argv is a string,
better-number metric syscall_ns: better is a number,
duration-string run.duration_s is a string,
emulated-string system.emulated is a string,
exit-code-range run.exit_code is 300,
exit-code-string run.exit_code is a string,
interrupted-string run.interrupted is a string,
kernel-build-patch-string kernel_build.patches: patch 1 is a string,
kernel-build-patches-object kernel_build.patches is an object,
kernel-build-sha-number kernel_build.config_fragments: fragment 2: sha256 is a number,
kernel-build-source-id-number kernel_build.source_id is a number,
kernel-build-string kernel_build is a string,
kind-bool metric syscall_ns: kind is a boolean,
metric-string metric 5 is a string,
name-number metric 1: name is a number,
release-number system.kernel_release is a number,
run-string run is a string,
schema-version-string schema_version is a string,
signal-string run.signal is a string,
system-array system is an array,
test-number test is a number,
unit-number metric syscall_ns: unit is a number,
verdict-result verdict 1: result is 'passed',
verdict-string verdict 3 is a string,
verdicts-object verdicts is an object,
EOF
[ "$(find $D/hostile -name '*.json' | wc -l)" -eq 26 ]
ok $? "every file of $D/hostile is checked above"
bisect_rc 125 "a new result with \"interrupted\": \"yes\" cannot be read" $D/base.json $D/hostile/interrupted-string.json
bisect_rc 255 "a baseline with \"better\": 1 aborts" $D/hostile/better-number.json $D/equal.json
# one result pooled twice (the same file, a copy, a copy with its members
# reordered, in a directory) would narrow the interval: refused, in the
# table, --bisect (255: an argument error) and --kcidb
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), sort_keys=True)' \
	$D/base.json "$TMP/base-sorted.json"
mkdir -p "$TMP/dup1" "$TMP/dup2"
cp $D/base.json "$TMP/dup1/getpid_bench.json"
cp $D/base.json "$TMP/dup2/getpid_bench.json"
dup_refused() {	# dup_refused STATUS DESC FILE1 FILE2 ARGS...
	local want=$1 desc=$2 f1=$3 f2=$4
	shift 4
	"$BIN/compare" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ $rc -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		[ "$(cat "$TMP/err")" = "compare: kernel good: $f1 and $f2 are the same result of getpid_bench: one run pooled twice" ] &&
		[ ! -e "$TMP/kdup.json" ]
	ok $? "one result pooled twice, $desc: refused, exit $want (rc=$rc: $(cat "$TMP/err"))"
}
dup_refused 255 "--bisect --kcidb, the same file" $D/base.json $D/base.json \
	--bisect --labels good,good,new --kcidb "$TMP/kdup.json" $D/base.json $D/base.json $D/noisy.json
dup_refused 2 "table, a copy with its members reordered" $D/base.json "$TMP/base-sorted.json" \
	--labels good,good,new $D/base.json "$TMP/base-sorted.json" $D/patched.json
dup_refused 2 "--kcidb, copies in two directories" "$TMP/dup1/getpid_bench.json" "$TMP/dup2/getpid_bench.json" \
	--labels good,good,new --kcidb "$TMP/kdup.json" "$TMP/dup1" "$TMP/dup2" $D/patched.json
dup_refused 255 "--bisect, the new side" $D/patched.json $D/patched.json \
	--bisect --labels base,good,good $D/base.json $D/patched.json $D/patched.json
"$BIN/compare" --bisect $D/base.json $D/base.json >/dev/null 2>&1
ok $? "the same result as base and new (a baseline against itself) is still judged"
# two results of one test in a later operand of a side (a round's
# directory): refused as in the first, naming that operand
mkdir -p "$TMP/round2"
cp $D/noisy.json "$TMP/round2/getpid_bench.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["system"]["hostname"] += "-again"; json.dump(d, open(sys.argv[2], "w"))' \
	$D/noisy.json "$TMP/round2/getpid_bench.again.json"
"$BIN/compare" --labels a,a,b $D/base.json "$TMP/round2" $D/patched.json >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$TMP/err")" = "compare: $TMP/round2: two results of getpid_bench ($TMP/round2/getpid_bench.again.json and $TMP/round2/getpid_bench.json)" ]
ok $? "two results of one test in a later operand: refused, that operand named (rc=$rc: $(cat "$TMP/err"))"

# a key twice: one reader keeps the first, another the last; refused
sed 's/"program": "getpid_bench"/"program": "getpid_bench", "program": "timer_softirq"/' \
	$D/base.json >"$TMP/dupkey.json"
bad_input "a duplicate key" $D/base.json "$TMP/dupkey.json"
grep -Eq "^compare: $TMP/dupkey.json: malformed JSON: line [0-9]+ col [0-9]+: duplicate key 'program' in an object\$" "$TMP/err"
ok $? "the duplicate key is named with its place ($(cat "$TMP/err"))"
"$BIN/compare" --bisect "$TMP/dupkey.json" $D/base.json >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 255 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]
ok $? "a baseline with a duplicate key aborts a bisect: 255, one line (rc=$rc)"
grep -q 'schema_version 2' "$TMP/err" 2>/dev/null || "$BIN/compare" $D/base.json $D/schema-v2.json 2>&1 | grep -q 'schema_version 2'
ok $? "the schema version error names the version"

# KCIDB records, checked against the shape docs/kcidb.md documents
"$BIN/compare" --kcidb "$TMP/k.json" $D/base.json $D/patched.json >/dev/null
ok $? "--kcidb writes"
json_check "$TMP/k.json" 'd["version"]["major"]==4 and isinstance(d["version"]["minor"],int) and len(d["tests"])>0'
ok $? "kcidb: version and tests"
json_check "$TMP/k.json" 'all(t["id"].startswith("isolbench:") and t["origin"]=="isolbench" and ":" in t["build_id"] and __import__("re").fullmatch(r"[.a-zA-Z0-9_-]*", t["path"]) and t["status"] in ("FAIL","ERROR","MISS","PASS","DONE","SKIP") for t in d["tests"])'
ok $? "kcidb: every record has id, origin, build_id, a dotted path and a KCIDB status"
json_check "$TMP/k.json" '[t for t in d["tests"] if t["path"]=="isolbench.getpid_bench.syscall_ns" and t["status"]=="DONE" and t["number"]=="x" or t["path"]=="isolbench.getpid_bench.syscall_ns" and t["status"]=="DONE" and abs(t["number"]["value"]-1340)<1e-9 and t["number"]["unit"]=="ns" and t["environment"]["misc"]["kernel_release"]=="6.17.0-defer-ipi+"]'
ok $? "kcidb: a metric is DONE with number value and unit, and the environment"
json_check "$TMP/k.json" '[t for t in d["tests"] if t["path"]=="isolbench.getpid_bench" and t["status"]=="PASS"] and [t for t in d["tests"] if t["path"]=="isolbench.getpid_bench.getpid_returns_the_expected_value" and t["status"]=="PASS"] and [t for t in d["tests"] if t["path"]=="isolbench.getpid_bench.stayed_on_the_target_cpu" and t["status"]=="SKIP"]'
ok $? "kcidb: the program and its verdicts are PASS/SKIP records, each check's path from its name"
json_check "$TMP/k.json" '[t for t in d["tests"] if t["path"]=="isolbench.getpid_bench.syscall_ns.vs_base" and t["status"]=="FAIL"] and not [t for t in d["tests"] if t["environment"]["misc"]["kernel_release"]=="6.17.0"]'
ok $? "kcidb: the comparison is a FAIL record; the base is not exported"
json_check "$TMP/k.json" 'not (lambda f: f(f, d))(lambda f, v: v is None or (isinstance(v, dict) and any(f(f, x) for x in v.values())) or (isinstance(v, list) and any(f(f, x) for x in v)))'
ok $? "kcidb: no null anywhere (KCIDB forbids them)"

# KCIDB follows the bisect rule: a run cut short or skipped, on either
# side, is neither PASS nor FAIL against the base but SKIP, with why
kcidb_undecided() {	# kcidb_undecided DESC REASON ARGS...
	local desc=$1 why=$2
	shift 2
	rm -f "$TMP/ku.json"
	"$BIN/compare" --kcidb "$TMP/ku.json" "$@" >/dev/null 2>&1
	WHY=$why json_check "$TMP/ku.json" '[t for t in d["tests"] if t["path"].endswith(".vs_base")] and all(t["status"] == "SKIP" and t["comment"].endswith(__import__("os").environ["WHY"]) for t in d["tests"] if t["path"].endswith(".vs_base"))'
	ok $? "kcidb: $desc: vs_base is SKIP ($(python3 -c 'import json, sys; print([(t["status"], t["comment"]) for t in json.load(open(sys.argv[1]))["tests"] if t["path"].endswith(".vs_base")])' "$TMP/ku.json" 2>&1 | head -c 200))"
}
kcidb_undecided "an interrupted new result" "getpid_bench was interrupted by Interrupt: it ran only in part" \
	$D/base.json $D/interrupted.json
kcidb_undecided "a skipped new result that has samples" "getpid_bench was skipped" \
	$D/base.json $D/skipped-measured.json
kcidb_undecided "a base that exited 143" "the baseline's getpid_bench was interrupted by Terminated: it ran only in part" \
	$D/base-exit143.json $D/equal.json
kcidb_undecided "--bisect, an interrupted new result" "getpid_bench was interrupted by Interrupt: it ran only in part" \
	--bisect $D/base.json $D/interrupted.json

# no output of compare is one of its inputs: refused before anything is written
cp $D/base.json "$TMP/in-a.json"
cp $D/patched.json "$TMP/in-b.json"
ln "$TMP/in-a.json" "$TMP/in-link.json"
mkdir -p "$TMP/in-dir"
cp $D/patched.json "$TMP/in-dir/getpid_bench.json"
out_refused() {	# out_refused STATUS DESC PATTERN ARGS...
	local want=$1 desc=$2 pat=$3
	shift 3
	"$BIN/compare" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ $rc -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qE "$pat" "$TMP/err" &&
		cmp -s "$TMP/in-a.json" $D/base.json && [ ! -s "$TMP/out" ] &&
		[ "$(find "$TMP/in-dir" -type f | wc -l)" -eq 1 ]
	ok $? "$desc: refused (exit $want, one line), the input intact (rc=$rc: $(cat "$TMP/err"))"
}
out_refused 2 "--kcidb A A B" "^compare: --kcidb $TMP/in-a.json is the input $TMP/in-a.json: an output never replaces an input\$" \
	--kcidb "$TMP/in-a.json" "$TMP/in-a.json" "$TMP/in-a.json" "$TMP/in-b.json"
out_refused 255 "--bisect --kcidb BASE BASE NEW" "is the input $TMP/in-a.json" \
	--bisect --kcidb "$TMP/in-a.json" "$TMP/in-a.json" "$TMP/in-b.json"
out_refused 2 "--kcidb a hard link to an input" "^compare: --kcidb $TMP/in-link.json is the input $TMP/in-a.json" \
	--kcidb "$TMP/in-link.json" "$TMP/in-a.json" "$TMP/in-b.json"
out_refused 2 "--kcidb a member of an input directory" "is the input $TMP/in-dir/getpid_bench.json" \
	--kcidb "$TMP/in-dir/getpid_bench.json" "$TMP/in-a.json" "$TMP/in-dir"
out_refused 2 "--kcidb a new result file in an input directory" "^compare: --kcidb $TMP/in-dir/../in-dir/k.json would be a result file of the input directory $TMP/in-dir\$" \
	--kcidb "$TMP/in-dir/../in-dir/k.json" "$TMP/in-a.json" "$TMP/in-dir"
"$BIN/compare" --kcidb "$TMP/in-dir/.k.json" "$TMP/in-a.json" "$TMP/in-dir" >/dev/null 2>&1
ok $? "--kcidb a hidden file in an input directory (not read as a result) is written"

# run.sh end to end, in a directory of its own with the tools under test
inst=$TMP/inst
mkdir -p "$inst"
cp run.sh settings "$inst/"
ln -s "$BIN/compare" "$inst/compare"
ln -s "$BIN/getpid_bench" "$inst/getpid_bench"
"$inst/run.sh" --bisect --baseline $D/base.json --threshold 999 -- -n 2000 -r 3 >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^# bisect: good' "$TMP/rb.out"
ok $? "run.sh --bisect: a real run against a slow baseline is good (rc=$rc)"
sed 's/\[770.0, 772.0, 768.0, 771.0, 769.0\]/[1.0, 1.0, 1.0]/; s/"samples": \[$/"samples": [/' $D/base.json >"$TMP/fast.json"
python3 - "$TMP/fast.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["metrics"]:
	if m["name"] == "syscall_ns":
		m["samples"] = [0.5, 0.5, 0.5]
json.dump(d, open(sys.argv[1], "w"))
PY
# (7 runs of 20000: on a busy machine one slow run of 3 x 2000 made the
# interval straddle the threshold, 125)
"$inst/run.sh" --bisect --baseline "$TMP/fast.json" -- -n 20000 -r 7 >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 1 ] || tail -n 20 "$TMP/rb.out" | sed 's/^/# /'
[ $rc -eq 1 ] && grep -q '^# bisect: bad' "$TMP/rb.out"
ok $? "run.sh --bisect: a real run against a 0.5 ns baseline is bad (rc=$rc)"
"$inst/run.sh" --bisect --baseline $D/nonexistent.json >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 255 ]; ok $? "run.sh --bisect: missing baseline aborts the bisect with 255 (rc=$rc)"
"$inst/run.sh" --bisect --baseline $D/base.json --threshold abc >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 255 ]; ok $? "run.sh --bisect: bad threshold is 255 (rc=$rc)"
"$inst/run.sh" --bisect --baseline $D/base.json --metric nosuch_ns >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 255 ]; ok $? "run.sh --bisect: unknown metric is 255 before anything runs (rc=$rc)"

# a program that skips (exit 4) must not leak 4: the step is undecided
skip_inst=$TMP/skip
mkdir -p "$skip_inst"
cp run.sh settings "$skip_inst/"
ln -s "$BIN/compare" "$skip_inst/compare"
cat >"$skip_inst/getpid_bench" <<SH
#!/bin/bash
out=""
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
[ -n "\$out" ] && cp "$TOP/$D/skipped.json" "\$out"
echo "KTAP version 1"; echo "1..0 # SKIP no nohz_full CPU"; exit 4
SH
chmod +x "$skip_inst/getpid_bench"
"$skip_inst/run.sh" --bisect --baseline $D/base.json >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 125 ]; ok $? "run.sh --bisect: a skipped test is 125, never 4 (rc=$rc)"
rm "$skip_inst/getpid_bench"
"$skip_inst/run.sh" --bisect --baseline $D/base.json -t getpid_bench >"$TMP/rb.out" 2>&1
rc=$?
[ $rc -eq 125 ]; ok $? "run.sh --bisect: a test that did not build is 125 (rc=$rc)"

# one program, several tests (ipistorm: the storm, the watch, the module):
# each is its own result, paired by its test name; one kernel's runs
# under one --labels name are pooled; interrupted runs are not judged
python3 - "$D/base.json" "$TMP" <<'PY'
import json, os, sys
t = json.load(open(sys.argv[1]))
def res(test, vals, argv=None, **run):
	d = json.loads(json.dumps(t))
	d["program"], d["test"] = "ipistorm", test
	d["run"]["argv"] = argv or ["./ipistorm", "-o", "/x/%s.json" % test]
	d["run"].update(run)
	d["metrics"] = [{"name": "ipi_ns", "unit": "ns", "better": "lower",
			 "aggregate": "x", "samples": vals}]
	return d
for side, k in (("a", 1.0), ("b", 1.3)):
	os.makedirs(os.path.join(sys.argv[2], "t" + side), exist_ok=True)
	for test, v in (("ipistorm", 100), ("ipistorm_watch", 7), ("ipistorm_kmod", 50)):
		json.dump(res(test, [v * k, v * k * 1.01, v * k * 0.99]),
			  open(os.path.join(sys.argv[2], "t" + side, test + ".json"), "w"))
	for r in (1, 2):
		d = os.path.join(sys.argv[2], "round-%s%d" % (side, r))
		os.makedirs(d, exist_ok=True)
		json.dump(res("ipistorm_watch", [7 * k + r, 7 * k + r + 0.1]),
			  open(os.path.join(d, "ipistorm_watch.json"), "w"))
json.dump(res("ipistorm_watch", [7, 7.1, 6.9], interrupted=True, signal=2, exit_code=130),
	  open(os.path.join(sys.argv[2], "int.json"), "w"))
json.dump(res("ipistorm_watch", [7, 7.1, 6.9], argv=["./ipistorm", "--mode", "watch", "-D", "5",
	  "--output", "x.json"]), open(os.path.join(sys.argv[2], "other-args.json"), "w"))
PY
"$BIN/compare" "$TMP/ta" "$TMP/tb" >"$TMP/t.out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -c '^ipistorm[a-z_]*: ipi_ns' "$TMP/t.out" | grep -qx 3 &&
	grep -q '^ipi_ns (ipistorm_watch): ta avg 7.000 ns, tb avg 9.100 ns' "$TMP/t.out"
ok $? "one program, three tests: each its own table, paired by test (rc=$rc)"
"$BIN/compare" --bisect "$TMP/ta" "$TMP/tb" >"$TMP/t.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^bisect: ipistorm_watch ipi_ns: baseline 7.000' "$TMP/t.out"
ok $? "--bisect of two such directories judges each test (rc=$rc)"
"$BIN/compare" --labels base,new,base,new "$TMP/round-a1" "$TMP/round-b1" "$TMP/round-a2" "$TMP/round-b2" >"$TMP/t.out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^ipistorm_watch: base pools 2 runs' "$TMP/t.out" &&
	grep -Eq '^  base +4 +8.550 ' "$TMP/t.out" && grep -Eq '^  new +4 +10.65 ' "$TMP/t.out"
ok $? "operands under one label are one kernel: 4 samples pooled from 2 rounds (rc=$rc)"
"$BIN/compare" --labels a,a,b "$TMP/round-a1" "$TMP/other-args.json" "$TMP/round-b1" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "cannot pool the runs of ipistorm_watch as kernel a: .* ran with '', .* with '--mode watch -D 5'" "$TMP/err"
ok $? "runs with other arguments are not pooled: exit 2, one line (rc=$rc: $(cat "$TMP/err"))"
"$BIN/compare" "$TMP/ta" "$TMP/other-args.json" >"$TMP/t.out" 2>&1
grep -q "^warning: other-ar ran ipistorm_watch with '--mode watch -D 5', ta with" "$TMP/t.out"
ok $? "a table of runs with other arguments says so"
for side in base new; do
	if [ $side = base ]; then set -- "$TMP/int.json" "$TMP/ta/ipistorm_watch.json"; else set -- "$TMP/ta/ipistorm_watch.json" "$TMP/int.json"; fi
	"$BIN/compare" --bisect "$@" >"$TMP/t.out" 2>&1
	rc=$?
	[ $rc -eq 125 ] && grep -q 'ipistorm_watch was interrupted by Interrupt: it ran only in part: undecided' "$TMP/t.out"
	ok $? "--bisect: an interrupted result as the $side is undecided, with the reason (rc=$rc)"
done
"$BIN/compare" --args "$TMP/other-args.json" >"$TMP/t.out"
rc=$?
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$TMP/t.out")" = "test ipistorm_watch exit 0 arg --mode arg watch arg -D arg 5 " ]
ok $? "--args: the test, its status and its arguments without the result file (rc=$rc: $(tr '\n' ' ' <"$TMP/t.out"))"
"$BIN/compare" --kcidb "$TMP/k8.json" --kcidb-build "$(printf 'id\377')" $D/base.json $D/patched.json >/dev/null &&
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$TMP/k8.json"
ok $? "--kcidb-build of bytes that are not UTF-8: the records are still valid JSON"

"$inst/run.sh" -t getpid_bench --kcidb "$TMP/rk.json" -- -n 2000 -r 2 >"$TMP/rk.out" 2>&1
rc=$?
[ $rc -eq 0 ] && json_check "$TMP/rk.json" '[t for t in d["tests"] if t["path"]=="isolbench.getpid_bench.syscall_ns" and t["status"]=="DONE" and t["number"]["value"]>0] and [t for t in d["tests"] if t["path"]=="isolbench.getpid_bench" and t["status"]=="PASS"]'
ok $? "run.sh --kcidb: a real run exported as KCIDB records (rc=$rc)"
done_testing
