# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/lib.sh - what the host-side vm/ scripts share: their messages, the
# checks of their options (vm/ab.sh and vm/bisect-step.sh check what they
# hand to vm/run.sh by vm/run.sh's own rules, before anything is fetched,
# built or booted) and the rule for their output directories; messages
# are prefixed with the script's $PROG. Sourced, not run; VM_DIR is set
# by the caller.

readonly CACHE_DIR=${ISOLBENCH_VM_CACHE:-$VM_DIR/cache}
# shellcheck source=vm/arch.sh
. "$VM_DIR/arch.sh"

# vm/run.sh's machine when no option says otherwise.
readonly VM_DEFAULT_CPUS=4
readonly VM_DEFAULT_MEM=1024
readonly VM_DEFAULT_TIMEOUT=900
readonly VM_DEFAULT_CMDLINE="nohz_full=2-3 isolcpus=2-3 rcu_nocbs=2-3"

die() {	# usage or setup error: one line, exit $DIE_STATUS (2 unless set)
	echo "$PROG: ${DIE_CONTEXT:-}$*" >&2
	exit "${DIE_STATUS:-2}"
}

note() {
	echo "$PROG: $*" >&2
}

# apt_cache ARGS...: apt-cache with its package cache in CACHE_DIR/apt.
# Debian's container images turn apt's own off (Dir::Cache::pkgcache
# ""), and then every call reads all package lists again: 2 s here, and
# a guest's boot or a kernel build makes several. apt checks this cache
# against the lists and writes it anew (a temporary file renamed) when
# they change; where it cannot be written apt goes on without it.
apt_cache() {
	mkdir -p "$CACHE_DIR/apt" 2>/dev/null
	apt-cache -o Dir::Cache::pkgcache="$CACHE_DIR/apt/pkgcache.bin" \
		-o Dir::Cache::srcpkgcache="$CACHE_DIR/apt/srcpkgcache.bin" "$@"
}

# work_remove: the run's work directory $WORK removed, or kept and named
# with --keep ($KEEP 1)
work_remove() {
	[[ -n $WORK && -d $WORK ]] || return 0
	if ((KEEP)); then
		note "work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

# put NAME KEY VALUE: VALUE into the caller's associative array NAME, the
# way a function hands back several values (kb_build, kernel_select, ...).
put() {
	local ref=$1[$2]
	printf -v "$ref" '%s' "$3"
}

need_arg() {	# need_arg OPTION "$@": OPTION has a non-empty value
	[[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value"
}

# uint_in VALUE MIN MAX: decimal digits without a leading zero, in
# [MIN, MAX]. Checked as text before bash arithmetic sees it: $((08)) is
# an octal error and 20 digits wrap around.
uint_in() {
	[[ $1 =~ ^(0|[1-9][0-9]{0,9})$ ]] && (($1 >= $2 && $1 <= $3))
}

kvm_usable() {	# for a guest of VM_ARCH
	arch_native && [[ -r /dev/kvm && -w /dev/kvm ]] && (exec 9<>/dev/kvm) 2>/dev/null
}

# Expand a kernel cpulist ("2-3,5", "N" = last CPU, "all") into "2 3 5".
# Prints nothing and fails on syntax we do not understand.
expand_cpulist() {
	local list=$1 ncpus=$2 part lo hi cpus=() parts=()
	[[ $list == all ]] && list="0-N"
	IFS=, read -ra parts <<<"$list"
	for part in "${parts[@]}"; do
		part=${part//N/$((ncpus - 1))}
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
		elif [[ $part =~ ^[0-9]+$ ]]; then
			lo=$part hi=$part
		else
			return 1
		fi
		uint_in "$lo" 0 8191 && uint_in "$hi" 0 8191 || return 1
		((lo <= hi)) || return 1
		for ((; lo <= hi; lo++)); do cpus+=("$lo"); done
	done
	echo "${cpus[*]}"
}

# check_isolation CPUS MAX_CPUS CMDLINE APPEND: refuse command lines the
# kernel would accept but that leave the test meaningless or the guest
# unbootable: CPUs that do not exist, or no CPU left for housekeeping
# (nohz_full/isolcpus covering every vCPU).
check_isolation() {
	local ncpus_online=$1 ncpus=${2:-$1} cmdline=$3 append=$4
	local tok key val cpus cpu isolated=() hk=0 i hint=""
	[[ $cmdline != "$VM_DEFAULT_CMDLINE" ]] ||
		hint=" (the default --cmdline is for 4 vCPUs; give your own)"
	for tok in $cmdline $append; do
		key=${tok%%=*}
		val=${tok#*=}
		case $key in
		nohz_full|isolcpus|rcu_nocbs) ;;
		*) continue ;;
		esac
		[[ $tok == *=* ]] || continue
		if [[ $key == isolcpus ]]; then
			# isolcpus=[flag,...,]cpulist: drop the leading flags.
			while [[ $val =~ ^[a-z_]+,(.*)$ ]]; do val=${BASH_REMATCH[1]}; done
		fi
		cpus=$(expand_cpulist "$val" "$ncpus") ||
			die "cannot parse the CPU list in '$tok'"
		for cpu in $cpus; do
			((cpu < ncpus)) ||
				die "'$tok' isolates CPU $cpu but the guest has only $ncpus vCPUs (0-$((ncpus - 1))): more isolated CPUs than vCPUs$hint"
			[[ $key == rcu_nocbs ]] || isolated[cpu]=1
		done
	done
	for ((i = 0; i < ncpus_online; i++)); do
		[[ -n ${isolated[i]:-} ]] || hk=$((hk + 1))
	done
	local shown
	shown=$(tr -s ' ' <<<"$cmdline $append")
	((hk > 0)) || die "'${shown% }' isolates all $ncpus_online vCPUs: no housekeeping CPU left"
}

# check_machine CPUS MAX_CPUS MEM TIMEOUT ACCEL CMDLINE APPEND: vm/run.sh's
# rules for its machine options (MAX_CPUS empty: as many as CPUS).
check_machine() {
	local cpus=$1 max=$2 mem=$3 timeout=$4 accel=$5
	uint_in "$cpus" 1 1024 ||
		die "--cpus must be a whole number from 1 to 1024, not '$cpus'"
	uint_in "$mem" 128 1048576 ||
		die "--mem must be a whole number of MB from 128 to 1048576, not '$mem'"
	uint_in "$timeout" 10 604800 ||
		die "--timeout must be a whole number of seconds from 10 to 604800, not '$timeout'"
	if [[ -n $max ]] && ! uint_in "$max" "$cpus" 1024; then
		die "--max-cpus must be a whole number from --cpus ($cpus) to 1024, not '$max'"
	fi
	case $accel in kvm|tcg|auto) ;; *) die "--accel must be kvm, tcg or auto, not '$accel'" ;; esac
	[[ $accel != kvm ]] || arch_native ||
		die "--accel kvm: an $VM_ARCH guest cannot run under KVM on this $(uname -m) host"
	[[ $accel != kvm ]] || kvm_usable || die "--accel kvm: /dev/kvm cannot be opened"
	check_isolation "$cpus" "$max" "$6" "$7"
}

# check_machine_opts [OPTION VALUE]...: the machine options a script
# passes to every vm/run.sh it starts (--cpus, --max-cpus, --mem,
# --timeout, --accel, --cmdline, --append; others are skipped), checked
# together as that vm/run.sh will check them, the last of each winning.
check_machine_opts() {
	local cpus=$VM_DEFAULT_CPUS max="" mem=$VM_DEFAULT_MEM timeout=$VM_DEFAULT_TIMEOUT
	local accel=auto cmdline=$VM_DEFAULT_CMDLINE append=""
	while (($# >= 2)); do
		case $1 in
		--cpus)		cpus=$2 ;;
		--max-cpus)	max=$2 ;;
		--mem)		mem=$2 ;;
		--timeout)	timeout=$2 ;;
		--accel)	accel=$2 ;;
		--cmdline)	cmdline=$2 ;;
		--append)	append=$2 ;;
		esac
		shift 2
	done
	check_machine "$cpus" "$max" "$mem" "$timeout" "$accel" "$cmdline" "$append"
}

# check_run_args ARG...: what goes to run.sh in the guest travels one
# argument a line, and its -o is the harness's.
check_run_args() {
	local a
	for a in "$@"; do
		[[ $a != *$'\n'* ]] || die "run.sh arguments must not contain newlines"
	done
	while (($#)); do
		case $1 in
		--) break ;;
		-o|--output) die "run.sh arguments: no $1, the harness sets run.sh's output directory" ;;
		-t|--test|--timeout|--baseline|--metric|--threshold|--threshold-abs|--kcidb)
			shift ;;
		esac
		(($# == 0)) || shift
	done
}

# An x86 bzImage carries "HdrS" at 0x202 (the boot protocol header).
check_bzimage() {
	local img=$1
	[[ -f $img && -r $img ]] || die "kernel image '$img' does not exist or is not readable"
	[[ $(dd if="$img" bs=1 skip=$((0x202)) count=4 2>/dev/null | tr -d "\0") == HdrS ]] ||
		die "'$img' is not an x86 bzImage (no HdrS magic at 0x202)"
}

check_file() {	# check_file OPTION FILE: a readable regular file
	[[ -f $2 && -r $2 ]] || die "$1 '$2': no such file"
}

check_headers_dir() {
	[[ -e $1/Makefile ]] || die "headers directory '$1' has no Makefile"
}

check_modules_dir() {
	[[ -d $1 ]] || die "modules directory '$1' does not exist"
}

# check_kernel_source SRC: what vm/run.sh --build takes: debian:6.12 or
# debian:6.1 (a package apt knows), or a kernel tree (a top Makefile with
# VERSION and PATCHLEVEL, Kconfig and arch/x86) not configured in place.
check_kernel_source() {
	local src=$1 ver
	if [[ $src == debian:* ]]; then
		ver=${src#debian:}
		case $ver in 6.12|6.1) ;; *) die "--build debian:$ver: only debian:6.12 and debian:6.1 are known" ;; esac
		apt_cache show "linux-source-$ver" 2>/dev/null | grep '^Version: ' >/dev/null ||
			die "--build debian:$ver: apt knows no package linux-source-$ver (apt-get update?)"
		return 0
	fi
	[[ -d $src ]] || die "--build '$src': no such directory"
	src=$(realpath "$src")
	if ! grep -q '^VERSION = ' "$src/Makefile" 2>/dev/null ||
	   ! grep -q '^PATCHLEVEL = ' "$src/Makefile" ||
	   [[ ! -f $src/Kconfig || ! -d $src/arch/x86 ]]; then
		die "--build '$src' is not a kernel source tree (no Makefile with VERSION and PATCHLEVEL, Kconfig and arch/x86)"
	fi
	if [[ -e $src/.config || -d $src/include/config ]]; then
		die "--build '$src' has been configured or built in place, which kbuild refuses for O= builds: run 'make -C $src mrproper' (or build from a clean checkout)"
	fi
}

# Map a --debian SPEC to a kernel flavour release of VM_ARCH, e.g. 6.12
# -> 6.12.117+deb12-amd64 (the newest apt knows about).
debian_resolve() {
	local spec=$1 re deb
	deb=$(arch_deb)
	case $spec in
	6.12)		re="^linux-image-6\.12\.[0-9]+\+deb12-$deb\$" ;;
	6.12-rt)	re="^linux-image-6\.12\.[0-9]+\+deb12-rt-$deb\$" ;;
	6.1)		re="^linux-image-6\.1\.0-[0-9]+-$deb\$" ;;
	6.1-rt)		re="^linux-image-6\.1\.0-[0-9]+-rt-$deb\$" ;;
	linux-image-*)	echo "${spec#linux-image-}"; return ;;
	*-"$deb")	echo "$spec"; return ;;
	*-amd64|*-arm64) return 0 ;;	# another architecture's: none
	*)		echo "$spec-$deb"; return ;;
	esac
	apt_cache pkgnames linux-image- 2>/dev/null | grep -E "$re" |
		sort -V | tail -n1 | sed 's/^linux-image-//'
}

# check_debian SPEC: a kernel --debian SPEC can fetch: one apt knows, or
# one already unpacked in the cache.
check_debian() {
	local rel
	[[ $1 != *-amd64 && $1 != *-arm64 || $1 == *-"$(arch_deb)" ]] ||
		die "--debian $1 is not a kernel of the guest's architecture $VM_ARCH (--arch)"
	rel=$(debian_resolve "$1")
	[[ -n $rel ]] || die "no Debian kernel matches '$1' (apt-cache search linux-image)"
	[[ -e $CACHE_DIR/debian/$rel/.image-ok ]] ||
		apt_cache show "linux-image-$rel" >/dev/null 2>&1 ||
		die "no Debian package linux-image-$rel (apt-cache search linux-image)"
}

# Output directories. A script deletes only what it made: each directory
# it clears carries OUT_MARK, a file naming the script and option that
# made it; a directory that is not empty and lacks that mark is refused,
# never cleared.
readonly OUT_MARK=.isolbench-vm-out

# out_dir_check DIR WHAT: DIR does not exist, is empty, or is an earlier
# output of WHAT ("vm/bisect-step.sh --out").
out_dir_check() {
	local dir=$1 what=$2 mark
	[[ -e $dir || -L $dir ]] || return 0
	[[ -d $dir ]] || die "${what#* } '$dir' exists and is not a directory"
	[[ -r $dir && -x $dir ]] || die "${what#* } '$dir' cannot be read"
	[[ -n $(ls -A -- "$dir") ]] || return 0
	mark=$(head -c 200 -- "$dir/$OUT_MARK" 2>/dev/null) || true
	[[ -f $dir/$OUT_MARK && $mark == "$what" ]] ||
		die "${what#* } '$dir' is not empty and not an earlier output of $what: not clearing it (give a new or empty directory)"
}

# out_dir_claim DIR WHAT: DIR as a new, empty output of WHAT; an earlier
# output of WHAT there is deleted (checked again first).
out_dir_claim() {
	local dir=$1 what=$2
	out_dir_check "$dir" "$what"
	if [[ -f $dir/$OUT_MARK ]]; then
		find "$dir" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + ||
			die "cannot clear ${what#* } '$dir'"
	fi
	mkdir -p -- "$dir" || die "cannot create ${what#* } '$dir'"
	printf '%s\n' "$what" >"$dir/$OUT_MARK" || die "cannot write into ${what#* } '$dir'"
}

# paths_overlap A B: A and B are one directory, or one is inside the other.
paths_overlap() {
	local a b
	a=$(realpath -m -- "$1") b=$(realpath -m -- "$2")
	[[ $a == "$b" || $a == "${b%/}"/* || $b == "${a%/}"/* ]]
}
