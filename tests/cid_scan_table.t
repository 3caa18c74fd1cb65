#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/cid_scan_table.py and vm/cid_batches.sh without a kernel build:
# the table from saved guest results (tests/data/cid/: cid_scan JSON from
# vm/cid_batches.sh runs on linux-source-6.12 with the batch patch), each
# cross-kernel verdict shown failing when its condition breaks, bad input.
. "$(dirname "$0")/lib.sh"

plan 23

T=$TOP/scripts/cid_scan_table.py
D=$TOP/tests/data/cid

"$T" "$D" >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 0 ] && grep -Eq '^batch 8 +cyclic +[0-9.]+-[0-9.]+ +[0-9.]+ ' "$TMP/out" &&
	grep -Eq '^scan off +cyclic ' "$TMP/out" && grep -q '^full scan ' "$TMP/out"
ok $? "table from the saved results: unpatched, batch and scan-off rows (rc=$RC)"
grep -q 'ours: qemu TCG (vm/run.sh), 4 vCPUs online of 128 possible; thread: 128 physical CPUs' "$TMP/out"
ok $? "machines labelled: ours qemu TCG with the vCPU count, the thread's 128 physical CPUs"
"$T" --markdown "$D" >"$TMP/md" 2>&1
grep -q '^| scan | workload | per call us | p50 |' "$TMP/md" && grep -q '^| batch 32 | cyclic |' "$TMP/md"
ok $? "--markdown table"

"$T" --check "$D" >"$TMP/out" 2>"$TMP/err"
RC=$?
[ $RC -eq 0 ] && ! grep -q '^FAIL' "$TMP/out"
ok $? "--check on the saved matrix passes (rc=$RC)"
grep -Eq '^PASS cyclic: per-call p10 grows with the batch \(emulated: the least disturbed calls\): batch 8 [0-9.]+ us < batch 16 [0-9.]+ us < batch 32' "$TMP/out"
ok $? "growth verdict over 8 < 16 < 32, on the p10 under TCG"
grep -Eq '^PASS batch 8 cyclic .*calls per walk: calls per complete scan: [1-9][0-9]* of [1-9][0-9]* complete walks had 16 calls' "$TMP/out"
ok $? "calls-per-walk verdict: 16 calls per walk at batch 8 over 128 CPUs"
grep -Eq '^PASS scan off cyclic .*: scan off: 0 scan calls seen, compaction check fail' "$TMP/out"
ok $? "negative control: no scan call, compaction failed"
grep -Eq '^derived from this run \(qemu TCG.*\): batch 8 complete scan p50 [0-9.]+ ms for 128 possible CPUs -> passes 100 ms at about [0-9]+ CPUs' "$TMP/out"
ok $? "derived CPU count for a 100 ms complete scan, labelled"

# Each verdict fails when its condition breaks (edited copies of the data).
mut() {	# mut NAME PYTHON: copy the data, apply the edit to each JSON d
	rm -rf "${TMP:?}/$1"
	cp -r "$D" "$TMP/$1"
	for f in "$TMP/$1"/*/suite/cid_scan.json; do
		python3 - "$f" "$2" <<'PY'
import json, sys
f, code = sys.argv[1], sys.argv[2]
d = json.load(open(f))
exec(code)
json.dump(d, open(f, "w"))
PY
	done
}
calls='[m for m in d["metrics"] if m["name"] == "scan_call_us"][0]'
mut swap "m = $calls
if m['extra']['batch_cpus'] == 32 and not m['extra']['scan_off']: m['samples'] = [s / 100 for s in m['samples']]"
"$T" --check "$TMP/swap" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL cyclic: per-call p10 grows with the batch' "$TMP/out"
ok $? "batch 32 calls made cheaper than batch 16: growth verdict fails (rc=$RC)"
# Under TCG a call's time includes whatever else the one emulation
# thread ran meanwhile: batch 8's calls made slow but for the fastest
# third, its p50 passes batch 32's while its p10 stays the lowest.
# Emulated, the p10 decides (pass); on real hardware the p50 (fail).
slow8="m = $calls
if m['extra']['batch_cpus'] == 8 and not m['extra']['scan_off']:
    m['samples'] = sorted(m['samples'])[:len(m['samples']) // 3] + [500.0] * len(m['samples'])"
mut noisy "$slow8"
"$T" --check "$TMP/noisy" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 0 ] && grep -q '^PASS cyclic: per-call p10 grows' "$TMP/out"
ok $? "emulated: a noisy p50 at batch 8 does not fail the growth, the p10 decides (rc=$RC)"
mut metal "$slow8
d['system']['cmdline'] = d['system']['cmdline'].replace('isolbench.vm=tcg', '')
d['system']['emulated'] = False"
"$T" --check "$TMP/metal" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL cyclic: per-call p50 grows with the batch: batch 8 500.00 us' "$TMP/out"
ok $? "not emulated: the p50 decides, and the same data fails (rc=$RC)"
mut walks "for v in d['verdicts']:
    if v['name'].startswith('calls per complete scan'): v['result'] = 'fail'"
"$T" --check "$TMP/walks" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL batch 16 cyclic .*calls per walk' "$TMP/out"
ok $? "a failed calls-per-walk verdict in a run fails the matrix (rc=$RC)"
mut offcalls "m = $calls
if m['extra']['scan_off']: m['samples'] = [3.5, 4.0]"
"$T" --check "$TMP/offcalls" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL scan off cyclic .*: scan off: 2 scan calls seen' "$TMP/out"
ok $? "scan calls on the scan-off kernel fail the negative control (rc=$RC)"
mut offcomp "for v in d['verdicts']:
    if v['name'].startswith('compaction'): v['result'] = 'pass'"
"$T" --check "$TMP/offcomp" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL scan off cyclic .*compaction check pass' "$TMP/out"
ok $? "compaction passing without the scan fails the negative control (rc=$RC)"

# The estimate against function_graph on one run (saved: a 6.12 guest
# under heavy host load, where it found 81.9% and said it saw 82%).
X=$TOP/tests/data/cid-cross
"$T" --check "$X" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 0 ] && grep -q '^PASS estimate vs function_graph (spin-6.12): found 81.9% of the traced walks (68 of 83), said it saw 82%' "$TMP/out"
ok $? "estimate below 90% that said so within 10 points passes (rc=$RC)"
xmut() {	# xmut NAME PYTHON: the cross-check's data, edited
	rm -rf "${TMP:?}/$1"
	cp -r "$X" "$TMP/$1"
	python3 - "$TMP/$1/spin-6.12/suite/cid_scan.json" "$2" <<'PY'
import json, sys
f, code = sys.argv[1], sys.argv[2]
d = json.load(open(f))
m = {x["name"]: x for x in d["metrics"]}
exec(code)
json.dump(d, open(f, "w"))
PY
}
xmut said "m['estimate_recall']['extra']['seen_share_said'] = 0.95"
"$T" --check "$TMP/said" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL estimate vs function_graph' "$TMP/out"
ok $? "found 81.9% but said 95%: the cross-check fails (rc=$RC)"
xmut spur "m['estimate_spurious_share']['samples'] = [0.08]"
"$T" --check "$TMP/spur" >"$TMP/out" 2>&1
RC=$?
[ $RC -eq 1 ] && grep -q '^FAIL estimate vs function_graph.*8.0% of its' "$TMP/out"
ok $? "8% of the attributed scans no traced call: the cross-check fails (rc=$RC)"

# Bad input: one line on stderr, exit 2.
bad() {	# bad DESC CMD...
	local desc=$1 lines
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	lines=$(wc -l <"$TMP/err")
	[ $RC -eq 2 ] && [ "$lines" -eq 1 ]
	ok $? "$desc: exit 2, one line on stderr (rc=$RC: $(head -c 160 "$TMP/err"))"
}
echo '{"program": "getpid_bench", "metrics": []}' >"$TMP/other.json"
bad "table: not a cid_scan result" "$T" "$TMP/other.json"
bad "table: missing file" "$T" "$TMP/nope.json"
bad "cid_batches.sh: unknown option" "$TOP/vm/cid_batches.sh" --frobnicate
bad "cid_batches.sh: bad batch size" "$TOP/vm/cid_batches.sh" --batches "8 0"
bad "cid_batches.sh: unknown workload" "$TOP/vm/cid_batches.sh" --workloads "cyclic fork"
bad "cid_batches.sh: --posted-kernel not a bzImage" "$TOP/vm/cid_batches.sh" --posted-kernel "$TMP/nope.bz"
done_testing
