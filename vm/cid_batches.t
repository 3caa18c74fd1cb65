#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/cid_batches.t - the reduced cid_scan batch matrix on a kernel built
# from linux-source-6.12 with vm/patches/cid-scan-batch.patch: batch 8
# and 32 and the scan-off control, cyclic workload, 8 s runs, 128
# possible CPUs with 4 online (vm/cid_batches.sh --reduced). The
# cross-kernel verdicts must pass: the time per call grows from batch 8
# to 32 (its p10 under TCG, else its p50),
# each run's complete walks have ceil(128 / batch) calls, the scan-off
# kernel shows no scan call and fails the compaction check. TAP, for
# prove; make check-kernels runs it.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$TOP/tests/lib.sh"

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP qemu-system-x86_64 not installed"
	exit 0
fi
plan 6

start=$(date +%s)
"$TOP/vm/cid_batches.sh" --reduced -o "$TMP/cb" ${CID_BATCHES_ARGS:-} >"$TMP/out" 2>"$TMP/err"
RC=$?
diag "vm/cid_batches.sh --reduced: exit $RC after $(($(date +%s) - start)) s"
sed 's/^/# /' "$TMP/out"
[ $RC -eq 0 ] || tail -n 20 "$TMP/err" | sed 's/^/# /'
[ $RC -eq 0 ]
ok $? "reduced matrix: every verdict passed (rc=$RC)"
n=$(ls "$TMP"/cb/*/suite/cid_scan.json 2>/dev/null | wc -l)
[ "$n" -eq 3 ]
ok $? "three results kept (batch 8, batch 32, scan off): $n"
# (the p10 under TCG, the p50 under KVM: scripts/cid_scan_table.py)
grep -Eq '^PASS cyclic: per-call (p10|p50) grows with the batch( \(emulated: the least disturbed calls\))?: batch 8 [0-9.]+ us < batch 32 [0-9.]+ us' "$TMP/out"
ok $? "per-call time grows from batch 8 to batch 32"
grep -Eq '^PASS batch 8 cyclic .*: [1-9][0-9]* of [1-9][0-9]* complete walks had 16 calls' "$TMP/out"
ok $? "batch 8: complete walks of 16 calls over 128 possible CPUs"
grep -Eq '^PASS batch 32 cyclic .*: [1-9][0-9]* of [1-9][0-9]* complete walks had 4 calls' "$TMP/out"
ok $? "batch 32: complete walks of 4 calls"
grep -Eq '^PASS scan off cyclic .*: scan off: 0 scan calls seen, compaction check fail' "$TMP/out"
ok $? "scan off: no scan call, the compaction check fails"
done_testing
