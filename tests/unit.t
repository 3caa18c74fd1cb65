#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The C unit tests (tests/unit/*.c, built with ASan/UBSan by make san into
# build/san/unit/): each prints KTAP; one TAP line per program here, its
# failures shown as diagnostics.
. "$(dirname "$0")/lib.sh"

UNIT=${ISOLBENCH_BIN:-$TOP/build/san}/unit
srcs=("$TOP"/tests/unit/*.c)
plan $((${#srcs[@]} * 2))
for src in "${srcs[@]}"; do
	name=$(basename "$src" .c)
	if [ ! -x "$UNIT/$name" ]; then
		skip "not built (make san)" "unit $name runs"
		skip "not built (make san)" "unit $name output is KTAP"
		continue
	fi
	"$UNIT/$name" >"$TMP/$name.out" 2>&1
	rc=$?
	grep -E '^not ok|^# (planned|refused|accepted)|ERROR|runtime error' "$TMP/$name.out" | sed 's/^/# /'
	[ $rc -eq 0 ] && ! grep -q '^not ok' "$TMP/$name.out"
	ok $? "unit $name: all pass (rc=$rc, $(grep -c '^ok' "$TMP/$name.out") ok)"
	ktap_valid "$TMP/$name.out"
	ok $? "unit $name output is KTAP"
done
done_testing
