#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/run.sh - boot a kernel in qemu with a CPU-isolation command line, run the
# isolbench suite inside a busybox initramfs, and bring the KTAP stream and
# the JSON results back.  See docs/vm.md.
#
# Exit status: run.sh's status in the guest (0 pass, 1 fail, ...);
#   2  bad input or a host-side setup error (one line on stderr);
#   3  the guest did not report a status (timeout, panic, crash);
#   129/130/143  interrupted by SIGHUP/SIGINT/SIGTERM (qemu is stopped).

set -euo pipefail

readonly PROG=vm/run.sh
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/lib.sh
. "$VM_DIR/lib.sh"
readonly VM_DIR
readonly REPO_DIR=${VM_DIR%/*}
readonly MARK=@@isolbench-vm@@
# shellcheck source=vm/kbuild.sh
. "$VM_DIR/kbuild.sh"
BUILD_ONLY=0
# --build: what kb_build made (image, release, kodir, info, key)
declare -A KB=()

# Settings (options override).
KERNEL=
MODULES_DIR=
HEADERS_DIR=
DEBIAN_SPEC=
CPUS=$VM_DEFAULT_CPUS
MAX_CPUS=
MEM=$VM_DEFAULT_MEM
ISOL_CMDLINE=$VM_DEFAULT_CMDLINE
APPEND=
TIMEOUT=$VM_DEFAULT_TIMEOUT
KVM_BOOT_TIMEOUT=30
GUEST_EXIT_GRACE=${ISOLBENCH_VM_EXIT_GRACE:-5}
RESULTS_DIR=
ACCEL=auto
SUITE_DIR=
SRC_DIR=$REPO_DIR
KEEP=0
NO_HEADERS=0
EXTRA_BINS=()
GUEST_PRE=
RUN_ARGS=()
QEMU=${QEMU:-qemu-system-x86_64}
readonly GNU_TOOLS=(timeout tail sed mktemp date sort grep)

# Runtime state.
WORK=
INITRD=
NONCE=
QEMU_PID=
CONSOLE_LOG=
CHANNEL_LOG=
KREL=

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
                         cmdline.txt, vm-info.txt, suite/ (run.sh -o)
      --keep             keep the work directory (initramfs, logs)
  -h, --help

Everything after -- goes to run.sh (do not pass -o; the harness sets it).
Exit: run.sh's status; 2 bad input/setup error; 3 guest gave no status.
EOF
}

parse_args() {
	while [[ $# -gt 0 ]]; do
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
		-h|--help)	usage; exit 0 ;;
		--)		shift; RUN_ARGS=("$@"); break ;;
		*)		die "unknown option '$1' (try --help)" ;;
		esac
		shift
	done
}

is_uint() {
	[[ $1 =~ ^[0-9]+$ ]]
}

# Every option, before anything is fetched, built or booted (the rules
# vm/ab.sh and vm/bisect-step.sh share are in vm/lib.sh).
check_args() {
	check_machine "$CPUS" "$MAX_CPUS" "$MEM" "$TIMEOUT" "$ACCEL" "$ISOL_CMDLINE" "$APPEND"
	if [[ -n $KERNEL && -n $DEBIAN_SPEC ]]; then
		die "give either --kernel or --debian, not both"
	fi
	if [[ -n $KB_SRC && ( -n $KERNEL || -n $DEBIAN_SPEC ) ]]; then
		die "give one of --build, --kernel and --debian"
	fi
	if [[ -z $KB_SRC ]] && ((${#KB_PATCHES[@]} || ${#KB_CONFIGS[@]} || BUILD_ONLY)); then
		die "--patch, --config and --build-only need --build SRC"
	fi
	if [[ -n $KB_SRC && ( -n $HEADERS_DIR || -n $MODULES_DIR ) ]]; then
		die "--headers and --modules go with --kernel or --debian: --build makes its own"
	fi
	uint_in "$KB_BUILD_FAIL_EXIT" 1 255 ||
		die "--build-failure-exit must be a whole number from 1 to 255, not '$KB_BUILD_FAIL_EXIT'"
	check_run_args "${RUN_ARGS[@]}"
	check_qemu
	[[ -z $MODULES_DIR ]] || check_modules_dir "$MODULES_DIR"
	[[ -z $HEADERS_DIR ]] || ((NO_HEADERS)) || check_headers_dir "$HEADERS_DIR"
	local p
	if ((BUILD_ONLY == 0)); then
		if [[ -n $SUITE_DIR ]]; then
			[[ -x $SUITE_DIR/run.sh ]] || die "suite directory '$SUITE_DIR' has no executable run.sh"
		else
			[[ -f $SRC_DIR/Makefile ]] ||
				die "no Makefile in $SRC_DIR to build the suite (give --suite DIR)"
		fi
		for p in "${EXTRA_BINS[@]}"; do
			command -v "$p" >/dev/null || die "--add-bin: '$p' not found"
		done
		[[ -z $RESULTS_DIR || ! -e $RESULTS_DIR || -d $RESULTS_DIR ]] ||
			die "results directory '$RESULTS_DIR' exists and is not a directory"
	fi
	# the kernel last: these ask apt and read the tree
	if [[ -n $KB_SRC ]]; then
		for p in "${KB_PATCHES[@]}"; do check_file --patch "$p"; done
		for p in "${KB_CONFIGS[@]}"; do check_file --config "$p"; done
		check_kernel_source "$KB_SRC"
	elif [[ -n $KERNEL ]]; then
		check_bzimage "$KERNEL"
	else
		check_debian "${DEBIAN_SPEC:-6.12}"
	fi
	if ((BUILD_ONLY == 0)) && [[ -n $RESULTS_DIR ]]; then
		if ! mkdir -p -- "$RESULTS_DIR" 2>/dev/null || [[ ! -w $RESULTS_DIR ]]; then
			die "cannot create results directory '$RESULTS_DIR'"
		fi
	fi
}

check_qemu() {
	command -v "$QEMU" >/dev/null ||
		die "$QEMU not found (apt-get install qemu-system-x86)"
	[[ -x /bin/busybox ]] ||
		die "/bin/busybox not found (apt-get install busybox-static)"
	command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"
}

# The release string (uname -r) of a bzImage: the header's kernel_version
# field (at 0x20e) points, minus 0x200, at "6.12.0 (user@host) #1 ...".
bzimage_release() {
	local img=$1 off
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$img" | tr -d ' ')
	[[ -n $off && $off != 0 ]] || return 0
	dd if="$img" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# ---------------------------------------------------------------- Debian

# Download the .debs for RELEASE (image, and headers with what they need to
# build modules: -common and linux-kbuild) and extract them into
# vm/cache/debian/RELEASE/root.  Only apt-get download touches the network.
debian_fetch() {
	local rel=$1 root=$CACHE_DIR/debian/$1/root debs=$CACHE_DIR/debs
	local stamp=$CACHE_DIR/debian/$1/.image-ok hstamp=$CACHE_DIR/debian/$1/.headers-ok
	mkdir -p "$debs" "$root"

	if [[ ! -e $stamp ]]; then
		apt-cache show "linux-image-$rel" >/dev/null 2>&1 ||
			die "no Debian package linux-image-$rel (apt-cache search linux-image)"
		note "fetching linux-image-$rel into $CACHE_DIR"
		debian_download "linux-image-$rel" || die "apt-get download linux-image-$rel failed"
		dpkg-deb -x "$(debian_deb_path "linux-image-$rel")" "$root"
		touch "$stamp"
	fi

	if ((NO_HEADERS == 0)) && [[ ! -e $hstamp ]]; then
		if debian_fetch_headers "$rel" "$root"; then
			touch "$hstamp"
		else
			note "headers for $rel unavailable; continuing without (no module build)"
		fi
	fi
}

debian_deb_path() {
	local pkg=$1 ver
	ver=$(apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
	# apt-get download names files pkg_version_arch.deb, with ':' escaped.
	local f
	for f in "$CACHE_DIR/debs/${pkg}_${ver//:/%3a}_"*.deb; do
		[[ -e $f ]] && echo "$f" && return 0
	done
	return 0
}

debian_download() {
	local pkg=$1 log=$CACHE_DIR/debs/apt.log
	[[ -n $(debian_deb_path "$pkg") ]] && return 0
	(cd "$CACHE_DIR/debs" && apt-get download "$pkg") >"$log" 2>&1 || {
		tail -n5 "$log" >&2
		return 1
	}
	[[ -n $(debian_deb_path "$pkg") ]]
}

debian_fetch_headers() {
	local rel=$1 root=$2 hpkg=linux-headers-$1 deps dep pkgs=()
	apt-cache show "$hpkg" >/dev/null 2>&1 || return 1
	# The flavour headers depend on the arch-independent -common headers and
	# on linux-kbuild (the scripts/ and tools/ the headers link to).
	deps=$(apt-cache show "$hpkg" | sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n')
	pkgs=("$hpkg")
	while read -r dep; do
		[[ $dep =~ ^(linux-headers-[^ ]*-common[^ ]*|linux-kbuild-[^ ]*) ]] &&
			pkgs+=("${BASH_REMATCH[1]}")
	done <<<"$deps"
	note "fetching ${pkgs[*]}"
	for dep in "${pkgs[@]}"; do
		debian_download "$dep" || return 1
		dpkg-deb -x "$(debian_deb_path "$dep")" "$root"
	done
	# The flavour Makefile includes the -common one by absolute path
	# (/usr/src/...); point it into the cache instead.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$rel/Makefile"
}

# ---------------------------------------------------------------- kernel

select_kernel() {
	if [[ -n $KB_SRC ]]; then
		kb_build KB
		KERNEL=${KB[image]}
		KREL=${KB[release]}
		HEADERS_DIR=
		return 0
	fi
	if [[ -z $KERNEL ]]; then
		local spec=${DEBIAN_SPEC:-6.12}
		KREL=$(debian_resolve "$spec")
		[[ -n $KREL ]] || die "no Debian kernel matches '$spec' (apt-cache search linux-image)"
		# Concurrent runs (make -j, two CI jobs) share the cache: one
		# fetches and unpacks, the others wait for it.
		mkdir -p "$CACHE_DIR"
		local lock
		exec {lock}>"$CACHE_DIR/.lock"
		flock "$lock"
		debian_fetch "$KREL"
		exec {lock}>&-
		local root=$CACHE_DIR/debian/$KREL/root
		KERNEL=$root/boot/vmlinuz-$KREL
		[[ -n $MODULES_DIR ]] || MODULES_DIR=$root/lib/modules/$KREL
		if [[ -z $HEADERS_DIR && -e $CACHE_DIR/debian/$KREL/.headers-ok ]] && ((NO_HEADERS == 0)); then
			HEADERS_DIR=$root/usr/src/linux-headers-$KREL
		fi
		check_bzimage "$KERNEL"
	else
		check_bzimage "$KERNEL"
		KREL=$(bzimage_release "$KERNEL")
		if [[ -n $MODULES_DIR ]]; then
			[[ -d $MODULES_DIR ]] || die "modules directory '$MODULES_DIR' does not exist"
			if [[ -z $HEADERS_DIR && -e $MODULES_DIR/build/Makefile ]]; then
				HEADERS_DIR=$MODULES_DIR/build
			fi
		fi
	fi
	((NO_HEADERS == 0)) || HEADERS_DIR=
	if [[ -n $HEADERS_DIR ]]; then
		[[ -e $HEADERS_DIR/Makefile ]] || die "headers directory '$HEADERS_DIR' has no Makefile"
	fi
	KERNEL=$(realpath "$KERNEL")
}

# ---------------------------------------------------------------- suite

prepare_suite() {
	local dest=$1
	if [[ -n $SUITE_DIR ]]; then
		[[ -x $SUITE_DIR/run.sh ]] || die "suite directory '$SUITE_DIR' has no executable run.sh"
		cp -a "$SUITE_DIR/." "$dest/"
	else
		[[ -f $SRC_DIR/Makefile ]] ||
			die "no Makefile in $SRC_DIR to build the suite (give --suite DIR)"
		note "building the suite: make -C $SRC_DIR install"
		make -C "$SRC_DIR" install INSTALL_PATH="$dest" >"$WORK/build.log" 2>&1 || {
			tail -n 20 "$WORK/build.log" >&2
			die "make install failed (log above)"
		}
		[[ -x $dest/run.sh ]] || die "make install left no run.sh in $dest"
	fi
}

# Build module/ for the guest kernel when there are headers.  A .ko that
# came with the suite was built for some other kernel (the host's); it would
# only fail to load, so it is replaced or removed.
prepare_module() {
	local dest=$1 src='' ko old d
	if [[ -n ${KB[kodir]:-} ]]; then
		# --build: module/ was built against the kernel with it.
		rm -f "$dest"/module/*.ko
		for ko in "${KB[kodir]}"/*.ko; do
			[[ -e $ko ]] || continue
			mkdir -p "$dest/module"
			cp "$ko" "$dest/module/"
			note "module: $(basename "$ko") built with $KREL"
		done
		return 0
	fi
	for d in "$SUITE_DIR/module" "$SRC_DIR/module"; do
		if [[ -n $d && ( -f $d/Makefile || -f $d/Kbuild ) ]]; then
			src=$d
			break
		fi
	done
	if [[ -z $src ]]; then
		note "no module/ source; nothing to build"
		return 0
	fi
	if [[ -z $HEADERS_DIR ]]; then
		note "no headers for $KREL: module/ not built (tests needing it will skip)"
		for old in "$dest"/module/*.ko; do
			[[ -e $old ]] && rm -f "$old" && note "left module/${old##*/} out of the guest (not built for $KREL)"
		done
		return 0
	fi
	rm -rf "$WORK/module"
	cp -a "$src" "$WORK/module"
	make -C "$WORK/module" clean >/dev/null 2>&1 || true
	note "building module/ against $HEADERS_DIR"
	local kbuild_vars=()
	# Kernels with module BTF run pahole at the end of the build; without it
	# (package dwarves) the build fails, and a module loads fine without BTF.
	if ! command -v pahole >/dev/null; then
		kbuild_vars=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	fi
	if ! make -C "$HEADERS_DIR" M="$WORK/module" "${kbuild_vars[@]}" modules \
		>"$WORK/module.log" 2>&1; then
		tail -n 20 "$WORK/module.log" >&2
		note "module build failed for $KREL (log above); continuing without it"
		rm -f "$dest"/module/*.ko
		return 0
	fi
	mkdir -p "$dest/module"
	rm -f "$dest"/module/*.ko
	for ko in "$WORK"/module/*.ko; do
		[[ -e $ko ]] || continue
		cp "$ko" "$dest/module/"
		note "module: $(basename "$ko") built for $KREL"
	done
}

# Copy a host file into the initramfs at the same path.
copy_to_root() {
	local f=$1 root=$2
	[[ -e $root$f ]] && return 0
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
}

# Copy the shared libraries (and the dynamic loader) an ELF file needs.
copy_libs() {
	local elf=$1 root=$2 lib missing
	missing=$(ldd "$elf" 2>/dev/null | awk '/=> not found/ { print $1 }' | tr '\n' ' ' || true)
	[[ -z $missing ]] || die "${elf##*/} needs ${missing% }, which the host does not have"
	# ldd fails on static binaries; that just means nothing to copy.
	for lib in $(ldd "$elf" 2>/dev/null | grep -oE '(^|[[:space:]])/[^ ]+' || true); do
		[[ -e $lib ]] && copy_to_root "$lib" "$root"
	done
}

is_elf() {
	[[ $(head -c4 "$1" 2>/dev/null | tr -d '\0') == $'\x7fELF' ]]
}

# Interpreter of a script ("#!/bin/bash", "#!/usr/bin/env bash" -> bash).
script_interpreter() {
	local line words=()
	IFS= read -r line <"$1" || true
	[[ $line == '#!'* ]] || return 0
	line=${line#'#!'}
	read -ra words <<<"$line"
	if [[ ${words[0]##*/} == env ]]; then
		command -v "${words[1]}" || true
	else
		echo "${words[0]}"
	fi
}

build_initramfs() {
	local root=$WORK/root image=$WORK/initramfs.cpio.gz f interp nonce=$1 bin
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,results}
	cp /bin/busybox "$root/bin/busybox"
	copy_libs /bin/busybox "$root"
	install -m 0755 "$VM_DIR/guest-init.sh" "$root/init"

	mkdir -p "$root/isolbench"
	prepare_suite "$root/isolbench"
	prepare_module "$root/isolbench"

	# Everything the suite runs: ELF programs need their libraries, scripts
	# their interpreter (busybox sh covers /bin/sh; bash is copied).
	while IFS= read -r -d '' f; do
		if is_elf "$f"; then
			copy_libs "$f" "$root"
		else
			interp=$(script_interpreter "$f")
			case $interp in
			''|/bin/sh|/usr/bin/sh) ;;
			*)
				[[ -x $interp ]] || die "$f needs $interp, which the host does not have"
				copy_to_root "$interp" "$root"
				copy_libs "$interp" "$root"
				# #!/usr/bin/env bash looks the interpreter up in PATH.
				[[ -e $root/bin/${interp##*/} ]] || ln -s "$interp" "$root/bin/${interp##*/}"
				;;
			esac
		fi
	done < <(find "$root/isolbench" -type f -perm -u+x -print0)

	# run.sh relies on GNU behaviour busybox lacks (tail -f --pid, sed -u,
	# timeout's 124 exit); these host tools go first in the guest's PATH.
	mkdir -p "$root/usr/local/bin"
	for bin in "${GNU_TOOLS[@]}"; do
		f=$(command -v "$bin") || continue
		cp -L "$f" "$root/usr/local/bin/"
		copy_libs "$f" "$root"
	done
	for bin in "${EXTRA_BINS[@]}"; do
		f=$(command -v "$bin") || die "--add-bin: '$bin' not found"
		cp -L "$f" "$root/usr/local/bin/"
		copy_libs "$f" "$root"
	done

	printf 'NONCE=%s\nSUITE_DIR=/isolbench\n' "$nonce" >"$root/etc/isolbench-vm.conf"
	if [[ -n $GUEST_PRE ]]; then
		printf '%s\n' "$GUEST_PRE" >"$root/etc/isolbench-vm.pre"
	fi
	if ((${#RUN_ARGS[@]})); then
		printf '%s\n' "${RUN_ARGS[@]}" >"$root/etc/isolbench-vm.args"
	else
		: >"$root/etc/isolbench-vm.args"
	fi
	# --build: the build record, which vm/guest-init.sh names in
	# ISOLBENCH_KERNEL_BUILD; the suite's result writer embeds it.
	if [[ -n ${KB[info]:-} ]]; then
		cp "${KB[info]}" "$root/etc/isolbench-build.json"
	fi

	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$image"
	INITRD=$image
}

# ---------------------------------------------------------------- qemu

# A KVM that failed to boot a guest on this host since it last booted is
# remembered, so the next run goes straight to TCG instead of waiting again.
kvm_fail_stamp() {
	echo "$CACHE_DIR/kvm-failed.$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)"
}

guest_cmdline() {
	local accel=$1
	local maxcpus=''
	[[ -z $MAX_CPUS ]] || maxcpus=maxcpus=$CPUS
	echo "console=ttyS0 rdinit=/init panic=-1 quiet isolbench.vm=$accel $maxcpus $ISOL_CMDLINE $APPEND" |
		tr -s " " | sed "s/ $//"
}

# Start qemu in the background; sets QEMU_PID.
start_qemu() {
	local accel=$1 initrd=$2 smp cpu
	smp=$CPUS
	# --max-cpus: all vCPUs present, the kernel brings only --cpus online
	# (maxcpus=); the rest are possible and can be onlined through sysfs.
	# qemu's own maxcpus hotplug slots did not become possible CPUs under
	# Debian 6.12 ("plus 0 hotplug CPUs"); present-but-offline ones do.
	[[ -z $MAX_CPUS ]] || smp=$MAX_CPUS
	local accel_opt=$accel
	if [[ $accel == kvm ]]; then
		cpu=host
	else
		cpu=max
		# Multi-threaded TCG crashed 2 of 8 boots here with "Oops: int3"
		# in code the kernel was live-patching (text_poke on one vCPU,
		# stale translation on another); one thread for all vCPUs: 0 of 8,
		# and no slower to boot on a 2-CPU host.
		accel_opt=tcg,thread=single
	fi
	: >"$CONSOLE_LOG"
	: >"$CHANNEL_LOG"
	# A fresh channel: reopen the reader and forget the last attempt.
	if [[ -n $CHAN_FD ]]; then
		exec {CHAN_FD}<&-
		CHAN_FD=
	fi
	CHAN_PARTIAL='' CHAN_STATE=boot GUEST_STATUS='' GUEST_BOOTED=0
KVM_FAILURE=
QEMU_LOG=
	rm -f "$RESULTS_DIR/ktap.txt"
	local append
	QEMU_LOG=$WORK/qemu-$accel.log
	append=$(guest_cmdline "$accel")
	"$QEMU" -nodefaults -no-user-config -display none -no-reboot \
		-accel "$accel_opt" -cpu "$cpu" -smp "$smp" -m "$MEM" \
		-kernel "$KERNEL" -initrd "$initrd" \
		-append "$append" \
		-chardev file,id=con,path="$CONSOLE_LOG" -serial chardev:con \
		-chardev file,id=chan,path="$CHANNEL_LOG" -serial chardev:chan \
		</dev/null >"$QEMU_LOG" 2>&1 &
	QEMU_PID=$!
}

stop_qemu() {
	local pid=$QEMU_PID i
	[[ -n $pid ]] || return 0
	QEMU_PID=
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

qemu_running() {
	[[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null
}

# Channel reader: incremental, so a long run is streamed as it happens.
CHAN_FD=
CHAN_PARTIAL=
CHAN_STATE=boot	# boot, ktap, ktap-done, results, finished
GUEST_STATUS=
GUEST_BOOTED=0

# A guest with fewer possible CPUs than --max-cpus asked for would make
# tests about possible-but-offline CPUs vacuous: say so.
check_possible() {
	local kv=$1 last
	[[ -n $MAX_CPUS && $kv == possible=* ]] || return 0
	last=${kv##*[-,=]}
	if is_uint "$last" && ((last + 1 < MAX_CPUS)); then
		note "warning: --max-cpus $MAX_CPUS but the guest has only $((last + 1)) possible CPUs"
	fi
}

handle_channel_line() {
	local line=${1%$'\r'} word rest
	if [[ $line == "$MARK $NONCE "* ]]; then
		rest=${line#"$MARK $NONCE "}
		word=${rest%% *}
		[[ $rest == *' '* ]] && rest=${rest#* } || rest=
		case $word in
		boot)		GUEST_BOOTED=1; note "guest up: kernel $rest" ;;
		cpu)		note "guest cpu $rest"
				check_possible "$rest" ;;
		ktap-begin)	CHAN_STATE=ktap ;;
		ktap-end)	CHAN_STATE=ktap-done ;;
		results-begin)	CHAN_STATE=results ;;
		results-end)	CHAN_STATE=ktap-done ;;
		exit)		GUEST_STATUS=$rest; CHAN_STATE=finished ;;
		esac
		return 0
	fi
	if [[ $CHAN_STATE == ktap ]]; then
		# Live view, and a copy that survives a guest that dies mid-run
		# (the clean copy from the guest's results replaces it).
		printf '%s\n' "$line"
		printf '%s\n' "$line" >>"$RESULTS_DIR/ktap.txt"
	fi
	return 0
}

drain_channel() {
	local line
	[[ -n $CHAN_FD ]] || exec {CHAN_FD}<"$CHANNEL_LOG"
	while :; do
		if IFS= read -r -u "$CHAN_FD" line; then
			handle_channel_line "$CHAN_PARTIAL$line"
			CHAN_PARTIAL=
		else
			CHAN_PARTIAL+=$line
			break
		fi
	done
}

# Wait for qemu to exit or the deadline; with boot_limit > 0, give up
# (return 1) if the guest has not said "boot" by then.
wait_for_guest() {
	local deadline=$1 boot_limit=$2 now done_at=
	while qemu_running; do
		drain_channel
		now=$SECONDS
		# The results are complete once the exit line is in: a guest
		# that halts instead of powering off is stopped after a grace.
		if [[ $CHAN_STATE == finished ]]; then
			[[ -n $done_at ]] || done_at=$now
			if ((now - done_at >= GUEST_EXIT_GRACE)); then
				note "the guest sent its results but did not power off; stopping it"
				stop_qemu
				return 0
			fi
		fi
		if [[ $QEMU_LOG == *kvm* ]] && ((GUEST_BOOTED == 0)); then
			if ((boot_limit > 0 && now >= boot_limit)); then
				KVM_FAILURE="the guest did not boot within ${KVM_BOOT_TIMEOUT}s"
				return 1
			fi
			# KVM failures show up on qemu's stderr (here: "KVM internal
			# error. Suberror: 1 ... emulation failure" and a register dump).
			if grep -qE 'KVM internal error|^EFER=' "$QEMU_LOG" 2>/dev/null; then
				KVM_FAILURE="qemu: $(grep -m1 -E 'KVM internal error|^EFER=' "$QEMU_LOG")"
				return 1
			fi
		fi
		((now < deadline)) || return 2
		sleep 0.2
	done
	wait "$QEMU_PID" 2>/dev/null || true
	QEMU_PID=
	drain_channel
	return 0
}

show_console_tail() {
	local lines=${1:-30}
	[[ -s $CONSOLE_LOG ]] || { note "(the guest console is empty)"; return 0; }
	note "last $lines lines of the guest console ($CONSOLE_LOG):"
	tail -n "$lines" "$CONSOLE_LOG" | tr -d '\r' | sed 's/^/  | /' >&2
}

extract_results() {
	local dest=$1
	grep -q "^$MARK $NONCE results-end" "$CHANNEL_LOG" || {
		note "no results came back from the guest"
		return 0
	}
	awk -v b="$MARK $NONCE results-begin" -v e="$MARK $NONCE results-end" '
		{ sub(/\r$/, "") }
		$0 == b { on = 1; next }
		$0 == e { on = 0; exit }
		on { print }' "$CHANNEL_LOG" | base64 -d | tar -xzf - -C "$dest" ||
		note "could not unpack the guest's results"
}

# shellcheck disable=SC2317  # runs from a trap
on_signal() {
	local sig=$1
	trap - INT TERM HUP
	note "interrupted by SIG$sig; stopping qemu"
	stop_qemu
	[[ -n $CONSOLE_LOG ]] && show_console_tail
	case $sig in
	INT) exit 130 ;;
	HUP) exit 129 ;;
	*) exit 143 ;;
	esac
}

# shellcheck disable=SC2317  # runs from a trap
cleanup() {
	stop_qemu
	if [[ -n $WORK && -d $WORK ]]; then
		if ((KEEP)); then
			note "work directory kept: $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
}

main() {
	parse_args "$@"
	check_args

	trap cleanup EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP

	select_kernel
	if ((BUILD_ONLY)); then
		echo "$KERNEL"
		exit 0
	fi
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/isolbench-vm.XXXXXX")
	NONCE=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')

	if [[ -z $RESULTS_DIR ]]; then
		RESULTS_DIR=$VM_DIR/out/$(date +%Y%m%d-%H%M%S)-${KREL:-kernel}
	fi
	mkdir -p "$RESULTS_DIR" || die "cannot create results directory '$RESULTS_DIR'"
	RESULTS_DIR=$(realpath "$RESULTS_DIR")
	CONSOLE_LOG=$RESULTS_DIR/console.log
	CHANNEL_LOG=$WORK/channel.log

	local t0=$SECONDS accel deadline rc
	build_initramfs "$NONCE"
	note "initramfs: $(du -h "$INITRD" | cut -f1), kernel $KERNEL (${KREL:-release unknown})"

	accel=$ACCEL
	if [[ $accel == auto ]]; then
		accel=tcg
		if kvm_usable; then
			if [[ -e $(kvm_fail_stamp) ]]; then
				note "KVM failed to boot a guest earlier since this host booted; using TCG"
			else
				accel=kvm
			fi
		fi
	fi

	deadline=$((SECONDS + TIMEOUT))
	if [[ $accel == kvm ]]; then
		note "booting with KVM: $(guest_cmdline kvm)"
		start_qemu kvm "$INITRD"
		local limit=0
		[[ $ACCEL == auto ]] && limit=$((SECONDS + KVM_BOOT_TIMEOUT))
		rc=0
		wait_for_guest "$deadline" "$limit" || rc=$?
		if ((rc == 1)) && [[ $ACCEL == kvm ]]; then
			stop_qemu
			note "KVM failed (${KVM_FAILURE}); not falling back because of --accel kvm"
			sed 's/^/  | /' "$QEMU_LOG" | head -n 20 >&2
		elif ((rc == 1)) || ((rc == 0 && GUEST_BOOTED == 0 && limit > 0)); then
			stop_qemu
			note "KVM did not work (${KVM_FAILURE:-qemu exited before the guest booted}); falling back to TCG"
			mkdir -p "$CACHE_DIR" && touch "$(kvm_fail_stamp)"
			accel=tcg
		fi
	fi
	if [[ $accel == tcg ]]; then
		note "booting with TCG (software emulation; timings mean little): $(guest_cmdline tcg)"
		start_qemu tcg "$INITRD"
		rc=0
		wait_for_guest "$deadline" 0 || rc=$?
	fi

	if ((rc == 2)); then
		stop_qemu
		note "timeout: the guest ran longer than ${TIMEOUT}s; stopped it"
	fi

	extract_results "$RESULTS_DIR"
	record_build "$RESULTS_DIR"
	write_vm_info "$accel" $((SECONDS - t0))
	note "accelerator: $accel; $((SECONDS - t0))s; results in $RESULTS_DIR"

	if [[ -z $GUEST_STATUS ]]; then
		((rc == 2)) || note "the guest stopped without reporting a status (panic or crash?)"
		show_console_tail
		exit 3
	fi
	if [[ $GUEST_STATUS != 0 ]]; then
		# run.sh's own complaints (a bad option, say) went to the console.
		note "run.sh exited $GUEST_STATUS in the guest"
		show_console_tail 10
	fi
	exit "$GUEST_STATUS"
}

# --build: the results directory keeps the build record (each result
# carries it as "kernel_build", written in the guest by the suite).
record_build() {
	[[ -z ${KB[info]:-} ]] || cp "${KB[info]}" "$1/build.json"
}

write_vm_info() {
	{
		echo "accel $1"
		echo "seconds $2"
		echo "kernel $KERNEL"
		echo "release ${KREL:-unknown}"
		echo "cpus $CPUS"
		echo "max_cpus ${MAX_CPUS:-$CPUS}"
		echo "mem_mb $MEM"
		echo "cmdline $(guest_cmdline "$1")"
		echo "qemu $("$QEMU" --version | head -n1)"
		echo "headers ${HEADERS_DIR:-none}"
		echo "build ${KB[key]:-none}"
		echo "status ${GUEST_STATUS:-none}"
	} >"$RESULTS_DIR/vm-info.txt"
}

main "$@"
