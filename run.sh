#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the isolbench programs and print one stream in the kselftest
# runner's shape: TAP version 13, a plan, each program's KTAP prefixed
# with "# ", then "ok N selftests: isolbench: NAME" (SKIP for exit 4,
# "not ok ... # TIMEOUT" when the per-test timeout hits). Exits non-zero
# when any test failed.

set -u

# The suite's programs, in run order. A new program adds one line here.
ALL_TESTS="
getpid_bench
cid_scan
"

usage() {
	cat <<USAGE
Usage: $0 [-t NAME]... [--quick] [-o DIR] [--timeout SECS] [-l] [-- PROGRAM ARGS]
Run the isolbench programs (default: all that are built) and print KTAP.

  -t, --test NAME     run only NAME (repeatable)
      --quick         short smoke run of each program
  -o, --output DIR    keep each program's KTAP (NAME.ktap) and JSON (NAME.json) in DIR
      --timeout SECS  per-test timeout (default: the settings file, else 300)
  -l, --list          list the tests that would run
  -h, --help          this help
Arguments after -- go to every program (e.g. -- --load).
USAGE
}

die() {
	echo "run.sh: $*" >&2
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
tests=""
quick=""
outdir=""
timeout=""
list=""
prog_args=()

while [ $# -gt 0 ]; do
	case "$1" in
	-t|--test)
		[ $# -ge 2 ] || die "$1 needs a test name"
		tests="$tests $2"; shift 2 ;;
	--quick) quick=--quick; shift ;;
	-o|--output)
		[ $# -ge 2 ] || die "$1 needs a directory"
		outdir=$2; shift 2 ;;
	--timeout)
		[ $# -ge 2 ] || die "$1 needs seconds"
		timeout=$2; shift 2 ;;
	-l|--list) list=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; prog_args=("$@"); break ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

if [ -z "$timeout" ]; then
	timeout=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$here/settings" 2>/dev/null)
	timeout=${timeout:-300}
fi
case "$timeout" in
''|*[!0-9]*|0) die "--timeout: '$timeout' is not a whole number of seconds > 0" ;;
esac

if [ -n "$tests" ]; then
	for t in $tests; do
		case " $(echo $ALL_TESTS) " in
		*" $t "*) ;;
		*) die "unknown test '$t' (known: $(echo $ALL_TESTS))" ;;
		esac
		[ -x "$here/$t" ] || die "test '$t' is not built (run make)"
	done
else
	for t in $ALL_TESTS; do
		[ -x "$here/$t" ] && tests="$tests $t"
	done
	[ -n "$tests" ] || die "no test is built in $here (run make)"
fi

if [ -n "$list" ]; then
	for t in $tests; do echo "$t"; done
	exit 0
fi

if [ -n "$outdir" ]; then
	mkdir -p "$outdir" || die "cannot create $outdir"
	[ -w "$outdir" ] || die "$outdir is not writable"
fi

child=""
interrupted=""
on_signal() {
	interrupted=1
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap on_signal INT TERM HUP

set -- $tests
echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for t in $tests; do
	n=$((n + 1))
	args=($quick)
	[ -n "$outdir" ] && args+=(-o "$outdir/$t.json")
	echo "# timeout set to $timeout"
	echo "# selftests: isolbench: $t"
	log=$(mktemp)
	# timeout sends SIGTERM first: the program reports what it measured
	# so far and cleans up; SIGKILL follows 10 s later if it does not end.
	timeout -k 10 "$timeout" "$here/$t" "${args[@]}" "${prog_args[@]}" >"$log" 2>&1 &
	child=$!
	# stream the output as it comes, prefixed like kselftest's runner
	tail -n +1 -f --pid=$child "$log" 2>/dev/null | sed -u 's/^/# /'
	wait $child
	rc=$?
	child=""
	[ -n "$outdir" ] && cp "$log" "$outdir/$t.ktap"
	rm -f "$log"
	case $rc in
	0) echo "ok $n selftests: isolbench: $t" ;;
	4) echo "ok $n selftests: isolbench: $t # SKIP" ;;
	124|137) echo "not ok $n selftests: isolbench: $t # TIMEOUT $timeout seconds"
	     failed=1 ;;
	*) echo "not ok $n selftests: isolbench: $t # exit=$rc"
	   failed=1 ;;
	esac
	[ -n "$interrupted" ] && break
done
if [ -n "$interrupted" ]; then
	echo "# interrupted: the remaining tests did not run"
	exit 1
fi
exit $failed
