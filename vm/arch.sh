# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/arch.sh - what differs between an x86_64 and an arm64 guest, in one
# place: Debian's name for the architecture, qemu and its machine, the
# console and the channel, the kernel image's format, and where the
# guest's programs come from (the host's own on x86_64; on another
# architecture the suite cross-built and Debian's packages of that
# architecture).  Sourced by vm/lib.sh; VM_ARCH is vm/run.sh's --arch.

VM_ARCH=${VM_ARCH:-x86_64}

# Debian's packages of the guest's architecture, for its userland on a
# host of another one: busybox, bash, and the GNU tools run.sh relies on
# (vm/stage-initramfs.sh's GNU_TOOLS) with the libraries they link.
readonly ARCH_USERLAND_PKGS=(busybox-static bash-static coreutils sed grep
			     libc6 libacl1 libselinux1 libpcre2-8-0)

arch_check() {
	case $1 in
	x86_64|arm64) ;;
	*) die "--arch must be x86_64 or arm64, not '$1'" ;;
	esac
}

arch_deb() {	# Debian's name of VM_ARCH
	case $VM_ARCH in x86_64) echo amd64 ;; arm64) echo arm64 ;; esac
}

# The host runs the guest's instructions itself: KVM can, and the host's
# own programs run in the guest.
arch_native() {
	case $(uname -m) in
	x86_64) [[ $VM_ARCH == x86_64 ]] ;;
	aarch64) [[ $VM_ARCH == arm64 ]] ;;
	*) return 1 ;;
	esac
}

arch_qemu() {	# qemu's program for VM_ARCH, and its Debian package
	case $VM_ARCH in
	x86_64) echo "qemu-system-x86_64 qemu-system-x86" ;;
	arm64) echo "qemu-system-aarch64 qemu-system-arm" ;;
	esac
}

arch_triplet() {	# the GNU triplet of VM_ARCH: its compilers' prefix, its library folders
	case $VM_ARCH in x86_64) echo x86_64-linux-gnu ;; arm64) echo aarch64-linux-gnu ;; esac
}

arch_kernel() {	# the kernel's name of VM_ARCH (its ARCH=)
	case $VM_ARCH in x86_64) echo x86 ;; arm64) echo arm64 ;; esac
}

arch_console() {	# the guest's console device
	case $VM_ARCH in x86_64) echo ttyS0 ;; arm64) echo ttyAMA0 ;; esac
}

# The guest's channel device: x86's second UART; qemu's arm64 virt board
# has one UART, so a virtio console there.
arch_channel() {
	case $VM_ARCH in x86_64) echo /dev/ttyS1 ;; arm64) echo /dev/hvc0 ;; esac
}

# arch_channel_drivers: the kernel modules the channel needs unless they
# are built in (arm64: the virtio-serial-pci device of arch_qemu_args;
# Debian's 6.1 kernel has them as modules, its 6.12 builds them in)
arch_channel_drivers() {
	case $VM_ARCH in x86_64) ;; arm64) echo virtio_pci virtio_console ;; esac
}

# arch_qemu_args VAR ACCEL CONSOLE CHANNEL: qemu's machine, the console and
# the channel (both logged to files), appended to the array VAR.
arch_qemu_args() {
	local -n aq_argv=$1
	local accel=$2 console=$3 channel=$4 machine=virt,gic-version=3
	[[ $accel != kvm ]] || machine=virt,gic-version=host
	case $VM_ARCH in
	x86_64)
		aq_argv+=(-chardev "file,id=con,path=$console" -serial chardev:con
			  -chardev "file,id=chan,path=$channel" -serial chardev:chan) ;;
	arm64)
		aq_argv+=(-machine "$machine"
			  -chardev "file,id=con,path=$console" -serial chardev:con
			  -chardev "file,id=chan,path=$channel"
			  -device virtio-serial-pci -device "virtconsole,chardev=chan") ;;
	esac
}

# check_kernel_image IMAGE: a kernel qemu boots for VM_ARCH: an x86
# bzImage ("HdrS" at 0x202), an arm64 Image ("ARMd" at 0x38).
check_kernel_image() {
	local img=$1
	case $VM_ARCH in
	x86_64) check_bzimage "$img" ;;
	arm64)
		[[ -f $img && -r $img ]] || die "kernel image '$img' does not exist or is not readable"
		[[ $(dd if="$img" bs=1 skip=$((0x38)) count=4 2>/dev/null | tr -d "\0") == ARMd ]] ||
			die "'$img' is not an arm64 Image (no ARMd magic at 0x38; a compressed vmlinuz.efi is not taken)"
		;;
	esac
}

# arch_suite_build SRC DEST WORK: the suite of SRC built for VM_ARCH
# into DEST, in a copy under WORK (the tree's own programs are the
# host's), static: the guest has no libraries of its own but what
# arch_userland_fetch fetches. Its log: WORK/build.log.
arch_suite_build() {
	local src=$1 dest=$2 work=$3 cross
	cross=$(arch_triplet)-
	note "building the suite for $VM_ARCH: make CROSS_COMPILE=$cross LDFLAGS=-static install, in a copy of $src"
	mkdir -p "$work/src"
	tar -C "$src" --exclude=./.git --exclude=./build --exclude=./vm/cache \
		--exclude=./vm/out -cf - . | tar -C "$work/src" -xf -
	{
		make -C "$work/src" clean &&
		make -C "$work/src" -j"$(nproc)" CROSS_COMPILE="$cross" LDFLAGS=-static \
			install INSTALL_PATH="$dest"
	} >"$work/build.log" 2>&1
}

# arch_userland_fetch: Debian's ARCH_USERLAND_PKGS of VM_ARCH unpacked in
# the cache (once; the lock of vm/stage-kernel.sh's debian_fetch), its
# root printed.
arch_userland_fetch() {
	local deb root=$CACHE_DIR/userland-$VM_ARCH/root stamp=$CACHE_DIR/userland-$VM_ARCH/.ok
	local lock pkg pkgs=() f newest
	mkdir -p "$CACHE_DIR/debs"
	exec {lock}>"$CACHE_DIR/.lock"
	flock "$lock"
	if [[ ! -e $stamp ]]; then
		deb=$(arch_deb)
		for pkg in "${ARCH_USERLAND_PKGS[@]}"; do pkgs+=("$pkg:$deb"); done
		note "fetching the guest's $VM_ARCH userland: ${ARCH_USERLAND_PKGS[*]}"
		(cd "$CACHE_DIR/debs" && apt-get download "${pkgs[@]}") >"$CACHE_DIR/debs/apt.log" 2>&1 || {
			tail -n5 "$CACHE_DIR/debs/apt.log" >&2
			die "apt-get download of the $VM_ARCH userland failed (dpkg --add-architecture $deb; apt-get update)"
		}
		rm -rf "$root"
		mkdir -p "$root"
		for pkg in "${ARCH_USERLAND_PKGS[@]}"; do
			newest=
			for f in "$CACHE_DIR/debs/${pkg}_"*"_$deb.deb"; do
				[[ -e $f ]] || continue
				[[ -n $newest ]] && [[ $(printf '%s\n' "$newest" "$f" | sort -V | tail -n1) == "$newest" ]] ||
					newest=$f
			done
			[[ -n $newest ]] || die "apt-get download left no $pkg:$deb package"
			dpkg-deb -x "$newest" "$root"
		done
		touch "$stamp"
	fi
	exec {lock}>&-
	echo "$root"
}

# arch_userland_check: what arch_userland_fetch needs, before anything
# is fetched: apt knows the packages of VM_ARCH.
arch_userland_check() {
	local deb
	arch_native && return 0
	[[ -e $CACHE_DIR/userland-$VM_ARCH/.ok ]] && return 0
	deb=$(arch_deb)
	apt_cache show "busybox-static:$deb" >/dev/null 2>&1 ||
		die "apt knows no $deb packages for the guest's userland: dpkg --add-architecture $deb; apt-get update (scripts/install-deps.sh --vm does both)"
}
