#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Combine cid_scan JSON results (cid_scan -o FILE) from several kernels
or batch sizes into the seed's table: per batch size (or "full scan"), per
workload, the per-call and complete-scan ranges. Traced and estimated
numbers stay in separate rows; model results are refused.

    scripts/cid_scan_table.py run-b8.json run-b16.json run-b32.json
"""
import json
import sys


def rows(path):
    d = json.load(open(path))
    if d.get("program") != "cid_scan":
        sys.exit("%s: not a cid_scan result" % path)
    metrics = {m["name"]: m for m in d["metrics"]}
    if any(n.startswith("model_") for n in metrics):
        sys.exit("%s: a MODEL result, not a kernel measurement" % path)
    for name, full, method in (("scan_call_us", "complete_scan_us", "function_graph"),
                               ("scan_call_estimate_us", None, "estimate")):
        m = metrics.get(name)
        if not m or not m["samples"]:
            continue
        ex = m.get("extra", {})
        batch = int(ex.get("batch_cpus", 0))
        # context: "<scan>, <workload>, <N> possible CPUs, ..."
        parts = [p.strip() for p in m.get("context", "").split(",")]
        workload = parts[1] if len(parts) > 1 else "?"
        call = (min(m["samples"]), max(m["samples"]))
        f = metrics.get(full) if full else None
        whole = (min(f["samples"]), max(f["samples"])) if f and f["samples"] else call
        below = ex.get("below_10us_share")
        yield (batch, workload, method, int(ex.get("possible_cpus", 0)),
               call, whole, len(m["samples"]), below,
               d["system"].get("kernel_release", "?"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    table = sorted(r for p in sys.argv[1:] for r in rows(p))
    print("%-10s %-10s %-5s %-16s %-18s %-8s %-20s %s" % (
        "scan", "workload", "cpus", "per call (us)", "complete scan (us)",
        "<10 us", "method, calls", "kernel"))
    for batch, wl, method, cpus, call, whole, n, below, rel in table:
        print("%-10s %-10s %-5d %-16s %-18s %-8s %-20s %s" % (
            "batch %d" % batch if batch else "full scan", wl, cpus,
            "%.1f-%.1f" % call, "%.1f-%.1f" % whole,
            "%.0f%%" % (100 * below) if below is not None else "-",
            "%s, %d" % (method, n), rel))


if __name__ == "__main__":
    main()
