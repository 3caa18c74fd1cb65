// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan --model: the batched scan simulated in user space over up to
 * 4096 CPUs, as cache lines kept remote by a pinned writer.
 */
#include <math.h>
#include <stdlib.h>

#include "cid_scan_remote.h"
#include "lib/base/util.h"
#include "cid_scan_common.h"

/*
 * Per possible CPU the kernel's walk touches three remote lines: the
 * process's pcpu_cid (CID and time), the run queue (its clock) and the
 * task running there (its mm and mm_cid_active). The model does the
 * same per simulated CPU, twice (clear the old, then those above the
 * weight): reads the run queue and current-task lines, then reads and
 * compare-and-exchanges the CID line. Returns ns.
 */
#define MODEL_LINES_PER_CPU	3

static double model_batch(void *base, int from, int n)
{
	uint64_t t0 = bench_clock_start(), sink = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = from; i < from + n; i++) {
			struct remote_line *cid = remote_line(base, MODEL_LINES_PER_CPU * i);
			uint64_t c;

			sink += remote_line(base, MODEL_LINES_PER_CPU * i + 1)->val;
			sink += remote_line(base, MODEL_LINES_PER_CPU * i + 2)->tag;
			c = cid->val;
			if (cid->tag != UINT64_MAX)
				__atomic_compare_exchange_n(&cid->val, &c, c | (1ULL << 63),
							    false, __ATOMIC_SEQ_CST,
							    __ATOMIC_RELAXED);
		}
	__asm__ volatile("" : : "r"(sink));
	return clock_to_ns(bench_clock_end() - t0) - bench_clock.overhead_ns;
}

static const char *const model_keys[] = {
	"full_scan_us_n8", "full_scan_us_n16", "full_scan_us_n32",
	"full_scan_us_n64", "full_scan_us_n128", "full_scan_us_n256",
	"full_scan_us_n512", "full_scan_us_n1024", "full_scan_us_n2048",
	"full_scan_us_n4096",
};

/* Median model cost of one walk over @n simulated CPUs in @batch batches. */
static double model_cost_ns(struct remote_lines *s, int n, int batch, int reps,
			    struct metric *m)
{
	double *cost = calloc(reps, sizeof(double)), res;
	int nb = (n + batch - 1) / batch, r;

	if (!cost)
		ksft_exit_fail_msg("out of memory\n");
	for (r = 0; r < reps; r++) {
		double sum = 0, *per = calloc(nb, sizeof(double));

		if (!per)
			ksft_exit_fail_msg("out of memory\n");
		if (!cid_scan_remote_lines_refresh(s)) {
			free(per);
			break;
		}
		for (int j = 0; j < nb; j++) {
			int from = j * batch;

			per[j] = model_batch(s->base, from,
					     from + batch > n ? n - from : batch);
			sum += per[j];
		}
		cost[r] = sum / nb;
		if (m)
			metric_add(m, cid_scan_quantile_lower(per, nb, 0.5));
		free(per);
	}
	res = r < reps ? -1 : cid_scan_quantile_lower(cost, reps, 0.5);	/* stopped: none */
	free(cost);
	return res;
}

/*
 * The MODEL: no verdict of its own (a model checks nothing); where
 * function_graph works the kernel's walk is traced first (that verdict
 * can fail) and the model of the same walk is set beside it as a ratio.
 * The time between batch calls is an input: given by the user, or none
 * (then no extrapolation to 100 ms is printed).
 */
void cid_scan_run_model(struct bench *b, const struct cid_opts *o,
			const struct scan_model *sm, const struct cid_scan_row *traced)
{
	static const int batches[] = { 8, 16, 32 };
	struct remote_lines s;
	int reps = b->opt.quick ? 3 : 15, writer_cpu;
	int nsim = (int)o->model_max_cpus;
	cpu_mask_t other;
	double gap_us = o->model_call_gap_us;

	if (nsim < sm->possible)
		nsim = sm->possible;
	/* the scanner on the target CPU, the writer on any other one */
	CPU_AND(&other, &b->sets.allowed, &b->sets.online);
	CPU_CLR(b->target, &other);
	writer_cpu = CPU_COUNT(&other) ? cpu_mask_first(&other) : b->target;
	cpu_pin_self(b->target);
	cid_scan_remote_lines_start(&s, MODEL_LINES_PER_CPU * nsim, writer_cpu);
	bench_note(b, "MODEL (user space, not a kernel measurement): per simulated CPU %d cache lines (CID, run queue clock, current task), written from cpu %d, scanned from cpu %d%s; %d repetitions",
		   MODEL_LINES_PER_CPU, s.writer_cpu, b->target,
		   s.writer_cpu == b->target ? " (same CPU: lines are not remote)" : "", reps);
	if (o->model_gap_given)
		bench_note(b, "MODEL input: %.0f us between batch calls, given with --model-call-gap-us", gap_us);
	else
		bench_note(b, "MODEL input: no time between batch calls (none given, none measured on this kernel): full-scan times are scanning only, no 100 ms extrapolation");
	if (traced && traced->n) {
		double walk_ns = model_cost_ns(&s, sm->possible, sm->batch ? sm->batch : sm->possible,
					       reps, NULL);

		if (walk_ns > 0)
			ksft_print_msg("MODEL vs kernel: one %s over %d possible CPUs, model %.3f us, traced p50 %.2f us (function_graph, %zu calls): ratio traced/model %.1f\n",
				       sm->batch ? "batch" : "full walk", sm->possible, walk_ns / 1e3,
				       traced->call.p50, traced->n, traced->call.p50 / (walk_ns / 1e3));
	}
	for (size_t bi = 0; bi < ARRAY_SIZE(batches) && !bench_stop; bi++) {
		int batch = batches[bi];
		char name[64];
		struct metric *m;
		double cost_ns = 0;

		snprintf(name, sizeof(name), "model_batch_cost_ns_batch%d", batch);
		m = bench_metric(b, name, "ns", BETTER_LOWER,
				 "MODEL: median cost of one batch at the largest N, per repetition");
		for (int n = 8, k = 0; n <= (int)o->model_max_cpus && !bench_stop; n *= 2, k++) {
			int nb = (n + batch - 1) / batch;
			double c = model_cost_ns(&s, n, batch, reps, n * 2 > (int)o->model_max_cpus ? m : NULL),
			       full_us;

			if (c < 0)
				break;
			cost_ns = c;
			full_us = nb * cost_ns / 1e3 + (nb - 1) * gap_us;
			metric_extra(m, model_keys[k], full_us);
			ksft_print_msg("MODEL batch %2d, %4d CPUs: %4d calls, %7.3f us per batch, full scan %9.1f us (%.1f us scanning)\n",
				       batch, n, nb, cost_ns / 1e3, full_us, nb * cost_ns / 1e3);
		}
		/* calls until 100 ms: nb * cost + (nb - 1) * gap > 100 ms */
		if (cost_ns > 0 && o->model_gap_given)
			ksft_print_msg("MODEL batch %d: a full scan passes 100 ms at about %.0f CPUs (%.3f us per batch, %.0f us between calls as given)\n",
				       batch, ceil((1e5 + gap_us) / (cost_ns / 1e3 + gap_us)) * batch,
				       cost_ns / 1e3, gap_us);
	}
	cid_scan_remote_lines_stop(&s);
}
