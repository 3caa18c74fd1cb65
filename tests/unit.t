#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The C unit tests (tests/unit/*.c, built with ASan/UBSan by make san into
# build/san/unit/): each prints KTAP; one TAP line per program here, its
# failures shown as diagnostics. tests/arm64.t runs them cross-built:
# UNIT_EXEC is then the emulator and UNIT_ARCH names the architecture.
. "$(dirname "$0")/lib.sh"

read -ra exec_with <<<"${UNIT_EXEC:-}"
label="unit${UNIT_ARCH:+ $UNIT_ARCH}"

UNIT=${ISOLBENCH_BIN:-$TOP/build/san}/unit
srcs=("$TOP"/tests/unit/*.c)
plan $((${#srcs[@]} * 2))
for src in "${srcs[@]}"; do
	name=$(basename "$src" .c)
	if [ ! -x "$UNIT/$name" ]; then
		skip "not built (make san)" "$label $name: all pass"
		skip "not built (make san)" "$label $name output is KTAP"
		continue
	fi
	"${exec_with[@]}" "$UNIT/$name" >"$TMP/$name.out" 2>&1
	rc=$?
	grep -E '^not ok|^# (planned|refused|accepted)|ERROR|runtime error' "$TMP/$name.out" | sed 's/^/# /'
	[ $rc -eq 0 ] && ! grep -q '^not ok' "$TMP/$name.out"
	ok $? "$label $name: all pass"
	diag "rc=$rc, $(grep -c '^ok' "$TMP/$name.out") ok"
	ktap_valid "$TMP/$name.out"
	ok $? "$label $name output is KTAP"
done
done_testing
