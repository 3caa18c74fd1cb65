#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/ab.sh - a base and a patched kernel in one command: build both (or
# take them as given), boot them alternately A B A B ... with vm/run.sh so
# that drift hits both alike, and print compare's table of each side's
# rounds pooled (compare pools them: one --labels name per kernel), its
# Markdown and the paste lines.  See docs/vm.md "A/B".
#
#   vm/ab.sh --base "--build debian:6.12" \
#            --patched "--build debian:6.12 --patch my.patch" \
#            --rounds 3 -- -t timer_softirq -- --phase quiet --quick
#
# Exit: 0 done (whatever the tests said), 2 bad input or setup error,
# 3 a guest gave no result.

set -euo pipefail

readonly PROG=vm/ab.sh
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
readonly REPO_DIR=${VM_DIR%/*}

BASE_SPEC=
NEW_SPEC=
ROUNDS=3
LABELS=base,patched
OUT=
RUN_OPTS=()
CMP_OPTS=()
RUN_ARGS=()
TOGETHER=0
declare -A ROUND_PID=()

usage() {
	cat <<EOF
Usage: $PROG --base SPEC --patched SPEC [options] [-- run.sh args...]

Boot a base and a patched kernel alternately in qemu, run the suite
in each, pool each side's results and compare them.

A SPEC is the kernel part of a vm/run.sh command line, in one word
list (no spaces inside paths):
  "--build SRC [--patch FILE]... [--config FRAG]..."   build it
  "--debian 6.12"                                       a Debian kernel
  "--kernel BZIMAGE [--headers DIR]"                    a kernel you built

Options:
  --base SPEC, --patched SPEC   the two kernels (A and B)
  --rounds N            boots per kernel, alternating, 1 to 50
                        (default $ROUNDS)
  --together            boot A and B of each round at the same time: under
                        TCG each qemu runs on one host CPU, so a round
                        takes the time of one boot on a host with two
                        CPUs free; counts in the guests' own time are
                        unchanged. Not for timings on a KVM host (the
                        guests share its caches and memory bandwidth)
  --labels A,B          their names in the table, two different names of
                        1 to 8 letters, digits and _.+- (not starting
                        with . or -; not A-N or B-N) (default $LABELS)
  -o, --output DIR      every round's results (A-1/, B-1/, ...) and the
                        tables (default vm/out/ab-DATE): a new or
                        empty directory, or an earlier output of
                        vm/ab.sh, which is cleared
  --emulated-timings    compare: judge timings measured under TCG too
  --arch ARCH           the guests' architecture, x86_64 (default) or
                        arm64 (vm/run.sh --arch): the suite is then
                        cross-built once for both sides; kernels are
                        --debian or --kernel (--build makes x86_64 ones)
  --cpus N, --max-cpus N, --mem MB, --cmdline ARGS, --append ARGS,
  --timeout S, --accel MODE
                        passed to vm/run.sh for every boot
  -h, --help
Everything after -- goes to run.sh in the guests.
EOF
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--base)		need_arg "$@"; BASE_SPEC=$2; shift ;;
		--patched)	need_arg "$@"; NEW_SPEC=$2; shift ;;
		--rounds)	need_arg "$@"; ROUNDS=$2; shift ;;
		--labels)	need_arg "$@"; LABELS=$2; shift ;;
		-o|--output)	need_arg "$@"; OUT=$2; shift ;;
		--emulated-timings) CMP_OPTS+=("$1") ;;
		--together)	TOGETHER=1 ;;
		--arch)		need_arg "$@"; VM_ARCH=$2; RUN_OPTS+=("$1" "$2"); shift ;;
		--cpus|--max-cpus|--mem|--append|--timeout|--accel)
				need_arg "$@"; RUN_OPTS+=("$1" "$2"); shift ;;
		--cmdline)	[[ $# -ge 2 ]] || die "option $1 needs a value"
				RUN_OPTS+=("$1" "$2"); shift ;;
		-h|--help)	usage; exit 0 ;;
		--)		shift; RUN_ARGS=("$@"); break ;;
		*)		die "unknown option '$1' (try --help)" ;;
		esac
		shift
	done
	[[ -n $BASE_SPEC && -n $NEW_SPEC ]] ||
		die "give both kernels: --base SPEC and --patched SPEC (try --help)"
	uint_in "$ROUNDS" 1 50 ||
		die "--rounds must be a whole number from 1 to 50, not '$ROUNDS'"
	local name='[A-Za-z0-9_+][A-Za-z0-9_.+-]{0,7}'
	[[ $LABELS =~ ^$name,$name$ ]] ||
		die "--labels must be two names of 1 to 8 letters, digits and _.+- (not starting with . or -), A,B; not '$LABELS'"
	[[ ${LABELS%,*} != "${LABELS#*,}" ]] ||
		die "--labels '$LABELS': the two sides need two names (both would pool into one directory)"
	[[ ! ${LABELS%,*} =~ ^[AB]-[0-9]+$ && ! ${LABELS#*,} =~ ^[AB]-[0-9]+$ ]] ||
		die "--labels '$LABELS': A-N and B-N name the rounds' directories"
	arch_check "$VM_ARCH"
	check_machine_opts "${RUN_OPTS[@]}"
	check_run_args "${RUN_ARGS[@]}"
	[[ -z $OUT ]] || out_dir_check "$OUT" "$PROG -o"
	check_spec "$BASE_SPEC" --base
	check_spec "$NEW_SPEC" --patched
	arch_native || command -v "$(arch_triplet)-gcc" >/dev/null ||
		die "$(arch_triplet)-gcc not found to build the suite for $VM_ARCH guests (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
	arch_userland_check
}

# A SPEC names one kernel and nothing else, each value as vm/run.sh will
# take it (vm/lib.sh): a kernel that does not exist is found now, not
# after the other side's build.
check_spec() {
	local words=() i kinds=0 build=0 patches=0 given=0
	read -ra words <<<"$1"
	for ((i = 0; i < ${#words[@]}; i++)); do
		case ${words[i]} in
		--build)	build=1 ;&
		--kernel|--debian)	kinds=$((kinds + 1)) ;&
		--patch|--config|--headers|--modules)
			((i + 1 < ${#words[@]})) || die "$2 '$1': ${words[i]} needs a value"
			case ${words[i]} in
			--patch|--config) patches=1 ;;
			--headers|--modules) given=1 ;;
			esac
			i=$((i + 1)) ;;
		--no-headers) ;;
		*) die "$2 '$1': '${words[i]}' is not a kernel option (--build, --patch, --config, --debian, --kernel, --headers, --modules)" ;;
		esac
	done
	((kinds == 1)) || die "$2 '$1' must name one kernel (--build, --debian or --kernel)"
	((build || !patches)) || die "$2 '$1': --patch and --config need --build SRC"
	((!build || !given)) || die "$2 '$1': --headers and --modules go with --kernel or --debian"
	local DIE_CONTEXT="$2: "
	for ((i = 0; i < ${#words[@]}; i++)); do
		case ${words[i]} in
		--no-headers) continue ;;
		--build)	[[ $VM_ARCH == x86_64 ]] ||
					die "--build makes x86_64 kernels only; $VM_ARCH guests boot --debian or --kernel"
				check_kernel_source "${words[i + 1]}" ;;
		--kernel)	check_kernel_image "${words[i + 1]}" ;;
		--debian)	check_debian "${words[i + 1]}" ;;
		--patch|--config) check_file "${words[i]}" "${words[i + 1]}" ;;
		--headers)	check_headers_dir "${words[i + 1]}" ;;
		--modules)	check_modules_dir "${words[i + 1]}" ;;
		esac
		i=$((i + 1))
	done
}

side_label() {	# side_label SIDE: its name in the table
	if [[ $1 == A ]]; then echo "${LABELS%,*}"; else echo "${LABELS#*,}"; fi
}

# side_spec SIDE ARRAY: SIDE's kernel, as vm/run.sh's words, into ARRAY
side_spec() {
	local -n ss_words=$2
	local text=$NEW_SPEC
	[[ $1 != A ]] || text=$BASE_SPEC
	# shellcheck disable=SC2034  # a nameref: the caller's array
	read -ra ss_words <<<"$text"
}

# round_start SIDE R: vm/run.sh of SIDE's round R; its exit status
round_start() {
	local spec=()
	side_spec "$1" spec
	"$VM_DIR/run.sh" "${spec[@]}" --suite "$OUT/suite" "${RUN_OPTS[@]}" -o "$OUT/$1-$2" -- "${RUN_ARGS[@]}" \
		>"$OUT/$1-$2.out" 2>"$OUT/$1-$2.err"
}

# round_end SIDE R RC: what SIDE's round R gave, or the end of the run
round_end() {
	local dir=$OUT/$1-$2 label
	label=$(side_label "$1")
	echo "$PROG: round $2 $label: vm/run.sh exit $3, $(grep -m1 '^seconds ' "$dir/vm-info.txt" 2>/dev/null | cut -d' ' -f2) s"
	case $3 in
	0|1) ;;
	3) tail -n 10 "$dir.err" >&2
	   echo "$PROG: round $2 $label: the guest gave no result (log $dir.err)" >&2
	   exit 3 ;;
	*) tail -n 10 "$dir.err" >&2
	   die "round $2 $label: vm/run.sh exited $3 (log $dir.err)" ;;
	esac
	compgen -G "$dir/suite/*.json" >/dev/null ||
		die "round $2 $label: no results in $dir/suite"
}

# A guest of --together still running when ab.sh ends (an error in the
# other one, a signal) is stopped: vm/run.sh stops its qemu on SIGTERM.
stop_rounds() {
	local side
	for side in "${!ROUND_PID[@]}"; do
		[[ -z ${ROUND_PID[$side]} ]] || kill -TERM "${ROUND_PID[$side]}" 2>/dev/null || :
	done
	wait 2>/dev/null || :
}

main() {
	parse_args "$@"
	[[ -x $REPO_DIR/compare ]] || make -C "$REPO_DIR" compare >/dev/null 2>&1 ||
		die "cannot build $REPO_DIR/compare"
	OUT=${OUT:-$VM_DIR/out/ab-$(date +%Y%m%d-%H%M%S)}
	out_dir_claim "$OUT" "$PROG -o"
	OUT=$(realpath "$OUT")

	# Build both first: a kernel that does not build fails here, once.
	local spec=() side rc t0=$SECONDS
	for side in A B; do
		side_spec "$side" spec
		[[ " ${spec[*]} " == *" --build "* ]] || continue
		"$VM_DIR/run.sh" "${spec[@]}" --build-only >"$OUT/build-$side.out" 2>"$OUT/build-$side.err" || {
			rc=$?
			tail -n 20 "$OUT/build-$side.err" >&2
			exit "$rc"
		}
	done
	echo "$PROG: kernels ready after $((SECONDS - t0)) s; $ROUNDS round(s) of A B"
	# One suite for every round: both sides run the same binaries, and
	# guests booted together never build it at once.
	# (a cross build copies the tree: outside OUT, which may be in it)
	local log=$OUT/suite.log sb
	if arch_native; then
		make -C "$REPO_DIR" install INSTALL_PATH="$OUT/suite" >"$log" 2>&1
	else
		sb=$(mktemp -d)
		arch_suite_build "$REPO_DIR" "$OUT/suite" "$sb"
		rc=$?
		cp "$sb/build.log" "$log"
		rm -rf "$sb"
		((rc == 0))
	fi || {
		tail -n 20 "$log" >&2
		die "the suite's build failed (log $log)"
	}

	# compare pools each side's rounds itself: one label per round
	local r rounds=() labels=""
	trap stop_rounds EXIT
	for ((r = 1; r <= ROUNDS; r++)); do
		if ((TOGETHER)); then
			round_start A "$r" &
			ROUND_PID[A]=$!
			round_start B "$r" &
			ROUND_PID[B]=$!
		fi
		for side in A B; do
			if ((TOGETHER)); then
				rc=0
				wait "${ROUND_PID[$side]}" || rc=$?
				ROUND_PID[$side]=
			else
				rc=0
				round_start "$side" "$r" || rc=$?
			fi
			round_end "$side" "$r" "$rc"
			rounds+=("$side-$r/suite")
			labels="$labels$(side_label "$side"),"
		done
	done
	labels=${labels%,}
	(cd "$OUT" && "$REPO_DIR/compare" --labels "$labels" "${CMP_OPTS[@]}" "${rounds[@]}") \
		>"$OUT/compare.txt" 2>"$OUT/compare.err" ||
		die "compare failed on the rounds in $OUT: $(cat "$OUT/compare.err")"
	(cd "$OUT" && "$REPO_DIR/compare" --markdown --labels "$labels" "${CMP_OPTS[@]}" "${rounds[@]}") \
		>"$OUT/compare.md"
	cat "$OUT/compare.txt"
	echo
	echo "Markdown ($OUT/compare.md):"
	echo
	cat "$OUT/compare.md"
	echo
	echo "$PROG: done in $((SECONDS - t0)) s; every result under"
	echo "  $OUT"
}

main "$@"
