# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/stage-initramfs.sh - vm/run.sh's second stage: the initramfs the
# guest boots into.  busybox with vm/guest-init.sh as /init, the suite
# (make install, or --suite DIR) under /isolbench with module/ built for
# the guest kernel, the shared libraries and interpreters all of it
# needs, GNU tools run.sh relies on, --add-bin programs, and in /etc the
# run's settings (nonce, run.sh's arguments, --guest-pre) and the
# kernel's build record.  Sourced by vm/run.sh; docs/vm.md "The guest"
# and "Kernel module".
#
# Input, the options as vm/run.sh parsed them (only read here):
# SUITE_DIR, SRC_DIR, EXTRA_BINS, GUEST_PRE, RUN_ARGS; and GUEST_INIT,
# the /init when it is not vm/guest-init.sh (lava/qemu-job.sh's shell
# for LAVA).
# Output: initramfs_build VAR WORK NONCE KERNEL sets VAR to the image's
# path (in WORK); KERNEL names the kernel stage's associative array
# (release, modules, headers, kodir, info).

readonly GNU_TOOLS=(timeout tail sed mktemp date sort grep)

# Where the guest finds the build record; vm/guest-init.sh names it in
# ISOLBENCH_KERNEL_BUILD, and the suite's result writer embeds it.
readonly GUEST_BUILD_JSON=/etc/isolbench-build.json

# A guest of another architecture's userland root (vm/arch.sh), once fetched.
USERLAND=''

# The suite options, before anything is fetched or built.
initramfs_check_opts() {
	local p
	if [[ -n $SUITE_DIR ]]; then
		[[ -x $SUITE_DIR/run.sh ]] || die "suite directory '$SUITE_DIR' has no executable run.sh"
	else
		[[ -f $SRC_DIR/Makefile ]] ||
			die "no Makefile in $SRC_DIR to build the suite (give --suite DIR)"
	fi
	for p in "${EXTRA_BINS[@]}"; do
		command -v "$p" >/dev/null || die "--add-bin: '$p' not found"
		arch_native || die "--add-bin copies the host's programs, which an $VM_ARCH guest cannot run"
	done
	arch_native && return 0
	[[ -n $SUITE_DIR ]] || command -v "$(arch_triplet)-gcc" >/dev/null ||
		die "$(arch_triplet)-gcc not found to build the suite for an $VM_ARCH guest (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
	command -v readelf >/dev/null || die "readelf not found (apt-get install binutils)"
	arch_userland_check
}

# prepare_suite DEST WORK: the suite installed into DEST.
prepare_suite() {
	local dest=$1 work=$2
	if [[ -n $SUITE_DIR ]]; then
		[[ -x $SUITE_DIR/run.sh ]] || die "suite directory '$SUITE_DIR' has no executable run.sh"
		cp -a "$SUITE_DIR/." "$dest/"
	else
		[[ -f $SRC_DIR/Makefile ]] ||
			die "no Makefile in $SRC_DIR to build the suite (give --suite DIR)"
		if arch_native; then
			note "building the suite: make -C $SRC_DIR install"
			make -C "$SRC_DIR" install INSTALL_PATH="$dest" >"$work/build.log" 2>&1
		else
			arch_suite_build "$SRC_DIR" "$dest" "$work"
		fi || {
			tail -n 20 "$work/build.log" >&2
			die "make install failed (log above)"
		}
		[[ -x $dest/run.sh ]] || die "make install left no run.sh in $dest"
	fi
}

# prepare_module DEST WORK RELEASE HEADERS KODIR: module/ for the guest
# kernel: the .ko files --build made (KODIR), else built against HEADERS.
# A .ko that came with the suite was built for some other kernel (the
# host's); it would only fail to load, so it is replaced or removed.
prepare_module() {
	local dest=$1 work=$2 rel=$3 headers=$4 kodir=$5 src='' ko old d
	if [[ -n $kodir ]]; then
		rm -f "$dest"/module/*.ko
		for ko in "$kodir"/*.ko; do
			[[ -e $ko ]] || continue
			mkdir -p "$dest/module"
			cp "$ko" "$dest/module/"
			note "module: $(basename "$ko") built with $rel"
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
	if [[ -z $headers ]]; then
		note "no headers for $rel: module/ not built (tests needing it will skip)"
		for old in "$dest"/module/*.ko; do
			[[ -e $old ]] && rm -f "$old" && note "left module/${old##*/} out of the guest (not built for $rel)"
		done
		return 0
	fi
	rm -rf "$work/module"
	cp -a "$src" "$work/module"
	make -C "$work/module" clean >/dev/null 2>&1 || true
	note "building module/ against $headers"
	local kbuild_vars=()
	# Kernels with module BTF run pahole at the end of the build; without it
	# (package dwarves) the build fails, and a module loads fine without BTF.
	if ! command -v pahole >/dev/null; then
		kbuild_vars=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	fi
	# cross-built for a guest of another architecture (Debian's headers
	# name their compiler themselves)
	arch_native || kbuild_vars+=(ARCH="$(arch_kernel)" CROSS_COMPILE="$(arch_triplet)-")
	if ! make -C "$headers" M="$work/module" "${kbuild_vars[@]}" modules \
		>"$work/module.log" 2>&1; then
		tail -n 20 "$work/module.log" >&2
		note "module build failed for $rel (log above); continuing without it"
		rm -f "$dest"/module/*.ko
		return 0
	fi
	mkdir -p "$dest/module"
	rm -f "$dest"/module/*.ko
	for ko in "$work"/module/*.ko; do
		[[ -e $ko ]] || continue
		cp "$ko" "$dest/module/"
		note "module: $(basename "$ko") built for $rel"
	done
}

# Copy a host file into the initramfs at the same path.
copy_to_root() {
	local f=$1 root=$2
	[[ -e $root$f ]] && return 0
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
}

# Copy the shared libraries (and the dynamic loader) an ELF file needs:
# the host's (ldd), or for a guest of another architecture those of its
# userland (USERLAND, vm/arch.sh), by the file's own NEEDED entries.
copy_libs() {
	local elf=$1 root=$2 lib missing deps
	if ! arch_native; then
		copy_libs_from "$USERLAND" "$elf" "$root"
		return
	fi
	# ldd fails on static binaries; that just means nothing to copy.
	deps=$(ldd "$elf" 2>/dev/null || true)
	missing=$(awk '/=> not found/ { print $1 }' <<<"$deps" | tr '\n' ' ')
	[[ -z $missing ]] || die "${elf##*/} needs ${missing% }, which the host does not have"
	for lib in $(grep -oE '(^|[[:space:]])/[^ ]+' <<<"$deps" || true); do
		[[ -e $lib ]] && copy_to_root "$lib" "$root"
	done
}

# copy_libs_from SYSROOT ELF ROOT: ELF's interpreter and libraries, and
# theirs, from SYSROOT's library directories into ROOT at the same paths.
copy_libs_from() {
	local sys=$1 elf=$2 root=$3 interp lib dir found triplet
	triplet=$(arch_triplet)
	interp=$(readelf -lW "$elf" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[[ -z $interp || -e $root$interp ]] || {
		[[ -e $sys$interp ]] || die "${elf##*/} needs $interp, which the $VM_ARCH userland lacks"
		mkdir -p "$root${interp%/*}"
		cp -L "$sys$interp" "$root$interp"
	}
	for lib in $(readelf -dW "$elf" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		found=
		for dir in "/lib/$triplet" "/usr/lib/$triplet" /lib /usr/lib; do
			[[ -e $sys$dir/$lib ]] || continue
			found=$dir/$lib
			break
		done
		[[ -n $found ]] || die "${elf##*/} needs $lib, which the $VM_ARCH userland lacks"
		[[ -e $root$found ]] && continue
		mkdir -p "$root${found%/*}"
		cp -L "$sys$found" "$root$found"
		copy_libs_from "$sys" "$sys$found" "$root"
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

# guest_program NAME: the file the guest runs as NAME: the host's own, or
# for a guest of another architecture its userland's (bash as the static
# bash-static); nothing when there is none.
guest_program() {
	local name=${1##*/} d
	if arch_native; then
		command -v "$1" || true
		return
	fi
	[[ $name != bash ]] || name=bash-static
	for d in /usr/bin /bin /usr/sbin /sbin; do
		[[ -x $USERLAND$d/$name ]] && echo "$USERLAND$d/$name" && return
	done
	return 0
}

# copy_runtime ROOT: what everything under ROOT/isolbench runs needs: ELF
# programs their libraries, scripts their interpreter (busybox sh covers
# /bin/sh; bash is copied); then the GNU tools and --add-bin programs,
# first in the guest's PATH.
copy_runtime() {
	local root=$1 f interp bin
	while IFS= read -r -d '' f; do
		if is_elf "$f"; then
			copy_libs "$f" "$root"
			continue
		fi
		interp=$(script_interpreter "$f")
		case $interp in
		''|/bin/sh|/usr/bin/sh) ;;
		*)
			[[ -e $root$interp ]] && continue
			bin=$(guest_program "$interp")
			[[ -n $bin ]] || die "$f needs $interp, which the $VM_ARCH guest's programs lack"
			mkdir -p "$root${interp%/*}"
			cp -L "$bin" "$root$interp"
			copy_libs "$bin" "$root"
			# #!/usr/bin/env bash looks the interpreter up in PATH.
			[[ -e $root/bin/${interp##*/} ]] || ln -s "$interp" "$root/bin/${interp##*/}"
			;;
		esac
	done < <(find "$root/isolbench" -type f -perm -u+x -print0)

	# run.sh relies on GNU behaviour busybox lacks (tail -f --pid, sed -u,
	# timeout's 124 exit); these tools go first in the guest's PATH.
	mkdir -p "$root/usr/local/bin"
	for bin in "${GNU_TOOLS[@]}"; do
		f=$(guest_program "$bin")
		[[ -n $f ]] || continue
		cp -L "$f" "$root/usr/local/bin/$bin"
		copy_libs "$f" "$root"
	done
	for bin in "${EXTRA_BINS[@]}"; do
		f=$(command -v "$bin") || die "--add-bin: '$bin' not found"
		cp -L "$f" "$root/usr/local/bin/"
		copy_libs "$f" "$root"
	done
}

# module_file MODULES_DIR NAME: the file of module NAME (its name with
# either - or _) under MODULES_DIR/kernel, if there is one
module_file() {
	local pat=${2//[-_]/[-_]}
	find "$1/kernel" -name "$pat.ko" -o -name "$pat.ko.xz" -o -name "$pat.ko.zst" |
		head -n1
}

# channel_driver_add NAME: for copy_channel_drivers (its mdir, seen and
# order): the modules NAME depends on, then NAME, unless built in
channel_driver_add() {
	local f dep
	[[ -z ${seen[$1]:-} ]] || return 0
	seen[$1]=1
	grep -Eq "/${1//[-_]/[-_]}\.ko(\.xz|\.zst)?$" "$mdir/modules.builtin" 2>/dev/null && return 0
	f=$(module_file "$mdir" "$1")
	[[ -n $f ]] || die "the kernel has no $1, built in or as a module of $mdir: the guest's channel $(arch_channel) needs it"
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
		channel_driver_add "$dep"
	done
	order+=("$f")
}

# copy_channel_drivers ROOT MODULES_DIR: the channel's drivers
# (arch_channel_drivers) that the kernel has as modules, with the modules
# they depend on, into ROOT/lib/modules/isolbench, decompressed; their
# names in load order in ROOT/etc/isolbench-vm.modules, for the guest's
# /init to load before it opens the channel. A driver that is neither
# built in nor a module of the kernel is named, before anything boots.
copy_channel_drivers() {
	local root=$1 mdir=$2 name f
	local -a order=()
	local -A seen=()
	: >"$root/etc/isolbench-vm.modules"
	# (without modules.builtin a missing driver and a built-in one look
	# the same: the guest's /init names a channel that did not come)
	[[ -n $mdir && -e $mdir/modules.builtin && -n $(arch_channel_drivers) ]] || return 0
	for name in $(arch_channel_drivers); do
		channel_driver_add "$name"
	done
	((${#order[@]})) || return 0
	mkdir -p "$root/lib/modules/isolbench"
	for f in "${order[@]}"; do
		name=${f##*/}
		name=${name%%.ko*}.ko
		case $f in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -qdc "$f" ;;
		*) cat "$f" ;;
		esac >"$root/lib/modules/isolbench/$name" || die "cannot copy $f"
		echo "$name" >>"$root/etc/isolbench-vm.modules"
	done
}

# initramfs_build VAR WORK NONCE KERNEL: see the top of this file.
initramfs_build() {
	local work=$2 nonce=$3 root=$2/root image=$2/initramfs.cpio.gz
	local -n ib_kern=$4
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,results}
	arch_native || USERLAND=$(arch_userland_fetch)
	cp "$(arch_native && echo /bin/busybox || echo "$USERLAND/bin/busybox")" "$root/bin/busybox"
	copy_libs "$root/bin/busybox" "$root"
	install -m 0755 "${GUEST_INIT:-$VM_DIR/guest-init.sh}" "$root/init"
	install -m 0644 "$VM_DIR/guest-mounts.sh" "$root/etc/isolbench-mounts.sh"

	mkdir -p "$root/isolbench"
	prepare_suite "$root/isolbench" "$work"
	prepare_module "$root/isolbench" "$work" "${ib_kern[release]}" \
		"${ib_kern[headers]}" "${ib_kern[kodir]}"
	copy_runtime "$root"
	copy_channel_drivers "$root" "${ib_kern[modules]}"

	printf 'NONCE=%s\nSUITE_DIR=/isolbench\nCHANNEL=%s\n' "$nonce" "$(arch_channel)" \
		>"$root/etc/isolbench-vm.conf"
	if [[ -n $GUEST_PRE ]]; then
		printf '%s\n' "$GUEST_PRE" >"$root/etc/isolbench-vm.pre"
	fi
	if ((${#RUN_ARGS[@]})); then
		printf '%s\n' "${RUN_ARGS[@]}" >"$root/etc/isolbench-vm.args"
	else
		: >"$root/etc/isolbench-vm.args"
	fi
	if [[ -n ${ib_kern[info]} ]]; then
		cp "${ib_kern[info]}" "$root$GUEST_BUILD_JSON"
	fi

	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$image"
	printf -v "$1" '%s' "$image"
}
