#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the C unit tests (ASan/UBSan build); each prints KTAP, one TAP
# line here per unit program, its failures shown as diagnostics.
. "$(dirname "$0")/lib.sh"

UNIT=${ISOLBENCH_BIN:-$TOP/build/san}/unit
progs=$(ls "$UNIT" 2>/dev/null)
[ -n "$progs" ] || { echo "1..0 # SKIP no unit programs in $UNIT (make san)"; exit 0; }
plan $(echo $progs | wc -w)
for p in $progs; do
	"$UNIT/$p" >"$TMP/u" 2>&1
	rc=$?
	grep -E '^not ok|ERROR|runtime error' "$TMP/u" | sed 's/^/# /'
	ktap_valid "$TMP/u" && [ $rc -eq 0 ]
	ok $? "unit/$p ($(grep -c '^ok' "$TMP/u") checks passed, rc=$rc)"
done
done_testing
