#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/cid_batches.t - the reduced cid_scan batch matrix on kernels built
# from linux-source-6.12 with vm/patches/cid-scan-batch.patch (batch 8
# and 32 and the scan-off control) and with
# vm/patches/cid-scan-batch-posted.patch (the posted series' shape:
# batch 16 from the config, task_mm_cid_work() returns nothing), cyclic
# workload, 8 s runs, 128 possible CPUs with 4 online, two guests at a
# time (vm/cid_batches.sh --reduced --together: each qemu of TCG on one
# host CPU, the kernels built first). The cross-kernel verdicts must pass:
# the time per call grows from batch 8 to 32 (its p10 under TCG, else
# its p50), each run's complete walks have ceil(128 / batch) calls (on
# the posted shape, whose port names its counter as the series does,
# reconstructed from where each call starts its batch, a kprobe event on
# __find_nth_bit() inside task_mm_cid_work(), no module; the delay
# between the calls measured), judged against
# batches of 8 the posted kernel's walks fail, the scan-off kernel shows
# no scan call and fails the compaction check. And cid_scan's estimate
# against function_graph on one run (Debian 6.12, spin workload, 10 s;
# booted beside the matrix's last guest):
# it found at least 90% of the traced walks (or said it saw less, within
# 10 points of the truth), and at most 5% of what it attributed was no
# scan (scripts/cid_scan_table.py --check). TAP, for prove; make
# check-kernels runs it.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

needs qemu-system-x86_64
plan 13

start=$(date +%s)
read -ra cb_args <<<"${CID_BATCHES_ARGS:-}"
"$TOP/vm/cid_batches.sh" --reduced --together -o "$TMP/cb" "${cb_args[@]}" >"$TMP/out" 2>"$TMP/err" &
cb=$!
# The estimate's guest (judged last, below) boots beside the matrix's
# last guest, which has the host CPU of the pair to itself: when that
# one starts, or when the matrix ends if it has no such guest.
until_line "$cb" "$TMP/err" '^vm/cid_batches.sh: posted-wrong-cyclic: posted kernel'
est_start=$(date +%s)
"$TOP/vm/run.sh" --debian 6.12 --cmdline quiet --cpus 4 --timeout 600 -o "$TMP/est" \
	-- -t cid_scan -- -D 10 --no-compaction >"$TMP/est.out" 2>"$TMP/est.err" &
est=$!
wait "$cb"
RC=$?
diag "vm/cid_batches.sh --reduced --together: exit $RC after $(($(date +%s) - start)) s"
# the kernels, each guest as it started, and how long each one ran
grep '^vm/cid_batches.sh: ' "$TMP/err" | sed 's/^/# /'
sed 's/^/# /' "$TMP/out"
[ $RC -eq 0 ] || tail -n 20 "$TMP/err" | sed 's/^/# /'
[ $RC -eq 0 ]
ok $? "reduced matrix: every verdict passed (rc=$RC)"
n=$(compgen -G "$TMP/cb/*/suite/cid_scan.json" | wc -l)
[ "$n" -eq 5 ]
ok $? "five results kept (batch 8, batch 32, scan off, posted, posted judged against batch 8): $n"
# (the p10 under TCG, the p50 under KVM: scripts/cid_scan_table.py)
grep -Eq '^PASS cyclic: per-call (p10|p50) grows with the batch( \(emulated: the least disturbed calls\))?: batch 8 [0-9.]+ us < batch 32 [0-9.]+ us' "$TMP/out"
ok $? "per-call time grows from batch 8 to batch 32"
grep -Eq '^PASS batch 8 cyclic .*: [1-9][0-9]* of [1-9][0-9]* complete walks had 16 calls' "$TMP/out"
ok $? "batch 8: complete walks of 16 calls over 128 possible CPUs"
grep -Eq '^PASS batch 32 cyclic .*: [1-9][0-9]* of [1-9][0-9]* complete walks had 4 calls' "$TMP/out"
ok $? "batch 32: complete walks of 4 calls"
grep -Eq '^PASS scan off cyclic .*: scan off: 0 scan calls seen, compaction check fail' "$TMP/out"
ok $? "scan off: no scan call, the compaction check fails"
p=$TMP/cb/posted-cyclic/suite
grep -Eq 'scan model: periodic scan in batches of 16 CPUs \(CONFIG_RSEQ_CID_SCAN_BATCH\), 128 possible CPUs: 8 calls per complete scan' "$p/cid_scan.ktap"
ok $? "posted shape: the batch read from the config, 8 calls per complete scan"
grep -Eq '^PASS batch 16 \(posted\) cyclic \(posted-cyclic\): calls per walk: calls per complete scan: ([1-9][0-9]*) of \1 complete walks had 8 calls .*reconstructed from cid_batch in task_mm_cid_work: offsets 16 to 112' "$TMP/out"
ok $? "posted shape: every complete walk reconstructed had 8 calls, offsets 16 to 112 (batches of 16)"
grep -q 'unsigned int mm_cid_scan_batch;' "$TOP/vm/patches/cid-scan-batch-posted.patch" &&
json_check "$p/cid_scan.json" '[x["file"].rsplit("/",1)[-1] for x in d["kernel_build"]["patches"]]==["cid-scan-batch-posted.patch"]' &&
grep -Eq '^# walks \(reconstructed from where each call of task_mm_cid_work starts its batch, a kprobe event on __find_nth_bit\): [1-9]' "$p/cid_scan.ktap"
ok $? "posted shape: the series' counter name, the walks from the kprobe event (no module)"
python3 -c 'import json,sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
sys.exit(not (m["scan_call_delay_us"]["samples"] and m["complete_scan_us"]["samples"]))' "$p/cid_scan.json"
ok $? "posted shape: the delay between the calls of a walk and the complete scans measured"
grep -Eq '^PASS batch 16 \(posted\) cyclic \(posted-wrong-cyclic\): calls per walk judged against batches of 8, not 16, must fail: calls per complete scan: 0 of [1-9][0-9]* complete walks had 16 calls.*\[fail\]' "$TMP/out"
ok $? "posted shape judged against batches of 8: the calls-per-walk verdict fails"

# The estimate against function_graph on one run (the cross-check).
wait "$est"
RC=$?
diag "vm/run.sh --debian 6.12 -- -t cid_scan -- -D 10 --no-compaction: exit $RC after $(($(date +%s) - est_start)) s"
e=$TMP/est/suite/cid_scan
grep -E '^# # (both methods|estimate: it saw)' "$e.ktap" | sed 's/^/# /'
metric() {	# metric NAME [EXTRA]: a metric's one sample, or an extra of it
	python3 -c 'import json,sys
m = [x for x in json.load(open(sys.argv[1]))["metrics"] if x["name"] == sys.argv[2]][0]
assert m["kind"] == "count"
print(m["extra"][sys.argv[3]] if len(sys.argv) > 3 else m["samples"][0])' "$e.json" "$@" 2>/dev/null
}
recall=$(metric estimate_recall)
spurious=$(metric estimate_spurious_share)
[ $RC -eq 0 ] && [ -n "$recall" ] && [ -n "$spurious" ]
ok $? "6.12 guest: the estimate and function_graph on one run, recall ${recall:-none} and spurious share ${spurious:-none} as count metrics (rc=$RC)"
"$TOP/scripts/cid_scan_table.py" --check "$e.json" >"$TMP/est.table" 2>&1
grep '^PASS estimate vs function_graph' "$TMP/est.table" | sed 's/^/# /'
grep -q '^PASS estimate vs function_graph' "$TMP/est.table"
ok $? "the estimate found 90% of the traced walks (or said truly how many it saw), at most 5% of its scans were none"
done_testing
