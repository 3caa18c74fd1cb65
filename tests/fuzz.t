#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short libFuzzer run of the result-file reader (json_read + result),
# seeded with tests/data. Skips when clang's libFuzzer is not installed.
# FUZZ_SECONDS sets the length (default 20); docs/compare.md has a long run.
. "$(dirname "$0")/lib.sh"

plan 2
fuzzer=$TOP/build/fuzz/result_read
# make rebuilds it when the reader changed
if command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	make -C "$TOP" -s fuzz >"$TMP/build.log" 2>&1 || sed 's/^/# /' "$TMP/build.log" | tail -5
fi
if [ ! -x "$fuzzer" ]; then
	skip "no libFuzzer toolchain (apt-get install clang)" "fuzzer built"
	skip "no libFuzzer toolchain" "short fuzz run finds nothing"
	done_testing
fi
ok 0 "fuzzer built"
mkdir -p "$TMP/corpus"
cp "$TOP"/tests/data/*.json "$TMP/corpus/"
secs=${FUZZ_SECONDS:-20}
(cd "$TMP" && "$fuzzer" -dict="$TOP/tests/fuzz/json.dict" -max_total_time="$secs" \
	-max_len=8192 -rss_limit_mb=1024 -print_final_stats=1 "$TMP/corpus" \
	>"$TMP/fuzz.log" 2>&1)
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/fuzz.log")
[ $rc -ne 0 ] && grep -E 'ERROR|SUMMARY|crash-|leak' "$TMP/fuzz.log" | head -10 | sed 's/^/# /'
[ $rc -eq 0 ] && [ "${runs:-0}" -gt 0 ]
ok $? "a ${secs} s fuzz run finds nothing (rc=$rc, ${runs:-0} inputs)"
done_testing
