// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq's cyclic phase: cyclictest's measurement, --runs runs:
 * clock_nanosleep (TIMER_ABSTIME) every interval on the target, at the
 * asked policy and priority, latency = wake time - programmed time,
 * /dev/cpu_dma_latency held at 0 unless --laptop; its latency
 * distribution, then a short counted pass (tracepoint counters are kept
 * off the measured runs: each counted event costs the wakeup path; are
 * the wakeups hrtimer expiries there?) and an explained pass.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/clock.h"
#include "lib/kernel/sched.h"
#include "lib/load/cyclic.h"
#include "timer_softirq_common.h"
#include "timer_softirq_gaps.h"
#include "timer_softirq_phases.h"
#include "timer_softirq_trace.h"

/* the cyclic phase's counted pass, after the measured runs */
#define COUNTED_PASS_S		1.0
/* the explained pass: at most this long, and this many wakeups over --explain-over */
#define EXPLAIN_PASS_MAX_S	5.0
#define EXPLAIN_MAX		20

struct cyclic_result {
	struct cyclic c;	/* wakeups, overruns, early: all runs */
	struct hist h;
	struct cpu_window w;	/* the rows over the measured runs */
	struct cpu_window counted;	/* the counted pass */
	uint64_t counted_wakeups;
	double *p50_us, *p99_us, *max_us;	/* per run */
	uint64_t runs;
	struct stats st;	/* all wakeups (up to the cap) */
	bool dma_held;
	char policy[32];
	/* the explained pass: wakeups explained, and those whose timer and switch-in were traced */
	uint64_t explained, explained_traced, explain_wakeups;
	char explain_error[256];	/* why there was no explained pass */
};

/* The phase's state, from its run to its verdicts. */
struct ts_cyclic {
	struct cyclic_result y;
	struct cpu_events rows;		/* the target's /proc rows: no IPIs */
	struct cpu_events k;		/* the counted pass's perf counters */
	/* what the phase must restore, before and after it */
	struct sched_param before, after;
	int pol_before, pol_after;
	long locked_kb;
	struct mlock_saved ms;
	struct cpu_dma_latency dl;
};

/*
 * cyclictest's loop on the target: --runs runs of -D (or -n wakeups)
 * each, one histogram, per-run percentiles; the /proc rows around them
 * (reading them sends nothing); then the counted pass with the perf
 * counters, kept apart from the measured runs.
 */
static void cyclic_run(struct bench *b, const struct ts_opts *o, struct ts_cyclic *cy)
{
	struct cyclic_result *y = &cy->y;
	size_t cap = b->opt.duration_s * 1e6 / o->interval_us + 16;
	double *all;
	size_t nall = 0, allcap;

	if (b->opt.loops_given && cap > b->opt.loops)
		cap = b->opt.loops;
	if (cap > (1u << 22))
		cap = 1u << 22;	/* exact percentiles of the first 4M wakeups of a run */
	allcap = cap * b->opt.runs < (1u << 22) ? cap * b->opt.runs : 1u << 22;
	all = malloc(allcap * sizeof(*all));
	y->p50_us = calloc(b->opt.runs, sizeof(double));
	y->p99_us = calloc(b->opt.runs, sizeof(double));
	y->max_us = calloc(b->opt.runs, sizeof(double));
	y->c = (struct cyclic){ .interval_ns = o->interval_us * 1000, .h = &y->h,
				.lat_us = malloc(cap * sizeof(double)), .cap = cap };
	if (!all || !y->p50_us || !y->p99_us || !y->max_us || !y->c.lat_us)
		ksft_exit_fail_msg("out of memory\n");
	timer_softirq_events_begin(&cy->rows);
	for (y->runs = 0; y->runs < b->opt.runs && !bench_stop; y->runs++) {
		struct cyclic c = y->c;
		struct stats st;

		c.wakeups = c.overruns = c.early = c.nlat = 0;
		c.max_wakeups = b->opt.loops_given ? b->opt.loops : 0;
		c.duration_ns = b->opt.duration_given || !b->opt.loops_given ?
				b->opt.duration_s * 1e9 : 0;
		cyclic_loop(&c);
		if (!c.nlat)
			break;
		stats_compute(c.lat_us, c.nlat, &st);
		y->p50_us[y->runs] = st.p50;
		y->p99_us[y->runs] = st.p99;
		y->max_us[y->runs] = st.max;
		for (size_t i = 0; i < c.nlat && nall < allcap; i++)
			all[nall++] = c.lat_us[i];
		y->c.wakeups += c.wakeups;
		y->c.overruns += c.overruns;
		y->c.early += c.early;
	}
	timer_softirq_events_end(&cy->rows, &y->w);
	if (nall)
		stats_compute(all, nall, &y->st);
	free(all);
	/* the counted pass: are the wakeups hrtimer expiries on the target? */
	if (!bench_stop) {
		struct cyclic c = { .interval_ns = o->interval_us * 1000,
				    .duration_ns = COUNTED_PASS_S * 1e9 };

		timer_softirq_common_counters_open(&cy->k, b->target);
		timer_softirq_events_begin(&cy->k);
		cyclic_loop(&c);
		timer_softirq_events_end(&cy->k, &y->counted);
		y->counted_wakeups = c.wakeups;
		y->c.early += c.early;
	}
	free(y->c.lat_us);
	y->c.lat_us = NULL;
}

/* room kept at the end of the parts for ", other sources 12345.6 us, unknown 12345.6 us" */
#define EXPLAIN_TAIL_LEN	48

/*
 * "thread kworker 60.1 us, irq local_timer 3.2 us, unknown 1.0 us" in
 * @len bytes: the parts that fit, then the others' time, then what no
 * traced activity covers. They add up to the latency.
 */
static void explain_parts(const struct noise_sources *ns, const struct noise_explain *e,
			  char *buf, size_t len)
{
	uint64_t rest = e->rest_ns;
	size_t off = 0;
	char part[128];

	buf[0] = '\0';
	for (int i = 0; i < e->nparts; i++) {
		int src = e->parts[i].src;
		const struct noise_source *s = src == TALLY_OTHER ? &ns->other : &ns->src[src];
		int n = snprintf(part, sizeof(part), "%s%s %s %.1f us%s", off ? ", " : "",
				 intf_kinds[s->kind].name, tally_slot_name(&ns->names, src),
				 e->parts[i].ns / 1e3,
				 e->parts[i].start_untraced ? " (start not traced)" : "");

		if (n < 0 || (size_t)n >= sizeof(part) || off + n + EXPLAIN_TAIL_LEN >= len) {
			rest += e->parts[i].ns;
			continue;
		}
		memcpy(buf + off, part, n + 1);
		off += n;
	}
	if (rest) {
		off += snprintf(buf + off, len - off, "%sother sources %.1f us", off ? ", " : "",
				rest / 1e3);
		off = off < len ? off : len - 1;
	}
	if (e->unknown_ns || !off)
		snprintf(buf + off, len - off, "%sunknown %.1f us", off ? ", " : "",
			 e->unknown_ns / 1e3);
}

/* One wakeup explained: where its lateness went, on stdout and in the JSON. */
static void explain_one(struct bench *b, struct cyclic_result *y, const struct noise_sources *ns,
			const struct noise_explain *e, uint64_t start_ns, double lat_us)
{
	static const char tag[] = "cyclic explained: ";
	char head[200], parts[sizeof(b->notes[0])], sw[48] = "", where[24] = "";
	size_t room;

	/* a switch from idle is not always traced (6.18: none from an idle cpu 1 here) */
	if (e->switch_in)
		snprintf(sw, sizeof(sw), ", switched in +%.1f us",
			 ((double)e->switch_in - (double)e->programmed) / 1e3);
	if (e->expiry_cpu != b->target)
		snprintf(where, sizeof(where), " on cpu %d", e->expiry_cpu);
	if (e->expiry)
		snprintf(head, sizeof(head), "wakeup at +%.3f s, %.1f us late: timer expired%s +%.1f us%s, in user space +%.1f us; in between: ",
			 (e->programmed - start_ns) / 1e9, lat_us, where,
			 ((double)e->expiry - (double)e->programmed) / 1e3, sw,
			 (e->woke - e->programmed) / 1e3);
	else
		snprintf(head, sizeof(head), "wakeup at +%.3f s, %.1f us late: its timer's expiry not traced; in between: ",
			 (e->programmed - start_ns) / 1e9, lat_us);
	/* the whole line fits a note of the JSON */
	room = sizeof(parts) - strlen(tag) - strlen(head);
	explain_parts(ns, e, parts, room);
	y->explained++;
	y->explained_traced += e->expiry != 0;
	if (y->explained <= 5)
		bench_note(b, "%s%s%s", tag, head, parts);
	else
		ksft_print_msg("%s%s%s\n", tag, head, parts);
}

/*
 * The explained pass, paired with the measured runs (after them, as
 * the thread they ran at): one run more with the CPU's activity traced
 * (timer_softirq_gaps.h), so that the tracing touches none of the measured
 * samples; its --explain worst wakeups and any later than
 * --explain-over, each taken apart as timerlat's auto-analysis does.
 */
static void cyclic_explain(struct bench *b, const struct ts_opts *o, struct cyclic_result *y)
{
	double pass_s = b->opt.duration_s < EXPLAIN_PASS_MAX_S ? b->opt.duration_s : EXPLAIN_PASS_MAX_S;
	struct cpu_trace_counts counts;
	struct noise_sources ns;
	struct cpu_trace tr;
	struct cyclic c = { .interval_ns = o->interval_us * 1000, .duration_ns = pass_s * 1e9 };
	size_t *idx, n;
	uint64_t start;
	char err[192];

	if (!o->explain_n && !o->explain_over_us)
		return;
	/* as long as one measured run (at most EXPLAIN_PASS_MAX_S) */
	if (b->opt.loops_given)
		c.max_wakeups = b->opt.loops;
	if (b->opt.loops_given && !b->opt.duration_given)
		c.duration_ns = EXPLAIN_PASS_MAX_S * 1e9;
	c.cap = c.duration_ns / 1e3 / o->interval_us + 16;
	c.lat_us = malloc(c.cap * sizeof(*c.lat_us));
	c.wake_ns = malloc(c.cap * sizeof(*c.wake_ns));
	idx = malloc(c.cap * sizeof(*idx));
	if (!c.lat_us || !c.wake_ns || !idx)
		ksft_exit_fail_msg("out of memory\n");
	timer_softirq_gaps_sources_init(&ns);
	if (timer_softirq_trace_open(&tr, b->target, err, sizeof(err)) ||
	    timer_softirq_trace_noise(&tr, err, sizeof(err))) {
		snprintf(y->explain_error, sizeof(y->explain_error), "%s", err);
		goto out;
	}
	tr.loop_tid = gettid();
	tr.ns = &ns;
	start = mono_ns();
	if (timer_softirq_trace_begin(&tr)) {
		snprintf(y->explain_error, sizeof(y->explain_error), "%s", tr.error);
		goto close;
	}
	cyclic_loop(&c);
	if (timer_softirq_trace_end(&tr, &counts)) {
		snprintf(y->explain_error, sizeof(y->explain_error), "%s", tr.error);
		goto close;
	}
	y->explain_wakeups = c.nlat;
	timer_softirq_gaps_timeline_sort(&tr.tl);
	/* the latest first */
	for (size_t i = 0; i < c.nlat; i++) {
		size_t j = i;

		while (j > 0 && c.lat_us[idx[j - 1]] < c.lat_us[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (n = 0; n < c.nlat && n < EXPLAIN_MAX; n++) {
		double lat = c.lat_us[idx[n]];
		struct noise_explain e;

		if (n >= o->explain_n && !(o->explain_over_us && lat > o->explain_over_us))
			break;
		timer_softirq_gaps_explain(&tr.tl, c.wake_ns[idx[n]] - (uint64_t)(lat * 1e3),
					   c.wake_ns[idx[n]], &e);
		explain_one(b, y, &ns, &e, start, lat);
	}
	if (counts.lost)
		snprintf(y->explain_error, sizeof(y->explain_error),
			 "%lld events lost in the explained pass", counts.lost);
close:
	timer_softirq_trace_close(&tr);
out:
	free(c.lat_us);
	free(c.wake_ns);
	free(idx);
}

/*
 * The cyclic thread (this one) on the target at the asked policy, with
 * memory locked if asked and /dev/cpu_dma_latency held at 0 unless
 * --laptop; all of it undone before returning.
 */
static void cyclic_measure(struct bench *b, const struct ts_opts *o, struct ts_cyclic *cy)
{
	struct sched_saved ss = { .handle = -1 };
	struct cpu_dma_latency *dl = &cy->dl;
	struct cyclic_result *y = &cy->y;
	char err[160];

	if (hist_init(&y->h, 0, 1, (size_t)o->hist_max_us))
		ksft_exit_fail_msg("no memory for the histogram\n");
	if (!o->laptop && cpu_dma_latency_hold(dl, 0, err, sizeof(err)))
		bench_note(b, "%s: cpu_dma_latency left alone (as with --laptop)", err);
	y->dma_held = dl->fd >= 0;
	if (cpu_pin_self(b->target))
		ksft_exit_fail_msg("cannot pin to cpu %d: %s\n", b->target, strerror(errno));
	if (o->mlock && mlock_enter(&cy->ms, err, sizeof(err)))
		bench_note(b, "%s: running without locked memory", err);
	if (o->policy == POL_FIFO && sched_fifo_enter(&ss, o->priority, err, sizeof(err)))
		bench_note(b, "%s: the cyclic thread runs SCHED_OTHER", err);
	sched_describe(y->policy, sizeof(y->policy));
	cyclic_run(b, o, cy);
	if (!bench_stop)
		cyclic_explain(b, o, y);
	sched_restore(&ss);
	mlock_restore(&cy->ms);
	cpu_dma_latency_release(dl);
	cpu_pin_self_mask(&b->opt.housekeeping);
}

static struct metric *run_metric(struct bench *b, const char *name, const char *what,
				 const double *v, uint64_t n)
{
	struct metric *m = bench_metric(b, name, "us", BETTER_LOWER, what);

	for (uint64_t i = 0; i < n; i++)
		metric_add(m, v[i]);
	return m;
}

/* The latency distribution and what each wakeup cost, text and JSON. */
static void cyclic_report(struct bench *b, const struct ts_run *r)
{
	const struct ts_opts *o = r->o;
	const struct cyclic_result *y = &r->cyc->y;
	const struct cpu_window *w = &y->w, *k = &y->counted;
	const struct stats *st = &y->st;
	double n = y->c.wakeups;
	struct metric *m;

	m = run_metric(b, "wakeup_latency_us",
		       "median wakeup latency (wake time - programmed time) of one run",
		       y->p50_us, y->runs);
	m->hist = (struct hist *)&y->h;
	metric_extra(m, "wakeups", y->c.wakeups);
	metric_extra(m, "interval_us", o->interval_us);
	metric_extra(m, "min_us", st->min);
	metric_extra(m, "avg_us", st->mean);
	metric_extra(m, "p50_us", st->p50);
	metric_extra(m, "p90_us", st->p90);
	metric_extra(m, "p99_us", st->p99);
	metric_extra(m, "p99_9_us", st->p999);
	metric_extra(m, "max_us", y->h.max);
	metric_extra(m, "overruns", y->c.overruns);
	metric_extra(m, "cpu_dma_latency_us", y->dma_held ? 0 : -1);
	metric_extra(m, "timer_softirqs_per_wakeup", per(w->row[ROW_TIMER], n));
	metric_extra(m, "hrtimer_softirqs_per_wakeup", per(w->row[ROW_HRTIMER], n));
	metric_extra(m, "local_timer_irqs_per_wakeup", per(w->row[ROW_LOC], n));
	metric_extra(m, "hrtimer_expiries_per_wakeup",
		     per(timer_softirq_window_ev(k, EV_HRTIMER_EXPIRE), y->counted_wakeups));
	metric_sample_noun(m, "run", "runs");
	run_metric(b, "wakeup_latency_p99_us", "99th percentile wakeup latency of one run",
		   y->p99_us, y->runs);
	run_metric(b, "wakeup_latency_max_us", "largest wakeup latency of one run",
		   y->max_us, y->runs);
	if (!y->c.wakeups)
		return;
	ksft_print_msg("cyclic: %s %s, %llu wakeups every %g us in %llu runs, cpu_dma_latency %s: min %.1f avg %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us (%llu overruns)\n",
		       r->cpu_desc, y->policy, (unsigned long long)y->c.wakeups,
		       o->interval_us, (unsigned long long)y->runs,
		       y->dma_held ? "held at 0 us" : "left alone",
		       st->min, st->mean, st->p50, st->p90, st->p99, st->p999, y->h.max,
		       (unsigned long long)y->c.overruns);
	ksft_print_msg("cyclic per wakeup: TIMER softirqs %.3f, HRTIMER softirqs %.3f, local timer interrupts %.3f (/proc); hrtimer expiries %.3f (counted pass of %llu wakeups)\n",
		       per(w->row[ROW_TIMER], n), per(w->row[ROW_HRTIMER], n),
		       per(w->row[ROW_LOC], n),
		       per(timer_softirq_window_ev(k, EV_HRTIMER_EXPIRE), y->counted_wakeups),
		       (unsigned long long)y->counted_wakeups);
	if (!b->opt.quiet)
		hist_print(&y->h, stdout, "us", 50);
}

/* The cyclic phase's results, in the order printed. */
enum { Y_WAKEUPS, Y_EXPIRIES, Y_EXPLAINED, Y_RESTORED, Y_CHECKS };
static const char *const cyclic_checks[Y_CHECKS] = {
	[Y_WAKEUPS] = "cyclic: wakeups, none early",
	[Y_EXPIRIES] = "cyclic: the wakeups were hrtimer expiries",
	[Y_EXPLAINED] = "cyclic: the worst wakeups explained",
	[Y_RESTORED] = "cyclic: scheduling policy, memory locking and cpu_dma_latency restored",
};

/* at least half: under emulation many sleeps are already past due */
static void cyclic_expiry_verdict(struct bench *b, uint64_t expiries, uint64_t wakeups)
{
	ksft_print_msg("cyclic: %llu hrtimer expiries, %llu wakeups of the counted pass\n",
		       (unsigned long long)expiries, (unsigned long long)wakeups);
	bench_verdict(b, wakeups && 2 * expiries >= wakeups ? KSFT_PASS : KSFT_FAIL, NULL,
		      "%s", cyclic_checks[Y_EXPIRIES]);
}

static void cyclic_explain_verdict(struct bench *b, const struct ts_opts *o,
				   const struct cyclic_result *c)
{
	const char *name = cyclic_checks[Y_EXPLAINED];

	if (!o->explain_n && !o->explain_over_us) {
		bench_verdict(b, KSFT_SKIP, "--explain 0", "%s", name);
		return;
	}
	if (!c->explained) {
		bench_verdict(b, bench_stop ? KSFT_SKIP : KSFT_FAIL,
			      bench_stop ? "interrupted" : c->explain_error[0] ? c->explain_error :
			      "no wakeup in the explained pass", "%s", name);
		return;
	}
	ksft_print_msg("cyclic: the %llu worst wakeups of an explained pass of %llu taken apart, their timer's expiry traced for %llu\n",
		       (unsigned long long)c->explained, (unsigned long long)c->explain_wakeups,
		       (unsigned long long)c->explained_traced);
	bench_verdict(b, c->explained_traced == c->explained && !c->explain_error[0] ?
		      KSFT_PASS : KSFT_FAIL, c->explain_error[0] ? c->explain_error : NULL,
		      "%s", name);
}

static unsigned int cyclic_judged(const void *ctx)
{
	return ((const struct ts_run *)ctx)->cyclic;
}

static void cyclic_setup(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	struct ts_cyclic *cy = calloc(1, sizeof(*cy));

	if (!cy)
		ksft_exit_fail_msg("out of memory\n");
	cy->ms.handle = -1;
	cy->dl = (struct cpu_dma_latency){ .fd = -1, .handle = -1 };
	timer_softirq_common_rows_open(&cy->rows, b->target);
	/* the JSON's histogram is the state's: kept until the end of the program */
	r->cyc = cy;
}

/* cyclictest's measurement on the target, and what it left restored */
static void cyclic_phase_run(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	struct ts_cyclic *cy = r->cyc;

	cy->pol_before = sched_getscheduler(0);
	sched_getparam(0, &cy->before);
	cyclic_measure(b, r->o, cy);
	cy->pol_after = sched_getscheduler(0);
	sched_getparam(0, &cy->after);
	cy->locked_kb = mlock_locked_kb();
	cyclic_report(b, r);
}

static void cyclic_verdicts(struct bench *b, void *ctx)
{
	const struct ts_run *r = ctx;
	const struct ts_cyclic *cy = r->cyc;
	const struct cyclic_result *c = &cy->y;
	const struct cpu_window *k = &c->counted;

	ksft_print_msg("cyclic: %llu wakeups on cpu %d in %llu runs, %llu early\n",
		       (unsigned long long)c->c.wakeups, b->target,
		       (unsigned long long)c->runs, (unsigned long long)c->c.early);
	bench_verdict(b, c->c.wakeups && !c->c.early ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : NULL, "%s", cyclic_checks[Y_WAKEUPS]);
	if (k->ev[EV_HRTIMER_EXPIRE] == UINT64_MAX)
		bench_verdict(b, KSFT_SKIP, bench_stop ? "interrupted" :
			      timer_softirq_events_error(&cy->k, EV_HRTIMER_EXPIRE),
			      "%s", cyclic_checks[Y_EXPIRIES]);
	else
		cyclic_expiry_verdict(b, k->ev[EV_HRTIMER_EXPIRE], c->counted_wakeups);
	cyclic_explain_verdict(b, r->o, c);
	ksft_print_msg("cyclic: after: policy %d, %ld kB locked, cpu_dma_latency %s\n",
		       cy->pol_after, cy->locked_kb, cy->dl.fd < 0 ? "released" : "still held");
	bench_verdict(b, cy->pol_after == cy->pol_before &&
		      cy->after.sched_priority == cy->before.sched_priority &&
		      (cy->ms.was_locked || cy->locked_kb == 0) && cy->dl.fd < 0 ?
		      KSFT_PASS : KSFT_FAIL, NULL, "%s", cyclic_checks[Y_RESTORED]);
}

static void cyclic_teardown(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;

	(void)b;
	if (r->cyc)
		timer_softirq_events_close(&r->cyc->k);
}

const struct phase timer_softirq_cyclic_phase = {
	.name = "cyclic",
	.nverdicts = Y_CHECKS,
	.checks = cyclic_checks,
	.judged = cyclic_judged,
	.setup = cyclic_setup,
	.run = cyclic_phase_run,
	.verdicts = cyclic_verdicts,
	.teardown = cyclic_teardown,
};
