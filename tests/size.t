#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The size of the code (scripts/check_size.py, docs/design.md): no
# function of the project's C files over 80 lines, no program file over
# 550. The tree as it is passes; a copy with a function or a program
# file one line too long fails, naming it; one at the limit passes.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
plan 5

tree_check check_size.py "every function and program file keeps its size"

# plant_function FILE NAME LINES: append to FILE of the copy a function
# NAME of LINES lines from its head to its closing brace, with braces in
# a string and a comment (no brace of the function's); sets LINE to the
# line of its head
plant_function() {
	local f=$TMP/t/$1 i
	LINE=$(($(wc -l <"$f") + 3))
	{
		printf '\nint %s(void);\nint %s(void)\n{\n' "$2" "$2"
		printf '\tconst char *s = "}{";\t/* } */\n\tint n = 0;\n'
		for ((i = 0; i < $3 - 6; i++)); do
			printf '\tn++;\n'
		done
		printf '\treturn n + (s[0] == %s);\n}\n' "'}'"
	} >>"$f"
}
# plant_lines FILE LINES: FILE of the copy grown to LINES lines by a comment
plant_lines() {
	local f=$TMP/t/$1 i n
	n=$(($2 - $(wc -l <"$f")))
	{
		printf '/*\n'
		for ((i = 0; i < n - 2; i++)); do
			printf ' * planted\n'
		done
		printf ' */\n'
	} >>"$f"
}
# check_copy: check_size on the copy, its lines as # lines, into $OUT
check_copy() {
	OUT=$(python3 scripts/check_size.py "$TMP/t" 2>&1)
	RC=$?
	echo "$OUT" | sed '/^$/d; s/^/# /'
}

tree_copy
plant_function lib/base/util.c util_planted_long 81
long=$LINE
plant_function module/ipistorm_kmod.c planted_at_limit 80
check_copy
[ $RC -eq 1 ] &&
	echo "$OUT" | grep -qxF "lib/base/util.c:$long util_planted_long is 81 lines (at most 80)"
ok $? "a function of 81 lines fails, named with its file, line and length (rc=$RC)"
! echo "$OUT" | grep -q planted_at_limit
ok $? "... and one of 80 lines (module/) passes"

tree_copy
plant_lines ipistorm.c 551
plant_lines cid_scan_run.c 550
check_copy
[ $RC -eq 1 ] && echo "$OUT" | grep -qxF "ipistorm.c is 551 lines (at most 550)"
ok $? "a program file of 551 lines fails, named with its length (rc=$RC)"
! echo "$OUT" | grep -q '^cid_scan_run.c '
ok $? "... and one of 550 lines passes"
done_testing
