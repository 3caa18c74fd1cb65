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
#include "lib/harness/phase.h"
#include "cid_scan_common.h"

static const char *const method_names[] = { "auto", "trace", "estimate", NULL };

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

/* One run: the options, what the kernel has, what the phases found. */
struct cid_run {
	struct cid_opts o;
	struct scan_model sm;
	struct cid_scan_row row;
	bool trace;		/* function_graph times the scan (beside --model) */
	char why[192];		/* why it does not */
};

/* The latency phase's one result: its name says which method timed the scan. */
static void latency_check_name(const void *ctx, unsigned int run, unsigned int i,
			       char *buf, size_t len)
{
	const struct cid_run *c = ctx;

	(void)run;
	(void)i;
	if (!c->sm.periodic)
		snprintf(buf, len, "scan latency per call");
	else if (c->trace || c->o.method == M_TRACE)
		snprintf(buf, len, "%s", CID_SCAN_TRACED_CHECK);
	else
		snprintf(buf, len, "scan seen from user space");
}

/* Per call: function_graph where it works, else the user-space estimate. */
static void scan_latency(struct bench *b, struct cid_run *c)
{
	char name[192];

	latency_check_name(c, 0, 0, name, sizeof(name));
	if (!c->sm.periodic)
		bench_verdict(b, KSFT_SKIP, "no periodic mm_cid scan on this kernel", "%s", name);
	else if (c->trace)
		cid_scan_latency_traced(b, &c->o, &c->sm, &c->row);
	else if (c->o.method == M_TRACE)
		bench_verdict(b, KSFT_SKIP, c->why, "%s", name);
	else
		cid_scan_latency_estimated(b, &c->o, &c->sm, &c->row);
	if (c->o.method == M_AUTO && c->sm.periodic && !c->trace)
		bench_note(b, "function_graph not usable (%s): user-space estimate", c->why);
}

/*
 * What the kernel has decides the plan: its model of the scan, the
 * batch judged, and with --model whether function_graph can time it.
 */
static void cid_context(struct bench *b, struct cid_run *c)
{
	cid_scan_detect(b, &c->sm);
	if (c->o.expect_batch)
		expect_batch(b, &c->o, &c->sm);
	c->trace = (c->o.model || c->o.method != M_ESTIMATE) && c->sm.periodic &&
		   !tracefs_graph_probe(c->sm.func, c->why, sizeof(c->why));
}

static unsigned int latency_judged(const void *ctx)
{
	const struct cid_run *c = ctx;

	return !c->o.model || c->trace;
}

/* The scan's latency per call; with --model, function_graph's alone. */
static void latency_run(struct bench *b, void *ctx)
{
	struct cid_run *c = ctx;

	if (c->o.model)
		cid_scan_latency_traced(b, &c->o, &c->sm, &c->row);
	else
		scan_latency(b, c);
}

/* Its one verdict comes from the method that timed the scan. */
static const struct phase cid_scan_latency_phase = {
	.name = "latency",
	.nverdicts = 1,
	.check_name = latency_check_name,
	.judged = latency_judged,
	.run = latency_run,
};

static unsigned int walks_judged(const void *ctx)
{
	const struct cid_run *c = ctx;

	return (c->sm.walk_retval || c->sm.walk_nested) && latency_judged(ctx);
}

static const char *const walks_checks[] = { "calls per complete scan" };

/* The walks function_graph grouped in the latency phase, by return values or nested calls. */
static void walks_run(struct bench *b, void *ctx)
{
	const struct cid_scan_row *row = &((struct cid_run *)ctx)->row;

	if (row->walks_judged)
		bench_verdict(b, row->walks_code, row->walks_why, "%s", walks_checks[0]);
	else
		bench_verdict(b, KSFT_SKIP, "needs function_graph", "%s", walks_checks[0]);
}

static const struct phase cid_scan_walks_phase = {
	.name = "walks",
	.nverdicts = ARRAY_SIZE(walks_checks),
	.checks = walks_checks,
	.judged = walks_judged,
	.run = walks_run,
};

static const char *const compaction_checks[] = { CID_SCAN_COMPACTION_CHECK };
static const char *const invariants_checks[] = { CID_SCAN_INVARIANTS_CHECK };

static unsigned int compaction_judged(const void *ctx)
{
	const struct cid_run *c = ctx;

	return !c->o.model && !c->o.no_compaction;
}

static void compaction_run(struct bench *b, void *ctx)
{
	struct cid_run *c = ctx;

	cid_scan_compaction(b, &c->o, &c->sm);
}

static const struct phase cid_scan_compaction_phase = {
	.name = "compaction",
	.nverdicts = ARRAY_SIZE(compaction_checks),
	.checks = compaction_checks,
	.judged = compaction_judged,
	.run = compaction_run,
};

static void invariants_run(struct bench *b, void *ctx)
{
	struct cid_run *c = ctx;

	cid_scan_invariants(b, &c->o, &c->sm);
}

static const struct phase cid_scan_invariants_phase = {
	.name = "invariants",
	.nverdicts = ARRAY_SIZE(invariants_checks),
	.checks = invariants_checks,
	.judged = compaction_judged,
	.run = invariants_run,
};

static unsigned int model_judged(const void *ctx)
{
	const struct cid_run *c = ctx;

	return c->o.model;
}

/* The simulated batched scan, beside the traced one where there is one. */
static void model_run(struct bench *b, void *ctx)
{
	struct cid_run *c = ctx;

	if (!c->trace)
		bench_note(b, "MODEL only, no verdict: %s",
			   c->sm.periodic ? c->why : "no periodic scan to compare with");
	cid_scan_run_model(b, &c->o, &c->sm, c->trace ? &c->row : NULL);
}

static const struct phase cid_scan_model_phase = {
	.name = "model",
	.nverdicts = 0,
	.judged = model_judged,
	.run = model_run,
};

static bool table_runs(const void *ctx)
{
	const struct cid_run *c = ctx;

	return !c->o.model;
}

/* The CID-batches thread's table, of the latency phase's row. */
static void table_run(struct bench *b, void *ctx)
{
	const struct cid_run *c = ctx;

	(void)b;
	if (c->row.workload)
		table_print(&c->row);
}

static const struct phase cid_scan_table_phase = {
	.name = "table",
	.nverdicts = 0,
	.runs = table_runs,
	.run = table_run,
};

/*
 * The experiment, in this order: the scan's latency and its walks, CID
 * compaction and the invariants, or with --model the simulation beside
 * the traced scan; then the table of the scan.
 */
static const struct phase *const cid_scan_phases[] = {
	&cid_scan_latency_phase,
	&cid_scan_walks_phase,
	&cid_scan_compaction_phase,
	&cid_scan_invariants_phase,
	&cid_scan_model_phase,
	&cid_scan_table_phase,
	NULL
};

/* Options that do not go together (lib/harness/opts.h). */
static const struct opt_rule cid_scan_rules[] = {
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
};

int main(int argc, char **argv)
{
	struct cid_run c = {
		.o = { .workload = WL_SPIN, .method = M_AUTO, .period_us = 100,
		       .gap_min_ns = 1000, .compaction_timeout_s = 5,
		       .model_max_cpus = 4096 },
		.row = { .scan = "" },
	};
	struct cid_opts *o = &c.o;
	bool threads_given = false;
	const struct opt opts[] = {
		{ .name = "workload", .key = 'w', .type = OPT_CHOICE, .dest = &o->workload,
		  .arg = "NAME", .help = "what runs while the scan is timed",
		  .choices = cid_scan_workload_names },
		{ .name = "threads", .key = 't', .type = OPT_UINT, .dest = &o->threads,
		  .given = &threads_given, .arg = "N",
		  .help = "workload threads (default one per CPU of --cpu)", .min = 1, .max = 4096 },
		{ .name = "period-us", .type = OPT_UINT, .dest = &o->period_us, .arg = "US",
		  .help = "cyclic workload: wakeup period", .min = 10, .max = 1000000 },
		{ .name = "hackbench-threads", .type = OPT_FLAG, .dest = &o->hackbench_threads,
		  .help = "hackbench workload: threads of this process instead of processes" },
		{ .name = "method", .key = 'm', .type = OPT_CHOICE, .dest = &o->method,
		  .arg = "NAME", .help = "scan latency: function_graph trace or user-space estimate",
		  .choices = method_names },
		{ .name = "trace-buffer-kb", .type = OPT_UINT, .dest = &o->trace_buffer_kb,
		  .arg = "KB", .help = "trace: ring buffer per CPU (default: as it is; restored after)",
		  .min = 1, .max = 1048576 },
		{ .name = "expect-batch", .type = OPT_UINT, .dest = &o->expect_batch,
		  .arg = "N", .help = "trace: judge the calls per complete scan against batches of N CPUs, not the kernel's (a check of that verdict)",
		  .min = 1, .max = 4096 },
		{ .name = "gap-min-ns", .type = OPT_UINT, .dest = &o->gap_min_ns, .arg = "NS",
		  .help = "busy loops (estimate, spin workload, invariants): record gaps longer than this",
		  .min = 100, .max = 1000000 },
		{ .name = "compaction-threads", .type = OPT_UINT, .dest = &o->compaction_threads,
		  .arg = "N", .help = "invariants: pinned busy loops (default 2 per CPU)",
		  .min = 2, .max = 4096 },
		{ .name = "compaction-timeout", .type = OPT_DOUBLE, .dest = &o->compaction_timeout_s,
		  .arg = "SECS", .help = "compaction: bound for the survivor's cid to reach 0 while it runs",
		  .min = 0.1, .max = 600 },
		{ .name = "no-compaction", .type = OPT_FLAG, .dest = &o->no_compaction,
		  .help = "skip the compaction and invariant checks" },
		{ .name = "compaction-control", .type = OPT_FLAG, .dest = &o->compaction_control,
		  .help = "negative control: the survivor sleeps through the bound, no scan can run, compaction must FAIL" },
		{ .name = "model", .type = OPT_FLAG, .dest = &o->model,
		  .help = "run the user-space MODEL of the batched scan instead" },
		{ .name = "model-max-cpus", .type = OPT_UINT, .dest = &o->model_max_cpus,
		  .arg = "N", .help = "model: largest simulated CPU count (8, 16, ... up to N)",
		  .min = 8, .max = 4096 },
		{ .name = "model-call-gap-us", .type = OPT_DOUBLE, .dest = &o->model_call_gap_us,
		  .given = &o->model_gap_given, .arg = "US",
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
		.rules = cid_scan_rules,
	};
	struct bench b = { .opt = { .duration_s = 10 } };

	bench_init(&b, &spec, argc, argv);
	opts_finish(&b, o, threads_given);
	cid_context(&b, &c);
	phases_plan(&b, cid_scan_phases, &c);
	phases_run(&b, cid_scan_phases, &c);
	bench_finish(&b);
}
