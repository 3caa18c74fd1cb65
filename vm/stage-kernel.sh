# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/stage-kernel.sh - vm/run.sh's first stage: the kernel to boot.  One
# of: a bzImage given (--kernel, with --modules/--headers), a Debian
# kernel fetched with apt-get download into the cache (--debian), or one
# built by vm/kbuild.sh (--build).  Sourced by vm/run.sh after vm/lib.sh
# and vm/kbuild.sh; docs/vm.md "Kernels" and "Building a kernel".
#
# Input, the options as vm/run.sh parsed them (only read here): KERNEL,
# DEBIAN_SPEC, MODULES_DIR, HEADERS_DIR, NO_HEADERS, BUILD_ONLY and
# vm/kbuild.sh's KB_SRC, KB_PATCHES, KB_CONFIGS, KB_BUILD_FAIL_EXIT.
# Output: kernel_select NAME fills the caller's associative array NAME:
#   image    the bzImage (an absolute path)
#   release  its uname -r ("" when the image does not say)
#   modules  its lib/modules/RELEASE directory, if any
#   headers  a tree to build module/ against, if any
#   kodir    --build: the suite's module/*.ko built with the kernel
#   info     --build: build.json, how the kernel was made
#   key      --build: its cache key
# kernel_select NAME plan (vm/run.sh --dry-run) fetches and builds
# nothing: NAME's plan says what it would do, image where the kernel is
# or would be.
#
# Cache layout (CACHE_DIR, vm/lib.sh): debs/ (downloaded .debs),
# debian/RELEASE/root/ (unpacked; .image-ok and .headers-ok once whole),
# and vm/kbuild.sh's src/, kbuild/ and kernels/.

# The kernel options that contradict each other or need another, before
# anything else is checked.
kernel_check_opts() {
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
	if [[ -n $KB_SRC && $VM_ARCH != x86_64 ]]; then
		die "--build makes x86_64 kernels only; an $VM_ARCH guest boots --debian or --kernel"
	fi
	uint_in "$KB_BUILD_FAIL_EXIT" 1 255 ||
		die "--build-failure-exit must be a whole number from 1 to 255, not '$KB_BUILD_FAIL_EXIT'"
}

# The given --modules and --headers directories.
kernel_check_dirs() {
	[[ -z $MODULES_DIR ]] || check_modules_dir "$MODULES_DIR"
	[[ -z $HEADERS_DIR ]] || ((NO_HEADERS)) || check_headers_dir "$HEADERS_DIR"
}

# The kernel itself, checked last (these ask apt and read the tree).
kernel_check_source() {
	local p
	if [[ -n $KB_SRC ]]; then
		for p in "${KB_PATCHES[@]}"; do check_file --patch "$p"; done
		for p in "${KB_CONFIGS[@]}"; do check_file --config "$p"; done
		check_kernel_source "$KB_SRC"
	elif [[ -n $KERNEL ]]; then
		check_kernel_image "$KERNEL"
	else
		check_debian "${DEBIAN_SPEC:-6.12}"
	fi
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
# Concurrent runs (make -j, two CI jobs) share the cache: one fetches and
# unpacks, the others wait for it.
debian_fetch() {
	local rel=$1 root=$CACHE_DIR/debian/$1/root debs=$CACHE_DIR/debs lock
	local stamp=$CACHE_DIR/debian/$1/.image-ok hstamp=$CACHE_DIR/debian/$1/.headers-ok
	mkdir -p "$CACHE_DIR"
	exec {lock}>"$CACHE_DIR/.lock"
	flock "$lock"
	mkdir -p "$debs" "$root"

	if [[ ! -e $stamp ]]; then
		apt_cache show "linux-image-$rel" >/dev/null 2>&1 ||
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
	exec {lock}>&-
}

debian_deb_path() {
	local pkg=$1 ver
	ver=$(apt_cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
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
	apt_cache show "$hpkg" >/dev/null 2>&1 || return 1
	# The flavour headers depend on the arch-independent -common headers and
	# on linux-kbuild (the scripts/ and tools/ the headers link to): the
	# host's own, so that an arm64 guest's module/ is cross-built here
	# (its headers name the cross compiler, aarch64-linux-gnu-gcc-12).
	deps=$(apt_cache show "$hpkg" | sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n')
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

# headers_tools_run HEADERS: the headers' kbuild tools run on this host
# (fixdep runs, and fails on no arguments; not "cannot execute": 126).
headers_tools_run() {
	local rc=0
	"$1/scripts/basic/fixdep" >/dev/null 2>&1 || rc=$?
	((rc != 126 && rc != 127))
}

# debian_plan NAME RELEASE: what debian_fetch would do, as NAME's plan.
debian_plan() {
	local dir=$CACHE_DIR/debian/$2 plan
	if [[ -e $dir/.image-ok ]]; then
		plan="Debian kernel $2 from the cache ($dir)"
	else
		plan="would fetch linux-image-$2 (apt-get download) into $CACHE_DIR"
	fi
	if ((NO_HEADERS == 0)) && [[ ! -e $dir/.headers-ok ]]; then
		plan+="; would fetch linux-headers-$2 and what it depends on"
	fi
	put "$1" plan "$plan"
}

# ---------------------------------------------------------------- select

# kernel_select NAME [plan]: the kernel of the options, fetched or built
# (with plan: neither); see the top of this file for what NAME gets.
kernel_select() {
	local dry=${2:-} image=$KERNEL release="" modules=$MODULES_DIR headers=$HEADERS_DIR root k
	for k in image release modules headers kodir info key plan; do
		put "$1" "$k" ""
	done
	if [[ -n $KB_SRC ]]; then
		if [[ -n $dry ]]; then
			kb_plan "$1"	# image, release, key, plan
		else
			kb_build "$1"	# image, release, kodir, info, key
		fi
		return 0
	fi
	if [[ -z $image ]]; then
		release=$(debian_resolve "${DEBIAN_SPEC:-6.12}")
		[[ -n $release ]] ||
			die "no Debian kernel matches '${DEBIAN_SPEC:-6.12}' (apt-cache search linux-image)"
		if [[ -n $dry ]]; then
			debian_plan "$1" "$release"
		else
			debian_fetch "$release"
		fi
		root=$CACHE_DIR/debian/$release/root
		image=$root/boot/vmlinuz-$release
		[[ -n $modules ]] || modules=$root/lib/modules/$release
		if [[ -z $headers && -e $CACHE_DIR/debian/$release/.headers-ok ]] && ((NO_HEADERS == 0)); then
			headers=$root/usr/src/linux-headers-$release
		fi
		[[ -n $dry && ! -e $image ]] || check_kernel_image "$image"
	else
		check_kernel_image "$image"
		[[ $VM_ARCH != x86_64 ]] || release=$(bzimage_release "$image")
		put "$1" plan "kernel $(realpath "$image") (--kernel${release:+, release $release})"
		if [[ -n $modules ]]; then
			[[ -d $modules ]] || die "modules directory '$modules' does not exist"
			if [[ -z $headers && -e $modules/build/Makefile ]]; then
				headers=$modules/build
			fi
		fi
	fi
	((NO_HEADERS == 0)) || headers=
	if [[ -n $headers ]] && ! arch_native && ! headers_tools_run "$headers"; then
		# a tree built on the guest's architecture: its kbuild tools are its
		note "module/ is not built: the kbuild tools of $headers do not run here (tests that need it will skip)"
		headers=
	fi
	if [[ -n $headers ]]; then
		[[ -e $headers/Makefile ]] || die "headers directory '$headers' has no Makefile"
	fi
	put "$1" image "$(realpath -m "$image")"
	put "$1" release "$release"
	put "$1" modules "$modules"
	put "$1" headers "$headers"
}
