# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the tests/*.t scripts, which prove runs as TAP.
# Programs under test come from $ISOLBENCH_BIN (make check points it at
# the ASan/UBSan build) or else the repository root.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${ISOLBENCH_BIN:-$TOP}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The per-CPU locks (lib/harness/cpulock.c) of these tests are their own: test
# runs of other checkouts on this machine neither block nor skip them.
export ISOLBENCH_LOCK_DIR=${ISOLBENCH_LOCK_DIR:-$TMP/locks}
mkdir -p "$ISOLBENCH_LOCK_DIR"
# Likewise their settings journals (lib/kernel/journal.c).
export ISOLBENCH_STATE_DIR=${ISOLBENCH_STATE_DIR:-$TMP/state}
# ASan's leak checker cannot run under ptrace-restricted containers; the
# address and UB checks stay on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=99}

_n=0
_failed=0

# needs CMD...: the whole file one SKIP unless every CMD is installed
needs() {
	local c absent=()
	for c in "$@"; do
		command -v "$c" >/dev/null || absent+=("$c")
	done
	[ ${#absent[@]} -eq 0 ] && return
	echo "1..0 # SKIP needs ${absent[*]} (scripts/install-deps.sh --vm --dev)"
	exit 0
}

plan() { echo "1..$1"; }

ok() {	# ok COND_EXIT_STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}

skip() {	# skip REASON DESCRIPTION
	_n=$((_n + 1))
	echo "ok $_n - $2 # SKIP $1"
}

diag() { echo "# $*"; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# run_prog NAME ARGS...: run a program, stdout to $TMP/out, stderr to
# $TMP/err, exit code in $RC.
run_prog() {
	local p=$1
	shift
	"$BIN/$p" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

# expect_usage_error DESC NAME ARGS...: exit 1, exactly one line on
# stderr, nothing that looks like a crash.
expect_usage_error() {
	local desc=$1
	shift
	run_prog "$@"
	local lines
	lines=$(wc -l <"$TMP/err")
	[ "$RC" -eq 1 ] && [ "$lines" -eq 1 ]
	ok $? "$desc: exit 1 with one line on stderr (rc=$RC, lines=$lines: $(head -c 200 "$TMP/err"))"
}

# expect_refused DESC MESSAGE NAME ARGS...: a usage error (exit 1, one
# line on stderr) whose line is exactly "NAME: MESSAGE".
expect_refused() {
	local desc=$1 msg=$2 err
	shift 2
	run_prog "$@"
	err=$(cat "$TMP/err")
	[ "$RC" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ "$err" = "$1: $msg" ]
	ok $? "$desc: '$1: $msg' (rc=$RC: $(head -c 200 "$TMP/err"))"
}

# expect CODE DESC PATTERN CMD...: a command (not a program of
# $BIN) exits CODE with one line on stderr matching PATTERN.
expect() {
	local want=$1 desc=$2 pat=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$? lines
	lines=$(wc -l <"$TMP/err")
	[ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -qE -- "$pat" "$TMP/err"
	ok $? "$desc: exit $want, one line (rc=$rc, lines=$lines: $(head -c 300 "$TMP/err"))"
}

# until_line PID FILE PATTERN: wait while PID runs and FILE has no line
# matching PATTERN (grep's basic regex): a part that starts when another
# one, in the background, has reached a point it writes to its log.
until_line() {
	while kill -0 "$1" 2>/dev/null && ! grep -q -- "$3" "$2" 2>/dev/null; do
		sleep 1
	done
}

# json_check FILE PYTHON_EXPR: evaluate an expression over the parsed
# JSON document `d`; passes when it is true.
json_check() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# ktap_valid FILE: the program's own KTAP parses: version line, a plan,
# and as many result lines as planned (or a 1..0 skip plan).
ktap_valid() {
	python3 - "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
if not lines or lines[0] != "KTAP version 1":
    sys.exit("no KTAP header")
plan = [l for l in lines if re.match(r"^1\.\.\d+", l)]
if len(plan) != 1:
    sys.exit("expected one plan line, got %d" % len(plan))
n = int(re.match(r"^1\.\.(\d+)", plan[0]).group(1))
res = [l for l in lines if re.match(r"^(not )?ok \d+ ", l)]
if n and len(res) != n:
    sys.exit("plan %d but %d results" % (n, len(res)))
for i, l in enumerate(res, 1):
    if int(re.match(r"^(?:not )?ok (\d+)", l).group(1)) != i:
        sys.exit("result %d out of order: %s" % (i, l))
bad = [l for l in lines if l and not re.match(r"^(KTAP version 1|1\.\.\d+.*|(not )?ok \d+.*|#.*|Bail out!.*)$", l)]
if bad:
    sys.exit("not KTAP: %r" % bad[0])
PY
}

done_testing() { exit $((_failed > 0)); }

# tree_check SCRIPT DESC: scripts/SCRIPT on the tree passes and prints
# nothing; what it prints is shown as # lines
tree_check() {
	local out rc
	out=$(python3 "$TOP/scripts/$1" 2>&1)
	rc=$?
	echo "$out" | sed '/^$/d; s/^/# /'
	[ $rc -eq 0 ] && [ -z "$out" ]; ok $? "$2 (rc=$rc)"
}

# tree_copy: the tree's C files and Makefile in $TMP/t, afresh (for a
# check shown failing on a copy changed in one way)
tree_copy() {
	rm -rf "$TMP/t" && mkdir -p "$TMP/t" &&
		(cd "$TOP" && git ls-files '*.c' '*.h' Makefile | tar -cf - -T -) | tar -xf - -C "$TMP/t"
}
