#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own runner (run_kselftest.sh, from the linux-source
# tarball) reaches every test of run.sh's table: in a kernel tree's
# kselftest install (the Makefile's lib.mk mode) and in the standalone
# `make install` tree, `run_kselftest.sh -l` lists the six and `-t
# isolbench:NAME` runs one.
. "$(dirname "$0")/lib.sh"

plan 6

want=$("$TOP/run.sh" --list | sed 's/^/isolbench:/')
tarball=$(compgen -G '/usr/src/linux-source-*.tar.*' | head -n 1)
K=$TOP/build/kselftest-runner
if [ -z "$tarball" ] && [ ! -f "$K/tools/testing/selftests/run_kselftest.sh" ]; then
	for _ in 1 2 3 4 5 6; do skip "no linux-source tarball" "the kernel's runner"; done
	exit 0
fi
# the runner, lib.mk and the selftests Makefile, extracted once
if [ ! -f "$K/tools/testing/selftests/run_kselftest.sh" ]; then
	top=$(tar -tf "$tarball" | head -n 1 | cut -d/ -f1)
	mkdir -p "$K"
	tar -xf "$tarball" -C "$K" --strip-components=1 --wildcards \
		"$top/tools/testing/selftests/lib.mk" "$top/tools/testing/selftests/Makefile" \
		"$top/tools/testing/selftests/run_kselftest.sh" "$top/tools/testing/selftests/kselftest/*" \
		"$top/scripts/subarch.include"
fi
diag "runner from $tarball"

# runs INSTALL_DIR: the runner's list, then ipistorm_kmod run by -t (the
# wrapper runs ipistorm --mode kmod: its KTAP and its result line)
runs() {
	local what=$1 inst=$2
	"$inst/run_kselftest.sh" -l >"$TMP/list" 2>&1
	[ "$(cat "$TMP/list")" = "$want" ]
	ok $? "$what: run_kselftest.sh -l lists the six tests of run.sh's table: $(tr '\n' ' ' <"$TMP/list")"
	# through a pipe: the runner's writers (its shell, prefix.pl) do not
	# append, and would overwrite each other's lines in a plain file
	(cd "$inst" && timeout 120 ./run_kselftest.sh -t isolbench:ipistorm_kmod) 2>&1 | cat >"$TMP/run"
	grep -q '^# # ipistorm: target cpu' "$TMP/run" &&
		grep -Eq '^ok 1 selftests: isolbench: ipistorm_kmod( # SKIP)?$' "$TMP/run" &&
		[ "$(grep -Ec '^(not )?ok [0-9]+ selftests: isolbench' "$TMP/run")" -eq 1 ]
	ok $? "$what: -t isolbench:ipistorm_kmod runs ipistorm in kmod mode, alone: $(grep 'selftests: isolbench\|1\.\.0' "$TMP/run" | tr '\n' ' ')"
}

# in a kernel tree: the kselftest Makefile builds and installs the collection
S=$K/tools/testing/selftests
rm -rf "$S/isolbench" "$TMP/ks"
mkdir -p "$S/isolbench"
git -C "$TOP" ls-files -co --exclude-standard | grep -v '^tests/data/\|^docs/results/' |
	(cd "$TOP" && tar -cf - -T -) | tar -xf - -C "$S/isolbench"
make -s -j2 -C "$S" TARGETS=isolbench KSFT_INSTALL_PATH="$TMP/ks" install >"$TMP/build" 2>&1
ok $? "kselftest install of the collection builds (rc=$?: $(tail -n 2 "$TMP/build" | tr '\n' ' '))"
runs "kernel tree" "$TMP/ks"

# the standalone make install, beside the kernel's runner and the list
# `make emit_tests` gives (as a lab that adds the collection does)
mkdir -p "$TMP/sa/kselftest"
make -s -C "$TOP" install INSTALL_PATH="$TMP/sa/isolbench" >"$TMP/build" 2>&1 &&
	cp "$S/run_kselftest.sh" "$TMP/sa/" && cp "$S"/kselftest/* "$TMP/sa/kselftest/" &&
	make -s -C "$TOP" emit_tests >"$TMP/sa/kselftest-list.txt"
ok $? "make install INSTALL_PATH=DIR/isolbench, the runner beside it"
runs "make install" "$TMP/sa"
rm -rf "$S/isolbench"
