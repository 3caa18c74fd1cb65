#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what isolbench needs to build, run and test, with apt-get
# (Debian, Ubuntu) or dnf (Fedora, RHEL). Idempotent: packages already
# present are left alone. Run as root (or it uses sudo).
#
#   --vm    also what vm/ needs to boot kernels in qemu (x86_64 and
#           arm64 guests: the arm64 cross compiler, and Debian's arm64
#           architecture for the arm64 guest's packages), and
#           lava-dispatcher for lava/qemu-job.sh (apt only; it brings
#           lava-run, python3-jinja2 and python3-yaml)
#   --dev   also what the project's own checks use: checkpatch.pl and
#           the kselftest runner from the linux-source package (whose
#           install needs rsync), clang for the libFuzzer run, ShellCheck
#           for every shell file, and the arm64 cross compiler with qemu's
#           user-mode emulator for the cross-built unit tests (apt only)

set -eu

vm="" dev=""
for a in "$@"; do
	case "$a" in
	--vm) vm=1 ;;
	--dev) dev=1 ;;
	*) echo "install-deps: unknown option '$a' (--vm, --dev)" >&2; exit 1 ;;
	esac
done

apt_pkgs=(build-essential pkg-config libhwloc-dev libnuma-dev libtraceevent-dev libtracefs-dev
	  hwloc numactl perl python3
	  linux-perf rt-tests procps)
apt_vm_pkgs=(qemu-system-x86 qemu-system-arm busybox-static cpio kmod xz-utils zstd
	     bc bison flex libelf-dev patch git lava-dispatcher
	     gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
dnf_pkgs=(gcc make hwloc-devel numactl-devel libtraceevent-devel libtracefs-devel
	  hwloc numactl perl python3 perf
	  realtime-tests procps-ng)
dnf_vm_pkgs=(qemu-system-x86 busybox cpio kmod xz zstd bc bison flex
	     elfutils-libelf-devel patch git)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

if command -v apt-get >/dev/null; then
	pkgs=("${apt_pkgs[@]}")
	[ -n "$vm" ] && pkgs+=("${apt_vm_pkgs[@]}")
	[ -n "$dev" ] && pkgs+=(linux-source rsync clang shellcheck
				 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static)
	# the arm64 guest's busybox, bash and GNU tools (vm/arch.sh), with
	# the package lists of both architectures: one update in all
	updated=""
	if [ -n "$vm" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$sudo dpkg --add-architecture arm64
		$sudo apt-get update -q
		updated=1
	fi
	missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	# vm/ fetches Debian's kernels by what the lists hold now
	if [ -z "$updated" ] && { [ -n "$vm" ] || [ ${#missing[@]} -gt 0 ]; }; then
		$sudo apt-get update -q
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
elif command -v dnf >/dev/null; then
	pkgs=("${dnf_pkgs[@]}")
	[ -n "$vm" ] && pkgs+=("${dnf_vm_pkgs[@]}")
	$sudo dnf install -y "${pkgs[@]}"
else
	echo "install-deps: neither apt-get nor dnf found; install by hand: ${apt_pkgs[*]}" >&2
	exit 1
fi
echo "install-deps: all build and run dependencies are installed"
