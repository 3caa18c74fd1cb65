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

set -u

# The suite's tests in run order, one per line: NAME [PROGRAM ARGS...]
# (PROGRAM defaults to NAME). A new program adds one line here.
TEST_TABLE="
getpid_bench
timer_softirq
ipistorm
ipistorm_watch ipistorm --mode watch
ipistorm_kmod ipistorm --mode kmod
cid_scan
"
ALL_TESTS=$(echo "$TEST_TABLE" | awk 'NF { print $1 }')

# test_command NAME: the program and its fixed arguments
test_command() {
	echo "$TEST_TABLE" | awk -v n="$1" '$1 == n { if (NF > 1) $1 = ""; print }'
}

# test_built NAME: whether the test's program is built next to run.sh
test_built() {
	local cmd
	cmd=$(test_command "$1")
	set -- $cmd
	[ -x "$here/$1" ]
}

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

die_code=1
for a in "$@"; do
	[ "$a" = -- ] && break
	[ "$a" = --bisect ] && die_code=255
done

die() {
	echo "run.sh: $*" >&2
	exit $die_code
}

here=$(cd "$(dirname "$0")" && pwd)
tests=""
quick=""
outdir=""
timeout=""
timeout_given=""
list=""
prog_args=()
bisect=""
baseline=""
metric=""
cmp_threshold=()	# --threshold PCT or --threshold-abs V, as compare takes it
kcidb=""

while [ $# -gt 0 ]; do
	case "$1" in
	-t|--test)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a test name"
		# checked here, before an unquoted expansion could glob it
		case " $(echo $ALL_TESTS) " in
		*" $2 "*) ;;
		*) die "unknown test '$2' (known: $(echo $ALL_TESTS))" ;;
		esac
		tests="$tests $2"; shift 2 ;;
	--quick) quick=--quick; shift ;;
	-o|--output)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a directory"
		outdir=$2; shift 2 ;;
	--timeout)
		[ $# -ge 2 ] || die "$1 needs seconds"
		timeout=$2; timeout_given=1; shift 2 ;;
	-l|--list) list=1; shift ;;
	--bisect) bisect=1; shift ;;
	--baseline)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a result file or directory"
		baseline=$2; shift 2 ;;
	--metric)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a metric name"
		metric=$2; shift 2 ;;
	--threshold|--threshold-abs)
		[ $# -ge 2 ] || die "$1 needs a value"
		cmp_threshold+=("$1" "$2"); shift 2 ;;
	--kcidb)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a file"
		kcidb=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; prog_args=("$@"); break ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

if [ -z "$timeout_given" ]; then
	timeout=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$here/settings" 2>/dev/null)
	timeout=${timeout:-300}
fi
# timeout(1) reads 0 (and so 00) as "no limit": 1 s to a week, digits only
case "$timeout" in
''|*[!0-9]*|0*) die "--timeout: '$timeout' is not a whole number of seconds from 1" ;;
esac
[ ${#timeout} -le 6 ] && [ "$timeout" -le 604800 ] ||
	die "--timeout: '$timeout' is more than a week (604800 s)"

# baseline_info FILE: "test NAME", "exit STATUS", "arg ARG"... of a
# result (compare --args); a file compare cannot read is bad (255)
baseline_info() {
	local out
	out=$("$here/compare" --args "$1" 2>&1) ||
		die "--baseline $1: ${out#compare: }"
	echo "$out"
}

# baseline_file TEST: the baseline's result of TEST
baseline_file() {
	if [ -d "$baseline" ]; then echo "$baseline/$1.json"; else echo "$baseline"; fi
}

# baseline_args TEST: the arguments the baseline's run of TEST was made
# with, less the table's own arguments of TEST, into bargs[]
baseline_args() {
	local fixed cmd
	mapfile -t bargs < <(baseline_info "$(baseline_file "$1")" | sed -n 's/^arg //p')
	cmd=($(test_command "$1"))
	fixed=("${cmd[@]:1}")
	[ "${bargs[*]:0:${#fixed[@]}}" = "${fixed[*]}" ] && bargs=("${bargs[@]:${#fixed[@]}}")
	return 0
}

# bisect_compare NEW [COMPARE ARGS]: compare --bisect of the baseline's
# results of the tests that run (one kernel, "good") against NEW
bisect_compare() {
	local labels="" files=() t new=$1
	shift
	for t in $tests; do
		files+=("$(baseline_file "$t")")
		labels="${labels}good,"
	done
	# names for KCIDB records, one for the baseline's files of several
	# tests; else none (compare refuses --labels that do nothing)
	case " $* " in
	*" --kcidb "*) ;;
	*) [ ${#files[@]} -gt 1 ] || labels="" ;;
	esac
	"$here/compare" --bisect "${cmp_threshold[@]}" ${metric:+--metric "$metric"} "$@" \
		${labels:+--labels "${labels}new"} "${files[@]}" "$new"
}

if [ -n "$bisect" ]; then
	[ -n "$baseline" ] || die "--bisect needs --baseline GOOD (a result file or directory)"
	[ -r "$baseline" ] || die "--baseline $baseline: not readable"
	# a FIFO would block every reader: only a file or a directory
	[ -f "$baseline" ] || [ -d "$baseline" ] ||
		die "--baseline $baseline: not a regular file or a directory"
	[ -x "$here/compare" ] || die "compare is not built in $here (run make)"
	if [ -z "$tests" ]; then
		# the tests the baseline has results of (the test each names),
		# but those it skipped: there is nothing to judge them against
		for f in "$baseline" "$baseline"/*.json; do
			[ -f "$f" ] || continue
			info=$(baseline_info "$f") || exit 255
			b=$(echo "$info" | sed -n 's/^test //p')
			case " $(echo $ALL_TESTS) " in
			*" $b "*) ;;
			*) [ -d "$baseline" ] && continue
			   die "--baseline $baseline is a result of '$b', not a test of this suite (known: $(echo $ALL_TESTS))" ;;
			esac
			if echo "$info" | grep -qx 'exit 4'; then
				echo "# run.sh: $b: skipped in the baseline, not judged"
				continue
			fi
			tests="$tests $b"
		done
		[ -n "$tests" ] || die "--baseline $baseline: no result of a known test in it (give -t NAME)"
	fi
	set -- $tests
	[ -d "$baseline" ] || [ $# -eq 1 ] ||
		die "--baseline $baseline is one result file: give a directory (run.sh -o) for several tests"
	for t in $tests; do
		[ -f "$(baseline_file "$t")" ] || die "--baseline $baseline has no result of $t ($t.json)"
		[ -d "$baseline" ] || [ "$(baseline_info "$baseline" | sed -n 's/^test //p')" = "$t" ] ||
			die "--baseline $baseline is a result of $(baseline_info "$baseline" | sed -n 's/^test //p'), not of $t"
	done
	[ -z "$list" ] || die "--list and --bisect do not go together"
	# the baseline, the metric and the threshold are checked by compare
	# (one number syntax for all) before anything runs; a baseline that
	# cannot be judged even against itself (interrupted, skipped) would
	# make every step undecided
	check=$(bisect_compare "$(baseline_file "$1")")
	case $? in
	0|1) ;;
	125) die "--baseline $baseline cannot be judged even against itself: $(echo "$check" |
		grep -A1 -m1 ': undecided$' | sed 's/^bisect: *//' | tr '\n' ' ')" ;;
	*) exit 255 ;;
	esac
elif [ -n "$metric" ] || [ -n "$baseline" ] || [ ${#cmp_threshold[@]} -gt 0 ]; then
	die "--metric, --baseline, --threshold and --threshold-abs belong to --bisect"
fi
if [ -n "$kcidb" ]; then
	[ -x "$here/compare" ] ||
		die "--kcidb needs compare, which is not built in $here (run make)"
	# checked now, not after every test ran
	kdir=$(dirname -- "$kcidb")
	[ -d "$kdir" ] || die "--kcidb $kcidb: no directory $kdir"
	[ -w "$kdir" ] || die "--kcidb $kcidb: $kdir is not writable"
	[ ! -e "$kcidb" ] || [ -f "$kcidb" ] ||
		die "--kcidb $kcidb: exists and is not a regular file"
fi

if [ -n "$tests" ]; then
	for t in $tests; do
		case " $(echo $ALL_TESTS) " in
		*" $t "*) ;;
		*) die "unknown test '$t' (known: $(echo $ALL_TESTS))" ;;
		esac
		if ! test_built "$t"; then
			# a test that did not build: this commit cannot be judged
			if [ -n "$bisect" ]; then
				echo "run.sh: test '$t' is not built: cannot decide (exit 125)" >&2
				exit 125
			fi
			die "test '$t' is not built (run make)"
		fi
	done
else
	for t in $ALL_TESTS; do
		test_built "$t" && tests="$tests $t"
	done
	[ -n "$tests" ] || die "no test is built in $here (run make)"
fi

if [ -n "$list" ]; then
	for t in $tests; do echo "$t"; done
	exit 0
fi

if [ -n "$outdir" ]; then
	err=$(mkdir -p -- "$outdir" 2>&1) || die "-o $outdir: cannot create it: ${err##*: }"
	[ -w "$outdir" ] || die "$outdir is not writable"
fi
# --bisect and --kcidb need the JSON results: a fresh directory of our own
resdir=$outdir
tmpres=""
if [ -n "$bisect" ] || [ -n "$kcidb" ]; then
	tmpres=$(mktemp -d) || die "cannot create a temporary directory"
	resdir=$tmpres
fi

# prog_options PROGRAM [ARGS]: the options PROGRAM takes with ARGS (a
# mode: ipistorm --mode watch takes no -n), "--NAME -K ARG" per line
prog_options() {
	"$here/$1" "${@:2}" --list-options 2>/dev/null
}

# split_args MINE ALL: sort the arguments after -- by the options MINE
# and ALL list ("--NAME -K ARG" lines): took[] those MINE lists (with
# their values), dropped[] those only ALL lists, pass[] what MINE lists
# and what neither knows (passed on, so that the program reports it),
# each in the order given.
split_args() {
	local mine=$1 all=$2 a name i=0 n=${#prog_args[@]} arity
	took=()
	pass=()
	dropped=()
	while [ $i -lt $n ]; do
		a=${prog_args[$i]}
		arity=""
		case "$a" in
		--?*=*) name=${a%%=*}
			if echo "$mine" | grep -q -- "^$name "; then
				took+=("$a"); pass+=("$a")
			elif echo "$all" | grep -q -- "^$name "; then
				dropped+=("$a")
			else
				pass+=("$a")
			fi
			i=$((i + 1)); continue ;;
		--?*) name=$a
			arity=$(echo "$mine" | awk -v n="$name" '$1 == n { print $3; exit }') ;;
		-?*) name=${a:0:2}
			arity=$(echo "$mine" | awk -v k="$name" '$2 == k { print $3; exit }')
			# -c1: the value is in the same word
			[ ${#a} -gt 2 ] && [ "$arity" = 1 ] && arity=0 ;;
		*) pass+=("$a"); i=$((i + 1)); continue ;;
		esac
		if [ -n "$arity" ]; then
			took+=("$a"); pass+=("$a")
			if [ "$arity" = 1 ] && [ $((i + 1)) -lt $n ]; then
				i=$((i + 1))
				took+=("${prog_args[$i]}"); pass+=("${prog_args[$i]}")
			fi
			i=$((i + 1))
			continue
		fi
		arity=$(echo "$all" | awk -v n="$name" '$1 == n || $2 == n { print $3; exit }')
		if [ -z "$arity" ]; then
			pass+=("$a")
		else
			dropped+=("$a")
			[ "$arity" = 1 ] && [ ${#a} -le ${#name} ] && [ $((i + 1)) -lt $n ] &&
				dropped+=("${prog_args[$((i + 1))]}") && i=$((i + 1))
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
	case " ${took[*]} " in
	*" --help "*|*" -h "*|*" --version "*|*" --list-options "*) ;;
	"  ") ;;
	*) more=$(prog_options "$@" "${took[@]}")
	   mine=$(printf '%s\n%s\n' "$mine" "$more" | awk 'NF && !seen[$0]++') ;;
	esac
	echo "$mine"
}

# pass_args PROGRAM [ARGS]: set pass[] to the arguments after -- that
# PROGRAM with ARGS takes and dropped[] to those it does not take but
# another program of the suite does (with their values); anything no
# program knows is passed on, so that the program reports it.
pass_args() {
	split_args "$(takes_options "$@")" "$all_options"
}
all_options=""
if [ ${#prog_args[@]} -gt 0 ]; then
	for t in $ALL_TESTS; do
		test_built "$t" || continue
		cmd=($(test_command "$t"))
		all_options="$all_options
$(takes_options "${cmd[@]}")"
	done
fi

# signame N: "SIGKILL" for 9
signame() {
	local s
	s=$(kill -l "$1" 2>/dev/null) && echo "SIG$s" || echo "signal $1"
}

child=""
interrupted=""
on_signal() {
	interrupted=1
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap on_signal INT TERM HUP

work=$(mktemp -d) || die "cannot create a temporary directory"
fifo=$work/fifo
trap 'rm -rf "$work"' EXIT

set -- $tests
echo "TAP version 13"
echo "1..$#"
n=0
failed=0
undecided=""
for t in $tests; do
	n=$((n + 1))
	args=()
	[ -n "$resdir" ] && args+=(-o "$resdir/$t.json")
	echo "# timeout set to $timeout"
	echo "# selftests: isolbench: $t"
	# timeout sends SIGTERM first: the program reports what it measured
	# so far and cleans up; SIGKILL follows 10 s later if it does not end.
	# Its output streams through a fifo, prefixed like kselftest's runner.
	rm -f "$fifo"
	mkfifo "$fifo" || die "cannot create a fifo in $work"
	tee "$work/$t.log" <"$fifo" | sed -u 's/^/# /' &
	reader=$!
	cmd=($(test_command "$t"))
	pass_args "${cmd[@]}"
	[ ${#dropped[@]} -eq 0 ] ||
		echo "# run.sh: $t does not take ${dropped[*]}: not passed to it"
	# --bisect: the step runs the test as its baseline ran, unless told
	if [ -n "$bisect" ]; then
		baseline_args "$t"
		if [ ${#prog_args[@]} -eq 0 ]; then
			pass=("${bargs[@]}")
			[ ${#pass[@]} -eq 0 ] ||
				echo "# run.sh: $t runs with its baseline's arguments: ${pass[*]}"
		fi
	fi
	# --quick once, also when the baseline's arguments have it
	if [ -n "$quick" ] && ! printf '%s\n' "${pass[@]}" | grep -qx -- --quick; then
		pass=(--quick "${pass[@]}")
	fi
	if [ -n "$bisect" ] && [ "${pass[*]}" != "${bargs[*]}" ]; then
		echo "# run.sh: $t runs with '${pass[*]}', its baseline ran with '${bargs[*]}'"
	fi
	started=$SECONDS
	# in a process group of its own (set -m), so that what the test
	# leaves running, holding its output open, ends with it
	set -m
	timeout --foreground -k 10 "$timeout" "$here/${cmd[0]}" "${cmd[@]:1}" \
		"${args[@]}" "${pass[@]}" >"$fifo" 2>&1 &
	child=$!
	set +m
	while :; do
		wait $child
		rc=$?
		# a trapped signal interrupts wait: wait again for the real status
		kill -0 $child 2>/dev/null || break
	done
	kill -KILL -- -"$child" 2>/dev/null
	child=""
	wait $reader
	[ -n "$outdir" ] && cp "$work/$t.log" "$outdir/$t.ktap"
	if [ -n "$tmpres" ] && [ -n "$outdir" ] && [ -f "$resdir/$t.json" ]; then
		cp "$resdir/$t.json" "$outdir/$t.json"
	fi
	# 124: timeout(1) ended it; 137: killed, by timeout's -k (after the
	# limit) or by someone else (before it); above 128: a signal
	elapsed=$((SECONDS - started))
	timedout=""
	{ [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $elapsed -ge "$timeout" ]; }; } && timedout=1
	# --bisect: a test that skipped, crashed, was killed or timed out,
	# or left no result, cannot be judged: its result (if any) is set
	# aside and the step is undecided (125), never an abort (255)
	if [ -n "$bisect" ] && { [ $rc -eq 4 ] || [ -n "$timedout" ] || [ $rc -gt 128 ] ||
				 [ ! -s "$resdir/$t.json" ]; }; then
		undecided="$undecided $t"
		[ $rc -eq 4 ] || rm -f "$resdir/$t.json"
	fi
	if [ -n "$timedout" ]; then
		echo "not ok $n selftests: isolbench: $t # TIMEOUT $timeout seconds"
		failed=1
	elif [ $rc -eq 0 ]; then
		echo "ok $n selftests: isolbench: $t"
	elif [ $rc -eq 4 ]; then
		echo "ok $n selftests: isolbench: $t # SKIP"
	elif [ $rc -gt 128 ]; then
		echo "# $t: ended by $(signame $((rc - 128))) after $elapsed s"
		echo "not ok $n selftests: isolbench: $t # exit=$rc"
		failed=1
	else
		echo "not ok $n selftests: isolbench: $t # exit=$rc"
		failed=1
	fi
	[ -n "$interrupted" ] && break
done
if [ -n "$interrupted" ]; then
	echo "# interrupted: the remaining tests did not run"
	[ -n "$tmpres" ] && rm -rf "$tmpres"
	[ -n "$bisect" ] && exit 255
	exit 1
fi

if [ -n "$kcidb" ] && [ -z "$bisect" ]; then
	if ls "$resdir"/*.json >/dev/null 2>&1; then
		"$here/compare" --kcidb "$kcidb" "$resdir" >/dev/null ||
			failed=1
	else
		echo "run.sh: --kcidb: no result was written" >&2
		failed=1
	fi
fi

if [ -z "$bisect" ]; then
	[ -n "$tmpres" ] && rm -rf "$tmpres"
	exit $failed
fi

# --bisect: judge what was measured; map everything to 0, 1, 125, 255.
verdict=0
if [ -n "$undecided" ]; then
	echo "# bisect: no usable result of:$undecided (skipped, crashed or timed out)"
	verdict=125
fi
if ls "$resdir"/*.json >/dev/null 2>&1; then
	bisect_compare "$resdir" ${kcidb:+--kcidb "$kcidb"} | sed -u 's/^/# /'
	crc=${PIPESTATUS[0]}
	case $crc in
	0) ;;
	1) verdict=1 ;;
	125) [ $verdict -eq 1 ] || verdict=125 ;;
	*) echo "run.sh: compare failed (exit $crc): cannot judge, aborting the bisect" >&2
	   rm -rf "$tmpres"
	   exit 255 ;;
	esac
fi
rm -rf "$tmpres"
case $verdict in
0) echo "# bisect: good" ;;
1) echo "# bisect: bad" ;;
*) echo "# bisect: cannot decide, skip this commit" ;;
esac
exit $verdict
