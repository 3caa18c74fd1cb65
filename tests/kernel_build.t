#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One writer of results: a program's result carries the build record of
# its kernel (vm/kbuild.sh's build.json, named by ISOLBENCH_KERNEL_BUILD,
# which vm/guest-init.sh sets in a guest whose kernel vm/run.sh built) as
# "kernel_build", written by lib/result/result_write.c itself. A record that
# cannot be read or does not parse is one line on stderr, and the result
# is written without it. Run here on the host, with getpid_bench.
. "$(dirname "$0")/lib.sh"

plan 12
P=getpid_bench
ARGS=(-n 2000 -r 2)

# a build record as vm/kbuild.sh writes one, with a string to escape
cat >"$TMP/build.json" <<'EOF'
{"source": "debian:6.12", "source_id": "debian:linux-source-6.12=6.12.117-1~deb12u1", "key": "367384fdc4e6c3d7", "release": "6.12.117",
 "compiler": "gcc (Debian 12.2.0-14+deb12u1) 12.2.0 \"quoted\" \u00e9",
 "patches": [{"file": "/src/vm/patches/cid-scan-batch.patch", "sha256": "a5ca104da051a60a3dbfa1d29ed4103538d9c1eaffe263fc75163b5a340e2903"}],
 "config_fragments": [{"file": "/src/vm/guest.config", "sha256": "7873b8c9eeaaf673ec8b8f851c4d6419edb041637bc51d2a933e85736ee80033"}, {"file": "/src/config", "sha256": "5e8599f4f4f330b593e393ec7156d584aa2167ded03c962165c453be10f67bcc"}],
 "config_sha256": "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"}
EOF

# kb_check RESULT: kernel_build is the record, member for member
kb_check() {
	python3 - "$1" "$TMP/build.json" <<'PY'
import json, sys
d, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if d.get("kernel_build") == b and list(d)[-1] == "kernel_build" else 1)
PY
}

# run ENV_VALUE OUT: the program with ISOLBENCH_KERNEL_BUILD=ENV_VALUE
run() {
	ISOLBENCH_KERNEL_BUILD=$1 "$BIN/$P" "${ARGS[@]}" -o "$2" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}
# one_line PATTERN: stderr is exactly one line, the program's, naming the record
one_line() {
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qE "^$P: ISOLBENCH_KERNEL_BUILD '.*': $1; the result is written without kernel_build\$" "$TMP/err"
}
no_kb() {
	json_check "$1" '"kernel_build" not in d and d["program"]=="'$P'"'
}

run "$TMP/build.json" "$TMP/kb.json"
[ $RC -eq 0 ] && [ ! -s "$TMP/err" ]
ok $? "a build record: the run passes, nothing on stderr (rc=$RC: $(head -c 200 "$TMP/err"))"
kb_check "$TMP/kb.json"
ok $? "the result carries the record as kernel_build, every member as written"
jq -e '.kernel_build.patches[0].sha256 | length == 64' "$TMP/kb.json" >/dev/null 2>&1 ||
	python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["kernel_build"]["patches"][0]["sha256"])!=64)' "$TMP/kb.json"
ok $? "... a well-formed JSON document to another reader too"

run "" "$TMP/none.json"
[ $RC -eq 0 ] && [ ! -s "$TMP/err" ] && no_kb "$TMP/none.json"
ok $? "ISOLBENCH_KERNEL_BUILD empty: no kernel_build, nothing said (rc=$RC)"
(unset ISOLBENCH_KERNEL_BUILD; "$BIN/$P" "${ARGS[@]}" -o "$TMP/unset.json" >/dev/null 2>"$TMP/err")
[ ! -s "$TMP/err" ] && no_kb "$TMP/unset.json"
ok $? "ISOLBENCH_KERNEL_BUILD unset: no kernel_build"

# a record cut short, as a guest that lost the end of its copy would have it
head -c 200 "$TMP/build.json" >"$TMP/cut.json"
run "$TMP/cut.json" "$TMP/cut-result.json"
[ $RC -eq 0 ]; ok $? "a malformed record: the run still passes (rc=$RC)"
one_line 'line [0-9]+ col [0-9]+: .+'
ok $? "... one line on stderr names the file and where it broke: $(head -c 200 "$TMP/err")"
no_kb "$TMP/cut-result.json"
ok $? "... and the result is written, valid, without kernel_build"

run "$TMP/nonexistent.json" "$TMP/missing.json"
[ $RC -eq 0 ] && one_line 'No such file or directory' && no_kb "$TMP/missing.json"
ok $? "a missing record: one line, the result without it (rc=$RC: $(head -c 200 "$TMP/err"))"

echo '["not", "an", "object"]' >"$TMP/array.json"
run "$TMP/array.json" "$TMP/array-result.json"
[ $RC -eq 0 ] && one_line 'a JSON array, not an object' && no_kb "$TMP/array-result.json"
ok $? "a record that is no object: one line, the result without it ($(head -c 200 "$TMP/err"))"

python3 -c 'print("{\"a\": " + "[" * 20 + "]" * 20 + "}")' >"$TMP/deep.json"
run "$TMP/deep.json" "$TMP/deep-result.json"
[ $RC -eq 0 ] && one_line 'nested deeper than [0-9]+ levels' && no_kb "$TMP/deep-result.json"
ok $? "a record nested deeper than the writer holds: one line, the result without it ($(head -c 200 "$TMP/err"))"

run "$TMP" "$TMP/dir-result.json"
[ $RC -eq 0 ] && one_line 'not a regular file of at most [0-9]+ KiB' && no_kb "$TMP/dir-result.json"
ok $? "a directory: one line, the result without it ($(head -c 200 "$TMP/err"))"

done_testing
