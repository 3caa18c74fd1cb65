#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The farms (KernelCI, LKFT) follow a test by its KTAP description from
# run to run: every check of every program, and run.sh's own lines, must
# carry the same description on every run of the same command on this
# machine, whatever was measured (pids, counts, times). Two runs of the
# whole suite with other loop and run counts must name the same checks,
# and so must their KCIDB records.
. "$(dirname "$0")/lib.sh"

plan 6

# ktap_names FILE: each result's description in order, as a KTAP parser
# names the test: the number and the directive (# SKIP ...) cut off,
# the nesting ("# " per level) kept
ktap_names() {
	sed -nE 's/^((# )*)(not )?ok [0-9]+ (.*)$/\1\4/p' "$1" |
		sed -E 's/ # (SKIP|TIMEOUT|XFAIL|TODO|exit=).*$//'
}

# same_names A B: the two streams name the same results in the same
# order (a program that skipped whole names none in both); the
# differing lines on stdout
same_names() {
	diff <(ktap_names "$1") <(ktap_names "$2") | grep '^[<>]'
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

# check_paths KCIDB DIR: "PATH <- NAME" for each record of a check of
# the results in DIR, sorted; fails when a path is not its name's
check_paths() {
	python3 - "$1" "$2" <<'PY'
import glob, json, re, sys
names = {v["name"] for f in glob.glob(sys.argv[2] + "/*.json")
         for v in json.load(open(f)).get("verdicts", [])}
rows = sorted((t["path"], t["comment"]) for t in json.load(open(sys.argv[1]))["tests"]
              if t.get("comment") in names)
for path, name in rows:
    print(path, "<-", name)
    if path.split(".", 2)[2] != re.sub(r"[^A-Za-z0-9-]+", "_", name).strip("_"):
        sys.exit(1)
sys.exit(0 if rows else 1)
PY
}

# The same check named by its count: two such streams must differ.
cat >"$TMP/planted1" <<'K'
KTAP version 1
1..2
ok 1 getpid returned the expected 3220 on all 50000000 calls (0 wrong)
ok 2 stayed on the target cpu
K
sed 's/3220 on all 50000000/3304 on all 60000000/' "$TMP/planted1" >"$TMP/planted2"
! out=$(same_names "$TMP/planted1" "$TMP/planted2") && [ "$(echo "$out" | grep -c getpid)" -eq 2 ]
ok $? "a name that carries a count differs between two runs and is caught: $(echo "$out" | head -n 1)"
same_names "$TMP/planted1" "$TMP/planted1" >/dev/null
ok $? "the same stream twice passes the comparison"

"$TOP/run.sh" --quick -o "$TMP/r1" --kcidb "$TMP/k1.json" -- -n 2000 -r 2 >"$TMP/s1" 2>"$TMP/e1"
rc1=$?
"$TOP/run.sh" --quick -o "$TMP/r2" --kcidb "$TMP/k2.json" -- -n 3000 -r 3 >"$TMP/s2" 2>"$TMP/e2"
rc2=$?
diag "run 1 (-n 2000 -r 2): exit $rc1, $(ktap_names "$TMP/s1" | wc -l) names; run 2 (-n 3000 -r 3): exit $rc2"
grep -q '^# # 4000 calls, expected [0-9]*, 0 wrong$' "$TMP/s1" &&
	grep -q '^# # 9000 calls, expected [0-9]*, 0 wrong$' "$TMP/s2"
ok $? "the two runs measured other counts, in the # lines ($(grep -h 'calls, expected' "$TMP/s1" "$TMP/s2" | tr '\n' ' '))"
out=$(same_names "$TMP/s1" "$TMP/s2") && [ "$(ktap_names "$TMP/s1" | wc -l)" -gt 20 ]
ok $? "every check of every program and every run.sh line has the same name in both runs${out:+: $(echo "$out" | head -n 4 | tr '\n' ' ')}"
differ=""
for t in $("$TOP/run.sh" --list); do
	same_names "$TMP/r1/$t.ktap" "$TMP/r2/$t.ktap" >/dev/null || differ="$differ $t"
done
[ -z "$differ" ]
ok $? "each program's own KTAP (-o DIR/NAME.ktap) names the same checks in both runs${differ:+; not:$differ}"
check_paths "$TMP/k1.json" "$TMP/r1" >"$TMP/p1" && check_paths "$TMP/k2.json" "$TMP/r2" >"$TMP/p2" &&
	diff "$TMP/p1" "$TMP/p2" >"$TMP/kd" &&
	grep -q '^isolbench\.getpid_bench\.getpid_returns_the_expected_value <- ' "$TMP/p1"
ok $? "KCIDB: each check's test path is its name, the same in both runs ($(wc -l <"$TMP/p1") checks$(head -n 2 "$TMP/kd" | tr '\n' ' '))"
