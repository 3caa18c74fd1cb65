#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lava/isolbench.sh - run isolbench's run.sh on a LAVA device and report
# what it found as LAVA test cases (lava/isolbench.yaml runs it;
# docs/farms.md).  POSIX sh and the tools busybox has: it runs in a
# minimal ramdisk as well as on a full distribution.
#
# Every check of every program's KTAP becomes a test case TEST.CHECK,
# the name made from the check's description (what it checks, the same
# on every run); every program's result a test case TEST; every metric
# of the JSON results that the program pastes as a summary line a test
# case TEST.METRIC with its mean as the measurement and the metric's
# unit; each isolation word of -e a test case isolation.WORD.  The JSON
# results themselves are printed between marker lines, so that the
# job's log keeps them.  The lines reported are also written to
# output/result.txt ("NAME RESULT [MEASUREMENT UNITS]"), and without
# lava-test-case in PATH they are only printed: the script runs by
# hand just as well.
#
# Exit status: 0 when the run was reported (failed checks are failed
# test cases, not a failed script), 1 on bad input or when run.sh
# could not run at all.

set -u

usage() {
	cat <<EOF
Usage: $0 [-d SUITE_DIR] [-t "TEST..."] [-c CPULIST] [-q true|false]
          [-e "nohz_full=LIST isolcpus=LIST"] [-T SECS] [-o DIR]
  -d  where the suite is installed (default /opt/isolbench)
  -t  the tests of run.sh to run, blank-separated (default: all)
  -c  the CPUs to measure, a cpulist (default: each program's own)
  -q  true: run.sh --quick (default); false: the full measurement
  -e  the isolation the job expects, as the kernel command line says it
  -T  per-test timeout in seconds (default: the suite's settings)
  -o  where to keep the results (default ./output)
EOF
}

die() {
	echo "isolbench.sh: $*" >&2
	exit 1
}

SUITE_DIR=/opt/isolbench TESTS="" CPUS="" QUICK=true EXPECT="" TIMEOUT=""
OUTPUT=$(pwd)/output
while getopts d:t:c:q:e:T:o:h opt; do
	case $opt in
	d) SUITE_DIR=$OPTARG ;;
	t) TESTS=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	q) QUICK=$OPTARG ;;
	e) EXPECT=$OPTARG ;;
	T) TIMEOUT=$OPTARG ;;
	o) OUTPUT=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument '$1'"
case $QUICK in
true|false) ;;
*) die "-q must be true or false, not '$QUICK'" ;;
esac
[ -x "$SUITE_DIR/run.sh" ] || die "no run.sh in '$SUITE_DIR' (-d: where make install put the suite)"
case $CPUS in
*[!0-9,-]*) die "-c '$CPUS' is not a cpulist (such as 2-3,5)" ;;
esac

RESULT_FILE=$OUTPUT/result.txt
RESULTS=$OUTPUT/suite

# The longest test case name LAVA's database keeps.
readonly NAME_MAX=100

# report NAME RESULT [MEASUREMENT [UNITS]]: one test case, into the
# result file and to LAVA (empty MEASUREMENT or UNITS: none)
report() {
	case=$1 result=$2 value=${3:-} unit=${4:-}
	set -- "$case" --result "$result"
	[ -z "$value" ] || set -- "$@" --measurement "$value"
	[ -z "$value" ] || [ -z "$unit" ] || set -- "$@" --units "$unit"
	echo "$case $result${value:+ $value}${unit:+ $unit}" >>"$RESULT_FILE"
	if [ -n "$LAVA_TEST_CASE" ]; then
		lava-test-case "$@"
	else
		echo "isolbench result: $case $result${value:+ $value}${unit:+ $unit}"
	fi
}

# expand_cpulist LIST: "2-3,5" as "2 3 5" (empty for "", "bad" for what
# is not a cpulist)
expand_cpulist() {
	echo "$1" | awk -F, '
	{
		out = ""
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			if ($i !~ /^[0-9]+(-[0-9]+)?$/ || (n == 2 && r[1] + 0 > r[2] + 0)) {
				print "bad"; exit
			}
			hi = n == 2 ? r[2] : r[1]
			for (c = r[1] + 0; c <= hi + 0; c++)
				out = out (out == "" ? "" : " ") c
		}
		print out
	}'
}

# isolation_word WORD: "KEY FILE LIST" for an -e word: nohz_full=LIST
# is read back from /sys/devices/system/cpu/nohz_full, isolcpus=
# [FLAGS,]LIST from .../isolated; "" for a word that cannot be checked
isolation_word() {
	key=${1%%=*} list=${1#*=}
	case $key in
	nohz_full) file=nohz_full ;;
	# isolcpus=[flag,...,]cpulist: the flags are words
	isolcpus) file=isolated list=$(echo "$list" | sed 's/^\([a-z_]*,\)*//') ;;
	*) return 0 ;;
	esac
	case $(expand_cpulist "$list") in
	''|bad) ;;
	*) echo "$key $file $list" ;;
	esac
}

for word in $EXPECT; do
	[ -n "$(isolation_word "$word")" ] ||
		die "-e '$word': not nohz_full=CPULIST or isolcpus=CPULIST, which can be checked"
done

# check_isolation: a test case isolation.KEY per -e word, failed when
# the running kernel does not have it
check_isolation() {
	for word in $EXPECT; do
		# shellcheck disable=SC2046  # three words
		set -- $(isolation_word "$word")
		have=$(cat "/sys/devices/system/cpu/$2" 2>/dev/null)
		if [ "$(expand_cpulist "$have")" = "$(expand_cpulist "$3")" ]; then
			report "isolation.$1" pass
		else
			echo "isolbench.sh: expected $1=$3, the kernel has '$have' in /sys/devices/system/cpu/$2" >&2
			report "isolation.$1" fail
		fi
	done
}

# run_suite: run.sh with the options of the job; its TAP goes to the
# log as it comes and to OUTPUT/run.tap, its status to OUTPUT/run.status
run_suite() {
	set --
	for t in $TESTS; do set -- "$@" -t "$t"; done
	[ "$QUICK" = false ] || set -- "$@" --quick
	[ -z "$TIMEOUT" ] || set -- "$@" --timeout "$TIMEOUT"
	set -- "$@" -o "$RESULTS" --
	[ -z "$CPUS" ] || set -- "$@" -c "$CPUS"
	# With nohz_full expected, a target CPU without it fails the checks
	# that need it (timer_softirq's stopped tick) instead of skipping
	# them; run.sh hands the option only to the programs that take it.
	case " $EXPECT" in
	*" nohz_full="*) set -- "$@" --assert-nohz ;;
	esac
	echo "isolbench.sh: $SUITE_DIR/run.sh $*"
	{ "$SUITE_DIR/run.sh" "$@"; echo $? >"$OUTPUT/run.status"; } | tee "$OUTPUT/run.tap"
	echo "isolbench.sh: run.sh exited $(cat "$OUTPUT/run.status")"
}

# The test cases of one test of run.sh's table, from its KTAP (the
# checks) and its JSON result (the metrics it pastes), one "NAME RESULT
# [MEASUREMENT UNITS]" line each.  A name is TEST.CHECK: the check's
# description with every run of characters LAVA does not take in a name
# (outside [A-Za-z0-9_-]; '.' is kept for the separator) made one '_',
# cut to NAME_MAX; a name met twice gets _2, _3, ... in the order met.
# Only the top level of each file is read (no nested KTAP); the JSON is
# the result writer's, one member per line (docs/result-schema.md).
# shellcheck disable=SC2016  # an awk program
CASES_AWK='
function slug(s) {
	gsub(/[^A-Za-z0-9_-]+/, "_", s)
	sub(/^_+/, "", s)
	sub(/_+$/, "", s)
	return s == "" ? "check" : s
}
function unique(name,   base, n, suffix) {
	name = substr(name, 1, max)
	base = name
	for (n = 2; name in seen; n++) {
		suffix = "_" n
		name = substr(base, 1, max - length(suffix)) suffix
	}
	seen[name] = 1
	return name
}
function ktap_line(line,   result, i, desc, directive) {
	result = line ~ /^not ok/ ? "fail" : "pass"
	sub(/^(not )?ok [0-9]+ ?(- )?/, "", line)
	desc = line
	directive = ""
	if (line ~ /^#/) {
		desc = ""
		directive = line
	} else if ((i = index(line, " #")) > 0) {
		desc = substr(line, 1, i - 1)
		directive = substr(line, i + 2)
	}
	sub(/^#? */, "", directive)
	if (toupper(directive) ~ /^SKIP/)
		result = "skip"
	print unique(test "." slug(desc)), result
}
function json_value(line) {
	sub(/^[ \t]*"[^"]*":[ \t]*/, "", line)
	sub(/,[ \t]*$/, "", line)
	if (line ~ /^".*"$/) {
		line = substr(line, 2, length(line) - 2)
		gsub(/\\"/, "\"", line)
		gsub(/\\\\/, "\\", line)
	}
	return line
}
function metric_done(   name) {
	if (m_label) {
		name = unique(test "." slug(m_name))
		gsub(/[ \t]+/, "_", m_unit)
		if (m_mean != "" && m_mean != "null")
			print name, "pass", m_mean, m_unit
		else
			print name, "skip"
	}
	m_name = m_unit = m_mean = ""
	m_label = 0
}
function json_line(line,   s, opens, closes, key, where) {
	s = line
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
	opens = gsub(/[[{]/, "", s)
	closes = gsub(/[]}]/, "", s)
	key = ""
	if (line ~ /^[ \t]*"[^"]*":/) {
		key = line
		sub(/^[ \t]*"/, "", key)
		sub(/".*/, "", key)
	}
	# the top-level object is level 1, each metric level 3
	where = path[2] "/" path[3] "/" path[4]
	if (opens == closes && depth == 3 && where == "metrics/#/") {
		if (key == "name") m_name = json_value(line)
		else if (key == "unit") m_unit = json_value(line)
		else if (key == "label") m_label = 1
	} else if (opens == closes && depth == 4 && where == "metrics/#/summary" && key == "mean") {
		m_mean = json_value(line)
	}
	for (; opens > closes; opens--)
		path[++depth] = key != "" ? key : "#"
	for (; closes > opens; closes--) {
		if (depth == 3 && path[2] == "metrics")
			metric_done()
		delete path[depth--]
	}
}
FILENAME == ktap && /^(not )?ok [0-9]+/ { ktap_line($0) }
FILENAME == json { json_line($0) }
'

# test_cases TEST: the test cases of TEST (see above)
test_cases() {
	ktap=$RESULTS/$1.ktap json=$RESULTS/$1.json
	[ -f "$ktap" ] || ktap=/dev/null
	[ -f "$json" ] || json=/dev/null
	awk -v test="$1" -v max="$NAME_MAX" -v ktap="$ktap" -v json="$json" \
		"$CASES_AWK" "$ktap" "$json"
}

# report_run: a test case per test of run.sh's TAP and per check and
# metric of each, then the JSON results between markers in the log
report_run() {
	awk '/^(not )?ok [0-9]+ selftests: isolbench: / {
		name = $0
		sub(/.* selftests: isolbench: /, "", name)
		sub(/ .*/, "", name)
		print name, (/^not/ ? "fail" : (/ # SKIP/ ? "skip" : "pass"))
	}' "$OUTPUT/run.tap" |
	while read -r t result; do
		report "$t" "$result"
		test_cases "$t" | while read -r name result value unit; do
			report "$name" "$result" "$value" "$unit"
		done
	done
	for json in "$RESULTS"/*.json; do
		[ -f "$json" ] || continue
		echo "isolbench-json-begin ${json##*/}"
		cat "$json"
		echo "isolbench-json-end ${json##*/}"
	done
}

LAVA_TEST_CASE=""
command -v lava-test-case >/dev/null 2>&1 && LAVA_TEST_CASE=1
mkdir -p "$OUTPUT" || die "cannot create '$OUTPUT'"
rm -rf "$RESULTS" "$RESULT_FILE" "$OUTPUT/run.tap" "$OUTPUT/run.status"
check_isolation
run_suite
[ -s "$OUTPUT/run.tap" ] || die "run.sh printed nothing (status $(cat "$OUTPUT/run.status"))"
report_run
