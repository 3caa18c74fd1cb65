#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/bisect-step.sh - one step of `git bisect run` inside a kernel git
# tree: build the checked-out commit (vm/run.sh --build, cached config,
# incremental), boot it, run the chosen test, and judge its result
# against a baseline with compare --bisect.  See docs/vm.md "Bisecting".
#
#   cd ~/linux
#   git checkout GOOD && /path/to/vm/bisect-step.sh --save-baseline /tmp/base \
#           -- -t timer_softirq -- --phase quiet --quick
#   git bisect start BAD GOOD
#   git bisect run /path/to/vm/bisect-step.sh --baseline /tmp/base \
#           --metric timer_softirq_raised_per_tick --threshold-abs 0.1 \
#           -- -t timer_softirq -- --phase quiet --quick
#
# Exit: 0 good, 1 bad, 125 cannot decide (the commit does not build, the
# guest crashed, the metric is too noisy or an emulated timing), 255 setup
# error (git bisect run stops).

set -uo pipefail

readonly PROG=vm/bisect-step.sh
# A setup error exits 255: git bisect run then stops.
readonly DIE_STATUS=255
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
readonly REPO_DIR=${VM_DIR%/*}

TREE=.
BASELINE=
SAVE_BASELINE=
OUT=
RUN_OPTS=()
CMP_OPTS=()
RUN_ARGS=()

usage() {
	cat <<EOF
Usage: $PROG (--baseline DIR | --save-baseline DIR) [options] [-- run.sh args...]

Build the kernel checked out in a git tree, boot it in qemu, run the
suite's test and judge it against a baseline; for git bisect run.

  --baseline DIR        judge against the results saved in DIR
  --save-baseline DIR   run the test and save its results as the baseline
                        in DIR: a new or empty directory, or a baseline
                        saved there before, which is replaced
  --tree DIR            the kernel git tree (default: the current directory)
  --out DIR             where each step's results go
                        (default vm/out/bisect/COMMIT): a new or empty
                        directory, or an earlier --out of this script,
                        which is cleared; never the baseline, inside it
                        or around it
  --metric NAME         compare --bisect: the metric to judge
  --threshold PCT       compare --bisect: how much worse is still good, in %
  --threshold-abs V     compare --bisect: the same in the metric's unit
  --emulated-timings    compare --bisect: judge timings measured under TCG
                        (these four are checked by compare against the
                        baseline before the build; not with --save-baseline)
  --config FRAG, --append ARGS, --cmdline ARGS, --cpus N, --max-cpus N,
  --mem MB, --timeout S, --accel MODE
                        passed to vm/run.sh
  -h, --help

Exit: 0 good, 1 bad, 125 skip this commit (it does not build, the guest
gave no result, or compare cannot decide), 255 setup error.
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--baseline)	need_arg "$@"; BASELINE=$2; shift ;;
	--save-baseline) need_arg "$@"; SAVE_BASELINE=$2; shift ;;
	--tree)		need_arg "$@"; TREE=$2; shift ;;
	--out)		need_arg "$@"; OUT=$2; shift ;;
	--metric|--threshold|--threshold-abs)
			need_arg "$@"; CMP_OPTS+=("$1" "$2"); shift ;;
	--emulated-timings) CMP_OPTS+=("$1") ;;
	--config|--append|--cmdline|--cpus|--max-cpus|--mem|--timeout|--accel)
			[[ $# -ge 2 ]] || die "option $1 needs a value"
			RUN_OPTS+=("$1" "$2"); shift ;;
	-h|--help)	usage; exit 0 ;;
	--)		shift; RUN_ARGS=("$@"); break ;;
	*)		die "unknown option '$1' (try --help)" ;;
	esac
	shift
done

# Every argument is checked before the build: one line, exit 255.
[[ -n $BASELINE || -n $SAVE_BASELINE ]] ||
	die "give --baseline DIR (or --save-baseline DIR to make one)"
[[ -z $BASELINE || -z $SAVE_BASELINE ]] ||
	die "give --baseline or --save-baseline, not both"
if [[ -n $SAVE_BASELINE ]] && ((${#CMP_OPTS[@]})); then
	die "--metric, --threshold, --threshold-abs and --emulated-timings judge against --baseline; --save-baseline takes none of them"
fi
if [[ -n $BASELINE ]]; then
	compgen -G "$BASELINE/*.json" >/dev/null ||
		die "baseline '$BASELINE' holds no result (*.json); make one with --save-baseline"
fi
check_machine_opts "${RUN_OPTS[@]}"
for ((i = 0; i < ${#RUN_OPTS[@]}; i += 2)); do
	[[ ${RUN_OPTS[i]} != --config ]] || check_file --config "${RUN_OPTS[i + 1]}"
done
check_run_args "${RUN_ARGS[@]}"

if [[ $TREE == . ]]; then
	what="the current directory $(pwd)"
else
	[[ -d $TREE ]] || die "--tree '$TREE': no such directory"
	what="--tree '$TREE'"
fi
top=$(git -C "$TREE" rev-parse --show-toplevel 2>/dev/null) ||
	die "$what is not in a git tree (run it from the kernel tree git bisect works in, or give --tree DIR)"
TREE=$top
COMMIT=$(git -C "$TREE" rev-parse --verify -q --short=12 HEAD) ||
	die "no commit checked out in $TREE"
check_kernel_source "$TREE"

# compare checks its own options (one number syntax for all) and the
# metric against the baseline, as run.sh --bisect does; a baseline that
# cannot be judged even against itself (interrupted, skipped) would make
# every step undecided after its build and boot
[[ -x $REPO_DIR/compare ]] || make -C "$REPO_DIR" compare >/dev/null 2>&1 ||
	die "cannot build $REPO_DIR/compare"
if [[ -n $BASELINE ]]; then
	msg=$("$REPO_DIR/compare" --bisect "${CMP_OPTS[@]}" "$BASELINE" "$BASELINE" 2>&1)
	case $? in
	0|1) ;;
	125) msg=$(grep -v '^bisect: verdict' <<<"$msg" | grep -A1 -m1 ': undecided$' |
		sed 's/^bisect: *//' | tr '\n' ' ')
	     die "baseline '$BASELINE' cannot be judged even against itself: ${msg% }" ;;
	*) msg=$(grep -m1 '^compare: ' <<<"$msg"); die "${msg#compare: }" ;;
	esac
fi

# Nothing is deleted that this script did not make, and a baseline is
# never written over: the step's --out is cleared only when it is an
# earlier --out of this script, and never overlaps a baseline.
OUT=${OUT:-$VM_DIR/out/bisect/$COMMIT}
for b in "$BASELINE" "$SAVE_BASELINE"; do
	[[ -n $b ]] || continue
	! paths_overlap "$OUT" "$b" ||
		die "--out '$OUT' and the baseline '$b' overlap (one directory, or one inside the other): the step would write over the baseline"
done
out_dir_check "$OUT" "$PROG --out"
[[ -z $SAVE_BASELINE ]] || out_dir_check "$SAVE_BASELINE" "$PROG --save-baseline"
out_dir_claim "$OUT" "$PROG --out"

echo "$PROG: $COMMIT $(git -C "$TREE" log -1 --format=%s HEAD)"
"$VM_DIR/run.sh" --build "$TREE" --build-failure-exit 125 "${RUN_OPTS[@]}" \
	-o "$OUT" -- "${RUN_ARGS[@]}" >"$OUT/run.out" 2>"$OUT/run.err"
rc=$?
case $rc in
0|1)	;;	# run.sh's own verdicts; the metric decides below
125)	tail -n 3 "$OUT/run.err" >&2
	echo "$PROG: $COMMIT does not build: skip it (125)"
	exit 125 ;;
3)	tail -n 5 "$OUT/run.err" >&2
	echo "$PROG: the guest of $COMMIT gave no result (crash or hang): skip it (125)"
	exit 125 ;;
*)	tail -n 5 "$OUT/run.err" >&2
	die "vm/run.sh exited $rc (setup error; log $OUT/run.err)" ;;
esac
compgen -G "$OUT/suite/*.json" >/dev/null || {
	echo "$PROG: $COMMIT: the guest wrote no result: skip it (125)"
	exit 125
}

if [[ -n $SAVE_BASELINE ]]; then
	out_dir_claim "$SAVE_BASELINE" "$PROG --save-baseline"
	cp "$OUT"/suite/*.json "$SAVE_BASELINE/" || die "cannot save the baseline in '$SAVE_BASELINE'"
	echo "$PROG: baseline of $COMMIT saved in $SAVE_BASELINE"
	exit 0
fi

"$REPO_DIR/compare" --bisect "${CMP_OPTS[@]}" "$BASELINE" "$OUT/suite" | tee "$OUT/verdict.txt"
rc=${PIPESTATUS[0]}
case $rc in
0|1|125) exit "$rc" ;;
*)	die "compare --bisect exited $rc" ;;
esac
