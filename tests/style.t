#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel coding style: checkpatch.pl (from Debian's linux-source) reports
# no error on any C file; every source file carries an SPDX header; and
# ShellCheck finds nothing in any shell file (shown failing on a planted
# finding first).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*')
plan 5

cp=""
for c in /usr/src/linux-source-*/scripts/checkpatch.pl "$TOP/build/checkpatch/scripts/checkpatch.pl"; do
	[ -f "$c" ] && cp=$c && break
done
if [ -z "$cp" ]; then
	tarball=$(compgen -G '/usr/src/linux-source-*.tar.*' | head -1)
	if [ -n "$tarball" ]; then
		mkdir -p build/checkpatch
		top=$(tar -tf "$tarball" | head -1 | cut -d/ -f1)
		tar -xf "$tarball" -C build/checkpatch --strip-components=1 \
			"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch" 2>/dev/null
		[ -f build/checkpatch/scripts/checkpatch.pl ] && cp=build/checkpatch/scripts/checkpatch.pl
	fi
fi
if [ -z "$cp" ]; then
	skip "no checkpatch.pl (install linux-source)" "checkpatch reports no errors"
else
	errs=$(perl "$cp" --no-tree -f --terse "${files[@]}" 2>&1 | grep ERROR)
	echo "$errs" | sed '/^$/d; s/^/# /'
	[ -z "$errs" ]; ok $? "checkpatch reports no errors on ${#files[@]} C files"
fi
missing=""
mapfile -t others < <(git ls-files '*.sh' '*.t' Makefile 2>/dev/null)
for f in "${files[@]}" "${others[@]}"; do
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || missing="$missing $f"
done
[ -z "$missing" ]; ok $? "SPDX header on every source file${missing:+ (missing:$missing)}"

# shell_files: the shell files under the current directory: *.sh, *.t
# and every file whose first line runs sh or bash (.ci/run)
shell_files() {
	local f
	{ git ls-files 2>/dev/null ||
		find . -type f -not -path './.git/*' -not -path './build/*' -not -path './vm/cache/*' |
		sed 's|^\./||'; } |
	while IFS= read -r f; do
		case $f in
		*.sh|*.t) echo "$f" ;;
		*) [ -f "$f" ] && head -n1 -- "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$f" ;;
		esac
	done
}

# shell_clean: ShellCheck on every shell file here (sourced files
# followed from each script's own directory), its findings as # lines;
# fails on any finding
shell_clean() {
	local out rc
	mapfile -t SHELL_FILES < <(shell_files)
	out=$(shellcheck -x -P SCRIPTDIR -f gcc "${SHELL_FILES[@]}" 2>&1)
	rc=$?
	[ -z "$out" ] || echo "$out" | head -n 40 | sed 's/^/# /'
	return $rc
}

if ! command -v shellcheck >/dev/null; then
	for _ in 1 2 3; do skip "no shellcheck (scripts/install-deps.sh --dev)" "ShellCheck"; done
	done_testing
fi
# a finding planted in a script without .sh, beside a clean one
mkdir -p "$TMP/planted"
cat >"$TMP/planted/clean.sh" <<'SH'
#!/bin/bash
echo "$1"
SH
cat >"$TMP/planted/tool" <<'SH'
#!/bin/sh
rm -rf $1/x
SH
(cd "$TMP/planted" && shell_clean) >"$TMP/planted.out"
rc=$?
[ $rc -ne 0 ] && grep -q '^# tool:2:.*SC2086' "$TMP/planted.out" && ! grep -q 'clean.sh' "$TMP/planted.out"
ok $? "ShellCheck fails on a finding planted in an extensionless script (rc=$rc)"
rm "$TMP/planted/tool"
(cd "$TMP/planted" && shell_clean) >"$TMP/planted.out"
ok $? "... and passes without it"
shell_clean
rc=$?
ok $rc "ShellCheck finds nothing in the ${#SHELL_FILES[@]} shell files (run.sh, vm/, tests/, scripts/, bench/, .ci/run)"
done_testing
