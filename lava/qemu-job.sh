#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava/qemu-job.sh - run isolbench's LAVA job on this machine, as a lab's
# worker would: lava-run (Debian's lava-dispatcher) on a qemu device,
# booting a Debian kernel with isolated CPUs and an initramfs that holds
# the suite.  docs/farms.md.
#
# What it does, in order: the kernel (vm/stage-kernel.sh: fetched into
# the vm/ cache), the initramfs (vm/stage-initramfs.sh with
# lava/guest-init.sh as /init), lava-server's device-type templates
# (apt-get download into the cache, never installed), the device
# dictionary lava/qemu-device.jinja2 and the job lava/qemu-job.yaml.jinja2
# rendered with jinja2, then lava-run.  The output directory keeps the
# rendered device.yaml and job.yaml, the job's log as lava-run wrote it
# (output.yaml: lava-run's stderr, what a worker sends lava-server;
# lava-run.out its stdout), lava-run's own output directory (lava/),
# and, read from the log by lava/job-results.py, results.txt (the test
# cases as LAVA recorded them) and json/ (the JSON results the job
# printed).
#
# Exit status: lava-run's (0: the job ran to its end, whatever its test
# cases say); 2 bad input or a setup error (one line on stderr).

set -euo pipefail

readonly PROG=lava/qemu-job.sh
LAVA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly LAVA_DIR
readonly REPO_DIR=${LAVA_DIR%/*}
VM_DIR=$REPO_DIR/vm
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
# shellcheck source=vm/kbuild.sh
. "$VM_DIR/kbuild.sh"
# shellcheck source=vm/stage-kernel.sh
. "$VM_DIR/stage-kernel.sh"
# shellcheck source=vm/stage-initramfs.sh
. "$VM_DIR/stage-initramfs.sh"

# What the vm/ stages read (vm/run.sh's options, here fixed).
KERNEL='' MODULES_DIR='' HEADERS_DIR='' NO_HEADERS=0
SUITE_DIR='' SRC_DIR=$REPO_DIR EXTRA_BINS=() GUEST_PRE='' RUN_ARGS=()
GUEST_INIT=$LAVA_DIR/guest-init.sh
# This script's options.
DEBIAN_SPEC=6.12 CPUS=$VM_DEFAULT_CPUS MEM=$VM_DEFAULT_MEM ACCEL=tcg
ISOL_CMDLINE=$VM_DEFAULT_CMDLINE TESTS='' TARGET_CPUS='' QUICK=true
EXPECT='' EXPECT_GIVEN=0 TEST_TIMEOUT='' JOB_MINUTES=20 OUT='' REPOSITORY='' REVISION=''
KEEP=0 WORK=''

# Where the suite sits in the initramfs (vm/stage-initramfs.sh).
readonly GUEST_SUITE_DIR=/isolbench

usage() {
	cat <<EOF
Usage: $PROG [options]

Run isolbench's LAVA job with lava-run on a local qemu device.

  -d, --debian SPEC       the Debian kernel to boot (default $DEBIAN_SPEC; as vm/run.sh)
  -c, --cpus N            vCPUs (default $CPUS)
  -m, --mem MB            memory (default $MEM)
      --cmdline "..."     isolation part of the kernel command line
                          (default "$ISOL_CMDLINE")
      --accel MODE        tcg, kvm or auto (kvm when /dev/kvm opens; default tcg)
      --tests "A B"       the test definition's TESTS (default: all)
      --target-cpus LIST  its TARGET_CPUS (default: each program's own)
      --full              QUICK false (default: quick)
      --expect "..."      its EXPECT_ISOLATION (default: the nohz_full=
                          and isolcpus= words of --cmdline)
      --test-timeout SECS its TIMEOUT (default: the suite's settings)
      --job-minutes N     the job's limit (default $JOB_MINUTES)
      --repository URL    the git repository of lava/isolbench.yaml
                          (default: one made from this tree's lava/)
      --revision REV      with --repository: the commit to take
  -o, --output DIR        results (default lava/out/DATE)
      --keep              keep the work directory
  -h, --help

Exit: lava-run's status; 2 bad input or setup error.
EOF
}

parse_args() {
	while (($#)); do
		case $1 in
		-d|--debian)	need_arg "$@"; DEBIAN_SPEC=$2; shift ;;
		-c|--cpus)	need_arg "$@"; CPUS=$2; shift ;;
		-m|--mem)	need_arg "$@"; MEM=$2; shift ;;
		--cmdline)	need_arg "$@"; ISOL_CMDLINE=$2; shift ;;
		--accel)	need_arg "$@"; ACCEL=$2; shift ;;
		--tests)	need_arg "$@"; TESTS=$2; shift ;;
		--target-cpus)	need_arg "$@"; TARGET_CPUS=$2; shift ;;
		--full)		QUICK=false ;;
		--expect)	(($# >= 2)) || die "option $1 needs a value"
				EXPECT=$2 EXPECT_GIVEN=1; shift ;;
		--test-timeout)	need_arg "$@"; TEST_TIMEOUT=$2; shift ;;
		--job-minutes)	need_arg "$@"; JOB_MINUTES=$2; shift ;;
		--repository)	need_arg "$@"; REPOSITORY=$2; shift ;;
		--revision)	need_arg "$@"; REVISION=$2; shift ;;
		-o|--output)	need_arg "$@"; OUT=$2; shift ;;
		--keep)		KEEP=1 ;;
		-h|--help)	usage; exit 0 ;;
		*)		die "unknown option '$1' (try --help)" ;;
		esac
		shift
	done
}

check_args() {
	local t args=() err
	check_machine "$CPUS" "" "$MEM" 600 "$ACCEL" "$ISOL_CMDLINE" ""
	uint_in "$JOB_MINUTES" 5 1440 ||
		die "--job-minutes must be a whole number from 5 to 1440, not '$JOB_MINUTES'"
	[[ -z $TEST_TIMEOUT ]] || uint_in "$TEST_TIMEOUT" 1 604800 ||
		die "--test-timeout must be a whole number of seconds from 1, not '$TEST_TIMEOUT'"
	[[ -z $TARGET_CPUS ]] || [[ -n $(expand_cpulist "$TARGET_CPUS" "$CPUS") ]] ||
		die "--target-cpus '$TARGET_CPUS' is not a cpulist"
	[[ -z $REVISION || -n $REPOSITORY ]] || die "--revision goes with --repository"
	for t in $TESTS; do args+=(-t "$t"); done
	# run.sh knows its tests (and says which when one is not)
	err=$("$REPO_DIR/run.sh" -l "${args[@]}" 2>&1 >/dev/null) || die "--tests: ${err#run.sh: }"
	command -v lava-run >/dev/null ||
		die "lava-run not found (apt-get install --no-install-recommends lava-dispatcher)"
	python3 -c 'import jinja2' 2>/dev/null || die "python3's jinja2 not found (apt-get install python3-jinja2)"
	command -v git >/dev/null || die "git not found (apt-get install git)"
	initramfs_check_opts
	check_debian "$DEBIAN_SPEC"
	if ((EXPECT_GIVEN == 0)); then
		EXPECT=$(tr ' ' '\n' <<<"$ISOL_CMDLINE" | grep -E '^(nohz_full|isolcpus)=' | tr '\n' ' ' || true)
		EXPECT=${EXPECT% }
	fi
	[[ -n $OUT ]] || OUT=$LAVA_DIR/out/$(date +%Y%m%d-%H%M%S)
	out_dir_claim "$OUT" "$PROG --output"
	OUT=$(realpath "$OUT")
}

# lava_templates: lava-server's device-type templates, of the version of
# the lava-dispatcher installed, taken from its package into the cache
# (lava-server itself is not installed: it is a whole web service).
# Prints their directory.
lava_templates() {
	local ver dir lock deb
	ver=$(dpkg-query -W -f='${Version}' lava-dispatcher 2>/dev/null) ||
		die "lava-dispatcher is not installed as a Debian package"
	dir=$CACHE_DIR/lava-server/$ver
	mkdir -p "$CACHE_DIR/lava-server"
	exec {lock}>"$CACHE_DIR/lava-server/.lock"
	flock "$lock"
	if [[ ! -e $dir/.ok ]]; then
		note "fetching lava-server $ver's device-type templates into $dir"
		rm -rf "$dir"
		mkdir -p "$dir/deb"
		(cd "$dir/deb" && apt-get download "lava-server=$ver") >"$dir/apt.log" 2>&1 || {
			tail -n 5 "$dir/apt.log" >&2
			die "apt-get download lava-server=$ver failed"
		}
		deb=$(echo "$dir"/deb/lava-server_*.deb)
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$dir" ./usr/share/lava-server/device-types ||
			die "$deb has no device-type templates"
		rm -rf "$dir/deb"
		touch "$dir/.ok"
	fi
	exec {lock}>&-
	echo "$dir/usr/share/lava-server/device-types"
}

# render TEMPLATE OUTPUT TEMPLATE_DIR... -- NAME=VALUE...: a jinja2
# template rendered as lava-server renders device dictionaries and as
# labs render job templates; values true/false become booleans, whole
# numbers integers.
render() {
	python3 - "$@" <<'PY' || die "cannot render $1"
import sys, jinja2
template, output = sys.argv[1], sys.argv[2]
i = sys.argv.index("--")
env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[3:i]),
                         trim_blocks=True, autoescape=False)
def value(v):
    return {"true": True, "false": False}.get(v, int(v) if v.isdigit() else v)
context = {k: value(v) for k, v in (a.split("=", 1) for a in sys.argv[i + 1:])}
with open(output, "w") as f:
    f.write(env.get_template(template).render(**context) + "\n")
PY
}

# definition_repository DIR: a git repository of this tree's lava/ (the
# test definition and its script as they are now, committed or not),
# which lava-run clones as a lab clones the project's
definition_repository() {
	local dir=$1
	mkdir -p "$dir"
	cp -a "$LAVA_DIR" "$dir/lava"
	rm -rf "$dir/lava/out"
	git -C "$dir" init -q
	git -C "$dir" add lava
	git -C "$dir" -c user.name=isolbench -c user.email=isolbench@localhost \
		commit -q -m "isolbench's LAVA test definition" ||
		die "cannot make a git repository of lava/ in $dir"
}

main() {
	parse_args "$@"
	check_args
	trap work_remove EXIT
	local -A kern=()
	local initrd templates kvm=false accel=$ACCEL rc=0 t0=$SECONDS
	kernel_select kern
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/isolbench-lava.XXXXXX")
	initramfs_build initrd "$WORK" lava kern
	note "initramfs: $(du -h "$initrd" | cut -f1), kernel ${kern[image]} (${kern[release]})"
	templates=$(lava_templates)
	[[ $accel != auto ]] || { kvm_usable && accel=kvm || accel=tcg; }
	[[ $accel != kvm ]] || kvm=true
	if [[ -z $REPOSITORY ]]; then
		REPOSITORY=$WORK/definitions
		definition_repository "$REPOSITORY"
	fi
	render qemu-device.jinja2 "$OUT/device.yaml" "$LAVA_DIR" "$templates" -- \
		cpus="$CPUS" memory_mb="$MEM" kvm="$kvm"
	render qemu-job.yaml.jinja2 "$OUT/job.yaml" "$LAVA_DIR" -- \
		kernel_url="file://${kern[image]}" ramdisk_url="file://$initrd" \
		isolation="$ISOL_CMDLINE" repository="$REPOSITORY" revision="$REVISION" \
		tests="$TESTS" target_cpus="$TARGET_CPUS" quick="$QUICK" \
		expect_isolation="$EXPECT" suite_dir="$GUEST_SUITE_DIR" \
		test_timeout="$TEST_TIMEOUT" job_minutes="$JOB_MINUTES"
	note "lava-run: ${kern[release]}, $CPUS vCPUs ($accel), $ISOL_CMDLINE; log: $OUT/output.yaml"
	# The job id names lava-run's working directory
	# (/var/lib/lava/dispatcher/tmp/ID): this process's, unique here.
	lava-run --job-id $$ --output-dir "$OUT/lava" --device "$OUT/device.yaml" \
		"$OUT/job.yaml" 2>"$OUT/output.yaml" >"$OUT/lava-run.out" || rc=$?
	"$LAVA_DIR/job-results.py" "$OUT/output.yaml" --json "$OUT/json" >"$OUT/results.txt" ||
		die "cannot read the job's log $OUT/output.yaml"
	note "lava-run exited $rc after $((SECONDS - t0)) s: $(wc -l <"$OUT/results.txt") test cases in $OUT/results.txt"
	exit "$rc"
}

main "$@"
