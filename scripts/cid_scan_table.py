#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Combine cid_scan JSON results (cid_scan -o FILE, or directories holding
them) from several kernels or batch sizes into the CID-batches thread's table: per batch
size ("full scan", "batch N", "scan off"), per workload, the per-call
range and p50, the complete scan and the delay between the calls of a
walk, with the thread's numbers beside them. Traced and estimated numbers
stay in separate rows; model results are refused.

    scripts/cid_scan_table.py [--markdown] [--check] FILE|DIR...

--check also judges the matrix (exit 1 when a verdict fails):
  - per workload, the per-call p50 grows with the batch: 8 < 16 < 32
    (under emulation the p10: there every disturbance, another vCPU or
    the host taking the one emulation thread, only adds time, so the
    least disturbed calls give the batch's cost and the p50 is noise;
    the 10th percentile of a few hundred calls, not the single fastest,
    which one odd call decides: a batch 16 minimum of 11.6 us against
    15.6 at batch 8, with p10 36.1 against 29.7, in one run);
  - each batched run's complete walks had ceil(possible CPUs / batch) calls
    (grouped by the scan's return values on this project's patch, by the
    calls nested in task_mm_cid_work() on the posted patch's shape: rows
    "batch N (posted)"); a run told to expect another batch size
    (cid_scan --expect-batch) must fail that verdict;
  - a scan-off run saw no scan call and its compaction check failed;
  - where a run compared the estimate with function_graph (spin
    workload): at most 5% of the scans it attributed were no traced
    call, and it found at least 90% of the traced walks, or said it saw
    less than 90% and that share was within 10 points of the real one.
and prints, from batch 8's complete scans, the number of CPUs at which a
complete scan would pass 100 ms (derived from this run).
Exit: 0, 1 a verdict failed, 2 bad input.
"""
import json
import math
import os
import sys

# The CID-batches thread (LKML, 2025-08-28; docs/references.md): 128
# physical CPUs, function_graph.
THREAD = {
    "machine": "128 physical CPUs",
    "call": {8: "1-11 (most <10)", 16: "3-16 (most <10)",
             32: "10-21 (most >15)", 0: "30-35"},
    "complete": {"cyclic": "1.5-2 ms", "hackbench": "1.5-15 ms"},
    "delay": {"cyclic": "0-400 us", "hackbench": "5 us-3 ms"},
}
PERIOD_US = 100000.0        # MM_CID_SCAN_DELAY


def die(msg):
    print("cid_scan_table: %s" % msg, file=sys.stderr)
    sys.exit(2)


def files(args):
    for a in args:
        if os.path.isdir(a):
            found = sorted(os.path.join(d, f) for d, _, fs in os.walk(a)
                           for f in fs if f == "cid_scan.json")
            if not found:
                die("%s: no cid_scan.json below it" % a)
            yield from found
        elif os.path.isfile(a):
            yield a
        else:
            die("%s: no such file or directory" % a)


def scan_label(ex):
    if ex.get("scan_off"):
        return "scan off"
    batch = int(ex.get("batch_cpus", 0))
    if batch > 0:
        return "batch %d%s" % (batch, " (posted)" if ex.get("walks_nested") else "")
    return "batch ?" if batch < 0 else "full scan"


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1)))] if v else None


def emulated(d):
    s = d.get("system", {})
    return "isolbench.vm=tcg" in s.get("cmdline", "").split() or bool(s.get("emulated"))


def machine(d):
    s = d.get("system", {})
    cmd = s.get("cmdline", "").split()
    if "isolbench.vm=tcg" in cmd:
        where = "qemu TCG (vm/run.sh)"
    elif "isolbench.vm=kvm" in cmd:
        where = "qemu KVM (vm/run.sh)"
    elif s.get("emulated"):
        where = "emulated CPU (TCG)"
    elif s.get("virtualized"):
        where = "a %s guest" % s.get("hypervisor", "?")
    else:
        where = "bare metal"

    def count(mask):
        n = 0
        for part in filter(None, mask.split(",")):
            lo, _, hi = part.partition("-")
            n += int(hi or lo) - int(lo) + 1
        return n
    online, possible = count(s.get("online", "")), count(s.get("possible", ""))
    return "%s, %d vCPUs online of %d possible" % (where, online, possible)


def load(path):
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))
    if not isinstance(d, dict) or d.get("program") != "cid_scan":
        die("%s: not a cid_scan result" % path)
    metrics = {m["name"]: m for m in d.get("metrics", [])}
    if any(n.startswith("model_") for n in metrics):
        die("%s: a MODEL result, not a kernel measurement" % path)
    return d, metrics


RECALL_MIN, SPURIOUS_MAX, SAID_TOLERANCE = 0.9, 0.05, 0.1


def cross(path):
    """The estimate against function_graph on one run, if it was run."""
    _, metrics = load(path)
    r, s = metrics.get("estimate_recall"), metrics.get("estimate_spurious_share")
    if not r or not s or not r.get("samples") or not s.get("samples"):
        return None
    return {"path": path, "recall": r["samples"][0], "spurious": s["samples"][0],
            "said": r.get("extra", {}).get("seen_share_said", 0.0),
            "found": r.get("extra", {}).get("found", 0),
            "walks": r.get("extra", {}).get("traced_walks", 0),
            "attributed": s.get("extra", {}).get("attributed", 0),
            "not_real": s.get("extra", {}).get("not_real", 0)}


def cross_check(c):
    recall_ok = c["recall"] >= RECALL_MIN or (
        c["said"] < RECALL_MIN and abs(c["said"] - c["recall"]) <= SAID_TOLERANCE)
    spurious_ok = c["spurious"] <= SPURIOUS_MAX
    return (recall_ok and spurious_ok,
            "estimate vs function_graph (%s): found %.1f%% of the traced walks (%d of %d), "
            "said it saw %.0f%%; %.1f%% of its %d attributed scans no traced call" % (
                os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(c["path"])))),
                100 * c["recall"], c["found"], c["walks"], 100 * c["said"],
                100 * c["spurious"], c["attributed"]))


def rows(path):
    d, metrics = load(path)
    verdicts = d.get("verdicts", [])
    compaction = [v for v in verdicts if v.get("name", "").startswith(
        ("compaction", "survivor's mm_cid"))]
    for name, full, method in (("scan_call_us", "complete_scan_us", "function_graph"),
                               ("scan_call_estimate_us", None, "estimate")):
        m = metrics.get(name)
        if not m:
            continue
        ex = m.get("extra", {})
        s = m.get("samples") or []
        # context: "<scan>, <workload>, <N> possible CPUs, ..."
        parts = [p.strip() for p in m.get("context", "").split(",")]
        f = metrics.get(full) if full else None
        g = metrics.get("scan_call_delay_us")
        yield {
            "path": path, "label": scan_label(ex),
            "batch": int(ex.get("batch_cpus", 0)), "off": bool(ex.get("scan_off")),
            "workload": parts[1] if len(parts) > 1 else "?", "method": method,
            "possible": int(ex.get("possible_cpus", 0)), "calls": s,
            "full": (f or {}).get("samples") or [] if f else [],
            "delay": (g or {}).get("samples") or [] if method == "function_graph" else [],
            "below": ex.get("below_10us_share"),
            "walks_expected": ex.get("walks_expected_calls"),
            "walks_other": ex.get("walks_other_calls"),
            "walk_calls": int(ex.get("walk_calls_expected", 0)),
            "nested": bool(ex.get("walks_nested")),
            "expect": int(ex.get("batch_expected", 0)),
            "walk_verdict": next((v for v in verdicts
                                  if v.get("name", "").startswith("calls per complete scan")), None),
            "compaction": compaction[0] if compaction else None,
            "machine": machine(d),
            "emulated": emulated(d),
            "release": d.get("system", {}).get("kernel_release", "?"),
        }


def verdict_text(v):
    """A verdict's name, its reason (the counts) after it, and its result."""
    if v is None:
        return "no calls-per-walk verdict"
    text = v.get("name", "")
    if v.get("reason"):
        text += ": " + v["reason"]
    return text + " [" + v.get("result", "?") + "]"


def rng(v, scale=1.0, fmt="%.1f"):
    if not v:
        return "-"
    return (fmt + "-" + fmt) % (min(v) / scale, max(v) / scale)


def table(all_rows, markdown):
    head = ["scan", "workload", "per call us", "p50", "<10us", "complete scan",
            "delay us", "calls", "thread per call", "thread complete", "thread delay"]
    out = []
    for r in all_rows:
        if r["full"]:
            full = rng(r["full"], 1000.0, "%.2f") + " ms"
        elif not r["batch"] and r["calls"]:
            full = rng(r["calls"]) + " us"     # a full scan is one call
        else:
            full = "-"
        thread_call = THREAD["call"].get(r["batch"] if not r["off"] else -1, "-")
        out.append([
            r["label"], r["workload"] + ("" if r["method"] == "function_graph" else " (est.)"),
            rng(r["calls"]), "%.1f" % quantile(r["calls"], 0.5) if r["calls"] else "-",
            "%.0f%%" % (100 * r["below"]) if r["below"] is not None and r["calls"] else "-",
            full, rng(r["delay"], 1.0, "%.0f"), str(len(r["calls"])),
            thread_call if not r["off"] else "-",
            THREAD["complete"].get(r["workload"], "-") if r["batch"] > 0 and not r["off"] else "-",
            THREAD["delay"].get(r["workload"], "-") if r["batch"] > 0 and not r["off"] else "-"])
    machines = sorted(set(r["machine"] for r in all_rows))
    note = "ours: %s; thread: %s (batch 8/16/32 per call; full scan 30-35 us)" % (
        "; ".join(machines), THREAD["machine"])
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for o in out:
            print("| " + " | ".join(o) + " |")
        print("\n" + note)
        return
    w = [max(len(str(x[i])) for x in [head] + out) for i in range(len(head))]
    for o in [head] + out:
        print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(o)).rstrip())
    print(note)


def check(all_rows):
    """The verdicts across kernels: a list of (ok, text)."""
    res = []
    traced = [r for r in all_rows if r["method"] == "function_graph"]
    for wl in sorted(set(r["workload"] for r in traced)):
        # one patch's batch sizes (this project's: its boot parameter)
        runs = [r for r in traced if r["workload"] == wl and not r["off"]
                and not r["nested"] and not r["expect"]
                and r["batch"] in (8, 16, 32) and r["calls"]]
        emu = any(r["emulated"] for r in runs)
        what, q = ("p10", 0.1) if emu else ("p50", 0.5)
        stat = {r["batch"]: quantile(r["calls"], q) for r in runs}
        have = sorted(stat)
        if len(have) < 2:
            continue
        grows = all(stat[a] < stat[b] for a, b in zip(have, have[1:]))
        res.append((grows, "%s: per-call %s grows with the batch%s: %s" % (
            wl, what, " (emulated: the least disturbed calls)" if emu else "",
            " < ".join("batch %d %.2f us" % (b, stat[b]) for b in have))))
    for r in traced:
        run = os.path.dirname(os.path.abspath(r["path"]))
        if os.path.basename(run) == "suite":      # vm/run.sh -o RUN: RUN/suite/
            run = os.path.dirname(run)
        where = "%s %s (%s)" % (r["label"], r["workload"], os.path.basename(run))
        if r["off"]:
            comp = r["compaction"]
            ok = not r["calls"] and comp is not None and comp.get("result") == "fail"
            res.append((ok, "%s: scan off: %d scan calls seen, compaction check %s" % (
                where, len(r["calls"]), comp.get("result") if comp else "absent")))
        elif r["batch"] > 0 and r["expect"] and r["expect"] != r["batch"]:
            v = r["walk_verdict"]
            ok = v is not None and v.get("result") == "fail"
            res.append((ok, "%s: calls per walk judged against batches of %d, not %d, must fail: %s" % (
                where, r["expect"], r["batch"], verdict_text(v))))
        elif r["batch"] > 0:
            v = r["walk_verdict"]
            ok = v is not None and v.get("result") == "pass" and bool(r["walks_expected"])
            res.append((ok, "%s: calls per walk: %s" % (where, verdict_text(v))))
    return res


def derived(all_rows):
    for r in all_rows:
        if r["batch"] != 8 or r["off"] or r["expect"] or not r["full"] or not r["possible"]:
            continue
        for what, t in (("p50", quantile(r["full"], 0.5)), ("max", max(r["full"]))):
            print("derived from this run (%s, %s): batch 8 complete scan %s %.2f ms for %d "
                  "possible CPUs -> passes 100 ms at about %d CPUs" % (
                      r["machine"], r["workload"], what, t / 1000.0, r["possible"],
                      int(math.floor(r["possible"] * PERIOD_US / t))))


def main(argv):
    markdown = "--markdown" in argv
    do_check = "--check" in argv
    args = [a for a in argv if a not in ("--markdown", "--check")]
    bad = [a for a in args if a.startswith("-")]
    if bad:
        die("unknown option %s (usage: cid_scan_table.py [--markdown] [--check] FILE|DIR...)" % bad[0])
    if not args:
        die("no result given (usage: cid_scan_table.py [--markdown] [--check] FILE|DIR...)")

    def order(r):
        return (r["workload"], r["method"], r["off"], r["batch"] if r["batch"] > 0 else
                (1 << 20 if r["batch"] < 0 else 0), r["nested"], r["expect"])
    all_rows = sorted((r for p in files(args) for r in rows(p)), key=order)
    if not all_rows:
        die("no scan measurement in the results")
    table(all_rows, markdown)
    if not do_check:
        return 0
    fails = 0
    print()
    checks = check(all_rows)
    checks += [cross_check(c) for c in (cross(p) for p in files(args)) if c]
    for ok, text in checks:
        print("%s %s" % ("PASS" if ok else "FAIL", text))
        fails += not ok
    derived(all_rows)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
