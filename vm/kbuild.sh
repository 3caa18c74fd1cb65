# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/kbuild.sh - build a guest kernel for vm/run.sh --build (sourced by
# vm/run.sh; see docs/vm.md "Building a kernel").
#
# Input (set by the caller): KB_SRC (a kernel tree or debian:6.12 /
# debian:6.1), KB_PATCHES (array, applied in order), KB_CONFIGS (array of
# config fragments), REPO_DIR, VM_DIR, and vm/lib.sh (CACHE_DIR, die,
# note, check_file, check_kernel_source).
# Output: KB_KERNEL (bzImage), KB_RELEASE, KB_KODIR (the suite's modules
# built against it), KB_INFO (a JSON object: how the kernel was made).
#
# Layout under CACHE_DIR:
#   kbuild/FAMILY/src     a hard-linked copy of the tree, patches applied
#   kbuild/FAMILY/out     the O= build directory
#   kernels/KEY/          bzImage, config, build.json, module/*.ko
# FAMILY is the kernel's VERSION.PATCHLEVEL and the compiler: all builds
# of one family share the object files, so a patch, a new commit, another
# tree of the same release or another config fragment recompiles only
# what changed (kbuild tracks the config per object; a file whose size or
# time differs from the last build's copy is copied afresh, so that make
# sees it newer).  KEY adds the source's identity, the merged config and
# the patches' contents; a kernel with a known KEY is not rebuilt.

KB_SRC=
KB_PATCHES=()
KB_CONFIGS=()
KB_JOBS=${ISOLBENCH_VM_JOBS:-$(($(nproc) + 1))}
KB_BUILD_FAIL_EXIT=2
KB_KERNEL=
KB_RELEASE=
KB_KODIR=
KB_INFO=

kb_hash() {	# stdin -> first 16 hex digits of its sha256
	sha256sum | cut -c1-16
}

kb_file_sha() {
	sha256sum "$1" | cut -d' ' -f1
}

kb_json_str() {	# a JSON string literal
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	printf '"%s"' "$s"
}

# Free space under CACHE_DIR in MB; a kernel build needs about 2 GB
# (tree links, objects, the copy of the artifacts).
kb_check_space() {
	local need=${ISOLBENCH_VM_MIN_FREE_MB:-3000} avail
	mkdir -p "$CACHE_DIR"
	avail=$(df -Pk "$CACHE_DIR" | awk 'NR == 2 { print int($4 / 1024) }')
	[[ -n $avail ]] || return 0
	((avail >= need)) ||
		die "no disk space for a kernel build: $avail MB free under $CACHE_DIR, need $need MB"
}

# debian:6.12 -> the unpacked linux-source-6.12 tree in the cache.
kb_debian_source() {
	local ver=$1 pkg=linux-source-$1 pver dir deb lock
	pver=$(apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
	[[ -n $pver ]] || die "--build debian:$ver: apt knows no package $pkg (apt-get update?)"
	dir=$CACHE_DIR/src/$pkg-$pver
	KB_SRC_ID="debian:$pkg=$pver"
	mkdir -p "$CACHE_DIR/debs" "$CACHE_DIR/src"
	exec {lock}>"$CACHE_DIR/.lock-src"
	flock "$lock"
	if [[ ! -e $dir/.unpacked ]]; then
		kb_check_space
		deb=$(ls "$CACHE_DIR/debs/${pkg}_${pver//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
		if [[ -z $deb ]]; then
			note "fetching $pkg $pver (apt-get download)"
			(cd "$CACHE_DIR/debs" && apt-get download "$pkg=$pver") \
				>"$CACHE_DIR/debs/apt.log" 2>&1 ||
				die "apt-get download $pkg=$pver failed: $(tail -n1 "$CACHE_DIR/debs/apt.log")"
			deb=$(ls "$CACHE_DIR/debs/${pkg}_${pver//:/%3a}_"*.deb | head -n1)
		fi
		note "unpacking $pkg $pver into $dir"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.tmp" --wildcards \
			"./usr/src/$pkg.tar.*" || die "cannot unpack $deb"
		local tarball
		tarball=$(ls "$dir.tmp/usr/src/$pkg".tar.* | head -n1)
		tar -xf "$tarball" -C "$dir.tmp" || die "cannot unpack $tarball"
		mv "$dir.tmp/$pkg" "$dir"
		rm -rf "$dir.tmp"
		touch "$dir/.unpacked"
	fi
	exec {lock}>&-
	KB_SRC_DIR=$dir
}

# A kernel tree: a top Makefile with VERSION and PATCHLEVEL, Kconfig and
# arch/x86.  Sets KB_SRC_DIR and KB_SRC_ID (what the source is).
kb_resolve_source() {
	local src=$1
	check_kernel_source "$src"	# vm/lib.sh
	if [[ $src == debian:* ]]; then
		kb_debian_source "${src#debian:}"
		return
	fi
	src=$(realpath "$src")
	KB_SRC_DIR=$src
	if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 &&
	   [[ $(git -C "$src" rev-parse --show-toplevel 2>/dev/null) == "$src" ]]; then
		local head dirty
		head=$(git -C "$src" rev-parse HEAD)
		dirty=$( { git -C "$src" diff HEAD; git -C "$src" ls-files -o --exclude-standard; } | kb_hash)
		if [[ -z $(git -C "$src" status --porcelain -uno) ]]; then
			KB_SRC_ID="git:$head"
		else
			KB_SRC_ID="git:$head+dirty-$dirty"
		fi
	else
		# A plain tree: its files' names, sizes and times.
		KB_SRC_ID="tree:$src@$(cd "$src" && find . -path ./.git -prune -o -type f \
			-printf '%P %s %T@\n' | LC_ALL=C sort | kb_hash)"
	fi
}

# Print the requested options of the merged fragment, last value wins:
# "CONFIG_X=y", "CONFIG_X=n" for "# CONFIG_X is not set".
kb_requested() {
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1=\2/p' \
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1=n/p' "$1" |
		awk -F= '{ v[$1] = substr($0, length($1) + 2); if (!($1 in o)) { o[$1] = ++n; k[n] = $1 } }
			END { for (i = 1; i <= n; i++) print k[i] "=" v[k[i]] }'
}

# Every requested option that olddefconfig did not keep, by name.
kb_check_config() {
	local frag=$1 config=$2 line sym want got bad=()
	while IFS= read -r line; do
		sym=${line%%=*}
		want=${line#*=}
		got=$(sed -nE "s/^$sym=(.*)$/\1/p" "$config")
		[[ -n $got ]] || got=n
		[[ $want == "$got" ]] || bad+=("$sym=$want (got $got)")
	done < <(kb_requested "$frag")
	((${#bad[@]} == 0)) && return 0
	rm -f "$config"
	die "config options that did not stick after olddefconfig: ${bad[*]}"
}

# Apply the patches to a fresh copy; on the first failure name the patch
# and its failing hunk, and drop the copy (nothing stays half-applied).
kb_apply_patches() {
	local dir=$1 list=$2 p out hunk file
	: >"$list"
	for p in "${KB_PATCHES[@]}"; do
		if ! out=$(patch -p1 -d "$dir" --dry-run --batch --forward -i "$p" 2>&1); then
			file=$(sed -n 's/^checking file //p; s/^patching file //p' <<<"$out" |
				tail -n1)
			hunk=$(grep -m1 -E 'Hunk #[0-9]+ FAILED|can.t find file|malformed|Only garbage|Reversed' <<<"$out" || true)
			rm -rf "$dir"
			[[ -n $hunk ]] || hunk=$(tail -n1 <<<"$out")
			die "patch $p does not apply to $KB_SRC: ${file:+$file: }${hunk%.}"
		fi
		patch -p1 -d "$dir" --batch --forward --no-backup-if-mismatch -s -i "$p" >/dev/null ||
			{ rm -rf "$dir"; die "patch $p failed after its dry run"; }
		sed -nE 's/^\+\+\+ [^/]*\/([^\t ]+).*/\1/p' "$p" >>"$list"
	done
}

# kb_keep_times OLD NEW LIST...: the files of the LISTs (copied afresh or
# patched in NEW, so their own inodes, timed now) whose content is the
# same as in the last build's tree OLD get OLD's time back.  Patching
# times a file now on every build: without this a patch to a header
# that every object includes (the batch patch's mm_types.h) would
# rebuild the whole kernel every time.  Hard links into the source are
# never touched.
kb_keep_times() {
	local old=$1 new=$2 f
	shift 2
	[[ -d $old ]] || return 0
	LC_ALL=C sort -u "$@" | while IFS= read -r f; do
		if [[ -f $new/$f && -f $old/$f ]] && cmp -s "$new/$f" "$old/$f"; then
			touch -r "$old/$f" "$new/$f"
		fi
	done
}

kb_module_hash() {
	(cd "$REPO_DIR" && find module -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \
		-o -name Makefile -o -name Kbuild \) -print0 2>/dev/null |
		LC_ALL=C sort -z | xargs -0r sha256sum) | kb_hash
}

kb_build_module() {
	local out=$1 dest=$2 tmp
	[[ -f $REPO_DIR/module/Makefile || -f $REPO_DIR/module/Kbuild ]] || return 0
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/isolbench-kmod.XXXXXX")
	cp -a "$REPO_DIR/module/." "$tmp/"
	rm -f "$tmp"/*.ko "$tmp"/*.o "$tmp"/*.mod*
	if make -C "$out" M="$tmp" modules >"$dest/module.log" 2>&1; then
		mkdir -p "$dest/module"
		cp "$tmp"/*.ko "$dest/module/" 2>/dev/null || true
	else
		note "module/ did not build against this kernel (see $dest/module.log)"
	fi
	rm -rf "$tmp"
}

kb_write_info() {
	local f=$1 i sep=
	{
		printf '{"source": %s, "source_id": %s, "key": %s, "release": %s,\n' \
			"$(kb_json_str "$KB_SRC")" "$(kb_json_str "$KB_SRC_ID")" \
			"$(kb_json_str "$KB_KEY")" "$(kb_json_str "$KB_RELEASE")"
		printf ' "compiler": %s,\n "patches": [' "$(kb_json_str "$KB_CC")"
		for i in "${!KB_PATCHES[@]}"; do
			printf '%s{"file": %s, "sha256": %s}' "$sep" \
				"$(kb_json_str "$(realpath "${KB_PATCHES[i]}")")" \
				"$(kb_json_str "$(kb_file_sha "${KB_PATCHES[i]}")")"
			sep=', '
		done
		printf '],\n "config_fragments": ['
		sep=
		for i in "$VM_DIR/guest.config" "$REPO_DIR/config" "${KB_CONFIGS[@]}"; do
			[[ -f $i ]] || continue
			printf '%s{"file": %s, "sha256": %s}' "$sep" \
				"$(kb_json_str "$(realpath "$i")")" "$(kb_json_str "$(kb_file_sha "$i")")"
			sep=', '
		done
		printf '],\n "config_sha256": %s}\n' "$(kb_json_str "$(kb_file_sha "$2")")"
	} >"$f"
}

# The whole build: see the top of this file.
kb_build() {
	local p c frag fam art lock log t0=$SECONDS
	for p in "${KB_PATCHES[@]}"; do
		check_file --patch "$p"
	done
	for c in "${KB_CONFIGS[@]}"; do
		check_file --config "$c"
	done
	command -v make >/dev/null && command -v gcc >/dev/null ||
		die "make and gcc are needed to build a kernel (scripts/install-deps.sh --vm)"
	command -v patch >/dev/null || ((${#KB_PATCHES[@]} == 0)) ||
		die "patch is needed for --patch (apt-get install patch)"
	kb_resolve_source "$KB_SRC"
	KB_CC=$(gcc --version | head -n1)

	mkdir -p "$CACHE_DIR/kbuild" "$CACHE_DIR/kernels"
	frag=$(mktemp "${TMPDIR:-/tmp}/isolbench-frag.XXXXXX")
	for c in "$VM_DIR/guest.config" "$REPO_DIR/config" "${KB_CONFIGS[@]}"; do
		[[ -f $c ]] && { cat "$c"; echo; }
	done >"$frag"
	local ver
	ver=$(sed -nE 's/^(VERSION|PATCHLEVEL) = ([0-9]+)$/\2/p' "$KB_SRC_DIR/Makefile" |
		head -n2 | paste -sd.)
	fam=$ver-$(echo "$KB_CC" | kb_hash | cut -c1-8)
	KB_KEY=$( { echo "$fam $KB_SRC_ID"; cat "$frag"; for p in "${KB_PATCHES[@]}"; do
		kb_file_sha "$p"; done; kb_module_hash; } | kb_hash)
	art=$CACHE_DIR/kernels/$KB_KEY
	KB_KERNEL=$art/bzImage
	KB_KODIR=$art/module
	KB_INFO=$art/build.json
	if [[ -e $art/.ok ]]; then
		KB_RELEASE=$(cat "$art/release")
		note "kernel $KB_RELEASE from the cache ($art)"
		rm -f "$frag"
		return 0
	fi

	kb_check_space
	fam=$CACHE_DIR/kbuild/$fam
	mkdir -p "$fam"
	fam=$(realpath "$fam")
	exec {lock}>"$fam/.lock"
	flock "$lock"
	log=$fam/build.log
	: >"$log"

	# The tree: a fresh hard-linked copy (cheap; kbuild writes only to
	# O=, and patch replaces the files it changes rather than writing
	# into the shared inodes).  A file whose size or time differs from
	# the last build's copy (the last patches, another commit, another
	# tree) is copied instead, so that its new time makes make
	# recompile what uses it even when it is older than the objects.
	local src=$fam/src new=$fam/src.new f
	rm -rf "$new"
	mkdir -p "$new"
	for f in "$KB_SRC_DIR"/* "$KB_SRC_DIR"/.[!.]*; do
		[[ -e $f && ${f##*/} != .git && ${f##*/} != .unpacked ]] || continue
		cp -al "$f" "$new/" || die "cannot copy $KB_SRC_DIR to $new"
	done
	: >"$fam/copied"
	if [[ -d $src ]]; then
		(cd "$new" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest.new"
		[[ -f $fam/manifest ]] ||
			(cd "$src" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest"
		LC_ALL=C comm -23 "$fam/manifest.new" "$fam/manifest" | sed 's/ [^ ]* [^ ]*$//' |
		while IFS= read -r f; do
			if [[ -e $src/$f ]]; then
				cp --remove-destination "$KB_SRC_DIR/$f" "$new/$f" &&
					printf '%s\n' "$f" >>"$fam/copied"
			fi
		done
	fi
	kb_apply_patches "$new" "$fam/patched"
	kb_keep_times "$src" "$new" "$fam/copied" "$fam/patched"
	if [[ -d $src ]]; then
		mv "$src" "$fam/src.old.$$"
		rm -rf "$fam/src.old.$$" &
	fi
	mv "$new" "$src"
	(cd "$src" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest"

	local out=$fam/out
	mkdir -p "$out"
	if [[ ! -f $out/.config ]] || ! cmp -s "$frag" "$fam/fragment"; then
		note "configuring: tinyconfig + $(basename "$VM_DIR")/guest.config + config${KB_CONFIGS[*]:+ + ${KB_CONFIGS[*]}}"
		{ make -C "$src" O="$out" tinyconfig &&
		  cat "$frag" >>"$out/.config" &&
		  make -C "$src" O="$out" olddefconfig; } >>"$log" 2>&1 || {
			tail -n 15 "$log" | sed 's/^/  | /' >&2
			rm -f "$out/.config"
			die "configuring $KB_SRC failed (last lines of $log above)"
		}
		cp "$frag" "$fam/fragment"
	fi
	kb_check_config "$frag" "$out/.config"
	rm -f "$frag"

	note "building $KB_SRC${KB_PATCHES[*]:+ + ${#KB_PATCHES[@]} patch(es)} (make -j$KB_JOBS, log $log)"
	if ! make -C "$src" O="$out" -j"$KB_JOBS" >>"$log" 2>&1; then
		note "kernel build failed; last lines of $log:"
		grep -v '^make\(\[[0-9]*\]\)\?: \(Entering\|Leaving\)' "$log" | tail -n 15 |
			sed 's/^/  | /' >&2
		echo "$PROG: the kernel build of $KB_SRC failed (log $log)" >&2
		exit "$KB_BUILD_FAIL_EXIT"
	fi
	rm -rf "$art"
	mkdir -p "$art"
	cp "$out/arch/x86/boot/bzImage" "$art/bzImage"
	cp "$out/.config" "$art/config"
	KB_RELEASE=$(cat "$out/include/config/kernel.release")
	echo "$KB_RELEASE" >"$art/release"
	kb_build_module "$out" "$art"
	kb_write_info "$KB_INFO" "$art/config"
	touch "$art/.ok"
	exec {lock}>&-
	note "built $KB_RELEASE in $((SECONDS - t0)) s: $art"
}
