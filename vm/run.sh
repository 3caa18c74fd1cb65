#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/run.sh - boot a kernel in qemu with a CPU-isolation command line, run the
# isolbench suite inside a busybox initramfs, and bring the KTAP stream and
# the JSON results back.  See docs/vm.md.
#
# The driver: options, checks, traps, and the stages in order, each in a
# file of its own (a new stage is a vm/stage-NAME.sh sourced here and
# called from main):
#   vm/stage-kernel.sh     the kernel: --kernel, --debian (fetched), --build
#                          (vm/kbuild.sh), and the cache
#   vm/stage-initramfs.sh  the suite, module/, libraries, vm/guest-init.sh
#   vm/stage-qemu.sh       qemu, the serial channel, the results
# Stages read the options below and hand back what they make through a
# named associative array; vm/lib.sh holds what every vm/ script shares.
#
# Exit status: run.sh's status in the guest (0 pass, 1 fail, ...);
#   2  bad input or a host-side setup error (one line on stderr);
#   3  the guest did not report a status (timeout, panic, crash);
#   129/130/143  interrupted by SIGHUP/SIGINT/SIGTERM (qemu is stopped).
# --dry-run exits 0 (or 2); --judge DIR exits as the run saved there did.

set -euo pipefail

readonly PROG=vm/run.sh
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
readonly REPO_DIR=${VM_DIR%/*}
# shellcheck source=vm/kbuild.sh
. "$VM_DIR/kbuild.sh"
# shellcheck source=vm/stage-kernel.sh
. "$VM_DIR/stage-kernel.sh"
# shellcheck source=vm/stage-initramfs.sh
. "$VM_DIR/stage-initramfs.sh"
# shellcheck source=vm/stage-qemu.sh
. "$VM_DIR/stage-qemu.sh"

# Options: set by parse_args, then only read, each by the stage named.
# The kernel (vm/stage-kernel.sh; --build's: vm/kbuild.sh's KB_* inputs)
KERNEL='' MODULES_DIR='' HEADERS_DIR='' DEBIAN_SPEC='' BUILD_ONLY=0 NO_HEADERS=0
# the machine (vm/stage-qemu.sh)
CPUS=$VM_DEFAULT_CPUS MAX_CPUS='' MEM=$VM_DEFAULT_MEM TIMEOUT=$VM_DEFAULT_TIMEOUT ACCEL=auto
ISOL_CMDLINE=$VM_DEFAULT_CMDLINE APPEND=''
# the suite (vm/stage-initramfs.sh)
SUITE_DIR='' SRC_DIR=$REPO_DIR EXTRA_BINS=() GUEST_PRE='' RUN_ARGS=()
# the results (here)
RESULTS_DIR='' KEEP=0
# what to do instead of a run (here), and how many options were given
DRY_RUN=0 JUDGE_DIR='' NOPTS=0

# What the exit and signal traps clean up (and qemu: QEMU_PID).
WORK='' CONSOLE_LOG=''

usage() {
	cat <<EOF
Usage: $PROG [options] [-- run.sh args...]

Boot a kernel in qemu with CPUs isolated and run isolbench's run.sh inside.

Kernel (one of; default: --debian 6.12):
  -b, --build SRC        build the kernel to boot: SRC is a kernel tree (git
                         checkout or plain tree, never modified: O= build of
                         a linked copy) or debian:6.12 / debian:6.1 (Debian's
                         linux-source, apt-get download); config: tinyconfig
                         + vm/guest.config + the suite's config + --config
      --patch FILE       with --build: apply this patch (-p1); repeatable
      --config FRAG      with --build: merge this config fragment; repeatable
      --build-only       with --build: build (or find in the cache), print
                         the bzImage's path, do not boot
  -k, --kernel PATH      a bzImage/vmlinuz you built
      --modules DIR      its modules directory (lib/modules/RELEASE); its
                         build/ link is used as headers unless --headers
      --headers DIR      kernel build or headers tree, to build module/
  -d, --debian SPEC      a Debian kernel fetched with apt-get download and
                         cached in vm/cache/: 6.12, 6.1, 6.12-rt, 6.1-rt
                         (latest available) or an exact release such as
                         6.12.117+deb12-amd64 or 6.1.0-50-amd64
      --no-headers       no headers: do not fetch or use them (no module build)

Machine:
      --arch ARCH        the guest's architecture: x86_64 (default) or
                         arm64 (qemu's virt board, GICv3; from an x86 host
                         under TCG, with the suite cross-built and Debian's
                         arm64 packages for its userland; no --build)
  -c, --cpus N           vCPUs (default $CPUS)
      --max-cpus N       possible CPUs: N vCPUs, of which --cpus are brought
                         online at boot (maxcpus=); the others can be
                         onlined through /sys/devices/system/cpu/cpuN/online
  -m, --mem MB           memory (default $MEM)
      --cmdline "..."    isolation part of the kernel command line
                         (default "$ISOL_CMDLINE")
      --append "..."     more kernel parameters
      --accel MODE       kvm, tcg or auto (default auto: KVM if /dev/kvm works
                         and the guest boots within ${KVM_BOOT_TIMEOUT}s, else TCG)
  -t, --timeout SECS     overall limit for the guest (default $TIMEOUT)

Suite:
      --suite DIR        a prebuilt install dir (make install INSTALL_PATH=DIR);
                         default: make install from the source tree
      --src DIR          source tree (default $REPO_DIR)
      --add-bin PATH     also copy this host program (and its libraries)
                         into the guest's PATH; repeatable
      --guest-pre CMD    a shell command the guest runs in the suite
                         directory before run.sh (to test what a run
                         leaves behind); its output: results/pre.txt

Output:
  -o, --output DIR       results directory (default vm/out/DATE-RELEASE):
                         ktap.txt, console.log, dmesg.txt, guest-cpus.txt,
                         cmdline.txt, vm-info.txt, suite/ (run.sh -o),
                         channel.txt, qemu-cmd.sh (qemu's command)
      --keep             keep the work directory (initramfs, logs), which
                         a rerun of qemu-cmd.sh needs
  -h, --help

Instead of a run:
      --dry-run          check every option and print what a run would do:
                         the kernel (from the cache, or what would be
                         fetched or built), the kernel and qemu command
                         lines; fetch, build and boot nothing
      --judge DIR        judge again the run whose results directory (or
                         work directory kept with --keep) DIR is, from its
                         channel.txt, console.log and vm-info.txt: its
                         verdict and exit status; takes no other option

Everything after -- goes to run.sh (do not pass -o; the harness sets it).
Exit: run.sh's status; 2 bad input/setup error; 3 guest gave no status.
--judge: the judged run's; --dry-run: 0.
EOF
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		NOPTS=$((NOPTS + 1))
		case $1 in
		-k|--kernel)	need_arg "$@"; KERNEL=$2; shift ;;
		--modules)	need_arg "$@"; MODULES_DIR=$2; shift ;;
		--headers)	need_arg "$@"; HEADERS_DIR=$2; shift ;;
		-d|--debian)	need_arg "$@"; DEBIAN_SPEC=$2; shift ;;
		-b|--build)	need_arg "$@"; KB_SRC=$2; shift ;;
		--patch)	need_arg "$@"; KB_PATCHES+=("$(realpath -m -- "$2")"); shift ;;
		--config)	need_arg "$@"; KB_CONFIGS+=("$(realpath -m -- "$2")"); shift ;;
		--build-only)	BUILD_ONLY=1 ;;
		--build-failure-exit)	need_arg "$@"; KB_BUILD_FAIL_EXIT=$2; shift ;;
		--no-headers)	NO_HEADERS=1 ;;
		--arch)		need_arg "$@"; VM_ARCH=$2; shift ;;
		-c|--cpus)	need_arg "$@"; CPUS=$2; shift ;;
		--max-cpus)	need_arg "$@"; MAX_CPUS=$2; shift ;;
		-m|--mem)	need_arg "$@"; MEM=$2; shift ;;
		--cmdline)	[[ $# -ge 2 ]] || die "option $1 needs a value"
				ISOL_CMDLINE=$2; shift ;;
		--append)	need_arg "$@"; APPEND=$2; shift ;;
		--accel)	need_arg "$@"; ACCEL=$2; shift ;;
		-t|--timeout)	need_arg "$@"; TIMEOUT=$2; shift ;;
		--suite)	need_arg "$@"; SUITE_DIR=$2; shift ;;
		--src)		need_arg "$@"; SRC_DIR=$2; shift ;;
		--add-bin)	need_arg "$@"; EXTRA_BINS+=("$2"); shift ;;
		--guest-pre)	need_arg "$@"; GUEST_PRE=$2; shift ;;
		-o|--output)	need_arg "$@"; RESULTS_DIR=$2; shift ;;
		--keep)		KEEP=1 ;;
		--dry-run)	DRY_RUN=1 ;;
		--judge)	need_arg "$@"; JUDGE_DIR=$2; shift ;;
		-h|--help)	usage; exit 0 ;;
		--)		shift; RUN_ARGS=("$@"); break ;;
		*)		die "unknown option '$1' (try --help)" ;;
		esac
		shift
	done
}

# Every option, before anything is fetched, built or booted (the rules
# vm/ab.sh and vm/bisect-step.sh share are in vm/lib.sh), in this order.
check_args() {
	((DRY_RUN == 0 || KEEP == 0)) ||
		die "--dry-run makes no work directory for --keep to keep"
	arch_check "$VM_ARCH"
	check_machine "$CPUS" "$MAX_CPUS" "$MEM" "$TIMEOUT" "$ACCEL" "$ISOL_CMDLINE" "$APPEND"
	kernel_check_opts
	check_run_args "${RUN_ARGS[@]}"
	qemu_check_tools
	kernel_check_dirs
	if ((BUILD_ONLY == 0)); then
		initramfs_check_opts
		[[ -z $RESULTS_DIR || ! -e $RESULTS_DIR || -d $RESULTS_DIR ]] ||
			die "results directory '$RESULTS_DIR' exists and is not a directory"
	fi
	kernel_check_source
	if ((BUILD_ONLY == 0 && DRY_RUN == 0)) && [[ -n $RESULTS_DIR ]]; then
		if ! mkdir -p -- "$RESULTS_DIR" 2>/dev/null || [[ ! -w $RESULTS_DIR ]]; then
			die "cannot create results directory '$RESULTS_DIR'"
		fi
	fi
}

# results_path RELEASE: the results directory, -o or vm/out/DATE-RELEASE
results_path() {
	if [[ -n $RESULTS_DIR ]]; then
		realpath -m -- "$RESULTS_DIR"
	else
		echo "$VM_DIR/out/$(date +%Y%m%d-%H%M%S)-${1:-kernel}"
	fi
}

# --dry-run: what a run would do, as far as it can be known without a
# download, a build or the guest.
dry_run() {
	local -A kern=() guest=()
	local accel argv=() work=${TMPDIR:-/tmp}/isolbench-vm.XXXXXX
	kernel_select kern plan
	echo "kernel: ${kern[plan]}"
	((BUILD_ONLY == 0)) || return 0
	if [[ -n $SUITE_DIR ]]; then
		echo "suite: $SUITE_DIR (--suite)"
	elif arch_native; then
		echo "suite: make -C $SRC_DIR install"
	else
		echo "suite: make CROSS_COMPILE=$(arch_triplet)- LDFLAGS=-static install, in a copy of $SRC_DIR"
		echo "userland: Debian's $(arch_deb) packages ${ARCH_USERLAND_PKGS[*]}"
	fi
	echo "in the guest: $(shell_quote ./run.sh -o /results/suite "${RUN_ARGS[@]}")"
	accel=$(accel_first "$ACCEL")
	if [[ $ACCEL == auto && $accel == kvm ]]; then
		echo "accelerator: kvm (TCG if the guest has not booted within ${KVM_BOOT_TIMEOUT}s)"
	else
		echo "accelerator: $accel"
	fi
	guest=([kernel]=${kern[image]} [initrd]=$work/initramfs.cpio.gz
		[console]=$(results_path "${kern[release]}")/console.log [channel]=$work/channel.log)
	echo "results: ${guest[console]%/*}"
	echo "kernel command line: $(guest_cmdline "$accel")"
	echo "qemu command:"
	qemu_argv argv guest "$accel"
	qemu_cmd_print "${argv[@]}"
}

# --judge DIR: the verdict of the run saved in DIR, as that run gave it.
judge() {
	local -A guest=()
	local rc=0
	((NOPTS == 1)) || die "--judge takes no other option: it judges the run saved in '$JUDGE_DIR' as it ran"
	guest_load guest "$JUDGE_DIR"
	guest_verdict guest || rc=$?
	exit "$rc"
}

# shellcheck disable=SC2317  # runs from a trap
on_signal() {
	local sig=$1
	trap - INT TERM HUP
	note "interrupted by SIG$sig; stopping qemu"
	qemu_stop
	[[ -n $CONSOLE_LOG ]] && show_console_tail "$CONSOLE_LOG"
	case $sig in
	INT) exit 130 ;;
	HUP) exit 129 ;;
	*) exit 143 ;;
	esac
}

# shellcheck disable=SC2317  # runs from a trap
cleanup() {
	qemu_stop
	work_remove
}

main() {
	parse_args "$@"
	[[ -z $JUDGE_DIR ]] || judge
	check_args
	if ((DRY_RUN)); then
		dry_run
		exit 0
	fi

	trap cleanup EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP

	local -A kern=() guest=()
	local results initrd t0 rc=0
	kernel_select kern
	if ((BUILD_ONLY)); then
		echo "${kern[image]}"
		exit 0
	fi
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/isolbench-vm.XXXXXX")
	results=$(results_path "${kern[release]}")
	mkdir -p "$results" || die "cannot create results directory '$results'"
	# --judge of the kept work directory judges these results
	((KEEP == 0)) || ln -s "$results" "$WORK/results"
	CONSOLE_LOG=$results/console.log
	guest=([kernel]=${kern[image]} [results]=$results [console]=$CONSOLE_LOG
		[ktap]=$results/ktap.txt [channel]=$WORK/channel.log
		[nonce]=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n'))

	t0=$SECONDS
	initramfs_build initrd "$WORK" "${guest[nonce]}" kern
	guest[initrd]=$initrd
	note "initramfs: $(du -h "$initrd" | cut -f1), kernel ${kern[image]} (${kern[release]:-release unknown})"
	# how it ended is the run's "end", which the verdict reads
	guest_run guest "$ACCEL" || :

	guest_results guest "$results"
	# --build: the guest's results carry the build record ("kernel_build",
	# written by the suite itself); the results directory keeps it too.
	[[ -z ${kern[info]} ]] || cp "${kern[info]}" "$results/build.json"
	guest[seconds]=$((SECONDS - t0))
	guest_info guest kern
	guest_verdict guest || rc=$?
	exit "$rc"
}

main "$@"
