#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm/run.sh --build, vm/ab.sh and vm/bisect-step.sh on bad input: each is
# one clear line and exit 2 (255 for the bisect step, so that git bisect
# run stops), found before any kernel is compiled. The builds themselves
# (options that do not stick, a build that fails, the bisection) are in
# vm/kernels.t (make check-kernels).
. "$(dirname "$0")/lib.sh"

needs qemu-system-x86_64 patch
plan 33
cd "$TOP" || exit 1
export ISOLBENCH_VM_CACHE=$TMP/cache

# a tree that looks like a kernel tree to kbuild's first checks
K=$TMP/linux
mkdir -p "$K/arch/x86" "$K/kernel"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n' >"$K/Makefile"
echo 'mainmenu "fake"' >"$K/Kconfig"
printf 'int a;\nint b;\nint c;\n' >"$K/kernel/a.c"
printf 'int x;\nint y;\nint z;\n' >"$K/kernel/b.c"
sum_before=$(cd "$K" && find . -type f -exec sha256sum {} + | sort | sha256sum)

expect 2 "--build of a directory that is no kernel tree" "is not a kernel source tree" \
	vm/run.sh --build "$TOP/tests" --build-only
expect 2 "--build of a missing directory" "no such directory" \
	vm/run.sh --build "$TMP/nonexistent" --build-only
expect 2 "--patch without --build" "need --build" vm/run.sh --patch x.patch
expect 2 "--build with --debian" "one of --build, --kernel and --debian" \
	vm/run.sh --build "$K" --debian 6.12
expect 2 "--build debian:5.10" "only debian:6.12 and debian:6.1" \
	vm/run.sh --build debian:5.10 --build-only
expect 2 "a missing patch file" "--patch '$TMP/none.patch': no such file" \
	vm/run.sh --build "$K" --patch "$TMP/none.patch" --build-only
expect 2 "a missing config fragment" "--config '$TMP/none.config': no such file" \
	vm/run.sh --build "$K" --config "$TMP/none.config" --build-only

# a patch whose first file applies and whose second does not
cat >"$TMP/half.patch" <<'EOF'
--- a/kernel/a.c
+++ b/kernel/a.c
@@ -1,3 +1,3 @@
 int a;
-int b;
+long b;
 int c;
--- a/kernel/b.c
+++ b/kernel/b.c
@@ -1,3 +1,3 @@
 int x;
-int q;
+long q;
 int z;
EOF
cat >"$TMP/good.patch" <<'EOF'
--- a/kernel/a.c
+++ b/kernel/a.c
@@ -1,3 +1,3 @@
 int a;
-int b;
+short b;
 int c;
EOF
expect 2 "a patch that does not apply" "patch $TMP/half.patch does not apply to .*: kernel/b.c: Hunk #1 FAILED" \
	vm/run.sh --build "$K" --patch "$TMP/half.patch" --build-only
expect 2 "the second of two patches does not apply" "patch $TMP/half.patch does not apply" \
	vm/run.sh --build "$K" --patch "$TMP/good.patch" --patch "$TMP/half.patch" --build-only
left=$(find "$ISOLBENCH_VM_CACHE" -path '*/kbuild/*' -name '*.c' 2>/dev/null | wc -l)
[ "$left" -eq 0 ]; ok $? "nothing half-applied is left in the cache ($left files)"
[ "$(cd "$K" && find . -type f -exec sha256sum {} + | sort | sha256sum)" = "$sum_before" ]
ok $? "the user's tree is untouched"

# A relative --patch is read from where the user is, not from the tree
# (patch -d changes directory first).
(cd "$TMP" && "$TOP/vm/run.sh" --build "$K" --patch half.patch --build-only) >"$TMP/out" 2>"$TMP/err"
grep -q "patch $TMP/half.patch does not apply to .*: kernel/b.c: Hunk #1 FAILED" "$TMP/err"
ok $? "a relative --patch path is the user's: $(head -c 200 "$TMP/err")"

# kbuild's times: of the files copied afresh or patched (their own
# inodes), one whose content is the last build's keeps that copy's time
# (make recompiles nothing for it), one that changed keeps its new time.
(
	. vm/kbuild.sh
	o=$TMP/kt/old n=$TMP/kt/new
	mkdir -p "$o/d" "$n/d"
	echo same >"$o/d/s"; echo same >"$n/d/s"
	echo old >"$o/c"; echo new >"$n/c"
	touch -d 2020-01-01 "$o/d/s" "$o/c"
	printf 'd/s\n' >"$TMP/kt/patched"; printf 'c\nd/s\n' >"$TMP/kt/copied"
	kb_keep_times "$o" "$n" "$TMP/kt/copied" "$TMP/kt/patched" &&
		[ "$(stat -c %Y "$n/d/s")" = "$(stat -c %Y "$o/d/s")" ] &&
		[ "$(stat -c %Y "$n/c")" -gt "$(stat -c %Y "$o/c")" ]
)
ok $? "kbuild: an unchanged re-patched file keeps its old time, a changed one its new time"

touch "$K/.config"
expect 2 "a tree configured in place" "configured or built in place.*mrproper" \
	vm/run.sh --build "$K" --build-only
rm "$K/.config"
ISOLBENCH_VM_MIN_FREE_MB=999999999 expect 2 "no disk space" "no disk space for a kernel build: [0-9]+ MB free" \
	vm/run.sh --build "$K" --build-only

# kbuild's steps end to end on a stand-in kernel tree, whose Makefile
# does what vm/kbuild.sh asks of kbuild in seconds: tinyconfig,
# olddefconfig (last value wins; CONFIG_DROP never sticks), and a "build"
# that copies kernel/a.c into the bzImage (fails on CONFIG_FAIL=y, takes
# 2 s on CONFIG_SLOW=y).
# Nothing of it is left in TMPDIR.
S=$TMP/stand-in
mkdir -p "$S/arch/x86" "$S/kernel/configs" "$TMP/tmpdir"
echo 'mainmenu "stand-in"' >"$S/Kconfig"
echo CONFIG_TINY=y >"$S/kernel/configs/tiny.config"
printf 'int a;\nint b;\nint c;\n' >"$S/kernel/a.c"
cat >"$S/Makefile" <<'MK'
VERSION = 6
PATCHLEVEL = 12
SUBLEVEL = 0
all:
	! grep -q '^CONFIG_FAIL=y' $(O)/.config || { echo 'kernel/a.c:1: error: planted' >&2; exit 1; }
	! grep -q '^CONFIG_SLOW=y' $(O)/.config || sleep 2
	mkdir -p $(O)/arch/x86/boot $(O)/include/config
	cat kernel/a.c > $(O)/arch/x86/boot/bzImage
	echo 6.12.0-stand-in > $(O)/include/config/kernel.release
tinyconfig:
	mkdir -p $(O)
	cat kernel/configs/tiny.config > $(O)/.config
olddefconfig:
	awk '/^CONFIG_DROP=/ { next } \
	     /^CONFIG_[A-Za-z0-9_]+=/ { s = $$0; sub(/=.*/, "", s); v[s] = substr($$0, length(s) + 2); if (!(s in o)) { o[s] = ++n; k[n] = s } } \
	     /^# CONFIG_[A-Za-z0-9_]+ is not set$$/ { s = $$2; v[s] = "n"; if (!(s in o)) { o[s] = ++n; k[n] = s } } \
	     END { for (i = 1; i <= n; i++) if (v[k[i]] != "n") print k[i] "=" v[k[i]] }' $(O)/.config > $(O)/.config.new
	mv $(O)/.config.new $(O)/.config
MK
export TMPDIR=$TMP/tmpdir
vm/run.sh --build "$S" --patch "$TMP/good.patch" --build-only >"$TMP/out" 2>"$TMP/err"
rc=$? bz=$(cat "$TMP/out")
[ $rc -eq 0 ] && [ "$(cat "$bz" 2>/dev/null)" = "$(printf 'int a;\nshort b;\nint c;')" ] &&
	grep -q '^vm/run.sh: built 6.12.0-stand-in in [0-9]* s: ' "$TMP/err"
ok $? "stand-in tree: patched, configured, built, stored; the bzImage's path printed (rc=$rc: $(tail -n1 "$TMP/err"))"
json_check "${bz%/bzImage}/build.json" 'd["source_id"].startswith("tree:") and [p["file"] for p in d["patches"]]==["'"$TMP/good.patch"'"] and d["release"]=="6.12.0-stand-in" and d["key"]=="'"$(basename "${bz%/bzImage}")"'" and len(d["config_sha256"])==64 and len(d["config_fragments"])>=2'
ok $? "stand-in tree: build.json says how (a tree, the patch, the release, the key)"
vm/run.sh --build "$S" --patch "$TMP/good.patch" --build-only >"$TMP/out2" 2>"$TMP/err"
[ "$(cat "$TMP/out2")" = "$bz" ] && grep -q "^vm/run.sh: kernel 6.12.0-stand-in from the cache (${bz%/bzImage})$" "$TMP/err"
ok $? "stand-in tree: the same again comes from the cache ($(tail -n1 "$TMP/err"))"
# configuring again only when what it reads changed: a changed source
# file keeps the configuration, a changed fragment that tinyconfig
# merges is configured again and its new value reaches the kernel
echo 'int d;' >>"$S/kernel/a.c"
vm/run.sh --build "$S" --patch "$TMP/good.patch" --build-only >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^vm/run.sh: configuration kept' "$TMP/err" && ! grep -q '^vm/run.sh: configuring' "$TMP/err" &&
	[ "$(tail -n1 "$(cat "$TMP/out")")" = 'int d;' ]
ok $? "stand-in tree: a changed source file is built on the kept configuration (rc=$rc: $(grep -m1 'configur' "$TMP/err"))"
echo CONFIG_TINY=m >"$S/kernel/configs/tiny.config"
vm/run.sh --build "$S" --patch "$TMP/good.patch" --build-only >"$TMP/out" 2>"$TMP/err"
rc=$? bz2=$(cat "$TMP/out")
[ $rc -eq 0 ] && grep -q '^vm/run.sh: configuring' "$TMP/err" && grep -qx 'CONFIG_TINY=m' "${bz2%/bzImage}/config"
ok $? "stand-in tree: a changed fragment that tinyconfig merges is configured again, its value in the kernel's config (rc=$rc: $(grep -m1 'configur' "$TMP/err"))"
echo CONFIG_DROP=y >"$TMP/drop.config"
vm/run.sh --build "$S" --config "$TMP/drop.config" --build-only >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(tail -n1 "$TMP/err")" = "vm/run.sh: config options that did not stick after olddefconfig: CONFIG_DROP=y (got n)" ]
ok $? "stand-in tree: an option that does not stick is named, exit 2 (rc=$rc: $(tail -n1 "$TMP/err"))"
echo CONFIG_FAIL=y >"$TMP/fail.config"
vm/run.sh --build "$S" --config "$TMP/fail.config" --build-failure-exit 125 --build-only >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 125 ] && grep -q '^  | kernel/a.c:1: error: planted$' "$TMP/err" &&
	grep -q '^vm/run.sh: the kernel build of .* failed (log .*build.log)$' "$TMP/err"
ok $? "stand-in tree: a build that fails shows the log's last lines, exits --build-failure-exit (rc=$rc)"
# two builds of one kernel at once (two bisections at one commit): one
# builds it, the other waits for the family's lock and takes it from the
# cache
echo CONFIG_SLOW=y >"$TMP/slow.config"
for i in 1 2; do
	vm/run.sh --build "$S" --config "$TMP/slow.config" --build-only >"$TMP/out$i" 2>"$TMP/err$i" &
done
wait
built=$(cat "$TMP/err1" "$TMP/err2" | grep -c '^vm/run.sh: built 6.12.0-stand-in in ')
cached=$(cat "$TMP/err1" "$TMP/err2" | grep -c '^vm/run.sh: kernel 6.12.0-stand-in from the cache ')
[ "$built" -eq 1 ] && [ "$cached" -eq 1 ] && [ -s "$TMP/out1" ] && cmp -s "$TMP/out1" "$TMP/out2"
ok $? "stand-in tree: two builds of one kernel at once: one built it, the other took it from the cache ($built built, $cached from the cache)"
[ -z "$(ls -A "$TMP/tmpdir")" ]
ok $? "stand-in tree: nothing left in TMPDIR ($(find "$TMP/tmpdir" -mindepth 1 -maxdepth 1 -printf '%f ' | head -c 200))"
unset TMPDIR

# vm/ab.sh
expect 2 "ab: one kernel missing" "give both kernels" vm/ab.sh --base "--debian 6.12"
expect 2 "ab: a spec with a machine option" "'--cpus' is not a kernel option" \
	vm/ab.sh --base "--debian 6.12" --patched "--debian 6.1 --cpus 4"
expect 2 "ab: a spec naming two kernels" "must name one kernel" \
	vm/ab.sh --base "--debian 6.12 --build $K" --patched "--debian 6.1"
expect 2 "ab: --rounds 0" "--rounds must be a whole number from 1 to 50" \
	vm/ab.sh --base "--debian 6.12" --patched "--debian 6.1" --rounds 0

# vm/bisect-step.sh: setup errors are 255 (git bisect run aborts)
expect 255 "bisect-step: no baseline given" "give --baseline" vm/bisect-step.sh
mkdir -p "$TMP/empty"
expect 255 "bisect-step: an empty baseline" "holds no result" \
	vm/bisect-step.sh --baseline "$TMP/empty"
cp tests/data/base.json "$TMP/empty/"
expect 255 "bisect-step: not in a git tree" "is not in a git tree" \
	vm/bisect-step.sh --baseline "$TMP/empty" --tree "$TMP/empty"
git -C "$K" init -q 2>/dev/null
expect 255 "bisect-step: a git tree without a commit" "no commit checked out" \
	vm/bisect-step.sh --baseline "$TMP/empty" --tree "$K"
expect 255 "bisect-step: an unknown option" "unknown option" \
	vm/bisect-step.sh --baseline "$TMP/empty" --frobnicate
done_testing
