#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the isolbench programs and print one stream in the kselftest
# runner's shape: TAP version 13, a plan, each program's KTAP prefixed
# with "# ", then "ok N selftests: isolbench: NAME" (SKIP for exit 4,
# "not ok ... # TIMEOUT" when the per-test timeout hits). Exits non-zero
# when any test failed.
#
# --bisect turns a run into one `git bisect run` step: the chosen test(s)
# run, compare judges their results against --baseline and the exit code
# is 0 (good), 1 (bad), 125 (cannot decide: skip this commit) or 255
# (usage or setup error: git bisect aborts). Never 4.
#
# main() runs the phases in order: parse the options, check everything
# (nothing runs before the last check), run each test, judge (--bisect)
# or export (--kcidb).

set -u

# The suite's tests in run order, one per line: NAME [PROGRAM ARGS...]
# (PROGRAM defaults to NAME). A new program adds one line here.
readonly TEST_TABLE="
getpid_bench
timer_softirq
ipistorm
ipistorm_watch ipistorm --mode watch
ipistorm_kmod ipistorm --mode kmod
cid_scan
"
# no process substitution in this file: a busybox guest has no /dev/fd
mapfile -t ALL_TESTS <<<"$(awk 'NF { print $1 }' <<<"$TEST_TABLE")"
readonly ALL_TESTS

HERE=$(cd "$(dirname "$0")" && pwd)
readonly HERE
# Each run's work directory (the fifo, the logs, --bisect's and --kcidb's
# results) is named for the run.sh that made it: one whose run.sh is
# gone (SIGKILL) is deleted by the next run.
readonly WORK_PREFIX=${TMPDIR:-/tmp}/isolbench-run.

# The options: set by parse_args, then only read.
TESTS=() QUICK="" OUTDIR="" TIMEOUT="" TIMEOUT_GIVEN="" LIST="" PROG_ARGS=()
BISECT="" BASELINE="" METRIC="" KCIDB=""
CMP_THRESHOLD=()	# --threshold PCT or --threshold-abs V, as compare takes it
DIE_CODE=1		# 255 with --bisect: git bisect run then stops

# The run's state, for the traps.
WORK="" CHILD="" INTERRUPTED=""

usage() {
	cat <<USAGE
Usage: $0 [-t NAME]... [--quick] [-o DIR] [--timeout SECS] [-l] [-- PROGRAM ARGS]
       $0 --bisect --baseline GOOD [--metric NAME] [--threshold PCT | --threshold-abs V] [-t NAME]...
Run the isolbench programs (default: all that are built) and print KTAP.

  -t, --test NAME     run only NAME (repeatable)
      --quick         short smoke run of each program
  -o, --output DIR    keep each program's KTAP (NAME.ktap) and JSON (NAME.json) in DIR
      --timeout SECS  per-test timeout (default: the settings file, else 300)
  -l, --list          list the tests that would run
      --kcidb FILE    also write the results as KCIDB test records (docs/kcidb.md)
      --bisect        a git bisect run step: exit 0 good, 1 bad, 125 skip, 255 error
      --baseline PATH --bisect: the good result (a file, or a directory of -o)
      --metric NAME   --bisect: the metric to judge (default: each program's
                      first metric with better lower|higher)
      --threshold PCT --bisect: how much worse is still good (default 5%)
      --threshold-abs V --bisect: the same in the metric's own unit, for
                      counts near 0 (0.01 softirqs/tick: a % of it is noise)
  -h, --help          this help
Arguments after -- go to every program (e.g. -- --load).
USAGE
}

die() {
	echo "run.sh: $*" >&2
	exit "$DIE_CODE"
}

# known_test NAME: NAME is a test of the table (a plain name, never a
# pattern: it is compared, not expanded)
known_test() {
	local t
	for t in "${ALL_TESTS[@]}"; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}

# test_command NAME: the program and its fixed arguments into CMD[]
test_command() {
	read -ra CMD <<<"$(awk -v n="$1" '$1 == n { if (NF > 1) $1 = ""; print }' <<<"$TEST_TABLE")"
}

# test_built NAME: whether the test's program is built next to run.sh
# (its command is then in CMD[])
test_built() {
	test_command "$1"
	[ -x "$HERE/${CMD[0]}" ]
}

# need_value WHAT "$@": the option $1 has a non-empty value, which names
# WHAT
need_value() {
	[[ $# -ge 3 && -n $3 ]] || die "$2 needs $1"
}

parse_args() {
	local a
	for a in "$@"; do
		[ "$a" = -- ] && break
		[ "$a" = --bisect ] && DIE_CODE=255
	done
	while [ $# -gt 0 ]; do
		case "$1" in
		-t|--test)
			need_value "a test name" "$@"
			known_test "$2" || die "unknown test '$2' (known: ${ALL_TESTS[*]})"
			# twice would run it twice and, with --bisect, pool its
			# baseline twice
			for a in "${TESTS[@]}"; do
				[ "$a" != "$2" ] || die "$1 $2: given twice"
			done
			TESTS+=("$2"); shift 2 ;;
		--quick) QUICK=--quick; shift ;;
		-o|--output) need_value "a directory" "$@"; OUTDIR=$2; shift 2 ;;
		--timeout) [ $# -ge 2 ] || die "$1 needs seconds"; TIMEOUT=$2; TIMEOUT_GIVEN=1; shift 2 ;;
		-l|--list) LIST=1; shift ;;
		--bisect) BISECT=1; shift ;;
		--baseline)
			need_value "a result file or directory" "$@"
			BASELINE=$2; shift 2 ;;
		--metric) need_value "a metric name" "$@"; METRIC=$2; shift 2 ;;
		--threshold|--threshold-abs)
			[ $# -ge 2 ] || die "$1 needs a value"
			CMP_THRESHOLD+=("$1" "$2"); shift 2 ;;
		--kcidb) need_value "a file" "$@"; KCIDB=$2; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		--) shift; PROG_ARGS=("$@"); break ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
	done
}

check_timeout() {
	if [ -z "$TIMEOUT_GIVEN" ]; then
		TIMEOUT=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$HERE/settings" 2>/dev/null)
		TIMEOUT=${TIMEOUT:-300}
	fi
	# timeout(1) reads 0 (and so 00) as "no limit": 1 s to a week, digits only
	case "$TIMEOUT" in
	''|*[!0-9]*|0*) die "--timeout: '$TIMEOUT' is not a whole number of seconds from 1" ;;
	esac
	[[ ${#TIMEOUT} -le 6 && $TIMEOUT -le 604800 ]] ||
		die "--timeout: '$TIMEOUT' is more than a week (604800 s)"
}

# baseline_info FILE: what compare --args reads of a result: its test
# into BINFO_TEST, its exit status into BINFO_EXIT, the arguments it ran
# with into BINFO_ARGS[]. A file compare cannot read is bad (255), and so
# is a test name that is not a plain name of one line: one of several
# lines would pass its other lines off as arguments.
baseline_info() {
	local out line n=0
	out=$("$HERE/compare" --args "$1" 2>&1) || die "--baseline $1: ${out#compare: }"
	BINFO_TEST="" BINFO_EXIT="" BINFO_ARGS=()
	while IFS= read -r line; do
		n=$((n + 1))
		case $n:$line in
		"1:test "*) BINFO_TEST=${line#test } ;;
		"2:exit "*) BINFO_EXIT=${line#exit } ;;
		1:*|2:*) die "--baseline $1: its test name is not a name of one line" ;;
		*:"arg "*) BINFO_ARGS+=("${line#arg }") ;;
		*) die "--baseline $1: its test name is not a name of one line" ;;
		esac
	done <<<"$out"
}

# baseline_file TEST: the baseline's result of TEST
baseline_file() {
	if [ -d "$BASELINE" ]; then echo "$BASELINE/$1.json"; else echo "$BASELINE"; fi
}

# baseline_args TEST: the arguments the baseline's run of TEST was made
# with, less the table's own arguments of TEST, into BARGS[]
baseline_args() {
	local fixed
	baseline_info "$(baseline_file "$1")"
	BARGS=("${BINFO_ARGS[@]}")
	test_command "$1"
	fixed=("${CMD[@]:1}")
	if [ "${BARGS[*]:0:${#fixed[@]}}" = "${fixed[*]}" ]; then
		BARGS=("${BARGS[@]:${#fixed[@]}}")
	fi
}

# baseline_files: the baseline's results of the tests that run, into BFILES[]
baseline_files() {
	local t
	BFILES=()
	for t in "${TESTS[@]}"; do BFILES+=("$(baseline_file "$t")"); done
}

# bisect_compare [COMPARE ARGS] -- NEW...: compare --bisect of the
# baseline's results of the tests that run (one kernel, "good") against
# NEW (one kernel, "new": a directory, or a file per test)
bisect_compare() {
	local names="" args=() labels=() metric=() f
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	baseline_files
	for f in "${BFILES[@]}"; do names="${names}good,"; done
	for f in "$@"; do names="${names}new,"; done
	[ -z "$METRIC" ] || metric=(--metric "$METRIC")
	# names for KCIDB records, one for the files of several tests of a
	# kernel; else none (compare refuses --labels that do nothing)
	if [[ " ${args[*]} " == *" --kcidb "* ]] || [ $((${#BFILES[@]} + $#)) -gt 2 ]; then
		labels=(--labels "${names%,}")
	fi
	"$HERE/compare" --bisect "${CMP_THRESHOLD[@]}" "${metric[@]}" "${args[@]}" \
		"${labels[@]}" "${BFILES[@]}" "$@"
}

# baseline_tests: without -t, the tests the baseline has results of (the
# test each names), but those it skipped: there is nothing to judge them
# against. A directory with two results of one test is refused, as
# compare refuses it: which one would be the baseline?
baseline_tests() {
	local f t skipped="" first=()
	for f in "$BASELINE" "$BASELINE"/*.json; do
		[ -f "$f" ] || continue
		baseline_info "$f"
		if ! known_test "$BINFO_TEST"; then
			[ -d "$BASELINE" ] && continue
			die "--baseline $BASELINE is a result of '$BINFO_TEST', not a test of this suite (known: ${ALL_TESTS[*]})"
		fi
		for t in "${!first[@]}"; do
			[ "${first[t]%% *}" != "$BINFO_TEST" ] ||
				die "--baseline $BASELINE: two results of $BINFO_TEST (${first[t]#* } and $f)"
		done
		first+=("$BINFO_TEST $f")
		if [ "$BINFO_EXIT" = 4 ]; then
			echo "# run.sh: $BINFO_TEST: skipped in the baseline, not judged"
			skipped="$skipped $BINFO_TEST"
			continue
		fi
		TESTS+=("$BINFO_TEST")
	done
	[ ${#TESTS[@]} -gt 0 ] || [ -z "$skipped" ] ||
		die "--baseline $BASELINE: the baseline skipped$skipped: nothing to judge against"
	[ ${#TESTS[@]} -gt 0 ] || die "--baseline $BASELINE: no result of a known test in it (give -t NAME)"
}

# check_bisect: the baseline, the metric and the threshold, before
# anything runs
check_bisect() {
	local t check
	[ -n "$BASELINE" ] || die "--bisect needs --baseline GOOD (a result file or directory)"
	[ -r "$BASELINE" ] || die "--baseline $BASELINE: not readable"
	# a FIFO would block every reader: only a file or a directory
	[ -f "$BASELINE" ] || [ -d "$BASELINE" ] ||
		die "--baseline $BASELINE: not a regular file or a directory"
	[ -x "$HERE/compare" ] || die "compare is not built in $HERE (run make)"
	[ ${#TESTS[@]} -gt 0 ] || baseline_tests
	[ -d "$BASELINE" ] || [ ${#TESTS[@]} -eq 1 ] ||
		die "--baseline $BASELINE is one result file: give a directory (run.sh -o) for several tests"
	for t in "${TESTS[@]}"; do
		[ -f "$(baseline_file "$t")" ] || die "--baseline $BASELINE has no result of $t ($t.json)"
		baseline_info "$(baseline_file "$t")"
		[ "$BINFO_TEST" = "$t" ] ||
			die "--baseline $(baseline_file "$t") is a result of $BINFO_TEST, not of $t"
	done
	[ -z "$LIST" ] || die "--list and --bisect do not go together"
	# the baseline, the metric and the threshold are checked by compare
	# (one number syntax for all) before anything runs; a baseline that
	# cannot be judged even against itself (interrupted, skipped) would
	# make every step undecided; each test's result judged against itself
	baseline_files
	check=$(bisect_compare -- "${BFILES[@]}")
	case $? in
	0|1) ;;
	125) check=$(grep -v '^bisect: verdict' <<<"$check" | grep -A1 -m1 ': undecided$' |
		sed 's/^bisect: *//' | tr '\n' ' ')
	     die "--baseline $BASELINE cannot be judged even against itself: ${check% }" ;;
	*) exit 255 ;;
	esac
}

# abs_path PATH: PATH from /, its existing part with symbolic links
# resolved (the rest need not exist yet)
abs_path() {
	local p=$1 rest=""
	while [ ! -d "$p" ]; do
		rest=/${p##*/}$rest
		p=$(dirname -- "$p")
	done
	echo "$(cd -P -- "$p" && pwd)$rest"
}

# paths_overlap A B: A and B are one file or directory, or one is
# inside the other
paths_overlap() {
	local a b
	[ "$1" -ef "$2" ] && return 0
	a=$(abs_path "$1") b=$(abs_path "$2")
	[ "$a" = "$b" ] || [ "${a#"${b%/}"/}" != "$a" ] || [ "${b#"${a%/}"/}" != "$b" ]
}

check_kcidb() {
	local kdir
	[ -x "$HERE/compare" ] ||
		die "--kcidb needs compare, which is not built in $HERE (run make)"
	# checked now, not after every test ran
	kdir=$(dirname -- "$KCIDB")
	[ -d "$kdir" ] || die "--kcidb $KCIDB: no directory $kdir"
	[ -w "$kdir" ] || die "--kcidb $KCIDB: $kdir is not writable"
	[ ! -e "$KCIDB" ] || [ -f "$KCIDB" ] ||
		die "--kcidb $KCIDB: exists and is not a regular file"
}

# check_outputs: no output of the run (-o DIR's files, --kcidb FILE) is
# one of its inputs (the baseline) or another of its outputs
check_outputs() {
	local t
	if [ -n "$BASELINE" ] && [ -n "$OUTDIR" ] && paths_overlap "$OUTDIR" "$BASELINE"; then
		die "-o $OUTDIR and --baseline $BASELINE overlap (one directory, or one inside the other): the run would write over the baseline"
	fi
	[ -n "$KCIDB" ] || return 0
	if [ -n "$BASELINE" ] && paths_overlap "$KCIDB" "$BASELINE"; then
		die "--kcidb $KCIDB is the baseline or inside it: the records would write over the baseline"
	fi
	[ -n "$OUTDIR" ] || return 0
	for t in "${TESTS[@]}"; do
		if paths_overlap "$KCIDB" "$OUTDIR/$t.json" || paths_overlap "$KCIDB" "$OUTDIR/$t.ktap"; then
			die "--kcidb $KCIDB is where -o $OUTDIR keeps a result of $t"
		fi
	done
}

# select_tests: the tests given (each built), or every built one
select_tests() {
	local t
	if [ ${#TESTS[@]} -eq 0 ]; then
		for t in "${ALL_TESTS[@]}"; do
			test_built "$t" && TESTS+=("$t")
		done
		[ ${#TESTS[@]} -gt 0 ] || die "no test is built in $HERE (run make)"
		return 0
	fi
	for t in "${TESTS[@]}"; do
		test_built "$t" && continue
		# a test that did not build: this commit cannot be judged
		if [ -n "$BISECT" ]; then
			echo "run.sh: test '$t' is not built: cannot decide (exit 125)" >&2
			exit 125
		fi
		die "test '$t' is not built (run make)"
	done
}

check_args() {
	check_timeout
	if [ -n "$BISECT" ]; then
		check_bisect
	elif [ -n "$METRIC" ] || [ -n "$BASELINE" ] || [ ${#CMP_THRESHOLD[@]} -gt 0 ]; then
		die "--metric, --baseline, --threshold and --threshold-abs belong to --bisect"
	fi
	[ -z "$KCIDB" ] || check_kcidb
	select_tests
	check_outputs
}

# prog_options PROGRAM [ARGS]: the options PROGRAM takes with ARGS (a
# mode: ipistorm --mode watch takes no -n), "--NAME -K ARG" per line
prog_options() {
	"$HERE/$1" "${@:2}" --list-options 2>/dev/null
}

# option_arity OPTIONS FIELD NAME: the ARG column of NAME's line in
# OPTIONS ("--NAME -K ARG" lines) looked up by FIELD (1 long, 2 short,
# 0 either); nothing when OPTIONS do not list NAME
option_arity() {
	awk -v f="$2" -v n="$3" '(f ? $f == n : ($1 == n || $2 == n)) { print $3; exit }' <<<"$1"
}

# split_args MINE ALL: sort the arguments after -- by the options MINE
# and ALL list ("--NAME -K ARG" lines): TOOK[] those MINE lists (with
# their values), DROPPED[] those only ALL lists, PASS[] what MINE lists
# and what neither knows (passed on, so that the program reports it),
# each in the order given.
split_args() {
	local mine=$1 all=$2 a name i=0 n=${#PROG_ARGS[@]} arity
	TOOK=() PASS=() DROPPED=()
	while ((i < n)); do
		a=${PROG_ARGS[$i]}
		case "$a" in
		--?*=*) name=${a%%=*}
			if [ -n "$(option_arity "$mine" 1 "$name")" ]; then
				TOOK+=("$a"); PASS+=("$a")
			elif [ -n "$(option_arity "$all" 1 "$name")" ]; then
				DROPPED+=("$a")
			else
				PASS+=("$a")
			fi
			i=$((i + 1)); continue ;;
		--?*) name=$a; arity=$(option_arity "$mine" 1 "$name") ;;
		-?*) name=${a:0:2}; arity=$(option_arity "$mine" 2 "$name")
			# -c1: the value is in the same word
			[ ${#a} -gt 2 ] && [ "$arity" = 1 ] && arity=0 ;;
		*) PASS+=("$a"); i=$((i + 1)); continue ;;
		esac
		if [ -n "$arity" ]; then
			TOOK+=("$a"); PASS+=("$a")
			if [ "$arity" = 1 ] && ((i + 1 < n)); then
				i=$((i + 1))
				TOOK+=("${PROG_ARGS[$i]}"); PASS+=("${PROG_ARGS[$i]}")
			fi
		else
			arity=$(option_arity "$all" 0 "$name")
			if [ -z "$arity" ]; then
				PASS+=("$a")
			else
				DROPPED+=("$a")
				if [ "$arity" = 1 ] && ((${#a} <= ${#name} && i + 1 < n)); then
					i=$((i + 1))
					DROPPED+=("${PROG_ARGS[$i]}")
				fi
			fi
		fi
		i=$((i + 1))
	done
}

# takes_options PROGRAM [ARGS]: the options PROGRAM with ARGS takes,
# asked once alone and once more with the arguments after -- that it
# takes: an option that needs another one the user gave too
# (getpid_bench --hist-max with --distribution) is taken then.
takes_options() {
	local mine more
	mine=$(prog_options "$@")
	split_args "$mine" ""
	case " ${TOOK[*]} " in
	*" --help "*|*" -h "*|*" --version "*|*" --list-options "*) ;;
	"  ") ;;
	*) more=$(prog_options "$@" "${TOOK[@]}")
	   mine=$(printf '%s\n%s\n' "$mine" "$more" | awk 'NF && !seen[$0]++') ;;
	esac
	echo "$mine"
}

# all_options: the options any built program of the suite takes, for
# split_args to tell an option of another program from an unknown one
all_options() {
	local t
	[ ${#PROG_ARGS[@]} -gt 0 ] || return 0
	for t in "${ALL_TESTS[@]}"; do
		test_built "$t" || continue
		takes_options "${CMD[@]}"
	done
}

# signame N: "SIGKILL" for 9
signame() {
	local s
	if s=$(kill -l "$1" 2>/dev/null); then echo "SIG$s"; else echo "signal $1"; fi
}

# shellcheck disable=SC2317  # runs from a trap
on_signal() {
	INTERRUPTED=1
	[ -z "$CHILD" ] || kill -TERM "$CHILD" 2>/dev/null
}

# shellcheck disable=SC2317  # runs from a trap
cleanup() {
	[ -z "$WORK" ] || rm -rf -- "$WORK"
}

# reap_stale_work: the work directories of runs whose run.sh is gone
# (killed with SIGKILL, which no trap sees)
reap_stale_work() {
	local d pid
	for d in "$WORK_PREFIX"*; do
		[[ -d $d && -O $d ]] || continue
		pid=${d#"$WORK_PREFIX"}
		pid=${pid%%.*}
		case $pid in ''|*[!0-9]*) continue ;; esac
		kill -0 "$pid" 2>/dev/null || rm -rf -- "$d"
	done
}

# prefix_lines: stdin to stdout with "# " before each line. It outlives
# a signal to the whole process group (Ctrl-C, timeout(1) around
# run.sh): the test it reads is told to stop and reports, and its last
# lines and its result must not die of a closed pipe.
prefix_lines() {
	(trap '' INT TERM HUP; exec sed -u 's/^/# /')
}


# run_test N TEST: run one test, print its result line; FAILED and
# UNDECIDED say how it went
run_test() {
	local n=$1 t=$2 fifo=$WORK/fifo args=() reader rc started elapsed timedout=""
	[ -n "$RESDIR" ] && args+=(-o "$RESDIR/$t.json")
	echo "# timeout set to $TIMEOUT"
	echo "# selftests: isolbench: $t"
	# timeout sends SIGTERM first: the program reports what it measured
	# so far and cleans up; SIGKILL follows 10 s later if it does not end.
	# Its output streams through a fifo, prefixed like kselftest's runner.
	rm -f "$fifo"
	mkfifo "$fifo" || die "cannot create a fifo in $WORK"
	(trap '' INT TERM HUP; exec tee "$WORK/$t.log" <"$fifo") | prefix_lines &
	reader=$!
	test_args "$t"
	started=$SECONDS
	# in a process group of its own (set -m), so that what the test
	# leaves running, holding its output open, ends with it
	set -m
	"${PDEATHSIG[@]}" timeout --foreground -k 10 "$TIMEOUT" "$HERE/${CMD[0]}" "${CMD[@]:1}" \
		"${args[@]}" "${PASS[@]}" >"$fifo" 2>&1 &
	CHILD=$!
	set +m
	while :; do
		# 2>/dev/null: bash's own "Killed" line for the job is no KTAP;
		# the status line below says how the test ended
		wait "$CHILD" 2>/dev/null
		rc=$?
		# a trapped signal interrupts wait: wait again for the real status
		kill -0 "$CHILD" 2>/dev/null || break
	done
	kill -KILL -- -"$CHILD" 2>/dev/null
	CHILD=""
	wait "$reader"
	[ -n "$OUTDIR" ] && cp "$WORK/$t.log" "$OUTDIR/$t.ktap"
	if [ "$RESDIR" != "$OUTDIR" ] && [ -n "$OUTDIR" ] && [ -f "$RESDIR/$t.json" ]; then
		cp "$RESDIR/$t.json" "$OUTDIR/$t.json"
	fi
	# 124: timeout(1) ended it; 137: killed, by timeout's -k (after the
	# limit) or by someone else (before it); above 128: a signal
	elapsed=$((SECONDS - started))
	if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $elapsed -ge "$TIMEOUT" ]; }; then
		timedout=1
	fi
	# --bisect: a test that skipped, crashed, was killed or timed out,
	# or left no result, cannot be judged: its result (if any) is set
	# aside and the step is undecided (125), never an abort (255)
	if [ -n "$BISECT" ] && { [ $rc -eq 4 ] || [ -n "$timedout" ] || [ $rc -gt 128 ] ||
				 [ ! -s "$RESDIR/$t.json" ]; }; then
		UNDECIDED="$UNDECIDED $t"
		[ $rc -eq 4 ] || rm -f "$RESDIR/$t.json"
	fi
	if [ -n "$timedout" ]; then
		echo "not ok $n selftests: isolbench: $t # TIMEOUT $TIMEOUT seconds"
		FAILED=1
	elif [ $rc -eq 0 ]; then
		echo "ok $n selftests: isolbench: $t"
	elif [ $rc -eq 4 ]; then
		echo "ok $n selftests: isolbench: $t # SKIP"
	elif [ $rc -gt 128 ]; then
		echo "# $t: ended by $(signame $((rc - 128))) after $elapsed s"
		echo "not ok $n selftests: isolbench: $t # exit=$rc"
		FAILED=1
	else
		echo "not ok $n selftests: isolbench: $t # exit=$rc"
		FAILED=1
	fi
}

# test_args TEST: CMD[] and the arguments after -- for TEST into PASS[],
# each choice said in the stream
test_args() {
	local t=$1
	test_command "$t"
	split_args "$(takes_options "${CMD[@]}")" "$ALL_OPTIONS"
	[ ${#DROPPED[@]} -eq 0 ] ||
		echo "# run.sh: $t does not take ${DROPPED[*]}: not passed to it"
	# --bisect: the step runs the test as its baseline ran, unless told
	if [ -n "$BISECT" ]; then
		baseline_args "$t"
		test_command "$t"
		if [ ${#PROG_ARGS[@]} -eq 0 ]; then
			PASS=("${BARGS[@]}")
			[ ${#PASS[@]} -eq 0 ] ||
				echo "# run.sh: $t runs with its baseline's arguments: ${PASS[*]}"
		fi
	fi
	# --quick once, also when the baseline's arguments have it
	if [ -n "$QUICK" ] && ! printf '%s\n' "${PASS[@]}" | grep -qx -- --quick; then
		PASS=(--quick "${PASS[@]}")
	fi
	if [ -n "$BISECT" ] && [ "${PASS[*]}" != "${BARGS[*]}" ]; then
		echo "# run.sh: $t runs with '${PASS[*]}', its baseline ran with '${BARGS[*]}'"
	fi
}

# export_kcidb: --kcidb without --bisect: every result as KCIDB records
export_kcidb() {
	if compgen -G "$RESDIR/*.json" >/dev/null; then
		"$HERE/compare" --kcidb "$KCIDB" "$RESDIR" >/dev/null || FAILED=1
	else
		echo "run.sh: --kcidb: no result was written" >&2
		FAILED=1
	fi
}

# judge: --bisect: judge what was measured; map everything to 0, 1,
# 125, 255.
judge() {
	local verdict=0 crc kcidb=()
	if [ -n "$UNDECIDED" ]; then
		echo "# bisect: no usable result of:$UNDECIDED (skipped, crashed or timed out)"
		verdict=125
	fi
	[ -z "$KCIDB" ] || kcidb=(--kcidb "$KCIDB")
	if compgen -G "$RESDIR/*.json" >/dev/null; then
		bisect_compare "${kcidb[@]}" -- "$RESDIR" | prefix_lines
		crc=${PIPESTATUS[0]}
		case $crc in
		0) ;;
		1) verdict=1 ;;
		125) [ $verdict -eq 1 ] || verdict=125 ;;
		*) echo "run.sh: compare failed (exit $crc): cannot judge, aborting the bisect" >&2
		   exit 255 ;;
		esac
	fi
	case $verdict in
	0) echo "# bisect: good" ;;
	1) echo "# bisect: bad" ;;
	*) echo "# bisect: cannot decide, skip this commit" ;;
	esac
	exit $verdict
}

main() {
	local t n=0 err
	parse_args "$@"
	check_args
	if [ -n "$LIST" ]; then
		printf '%s\n' "${TESTS[@]}"
		exit 0
	fi
	if [ -n "$OUTDIR" ]; then
		err=$(mkdir -p -- "$OUTDIR" 2>&1) || die "-o $OUTDIR: cannot create it: ${err##*: }"
		[ -w "$OUTDIR" ] || die "$OUTDIR is not writable"
	fi
	ALL_OPTIONS=$(all_options)
	# setpriv (util-linux, not busybox's) ties each test to run.sh's
	# life: killed with SIGKILL, run.sh takes its test with it
	PDEATHSIG=()
	if setpriv --pdeathsig TERM true 2>/dev/null; then
		PDEATHSIG=(setpriv --pdeathsig TERM)
	fi

	trap on_signal INT TERM HUP
	trap cleanup EXIT
	reap_stale_work
	WORK=$(mktemp -d "$WORK_PREFIX$$.XXXXXX") || die "cannot create a temporary directory"
	# --bisect and --kcidb need the JSON results: a fresh directory of our own
	RESDIR=$OUTDIR
	if [ -n "$BISECT" ] || [ -n "$KCIDB" ]; then
		RESDIR=$WORK/results
		mkdir "$RESDIR" || die "cannot create a temporary directory"
	fi

	echo "TAP version 13"
	echo "1..${#TESTS[@]}"
	FAILED=0 UNDECIDED=""
	for t in "${TESTS[@]}"; do
		n=$((n + 1))
		run_test "$n" "$t"
		[ -n "$INTERRUPTED" ] && break
	done
	if [ -n "$INTERRUPTED" ]; then
		echo "# interrupted: the remaining tests did not run"
		[ -n "$BISECT" ] && exit 255
		exit 1
	fi
	[ -z "$KCIDB" ] || [ -n "$BISECT" ] || export_kcidb
	[ -n "$BISECT" ] || exit "$FAILED"
	judge
}

main "$@"
