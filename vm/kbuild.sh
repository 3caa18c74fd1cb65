# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm/kbuild.sh - build a guest kernel for vm/run.sh --build (sourced by
# vm/run.sh; see docs/vm.md "Building a kernel").
#
# Input, set once by the caller's options and only read here: KB_SRC (a
# kernel tree or debian:6.12 / debian:6.1), KB_PATCHES (array, applied in
# order), KB_CONFIGS (array of config fragments), KB_BUILD_FAIL_EXIT;
# REPO_DIR, VM_DIR, and vm/lib.sh (CACHE_DIR, die, note, put, check_file,
# check_kernel_source).
# Output: kb_build NAME fills the caller's associative array NAME:
# image (the bzImage), release, kodir (the suite's modules built against
# it), info (build.json, a JSON object: how the kernel was made), key.
# kb_plan NAME (vm/run.sh --dry-run) fetches and builds nothing: NAME's
# plan says what kb_build would do, image where the kernel is or would be.
#
# The steps of kb_build, each a function below: kb_check_tools, then
# kb_locate (kb_resolve_source, kb_fragment, kb_family and kb_key: the
# cache entry); on a miss, under the family's lock: kb_prepare_tree,
# kb_configure, kb_compile, kb_store.
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

# kb_debian_where VER DIR_VAR PVER_VAR: where debian:VER's tree is or
# will be unpacked, and the package version apt offers.
kb_debian_where() {
	# (names of its own that no caller passes: printf -v would set them)
	local kdw_pkg=linux-source-$1 kdw_ver
	kdw_ver=$(apt_cache show "$kdw_pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
	[[ -n $kdw_ver ]] || die "--build debian:$1: apt knows no package $kdw_pkg (apt-get update?)"
	printf -v "$2" '%s' "$CACHE_DIR/src/$kdw_pkg-$kdw_ver"
	printf -v "$3" '%s' "$kdw_ver"
}

# kb_debian_source VER DIR_VAR ID_VAR: debian:VER -> the unpacked
# linux-source-VER tree in the cache, and what it is.
kb_debian_source() {
	local ver=$1 pkg=linux-source-$1 pver dir deb lock found tarballs
	kb_debian_where "$ver" dir pver
	mkdir -p "$CACHE_DIR/debs" "$CACHE_DIR/src"
	exec {lock}>"$CACHE_DIR/.lock-src"
	flock "$lock"
	if [[ ! -e $dir/.unpacked ]]; then
		kb_check_space
		found=("$CACHE_DIR/debs/${pkg}_${pver//:/%3a}_"*.deb)
		deb=${found[0]}
		if [[ ! -e $deb ]]; then
			note "fetching $pkg $pver (apt-get download)"
			(cd "$CACHE_DIR/debs" && apt-get download "$pkg=$pver") \
				>"$CACHE_DIR/debs/apt.log" 2>&1 ||
				die "apt-get download $pkg=$pver failed: $(tail -n1 "$CACHE_DIR/debs/apt.log")"
			found=("$CACHE_DIR/debs/${pkg}_${pver//:/%3a}_"*.deb)
			deb=${found[0]}
		fi
		note "unpacking $pkg $pver into $dir"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.tmp" --wildcards \
			"./usr/src/$pkg.tar.*" || die "cannot unpack $deb"
		tarballs=("$dir.tmp/usr/src/$pkg".tar.*)
		tar -xf "${tarballs[0]}" -C "$dir.tmp" || die "cannot unpack ${tarballs[0]}"
		mv "$dir.tmp/$pkg" "$dir"
		rm -rf "$dir.tmp"
		touch "$dir/.unpacked"
	fi
	exec {lock}>&-
	printf -v "$2" '%s' "$dir"
	printf -v "$3" '%s' "debian:$pkg=$pver"
}

# kb_git TREE ARGS...: git in the source tree, its index trusted without
# the files' ctimes: each build's hard-linked copy (kb_prepare_tree)
# changes the ctime of every file it links, and git would otherwise read
# the whole tree again to see that nothing changed (about 20 s a build
# for linux-source-6.12 here, against 0.3 s).
kb_git() {
	git -c core.trustctime=false -C "$@"
}

# kb_resolve_source SRC DIR_VAR ID_VAR: the tree to build (a top
# Makefile with VERSION and PATCHLEVEL, Kconfig and arch/x86) and what
# it is: git:COMMIT[+dirty-HASH], tree:PATH@HASH or debian:PKG=VERSION.
kb_resolve_source() {
	local src=$1 id
	check_kernel_source "$src"	# vm/lib.sh
	if [[ $src == debian:* ]]; then
		kb_debian_source "${src#debian:}" "$2" "$3"
		return
	fi
	src=$(realpath "$src")
	if kb_git "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 &&
	   [[ $(kb_git "$src" rev-parse --show-toplevel 2>/dev/null) == "$src" ]]; then
		local head dirty
		head=$(kb_git "$src" rev-parse HEAD)
		dirty=$( { kb_git "$src" diff HEAD; kb_git "$src" ls-files -o --exclude-standard; } | kb_hash)
		if [[ -z $(kb_git "$src" status --porcelain -uno) ]]; then
			id="git:$head"
		else
			id="git:$head+dirty-$dirty"
		fi
	else
		# A plain tree: its files' names, sizes and times.
		id="tree:$src@$(cd "$src" && find . -path ./.git -prune -o -type f \
			-printf '%P %s %T@\n' | LC_ALL=C sort | kb_hash)"
	fi
	printf -v "$2" '%s' "$src"
	printf -v "$3" '%s' "$id"
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

# kb_build_module OUT DEST SCRATCH: the suite's module/ built against the
# kernel in OUT, its .ko files into DEST/module/.  SCRATCH (in the cache,
# under the family lock) is the copy make builds in.
kb_build_module() {
	local out=$1 dest=$2 tmp=$3
	[[ -f $REPO_DIR/module/Makefile || -f $REPO_DIR/module/Kbuild ]] || return 0
	rm -rf "$tmp"
	mkdir -p "$tmp"
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

# kb_write_info FILE SRC_ID KEY RELEASE CC CONFIG: build.json, how the
# kernel was made (docs/result-schema.md "kernel_build").
kb_write_info() {
	local f=$1 src_id=$2 key=$3 release=$4 cc=$5 config=$6 i sep=
	{
		printf '{"source": %s, "source_id": %s, "key": %s, "release": %s,\n' \
			"$(kb_json_str "$KB_SRC")" "$(kb_json_str "$src_id")" \
			"$(kb_json_str "$key")" "$(kb_json_str "$release")"
		printf ' "compiler": %s,\n "patches": [' "$(kb_json_str "$cc")"
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
		printf '],\n "config_sha256": %s}\n' "$(kb_json_str "$(kb_file_sha "$config")")"
	} >"$f"
}

# The tools and files the build needs, before anything is fetched.
kb_check_tools() {
	local f
	for f in "${KB_PATCHES[@]}"; do
		check_file --patch "$f"
	done
	for f in "${KB_CONFIGS[@]}"; do
		check_file --config "$f"
	done
	if ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
		die "make and gcc are needed to build a kernel (scripts/install-deps.sh --vm)"
	fi
	if ((${#KB_PATCHES[@]})) && ! command -v patch >/dev/null; then
		die "patch is needed for --patch (apt-get install patch)"
	fi
}

# kb_fragment VAR: the merged config fragment (vm/guest.config, the
# suite's config, the --config fragments), as text with its last
# newlines kept: it is part of the cache key.
kb_fragment() {
	local c text
	text=$(for c in "$VM_DIR/guest.config" "$REPO_DIR/config" "${KB_CONFIGS[@]}"; do
		[[ -f $c ]] && { cat "$c"; echo; }
	done; printf x)
	printf -v "$1" '%s' "${text%x}"
}

# kb_family SRC_DIR CC: VERSION.PATCHLEVEL-COMPILER_HASH, the builds that
# share one object tree.
kb_family() {
	local ver
	ver=$(sed -nE 's/^(VERSION|PATCHLEVEL) = ([0-9]+)$/\2/p' "$1/Makefile" |
		head -n2 | paste -sd.)
	echo "$ver-$(echo "$2" | kb_hash | cut -c1-8)"
}

# kb_key FAMILY SRC_ID FRAGMENT: the kernel's cache key (the source's
# identity, the merged config, the patches' and the module's contents).
kb_key() {
	local p
	{
		echo "$1 $2"
		printf '%s' "$3"
		for p in "${KB_PATCHES[@]}"; do
			kb_file_sha "$p"
		done
		kb_module_hash
	} | kb_hash
}

# kb_prepare_tree FAM SRC_DIR: FAM/src becomes a fresh hard-linked copy
# of SRC_DIR with the patches applied (cheap; kbuild writes only to O=,
# and patch replaces the files it changes rather than writing into the
# shared inodes).  A file whose size or time differs from the last
# build's copy (the last patches, another commit, another tree) is
# copied instead, so that its new time makes make recompile what uses it
# even when it is older than the objects.
kb_prepare_tree() {
	local fam=$1 from=$2 src=$1/src new=$1/src.new f
	rm -rf "$new"
	mkdir -p "$new"
	for f in "$from"/* "$from"/.[!.]*; do
		[[ -e $f && ${f##*/} != .git && ${f##*/} != .unpacked ]] || continue
		cp -al "$f" "$new/" || die "cannot copy $from to $new"
	done
	: >"$fam/copied"
	if [[ -d $src ]]; then
		(cd "$new" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest.new"
		[[ -f $fam/manifest ]] ||
			(cd "$src" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest"
		LC_ALL=C comm -23 "$fam/manifest.new" "$fam/manifest" | sed 's/ [^ ]* [^ ]*$//' |
		while IFS= read -r f; do
			if [[ -e $src/$f ]]; then
				cp --remove-destination "$from/$f" "$new/$f" &&
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
	(cd "$src" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) >"$fam/manifest.new"
	# what changed since the last build's tree, patches applied and
	# unchanged files' times kept: added, removed or rewritten files
	if [[ -f $fam/manifest ]]; then
		LC_ALL=C comm -3 "$fam/manifest" "$fam/manifest.new" | sed 's/^\t//; s/ [^ ]* [^ ]*$//' |
			LC_ALL=C sort -u >"$fam/changed"
	else
		echo "(no earlier tree)" >"$fam/changed"
	fi
	mv "$fam/manifest.new" "$fam/manifest"
}

# kb_configured FAM FRAGMENT: whether FAM/out/.config still is what
# kb_configure would make: configured from this fragment, and nothing
# that configuring reads changed since (FAM/changed): no Kconfig file (a
# patch may change a default that an old .config would keep), no
# config fragment tinyconfig merges, nothing under scripts/ (kconfig
# itself and the scripts Kconfig runs), not the top Makefile. If not,
# KB_CONFIGURE_WHY says why.
kb_configured() {
	local fam=$1 frag=$2 f
	KB_CONFIGURE_WHY="no configuration yet"
	[[ -f $fam/out/.config && -f $fam/configured && -f $fam/changed ]] || return 1
	KB_CONFIGURE_WHY="another fragment"
	printf '%s' "$frag" | cmp -s - "$fam/fragment" || return 1
	f=$(grep -m1 -E '(^|/)Kconfig[^/]*$|(^|/)configs/|^scripts/|^Makefile$|^\(no earlier tree\)$' "$fam/changed")
	KB_CONFIGURE_WHY="$f changed"
	[[ -z $f ]]
}

# kb_configure FAM FRAGMENT: FAM/out/.config from tinyconfig and the
# fragment, every requested option checked; again only when
# kb_configured says the last one no longer holds (make then recompiles
# only the objects whose options came out different).
kb_configure() {
	local fam=$1 frag=$2 out=$1/out log=$1/build.log
	if kb_configured "$fam" "$frag"; then
		note "configuration kept: the fragment and what configuring reads are unchanged"
		kb_check_config "$fam/fragment" "$out/.config"
		return
	fi
	rm -f "$fam/configured"
	mkdir -p "$out"
	note "configuring ($KB_CONFIGURE_WHY): tinyconfig + $(basename "$VM_DIR")/guest.config + config${KB_CONFIGS[*]:+ + ${KB_CONFIGS[*]}}"
	{ make -C "$fam/src" O="$out" tinyconfig &&
	  printf '%s' "$frag" >>"$out/.config" &&
	  make -C "$fam/src" O="$out" olddefconfig; } >>"$log" 2>&1 || {
		tail -n 15 "$log" | sed 's/^/  | /' >&2
		rm -f "$out/.config"
		die "configuring $KB_SRC failed (last lines of $log above)"
	}
	printf '%s' "$frag" >"$fam/fragment"
	kb_check_config "$fam/fragment" "$out/.config"
	: >"$fam/configured"
}

# kb_compile FAM: make; a failure shows the log's last lines and exits
# KB_BUILD_FAIL_EXIT.
kb_compile() {
	local fam=$1 log=$1/build.log
	note "building $KB_SRC${KB_PATCHES[*]:+ + ${#KB_PATCHES[@]} patch(es)} (make -j$KB_JOBS, log $log)"
	make -C "$fam/src" O="$fam/out" -j"$KB_JOBS" >>"$log" 2>&1 && return 0
	note "kernel build failed; last lines of $log:"
	grep -v '^make\(\[[0-9]*\]\)\?: \(Entering\|Leaving\)' "$log" | tail -n 15 |
		sed 's/^/  | /' >&2
	echo "$PROG: the kernel build of $KB_SRC failed (log $log)" >&2
	exit "$KB_BUILD_FAIL_EXIT"
}

# kb_store FAM ART SRC_ID KEY CC: the artifacts into the cache entry ART
# (bzImage, config, release, module/, build.json), marked complete last.
kb_store() {
	local fam=$1 art=$2 out=$1/out release
	rm -rf "$art"
	mkdir -p "$art"
	cp "$out/arch/x86/boot/bzImage" "$art/bzImage"
	cp "$out/.config" "$art/config"
	release=$(cat "$out/include/config/kernel.release")
	echo "$release" >"$art/release"
	kb_build_module "$out" "$art" "$fam/kmod"
	kb_write_info "$art/build.json" "$3" "$4" "$release" "$5" "$art/config"
	touch "$art/.ok"
}

# kb_locate NAME: the kernel's cache entry, into the caller's
# associative array NAME: src_dir, src_id, cc, frag, fam (the family's
# name), key, art (CACHE_DIR/kernels/KEY).
kb_locate() {
	local src_dir src_id cc frag fam key
	kb_resolve_source "$KB_SRC" src_dir src_id
	cc=$(gcc --version | head -n1)
	kb_fragment frag
	fam=$(kb_family "$src_dir" "$cc")
	key=$(kb_key "$fam" "$src_id" "$frag")
	put "$1" src_dir "$src_dir"
	put "$1" src_id "$src_id"
	put "$1" cc "$cc"
	put "$1" frag "$frag"
	put "$1" fam "$fam"
	put "$1" key "$key"
	put "$1" art "$CACHE_DIR/kernels/$key"
}

# kb_plan NAME: what kb_build would do, fetching and building nothing
# (a Debian source not yet unpacked has no cache key yet); see the top
# of this file.
kb_plan() {
	local dir pver
	local -A kp=()
	kb_check_tools
	if [[ $KB_SRC == debian:* ]]; then
		kb_debian_where "${KB_SRC#debian:}" dir pver
		if [[ ! -e $dir/.unpacked ]]; then
			put "$1" image "$CACHE_DIR/kernels/KEY/bzImage"
			put "$1" plan "would fetch linux-source-${KB_SRC#debian:} $pver (apt-get download), unpack it into $dir, then build it or find it in $CACHE_DIR/kernels"
			return 0
		fi
	fi
	kb_locate kp
	put "$1" image "${kp[art]}/bzImage"
	put "$1" key "${kp[key]}"
	if [[ -e ${kp[art]}/.ok ]]; then
		put "$1" release "$(cat "${kp[art]}/release")"
		put "$1" plan "kernel $(cat "${kp[art]}/release") from the cache (${kp[art]})"
	else
		put "$1" plan "would build $KB_SRC${KB_PATCHES[*]:+ + ${#KB_PATCHES[@]} patch(es)} (make -j$KB_JOBS) into ${kp[art]}"
	fi
}

# kb_build NAME: the kernel of KB_SRC, KB_PATCHES and KB_CONFIGS, built
# or found in the cache; see the top of this file.
kb_build() {
	local fam art lock='' t0=$SECONDS
	local -A kl=()
	kb_check_tools
	kb_locate kl
	art=${kl[art]}
	mkdir -p "$CACHE_DIR/kbuild" "$CACHE_DIR/kernels"
	if [[ ! -e $art/.ok ]]; then
		kb_check_space
		fam=$CACHE_DIR/kbuild/${kl[fam]}
		mkdir -p "$fam"
		fam=$(realpath "$fam")
		exec {lock}>"$fam/.lock"
		flock "$lock"
	fi
	# (looked at again under the lock: a build of the same key that held
	# it, e.g. two bisections at one commit, has stored the kernel)
	if [[ -e $art/.ok ]]; then
		note "kernel $(cat "$art/release") from the cache ($art)"
		[[ -z $lock ]] || exec {lock}>&-
	else
		: >"$fam/build.log"
		kb_prepare_tree "$fam" "${kl[src_dir]}"
		kb_configure "$fam" "${kl[frag]}"
		kb_compile "$fam"
		kb_store "$fam" "$art" "${kl[src_id]}" "${kl[key]}" "${kl[cc]}"
		exec {lock}>&-
		note "built $(cat "$art/release") in $((SECONDS - t0)) s: $art"
	fi
	put "$1" image "$art/bzImage"
	put "$1" release "$(cat "$art/release")"
	put "$1" kodir "$art/module"
	put "$1" info "$art/build.json"
	put "$1" key "${kl[key]}"
}
