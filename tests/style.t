#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel coding style: checkpatch.pl (from Debian's linux-source) reports
# no error on any C file; every source file carries an SPDX header.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*')
plan 2

cp=""
for c in /usr/src/linux-source-*/scripts/checkpatch.pl "$TOP/build/checkpatch/scripts/checkpatch.pl"; do
	[ -f "$c" ] && cp=$c && break
done
if [ -z "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | head -1)
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
	errs=$(perl "$cp" --no-tree -f --terse $files 2>&1 | grep ERROR)
	echo "$errs" | sed '/^$/d; s/^/# /'
	[ -z "$errs" ]; ok $? "checkpatch reports no errors on $(echo $files | wc -w) C files"
fi
missing=""
for f in $files $(git ls-files '*.sh' '*.t' Makefile 2>/dev/null); do
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || missing="$missing $f"
done
[ -z "$missing" ]; ok $? "SPDX header on every source file${missing:+ (missing:$missing)}"
done_testing
