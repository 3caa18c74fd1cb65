// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's storm, whatever the mode: each run is a timed pass of
 * every pair at once (no per-event counting; the /proc/interrupts rows
 * of dst read around it) and a counted pass of the same size, whose
 * delivered share turns the timed calls into delivered IPIs
 * (ipistorm_delivery.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_common.h"
#include "lib/harness/phase.h"

/*
 * The spinner on dst runs SCHED_OTHER at nice -20, so that it owns dst
 * the way a stay-in-userspace loop owns an isolated CPU; a task of
 * equal weight on dst still takes half of it (see the delivery check).
 */
#define SPINNER_NICE	(-20)
#define BURST		256	/* calls between two looks at the clock */

/* The measured loop: the mode's bursts, the deadline between them. */
static uint64_t storm_loop(struct pair *p, uint64_t n, uint64_t end_ns)
{
	uint64_t (*burst)(struct pair *p, uint64_t n) = p->mode->burst;
	uint64_t i = 0;

	while (i < n && !bench_stop) {
		uint64_t chunk = n - i < BURST ? n - i : BURST;
		uint64_t done = burst(p, chunk);

		i += done;
		if (done < chunk || mono_ns() > end_ns)
			break;
	}
	return i;
}

static void *storm_thread(void *arg)
{
	struct pair *p = arg;
	uint64_t t0, t1;
	char who[48];

	if (cpu_pin_self(p->src)) {
		p->done = 0;
		return NULL;
	}
	if (p->counting) {	/* this thread's own sends only */
		snprintf(who, sizeof(who), "common_pid == %d", (int)gettid());
		ipistorm_pass_count_start(p, who);
	}
	t0 = bench_clock_start();
	p->done = storm_loop(p, p->n, p->end_ns);
	t1 = bench_clock_end();
	p->ns = clock_to_ns(t1 - t0);
	if (p->counting)
		ipistorm_pass_count_stop(p);
	return NULL;
}

/* One run of every pair at once, a storm thread each. */
static void storm_threads(struct storm *s, uint64_t n, double dur_s, bool counting)
{
	double limit_s = dur_s ? dur_s : s->o->timeout_s;
	uint64_t end = mono_ns() + (uint64_t)(limit_s * 1e9);

	for (int i = 0; i < s->np; i++) {
		s->p[i].n = n;
		s->p[i].end_ns = end;
		s->p[i].counting = counting;
		if (pthread_create(&s->p[i].thread, NULL, storm_thread, &s->p[i]))
			ksft_exit_fail_msg("cannot start a storm thread\n");
	}
	for (int i = 0; i < s->np; i++)
		pthread_join(s->p[i].thread, NULL);
}

/* The name of result @i of pair @p: the pair's two, then its mode's own. */
static void pair_check_name(const struct pair *p, unsigned int i, char *buf, size_t len)
{
	if (i == PAIR_COMPLETE)
		snprintf(buf, len, "%s: every run complete", p->desc);
	else if (i == PAIR_DELIVERED)
		snprintf(buf, len, "%s: calls reached dst as a real IPI or an elided send", p->desc);
	else
		snprintf(buf, len, "%s: %s", p->desc, p->mode->checks[i - PAIR_CHECKS]);
}

static void storm_check_name(const void *ctx, unsigned int run, unsigned int i,
			     char *buf, size_t len)
{
	pair_check_name(&((const struct storm *)ctx)->p[run], i, buf, len);
}

void ipistorm_pair_verdict(struct bench *b, const struct pair *p, unsigned int i, int code,
			   const char *reason)
{
	char name[256];

	pair_check_name(p, i, name, sizeof(name));
	bench_verdict(b, code, reason, "%s", name);
}

/* What the options make of a pair, and its description, before the plan. */
static void pair_describe(struct storm *s, struct pair *p)
{
	p->mode = s->mode;
	if (s->mode->pair_describe)
		s->mode->pair_describe(s, p);
	snprintf(p->desc, sizeof(p->desc), "cpu %d -> cpu %d (%s, %s target%s%s)",
		 p->src, p->dst, p->rel_known ? cpu_relation_name(p->rel) : "relation unknown",
		 p->busy ? "busy" : "idle", p->variant ? ", " : "",
		 p->variant ? p->variant : "");
}

/* Set up what a pair needs on dst before the runs; SKIP when missing. */
static void pair_setup(struct storm *s, struct pair *p, double max_s)
{
	char err[192], f[32];

	if (s->mode->pair_setup)
		s->mode->pair_setup(s, p);
	if (p->busy && spinner_start(&p->spin, p->dst, SPINNER_NICE, max_s, err, sizeof(err)))
		ksft_exit_fail_msg("%s\n", err);
	p->switched.fd = -1;
	if (p->busy) {
		snprintf(f, sizeof(f), "prev_pid == %d", p->spin.tid);
		counter_open_tracepoint(&p->switched, "sched:sched_switch", f, -1, p->dst);
	}
	p->d.counted = true;
}

/* A pair's metrics, suffixed _SRC_DST when there are several. */
static void pair_metrics(struct storm *s, struct pair *p)
{
	struct bench *b = s->b;
	char name[64], sfx[16] = "", ctx[160];

	if (s->np > 1)
		snprintf(sfx, sizeof(sfx), "_%d_%d", p->src, p->dst);
	snprintf(ctx, sizeof(ctx), "%s %s%s", s->mode->name, p->desc,
		 b->opt.load ? " with housekeeping load" : "");
	snprintf(name, sizeof(name), "ipi_ns%s", sfx);
	p->ns_m = bench_metric(b, name, "ns", BETTER_LOWER,
			       "average ns per delivered IPI (real + elided) of one timed run: its time / (its calls x the delivered share of its paired counted run)");
	metric_summary(p->ns_m, "IPI round trip", "%s, per delivered IPI", ctx);
	snprintf(name, sizeof(name), "ipis_per_s%s", sfx);
	p->rate_m = bench_metric(b, name, "1/s", BETTER_HIGHER,
				 "delivered IPIs (real + elided) per second of one timed run, as ipi_ns");
	metric_summary(p->rate_m, "IPI rate", "%s, delivered IPIs", ctx);
	snprintf(name, sizeof(name), "call_ns%s", sfx);
	p->call_m = bench_metric(b, name, "ns", BETTER_LOWER,
				 "average ns per call of one timed run, calls that reached no CPU included");
	metric_summary(p->call_m, "call", "%s, per call", ctx);
	snprintf(name, sizeof(name), "run_time_s%s", sfx);
	p->time_m = bench_metric(b, name, "s", BETTER_LOWER, "wall time of one timed run");
	metric_summary(p->time_m, "run time", "%s", ctx);
}

/* Whether the mode's own verdicts run this time. */
static bool mode_verdicts_on(const struct storm *s)
{
	return s->mode->verdicts && (!s->mode->verdicts_on || s->mode->verdicts_on(s));
}

/* The IPI kinds' /proc/interrupts rows of dst over a timed pass. */
static void pass_irqs(struct storm *s, struct irq_table *t0)
{
	struct irq_table t1;

	if (irq_table_read("/proc/interrupts", &t1))
		return;
	for (int i = 0; i < s->np; i++) {
		struct pair *p = &s->p[i];

		for (int k = 0; k < INTF_KINDS; k++) {
			int64_t *acc = &p->d.rows[k], d;

			if (!intf_kinds[k].row)
				continue;
			d = irq_table_delta(t0, &t1, intf_kinds[k].row, p->dst);
			if (k == INTF_IPI_CALL)
				p->pass_cal = d;
			/* -1 for good once the row is missing */
			*acc = *acc < 0 || d < 0 ? -1 : *acc + d;
		}
	}
	irq_table_free(&t1);
}

/*
 * One pass of every pair: a timed one (no per-event counting, the
 * /proc/interrupts rows of dst read around it) or a counted one. False
 * when a pair's pass failed or stopped early (its why says so).
 */
static bool storm_pass(struct storm *s, bool counting)
{
	struct bench *b = s->b;
	bool duration = b->opt.duration_s > 0;
	uint64_t n = duration ? UINT64_MAX : b->opt.loops;
	struct irq_table t0;
	bool ok = true, have_irqs;

	have_irqs = !counting && !irq_table_read("/proc/interrupts", &t0);
	for (int i = 0; i < s->np; i++)
		s->p[i].n = n;
	if (s->mode->run)
		ok = s->mode->run(s, counting);
	else
		storm_threads(s, n, b->opt.duration_s, counting);
	ok = ok && !bench_stop;
	if (have_irqs) {
		pass_irqs(s, &t0);
		irq_table_free(&t0);
	}
	for (int i = 0; i < s->np && !bench_stop; i++) {
		struct pair *p = &s->p[i];

		/* a run that stopped at --timeout is not a complete run */
		if (!duration && !s->mode->run && p->done < n && !p->why[0])
			snprintf(p->why, sizeof(p->why),
				 "incomplete: a %s run stopped at --timeout %llu s after %llu of %llu calls",
				 counting ? "counted" : "timed", (unsigned long long)s->o->timeout_s,
				 (unsigned long long)p->done, (unsigned long long)n);
		if (!p->done && !p->why[0])
			snprintf(p->why, sizeof(p->why), "a run made no call");
		if (p->why[0])
			ok = false;
	}
	return ok;
}

/*
 * A pair's figures of one run: the timed pass's @done calls in @ns, and
 * the calls and deliveries its counted pass added since @c0 and @r0.
 */
static void pair_figures(struct pair *p, uint64_t done, double ns, uint64_t c0, uint64_t r0)
{
	uint64_t cc = p->d.calls - c0;
	uint64_t cr = p->d.real + p->d.elided - r0;
	/* the timed run's deliveries, at the counted run's share */
	double est = cc ? done * ((double)cr / cc) : 0;

	/*
	 * Not counted (no ipi tracepoints before 6.3): the function call
	 * interrupts dst took in the timed run, every sender's, at most
	 * one per call.
	 */
	if (!p->d.counted && p->pass_cal >= 0) {
		p->procfs_share = true;
		est = (uint64_t)p->pass_cal < done ? (double)p->pass_cal : done;
	}
	metric_add(p->call_m, ns / done);
	metric_add(p->time_m, ns / 1e9);
	if (est < 0.5)
		return;	/* nothing delivered: no per-IPI figure */
	metric_add(p->ns_m, ns / est);
	metric_add(p->rate_m, est / (ns / 1e9));
}

/* One run: a timed pass, then a counted one; false when it failed. */
static bool storm_run(struct storm *s)
{
	uint64_t done[MAX_PAIRS], c0[MAX_PAIRS], r0[MAX_PAIRS];
	double ns[MAX_PAIRS];
	bool ok = storm_pass(s, false);

	for (int i = 0; i < s->np; i++) {
		done[i] = s->p[i].done;
		ns[i] = s->p[i].ns;
		s->p[i].calls += s->p[i].done;
		c0[i] = s->p[i].d.calls;
		r0[i] = s->p[i].d.real + s->p[i].d.elided;
	}
	if (!ok)
		return false;
	ok = storm_pass(s, true);
	for (int i = 0; ok && i < s->np; i++)
		pair_figures(&s->p[i], done[i], ns[i], c0[i], r0[i]);
	return ok;
}

/* The measured runs, every pair at once in each; how many completed. */
static uint64_t storm_runs(struct storm *s)
{
	struct bench *b = s->b;
	uint64_t runs_done = 0;

	for (uint64_t r = 0; r < b->opt.runs && !bench_stop; r++) {
		if (!storm_run(s) || bench_stop)
			break;
		runs_done++;
		bench_progress_run(b, r + 1, b->opt.runs);
	}
	bench_progress_end(b);
	return runs_done;
}

/* Start counting the spinner's time and switches on dst. */
static void delivery_start(struct storm *s)
{
	for (int i = 0; i < s->np; i++) {
		s->p[i].spin0 = spinner_runtime_ns(&s->p[i].spin);
		if (s->p[i].switched.fd >= 0)
			counter_enable(&s->p[i].switched);
	}
}

/* Stop the spinners; @runs_s is how long the runs took. */
static void delivery_stop(struct storm *s, double runs_s)
{
	for (int i = 0; i < s->np; i++) {
		struct pair *p = &s->p[i];

		p->spin_share = -1;
		if (p->spin.running && runs_s > 0)
			p->spin_share = (spinner_runtime_ns(&p->spin) - p->spin0) / 1e9 / runs_s;
		spinner_stop(&p->spin);
	}
}

/* Every pair's dst set up, its metrics; the load beside the storm. */
static void storm_phase_setup(struct bench *b, void *ctx)
{
	struct storm *s = ctx;
	/* a timed and a counted pass per run */
	double max_s = 2 * b->opt.runs *
		       (b->opt.duration_s ? b->opt.duration_s : s->o->timeout_s) + 10;

	for (int i = 0; i < s->np; i++) {
		pair_setup(s, &s->p[i], max_s);
		pair_metrics(s, &s->p[i]);
	}
	if (b->opt.load)
		bench_load_start(b);
}

/* Warm up, then the measured runs of every pair at once. */
static void storm_phase_run(struct bench *b, void *ctx)
{
	struct storm *s = ctx;
	uint64_t t0, warmup;

	warmup = b->opt.loops / 10 + 1 < 1000 ? b->opt.loops / 10 + 1 : 1000;
	if (!s->mode->run)	/* warm up caches and the paths once */
		storm_threads(s, warmup, 0, false);
	delivery_start(s);
	t0 = mono_ns();
	s->runs_done = storm_runs(s);
	delivery_stop(s, (mono_ns() - t0) / 1e9);
}

static unsigned int storm_judged(const void *ctx)
{
	const struct storm *s = ctx;

	return s->np;
}

/*
 * Each pair in turn: its runs, its delivery, and the mode's own checks
 * (one phase, so that the pairs' results keep this order). An
 * interrupted storm is judged too, on what it measured.
 */
static void storm_phase_verdicts(struct bench *b, void *ctx)
{
	struct storm *s = ctx;

	for (int i = 0; i < s->np; i++) {
		struct pair *p = &s->p[i];
		char why[256];
		int code;

		ksft_print_msg("%s: %llu of %llu runs complete, %llu timed calls\n",
			       p->desc, (unsigned long long)s->runs_done,
			       (unsigned long long)b->opt.runs, (unsigned long long)p->calls);
		ipistorm_pair_verdict(b, p, PAIR_COMPLETE, s->runs_done == b->opt.runs ? KSFT_PASS : KSFT_FAIL,
			      bench_stop ? "interrupted" : p->why[0] ? p->why : NULL);
		code = ipistorm_delivery_check(p, why, sizeof(why));
		ipistorm_pair_verdict(b, p, PAIR_DELIVERED, code, code == KSFT_PASS ? NULL : why);
		if (mode_verdicts_on(s))
			s->mode->verdicts(s, p);
	}
}

/* Last, also after an interruption: the mode's teardown, the load. */
static void storm_phase_teardown(struct bench *b, void *ctx)
{
	struct storm *s = ctx;

	if (s->mode->teardown)
		s->mode->teardown(s);
	bench_load_stop(b);
}

void ipistorm_storm_context(struct storm *s)
{
	/* every pair storms at once, then each is judged in turn */
	static const struct phase storm_phase = {
		.name = "storm",
		.check_name = storm_check_name,
		.judged = storm_judged,
		.setup = storm_phase_setup,
		.run = storm_phase_run,
		.verdicts = storm_phase_verdicts,
		.teardown = storm_phase_teardown,
	};

	if (s->mode->setup)
		s->mode->setup(s);
	for (int i = 0; i < s->np; i++)
		pair_describe(s, &s->p[i]);
	s->phase = storm_phase;
	s->phase.nverdicts = PAIR_CHECKS + (mode_verdicts_on(s) ? s->mode->nverdicts : 0);
	s->phases[0] = &s->phase;
	s->phases[1] = NULL;
}
