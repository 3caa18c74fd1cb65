// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan: the RSEQ mm_cid scan's latency, and CID compaction.
 *
 * On 6.4 to 6.18 the tick queues task_mm_cid_work() about every 100 ms
 * per process; it runs on the return to user space and walks every
 * possible CPU to clear and compact the process's concurrency IDs
 * (the CID-batches thread: 30-35 us on 128 CPUs; the unmerged batch patch,
 * CONFIG_RSEQ_CID_SCAN_BATCH, scans 8/16/32 CPUs per call). 6.19 has no
 * periodic scan. This program says which model the running kernel has,
 * times the scan per call (function_graph where it exists, else a
 * user-space estimate from pinned busy loops), checks that the IDs
 * compact and stay valid, and with --model simulates the batched scan
 * over up to 4096 CPUs in user space.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/tracefs.h"
#include "lib/base/util.h"
#include "cid_scan.h"

static const char *const method_names[] = { "auto", "trace", "estimate", NULL };

/* The walks phase when function_graph gave no walks to judge. */
static void walks_unjudged(struct bench *b, const struct scan_model *sm,
			   const struct cid_scan_row *row)
{
	if ((sm->walk_retval || sm->walk_nested) && !row->walks_judged)
		bench_verdict(b, KSFT_SKIP, "needs function_graph", "calls per complete scan");
}

/*
 * --expect-batch: the calls-per-walk verdict judges the walks against
 * another batch size than the kernel's (a check that it can fail).
 */
static void expect_batch(struct bench *b, const struct cid_opts *o,
			 struct scan_model *sm)
{
	if (!sm->walk_retval && !sm->walk_nested) {
		bench_note(b, "--expect-batch %llu: this kernel has no batched walks to judge",
			   (unsigned long long)o->expect_batch);
		return;
	}
	sm->batch_expected = (int)o->expect_batch;
	sm->walk_calls = (sm->possible + sm->batch_expected - 1) / sm->batch_expected;
	bench_note(b, "calls per complete scan judged against batches of %d (--expect-batch; the kernel's: %d): %d calls expected",
		   sm->batch_expected, sm->batch, sm->walk_calls);
}

/* Per call: function_graph where it works, else the user-space estimate. */
static void scan_latency(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm, struct cid_scan_row *row)
{
	char why[192];

	if (!sm->periodic)
		bench_verdict(b, KSFT_SKIP, "no periodic mm_cid scan on this kernel",
			      "scan latency per call");
	else if (o->method != M_ESTIMATE && !tracefs_graph_probe(sm->func, why, sizeof(why)))
		cid_scan_latency_traced(b, o, sm, row);
	else if (o->method == M_TRACE)
		bench_verdict(b, KSFT_SKIP, why, "function_graph timed %s", sm->func);
	else
		cid_scan_latency_estimated(b, o, sm, row);
	if (o->method == M_AUTO && sm->periodic && row->method && !strcmp(row->method, "estimate"))
		bench_note(b, "function_graph not usable (%s): user-space estimate", why);
	walks_unjudged(b, sm, row);
}

/*
 * cid_scan's CPUs (prog_spec.cpu_plan): its threads spread over every
 * allowed CPU unless --cpu says which.
 */
static void cid_scan_cpu_plan(struct bench *b, void *ctx)
{
	(void)ctx;
	if (b->opt.cpus_given)
		return;
	CPU_AND(&b->opt.cpus, &b->sets.allowed, &b->sets.online);
	CPU_ZERO(&b->opt.housekeeping);
	b->locked = b->opt.cpus;
	b->target_reason = "every allowed online CPU (the workload's threads spread over them)";
}

/* Defaults that depend on --cpu; what the table cannot check. */
static void opts_finish(struct bench *b, struct cid_opts *o, bool threads_given)
{
	if (!threads_given)
		o->threads = CPU_COUNT(&b->opt.cpus);
	if (o->workload == WL_HACKBENCH && o->threads < 2)
		bench_usage_error(b, "--workload hackbench needs --threads 2 or more");
}

static void table_print(const struct cid_scan_row *row)
{
	char full[32] = "-", delay[32] = "-";

	ksft_print_msg("cid_scan table (us; complete scan: first to last call of a walk):\n");
	ksft_print_msg("  %-10s %-10s %-14s %-7s %-16s %-14s %s\n", "scan", "workload",
		       "per call", "p50", "complete scan", "delay", "method, calls");
	if (!row->n) {
		ksft_print_msg("  %-10s %-10s %-14s %-7s %-16s %-14s %s\n", row->scan,
			       row->workload ? row->workload : "-", "-", "-", "-", "-",
			       "no calls");
		return;
	}
	if (row->full.n)
		snprintf(full, sizeof(full), "%.1f-%.1f", row->full.min, row->full.max);
	if (row->delay.n)
		snprintf(delay, sizeof(delay), "%.1f-%.1f", row->delay.min, row->delay.max);
	ksft_print_msg("  %-10s %-10s %5.1f-%-8.1f %-7.1f %-16s %-14s %s, %zu\n",
		       row->scan, row->workload, row->call.min, row->call.max,
		       row->call.p50, full, delay, row->method, row->n);
}

/*
 * The experiment: what the kernel has, the phases this run declares
 * (the KTAP plan), the scan's latency, compaction and the invariants;
 * or with --model the simulation beside the traced scan.
 */
static noreturn void cid_run(struct bench *b, struct cid_opts *o)
{
	struct scan_model sm = { 0 };
	struct cid_scan_row row = { .scan = "" };
	char why[192];
	bool trace;

	cid_scan_detect(b, &sm);
	if (o->expect_batch)
		expect_batch(b, o, &sm);
	/* the model times the scan with function_graph where it can */
	trace = o->model && sm.periodic && !tracefs_graph_probe(sm.func, why, sizeof(why));
	bench_phases(b, (const struct plan_phase[]){
		/* scan_latency(), or cid_scan_latency_traced() for the model */
		{ "latency", 1, !o->model || trace },
		/* walks_report(): by return values or nested calls */
		{ "walks", 1, (sm.walk_retval || sm.walk_nested) && (!o->model || trace) },
		{ "compaction", 1, !o->model && !o->no_compaction },
		{ "invariants", 1, !o->model && !o->no_compaction },
		{ "model", 0, o->model },	/* cid_scan_run_model(): no verdict */
		{ NULL }
	});
	if (o->model) {
		if (trace) {
			cid_scan_latency_traced(b, o, &sm, &row);
			walks_unjudged(b, &sm, &row);
		} else {
			bench_note(b, "MODEL only, no verdict: %s", sm.periodic ? why : "no periodic scan to compare with");
		}
		cid_scan_run_model(b, o, &sm, trace ? &row : NULL);
		bench_finish(b);
	}
	scan_latency(b, o, &sm, &row);
	if (!o->no_compaction) {
		cid_scan_compaction(b, o, &sm);
		cid_scan_invariants(b, o, &sm);
	}
	if (row.workload)
		table_print(&row);
	bench_finish(b);
}

int main(int argc, char **argv)
{
	struct cid_opts o = {
		.workload = WL_SPIN, .method = M_AUTO, .period_us = 100,
		.gap_min_ns = 1000, .compaction_timeout_s = 5,
		.model_max_cpus = 4096,
	};
	bool threads_given = false;
	const struct opt opts[] = {
		{ .name = "workload", .key = 'w', .type = OPT_CHOICE, .dest = &o.workload,
		  .arg = "NAME", .help = "what runs while the scan is timed",
		  .choices = cid_scan_workload_names },
		{ .name = "threads", .key = 't', .type = OPT_UINT, .dest = &o.threads,
		  .given = &threads_given, .arg = "N",
		  .help = "workload threads (default one per CPU of --cpu)", .min = 1, .max = 4096 },
		{ .name = "period-us", .type = OPT_UINT, .dest = &o.period_us, .arg = "US",
		  .help = "cyclic workload: wakeup period", .min = 10, .max = 1000000 },
		{ .name = "hackbench-threads", .type = OPT_FLAG, .dest = &o.hackbench_threads,
		  .help = "hackbench workload: threads of this process instead of processes" },
		{ .name = "method", .key = 'm', .type = OPT_CHOICE, .dest = &o.method,
		  .arg = "NAME", .help = "scan latency: function_graph trace or user-space estimate",
		  .choices = method_names },
		{ .name = "trace-buffer-kb", .type = OPT_UINT, .dest = &o.trace_buffer_kb,
		  .arg = "KB", .help = "trace: ring buffer per CPU (default: as it is; restored after)",
		  .min = 1, .max = 1048576 },
		{ .name = "expect-batch", .type = OPT_UINT, .dest = &o.expect_batch,
		  .arg = "N", .help = "trace: judge the calls per complete scan against batches of N CPUs, not the kernel's (a check of that verdict)",
		  .min = 1, .max = 4096 },
		{ .name = "gap-min-ns", .type = OPT_UINT, .dest = &o.gap_min_ns, .arg = "NS",
		  .help = "busy loops (estimate, spin workload, invariants): record gaps longer than this",
		  .min = 100, .max = 1000000 },
		{ .name = "compaction-threads", .type = OPT_UINT, .dest = &o.compaction_threads,
		  .arg = "N", .help = "invariants: pinned busy loops (default 2 per CPU)",
		  .min = 2, .max = 4096 },
		{ .name = "compaction-timeout", .type = OPT_DOUBLE, .dest = &o.compaction_timeout_s,
		  .arg = "SECS", .help = "compaction: bound for the survivor's cid to reach 0 while it runs",
		  .min = 0.1, .max = 600 },
		{ .name = "no-compaction", .type = OPT_FLAG, .dest = &o.no_compaction,
		  .help = "skip the compaction and invariant checks" },
		{ .name = "compaction-control", .type = OPT_FLAG, .dest = &o.compaction_control,
		  .help = "negative control: the survivor sleeps through the bound, no scan can run, compaction must FAIL" },
		{ .name = "model", .type = OPT_FLAG, .dest = &o.model,
		  .help = "run the user-space MODEL of the batched scan instead" },
		{ .name = "model-max-cpus", .type = OPT_UINT, .dest = &o.model_max_cpus,
		  .arg = "N", .help = "model: largest simulated CPU count (8, 16, ... up to N)",
		  .min = 8, .max = 4096 },
		{ .name = "model-call-gap-us", .type = OPT_DOUBLE, .dest = &o.model_call_gap_us,
		  .given = &o.model_gap_given, .arg = "US",
		  .help = "model: time between two batch calls, your input (no default)",
		  .min = 0, .max = 1e6 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "cid_scan",
		.cpu_plan = cid_scan_cpu_plan,
		.summary = "RSEQ mm_cid scan latency per call, complete-scan time and CID compaction.",
		.common = COMMON_CPU | COMMON_DURATION,
		.opts = opts,
		.quick = { .duration_s = 2 },
		.rules = (const struct opt_rule[]){
			{ "model", OPT_CONFLICTS, "workload" },
			{ "model", OPT_CONFLICTS, "threads" },
			{ "model", OPT_CONFLICTS, "method" },
			{ "model", OPT_CONFLICTS, "compaction-threads" },
			{ "model-max-cpus", OPT_NEEDS, "model" },
			{ "model-call-gap-us", OPT_NEEDS, "model" },
			/* the model runs no compaction check */
			{ "model", OPT_CONFLICTS, "no-compaction" },
			{ "model", OPT_CONFLICTS, "compaction-timeout" },
			{ "model", OPT_CONFLICTS, "compaction-control" },
			{ "no-compaction", OPT_CONFLICTS, "compaction-threads" },
			{ "no-compaction", OPT_CONFLICTS, "compaction-timeout" },
			{ "no-compaction", OPT_CONFLICTS, "compaction-control" },
			{ "period-us", OPT_NEEDS, "workload=cyclic" },
			{ "hackbench-threads", OPT_NEEDS, "workload=hackbench" },
			/* the ring buffer of function_graph, never set up */
			{ "trace-buffer-kb", OPT_CONFLICTS, "method=estimate" },
			/* the walks are judged on function_graph's calls only */
			{ "expect-batch", OPT_CONFLICTS, "method=estimate" },
			/*
			 * the busy loops' gaps: the estimate's, the spin
			 * workload's probes and the invariants' loops
			 */
			{ "gap-min-ns&method=trace&no-compaction", OPT_NEEDS, "workload=spin" },
			{ NULL }
		},
	};
	struct bench b = { .opt = { .duration_s = 10 } };

	bench_init(&b, &spec, argc, argv);
	opts_finish(&b, &o, threads_given);
	cid_run(&b, &o);
}
