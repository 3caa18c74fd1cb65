#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/cid_batches.sh - the RSEQ mm_cid scan at batch sizes 8, 16 and 32 on
# real kernels (the CID-batches thread): build linux-source-6.12 with and without
# vm/patches/cid-scan-batch.patch (or take bzImages you built), boot each
# in qemu with many possible CPUs and a few online, run cid_scan with
# function_graph under each workload, keep every JSON and print the
# table with the thread's numbers beside ours.  One patched kernel serves
# every batch size and the scan-off control through its boot parameters
# (rseq_cid_scan_batch=N, rseq_cid_scan=off).  A second patched kernel,
# vm/patches/cid-scan-batch-posted.patch (the posted series' shape: the
# batch from CONFIG_RSEQ_CID_SCAN_BATCH, 16, task_mm_cid_work() returns
# nothing), runs each workload, and once more with cid_scan told to
# expect batches of 8: its calls-per-walk verdict must fail there.
# With --together two guests boot at a time, each kernel built first.
# See docs/cid_scan.md and docs/vm.md.
#
# Exit: 0 every verdict passed; 1 a verdict failed or a run gave no
# result; 2 bad input or a setup error (with --together: a kernel that
# did not build); 130/143 interrupted.

set -euo pipefail

readonly PROG=vm/cid_batches.sh
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
readonly REPO_DIR=${VM_DIR%/*}
readonly PATCH=$VM_DIR/patches/cid-scan-batch.patch
readonly POSTED_PATCH=$VM_DIR/patches/cid-scan-batch-posted.patch
# the failing case on the posted kernel: a batch size it does not have
readonly WRONG_BATCH=8
readonly FRAG=$VM_DIR/cid_batches.config

BATCHES="8 16 32"
WORKLOADS="cyclic hackbench"
BASE=1
OFF=1
POSTED=1
DURATION=10
CPUS=4
MAX_CPUS=128
PERIOD_US=100
OUT=
MARKDOWN=
BASE_KERNEL=
BATCH_KERNEL=
POSTED_KERNEL=
SRC=debian:6.12
ACCEL=auto
TIMEOUT=600
TOGETHER=0
# --together: guests at a time (single-threaded TCG: one host CPU each)
readonly TOGETHER_GUESTS=2
# A run is cid_scan's workload for -D seconds, then its compaction check
# (up to 20 s) and the setup, inside run.sh's 300 s per test in the guest.
readonly MAX_DURATION=240
# The kernels built here: NR_CPUS of vm/guest.config, the largest batch
# rseq_cid_scan_batch= takes and the most possible CPUs they boot with.
MAX_BATCH=$(sed -n 's/^CONFIG_NR_CPUS=\([0-9]*\)$/\1/p' "$VM_DIR/guest.config")
readonly MAX_BATCH=${MAX_BATCH:-256}

usage() {
	cat <<EOF
Usage: $PROG [options]

Run cid_scan (function_graph) on linux-source-6.12 unpatched, with the
batch patch at each batch size and scan off, and with the posted shape of
the batch patch, under each workload, in qemu; print the table
(scripts/cid_scan_table.py --check) and keep every JSON under the output
directory.

  -o, --out DIR          results (default vm/out/cid-batches-DATE): a new
                         or empty directory, or an earlier output of
                         this script, which is cleared
      --batches "LIST"   batch sizes, each once, 1 to $MAX_BATCH (NR_CPUS)
                         (default "$BATCHES")
      --workloads "LIST" cid_scan workloads, each once: spin, cyclic,
                         hackbench (default "$WORKLOADS")
      --no-base          skip the unpatched kernel
      --no-off           skip the scan-off control
      --no-posted        skip the kernel with the posted patch's shape
  -D, --duration SECS    cid_scan -D per run, whole seconds, 1 to
                         $MAX_DURATION (default $DURATION)
      --cpus N           online vCPUs, 1 to 1024 (default $CPUS)
      --max-cpus N       possible CPUs, --cpus to $MAX_BATCH for the kernels
                         built here (their NR_CPUS), to 1024 for given
                         bzImages (default $MAX_CPUS)
      --period-us US     cyclic workload period, 10 to 1000000 (cid_scan's
                         range) (default $PERIOD_US)
      --reduced          the CI matrix: batches 8 and 32, scan off and the
                         posted shape (and its failing case), no unpatched
                         kernel, cyclic only, 8 s runs
      --src SRC          kernel source for vm/run.sh --build (default $SRC)
      --base-kernel BZ   an unpatched bzImage: no build
      --batch-kernel BZ  a bzImage with the batch patch: no build
      --posted-kernel BZ a bzImage with the posted shape: no build
      --accel MODE       vm/run.sh --accel: kvm, tcg or auto (default $ACCEL)
      --together         boot two guests at a time, every kernel the
                         matrix needs built first, one at a time
                         (vm/run.sh --build-only; a kernel that does not
                         build stops the run before any boot, exit 2):
                         under TCG each qemu runs on one host CPU, so on
                         a host with two CPUs free the guests take about
                         half the time. Not for a KVM host: the guests
                         would share its caches and memory bandwidth
      --markdown         the table in Markdown
  -h, --help
EOF
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		-o|--out)	need_arg "$@"; OUT=$2; shift ;;
		--batches)	need_arg "$@"; BATCHES=$2; shift ;;
		--workloads)	need_arg "$@"; WORKLOADS=$2; shift ;;
		--no-base)	BASE=0 ;;
		--no-off)	OFF=0 ;;
		--no-posted)	POSTED=0 ;;
		-D|--duration)	need_arg "$@"; DURATION=$2; shift ;;
		--cpus)		need_arg "$@"; CPUS=$2; shift ;;
		--max-cpus)	need_arg "$@"; MAX_CPUS=$2; shift ;;
		--period-us)	need_arg "$@"; PERIOD_US=$2; shift ;;
		--reduced)	BATCHES="8 32"; WORKLOADS=cyclic; BASE=0; DURATION=8 ;;
		--src)		need_arg "$@"; SRC=$2; shift ;;
		--base-kernel)	need_arg "$@"; BASE_KERNEL=$2; shift ;;
		--batch-kernel)	need_arg "$@"; BATCH_KERNEL=$2; shift ;;
		--posted-kernel) need_arg "$@"; POSTED_KERNEL=$2; shift ;;
		--accel)	need_arg "$@"; ACCEL=$2; shift ;;
		--markdown)	MARKDOWN=--markdown ;;
		--together)	TOGETHER=1 ;;
		-h|--help)	usage; exit 0 ;;
		*)		die "unknown option '$1' (try --help)" ;;
		esac
		shift
	done
	local b w seen=" "
	for b in $BATCHES; do
		uint_in "$b" 1 "$MAX_BATCH" ||
			die "--batches: '$b' is not a batch size (1 to $MAX_BATCH)"
		[[ $seen != *" $b "* ]] || die "--batches: $b is given twice"
		seen+="$b "
	done
	seen=" "
	for w in $WORKLOADS; do
		case $w in spin|cyclic|hackbench) ;;
		*) die "--workloads: unknown workload '$w' (spin, cyclic, hackbench)" ;;
		esac
		[[ $seen != *" $w "* ]] || die "--workloads: $w is given twice"
		seen+="$w "
	done
	[[ -n ${WORKLOADS// /} ]] || die "--workloads: no workload given"
	uint_in "$DURATION" 1 "$MAX_DURATION" ||
		die "--duration must be a whole number of seconds from 1 to $MAX_DURATION, not '$DURATION'"
	uint_in "$PERIOD_US" 10 1000000 ||
		die "--period-us must be a whole number of microseconds from 10 to 1000000, not '$PERIOD_US'"
	[[ -n ${BATCHES// /} || $OFF == 1 || $BASE == 1 || $POSTED == 1 ]] || die "nothing to run"
	# the machine of every boot, as vm/run.sh will check it
	check_machine "$CPUS" "$MAX_CPUS" "$VM_DEFAULT_MEM" "$TIMEOUT" "$ACCEL" "" "rseq_cid_scan_batch=1"
	[[ -z $BASE_KERNEL ]] || check_bzimage "$BASE_KERNEL"
	[[ -z $BATCH_KERNEL ]] || check_bzimage "$BATCH_KERNEL"
	[[ -z $POSTED_KERNEL ]] || check_bzimage "$POSTED_KERNEL"
	if [[ $BASE == 1 && -z $BASE_KERNEL ]] ||
	   [[ ( -n ${BATCHES// /} || $OFF == 1 ) && -z $BATCH_KERNEL ]] ||
	   [[ $POSTED == 1 && -z $POSTED_KERNEL ]]; then
		((MAX_CPUS <= MAX_BATCH)) ||
			die "--max-cpus $MAX_CPUS: the kernels built here have NR_CPUS=$MAX_BATCH (vm/guest.config): at most $MAX_BATCH, or give --base-kernel, --batch-kernel and --posted-kernel"
		DIE_CONTEXT="--src: " check_kernel_source "$SRC"
	fi
	[[ -z $OUT ]] || out_dir_check "$OUT" "$PROG -o"
}

# How vm/run.sh gets each kernel: a bzImage given, else a cached build.
kernel_args() {	# base|batch|posted
	local given=$BASE_KERNEL
	[[ $1 != batch ]] || given=$BATCH_KERNEL
	[[ $1 != posted ]] || given=$POSTED_KERNEL
	if [[ -n $given ]]; then
		KARGS=(--kernel "$given" --no-headers)
		return
	fi
	"$VM_DIR/run.sh" --help 2>/dev/null | grep -q -- '--build SRC' ||
		die "this vm/run.sh cannot build kernels: give --base-kernel, --batch-kernel and --posted-kernel"
	KARGS=(--build "$SRC" --config "$FRAG")
	[[ $1 != batch ]] || KARGS+=(--patch "$PATCH")
	[[ $1 != posted ]] || KARGS+=(--patch "$POSTED_PATCH")
}

FAILED=()
# The guests under way (vm/run.sh's pids, oldest first; one at a time
# unless --together), each one's name and start by pid; what on_signal
# stops.
RUNNING=()
declare -A RUN_NAME=() RUN_T0=()

# run_start NAME KIND APPEND WORKLOAD [MORE]: one boot started: NAME,
# kernel (base|batch|posted), extra kernel parameters, workload, more
# cid_scan options.
run_start() {
	local name=$1 kind=$2 append=$3 wl=$4 more=${5:-} dir=$OUT/$1 args
	args=(--workload "$wl" -D "$DURATION")
	[[ $wl != cyclic ]] || args+=(--period-us "$PERIOD_US")
	# shellcheck disable=SC2206  # options, split on purpose
	[[ -z $more ]] || args+=($more)
	kernel_args "$kind"
	note "$name: $kind kernel${append:+ with $append}, --workload $wl, $DURATION s${more:+, $more}"
	# in the background, so that a signal reaches us and is passed on
	"$VM_DIR/run.sh" "${KARGS[@]}" --suite "$OUT/suite" --accel "$ACCEL" \
		--cpus "$CPUS" --max-cpus "$MAX_CPUS" --cmdline "" \
		${append:+--append "$append"} --timeout "$TIMEOUT" -o "$dir" \
		-- -t cid_scan -- "${args[@]}" >"$OUT/$name.log" 2>&1 &
	RUNNING+=("$!")
	RUN_NAME[$!]=$name
	RUN_T0[$!]=$SECONDS
}

# run_end: wait for the oldest guest under way and judge whether it left
# a result. (The oldest, not whichever ends first: bash's wait -n misses
# a child that ended before it was called.)
run_end() {
	local pid=${RUNNING[0]} name rc=0
	name=${RUN_NAME[$pid]}
	wait "$pid" || rc=$?
	RUNNING=("${RUNNING[@]:1}")
	((TOGETHER == 0)) ||
		note "$name: vm/run.sh exit $rc after $((SECONDS - RUN_T0[$pid])) s"
	# 1: a verdict failed in the guest (expected for scan off); the table judges
	if [[ ! -s $OUT/$name/suite/cid_scan.json ]] || ((rc > 1)); then
		note "$name: no result (vm/run.sh exit $rc, see $OUT/$name.log)"
		tail -n 5 "$OUT/$name.log" >&2 || true
		FAILED+=("$name")
	fi
}

# run_one NAME KIND APPEND WORKLOAD [MORE]: one boot (run_start). Alone,
# it waits for the guest; with --together it waits for the oldest guest
# under way only when $TOGETHER_GUESTS are, and main waits for the last.
run_one() {
	((${#RUNNING[@]} < TOGETHER_GUESTS)) || run_end
	run_start "$@"
	((TOGETHER)) || run_end
}

# --together: every kernel the matrix boots, built (or found in the
# cache) first, one at a time: two guests of one kernel booted together
# would both build it, and a build replaces the cache entry that the
# other boots.
build_kernels() {
	local kind kinds=() rc t0=$SECONDS
	((BASE == 0)) || kinds+=(base)
	[[ -z ${BATCHES// /} && $OFF == 0 ]] || kinds+=(batch)
	((POSTED == 0)) || kinds+=(posted)
	for kind in "${kinds[@]}"; do
		kernel_args "$kind"
		[[ ${KARGS[0]} == --build ]] || continue
		note "$kind kernel: vm/run.sh ${KARGS[*]} --build-only (log $OUT/build-$kind.log)"
		"$VM_DIR/run.sh" "${KARGS[@]}" --build-only >"$OUT/build-$kind.log" 2>&1 &
		RUNNING=("$!")
		rc=0
		wait "$!" || rc=$?
		RUNNING=()
		if ((rc)); then
			tail -n 15 "$OUT/build-$kind.log" >&2
			die "the $kind kernel did not build (vm/run.sh exit $rc, see $OUT/build-$kind.log)"
		fi
	done
	note "kernels ready after $((SECONDS - t0)) s; $TOGETHER_GUESTS guests at a time"
}

# shellcheck disable=SC2317  # called by the traps
on_signal() {
	local pid
	trap - INT TERM
	for pid in "${RUNNING[@]}"; do	# vm/run.sh stops its qemu on TERM
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${RUNNING[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	note "interrupted"
	exit "$1"
}

main() {
	local b w t0=$SECONDS rc=0 table wrong=1
	parse_args "$@"
	[[ -n $OUT ]] || OUT=$VM_DIR/out/cid-batches-$(date +%Y%m%d-%H%M%S)
	out_dir_claim "$OUT" "$PROG -o"
	OUT=$(cd "$OUT" && pwd)
	trap 'on_signal 130' INT
	trap 'on_signal 143' TERM
	command -v python3 >/dev/null || die "python3 not found"
	make -C "$REPO_DIR" -s install INSTALL_PATH="$OUT/suite" >"$OUT/install.log" 2>&1 ||
		die "make install failed (see $OUT/install.log)"
	((TOGETHER == 0)) || build_kernels
	for w in $WORKLOADS; do
		((BASE == 0)) || run_one "base-$w" base "" "$w"
		for b in $BATCHES; do
			run_one "b$b-$w" batch "rseq_cid_scan_batch=$b" "$w"
		done
		((OFF == 0)) || run_one "off-$w" batch "rseq_cid_scan=off" "$w"
		((POSTED == 0)) || run_one "posted-$w" posted "" "$w"
		# the failing case, once: walks judged against another batch
		((POSTED == 0 || wrong == 0)) ||
			run_one "posted-wrong-$w" posted "" "$w" "--expect-batch $WRONG_BATCH"
		wrong=0
	done
	while ((${#RUNNING[@]})); do
		run_end
	done
	note "matrix done in $((SECONDS - t0)) s; results in $OUT"
	table=("$REPO_DIR/scripts/cid_scan_table.py" --check)
	[[ -z $MARKDOWN ]] || table+=("$MARKDOWN")
	if compgen -G "$OUT/*/suite/cid_scan.json" >/dev/null; then
		"${table[@]}" "$OUT"/*/suite/cid_scan.json | tee "$OUT/table.txt" ||
			rc=$?
	else
		rc=1
	fi
	if ((${#FAILED[@]})); then
		note "runs without a result: ${FAILED[*]}"
		rc=1
	fi
	((rc <= 1)) || rc=1
	exit "$rc"
}

main "$@"
