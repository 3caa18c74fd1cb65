// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq's quiet phase: a pure user-space busy loop on the
 * target, no timers armed by the process, counted in --runs windows
 * (timer_softirq_windows.h); also the baseline of the control, which
 * runs it unjudged when asked alone. Its verdicts: the windows counted,
 * TIMER softirqs raised only for due timers (the timer-softirq thread),
 * no IPI from the counting, on a nohz_full CPU the tick stopped and
 * TIMER softirqs within --max-softirqs, and the loop's noise attributed.
 */
#include <stdlib.h>
#include <string.h>

#include "timer_softirq_noise.h"
#include "timer_softirq_phases.h"
#include "timer_softirq_windows.h"

static double raised_per_tick(const void *arg, size_t i, double *span)
{
	const struct ts_window *w = arg;

	*span = w[i].ticks;
	return w[i].t.timer_raised;
}

/*
 * The timer-softirq thread's figure: TIMER softirqs raised per tick, one
 * sample per window.
 */
static void raised_metric(struct bench *b, const struct ts_run *r)
{
	struct metric *m = bench_metric(b, "timer_softirq_raised_per_tick", "softirqs/tick",
					BETTER_LOWER,
					"TIMER softirqs raised on the target per tick of one quiet window");
	const struct ts_windows *win = r->win;
	const struct ts_window_set *set = &win->quiet;
	const struct ts_window *s = &set->sum;

	metric_add_rates(m, set->n, set->w, raised_per_tick);
	metric_sample_noun(m, "window", "windows");
	metric_summary(m, "TIMER softirqs raised per tick", "%s busy loop, %llu raised in %llu ticks, %llu timer expiries",
		       r->cpu_desc, (unsigned long long)s->t.timer_raised,
		       (unsigned long long)s->ticks, (unsigned long long)s->t.timer_expiries);
	metric_extra(m, "timer_softirqs_raised", s->t.timer_raised);
	metric_extra(m, "ticks", s->ticks);
	metric_extra(m, "ticks_are_jiffies", !win->tick_fn);
	metric_extra(m, "timer_expiries", s->t.timer_expiries);
	metric_extra(m, "raised_without_expiry", s->t.raised_without_expiry);
	metric_extra(m, "raised_without_expiry_per_tick",
		     per(s->t.raised_without_expiry, s->ticks));
	metric_extra(m, "max_without_expiry_per_tick", r->o->max_needless_per_tick);
	metric_extra(m, "runs_with_expiry", s->t.runs_with_expiry);
	metric_extra(m, "raised_after_window", s->t.raised_unrun);
	metric_extra(m, "ipis_to_target", s->t.ipis);
	metric_extra(m, "ipis_to_target_from_counting", s->t.ipis_self - s->t.ipis_self_resched);
	metric_extra(m, "resched_ipis_to_target_from_us", s->t.ipis_self_resched);
	metric_extra(m, "window_s", s->w.seconds);
	metric_extra(m, "proc_rows_s", s->rows_s);
}

/* One tick dependency's refusals in each window (-1: a dependency not named). */
struct kept_windows {
	const struct ts_window *w;
	int dep;
};

static double kept_in(const void *arg, size_t i, double *span)
{
	const struct kept_windows *k = arg;
	const struct cpu_trace_counts *t = &k->w[i].t;

	*span = k->w[i].w.seconds;
	return k->dep < 0 ? t->tick_kept_unknown : t->tick_kept[k->dep];
}

/*
 * Why the tick ran on a nohz_full target: each time tick_stop refused to
 * stop it, by the dependency it named, per second of one window; every
 * dependency has its metric, 0 where none kept the tick (a CPU that is
 * not nohz_full never asks).
 */
static void tick_kept_metrics(struct bench *b, const struct ts_window_set *set)
{
	char name[48], agg[160], part[24];

	for (int i = 0; i <= CPU_TRACE_DEPS; i++) {
		int dep = i < CPU_TRACE_DEPS ? i : -1;	/* the unnamed ones last */
		struct kept_windows k = { set->w, dep };
		const char *dep_name = dep < 0 ? "unknown" : timer_softirq_trace_dep_names[dep];
		struct metric *m;

		metric_name_part(part, sizeof(part), dep_name, sizeof(part));
		snprintf(name, sizeof(name), "tick_kept_%s_per_s", part);
		snprintf(agg, sizeof(agg), "quiet: tick_stop refusals on the target for %s%s, per second of one window",
			 dep_name, dep < 0 ? " (a dependency this program does not name)" : "");
		m = bench_metric(b, name, "refusals/s", BETTER_LOWER, agg);
		metric_add_rates(m, set->n, &k, kept_in);
		metric_kind(m, KIND_COUNT);
		metric_sample_noun(m, "window", "windows");
		metric_extra(m, "refusals", dep < 0 ? set->sum.t.tick_kept_unknown :
						      set->sum.t.tick_kept[dep]);
	}
}

/* One timer function's expiries on the target in each window. */
struct expiry_windows {
	const struct ts_window *w;
	int kind;
	const char *fn;
};

static double expiries_in(const void *arg, size_t i, double *span)
{
	const struct expiry_windows *x = arg;
	const struct tally *t = &x->w[i].t.expired[x->kind];

	*span = x->w[i].w.seconds;
	for (int e = 0; e < t->names.n; e++)
		if (!strcmp(tally_slot_name(&t->names, e), x->fn))
			return t->n[e];
	return 0;
}

/*
 * What each local timer interrupt and TIMER softirq on the target ran:
 * the expiries of each hrtimer and timer-wheel function, per second of
 * one window, the most frequent CPU_TRACE_FUNCTIONS of each kind (family
 * timer_expiries: complete unless a function was left out).
 */
static void expiry_metrics(struct bench *b, const struct ts_window_set *set)
{
	const struct cpu_trace_counts *sum = &set->sum.t;
	bool complete = true;
	char names[CPU_TRACE_EXPIRY_KINDS * CPU_TRACE_FUNCTIONS][64];
	char part[44], agg[160];
	int nnames = 0;

	for (int kind = 0; kind < CPU_TRACE_EXPIRY_KINDS; kind++) {
		const struct tally *t = &sum->expired[kind];
		const char *kn = timer_softirq_trace_expiry_names[kind];
		int idx[TALLY_MAX], n = tally_sorted(t, idx);

		/* a window that had no room for a name would count it 0: none of that kind */
		if (t->other) {
			complete = false;
			continue;
		}
		complete &= n <= CPU_TRACE_FUNCTIONS;
		for (int i = 0; i < n && i < CPU_TRACE_FUNCTIONS; i++) {
			struct expiry_windows x = { set->w, kind, tally_slot_name(&t->names, idx[i]) };
			char *name = names[nnames];
			struct metric *m;
			bool dup = false;

			metric_name_part(part, sizeof(part), x.fn, 40);
			snprintf(name, sizeof(names[0]), "expiry_%s_%s_per_s", kn, part);
			/* two functions one name once made a metric name: the second left out */
			for (int j = 0; j < nnames && !dup; j++)
				dup = !strcmp(names[j], name);
			if (dup) {
				complete = false;
				continue;
			}
			nnames++;
			snprintf(agg, sizeof(agg), "quiet: %s expiries of %s on the target, per second of one window",
				 kn, x.fn);
			m = bench_metric(b, name, "expiries/s", BETTER_LOWER, agg);
			metric_add_rates(m, set->n, &x, expiries_in);
			metric_kind(m, KIND_COUNT);
			metric_family(m, "timer_expiries");
			metric_sample_noun(m, "window", "windows");
			metric_extra(m, "expiries", t->n[idx[i]]);
		}
	}
	if (complete)
		bench_count_family(b, "timer_expiries", "expiry_*_*_per_s", "expiries/s", set->n);
}

/* One setter's sets of one dependency in each window. */
struct setter_windows {
	const struct ts_window *w;
	int dep;
	const char *func;
};

static double sets_in(const void *arg, size_t i, double *span)
{
	const struct setter_windows *x = arg;

	*span = x->w[i].w.seconds;
	return timer_softirq_deps_count(&x->w[i].deps, x->dep, x->func);
}

/*
 * Who set the dependencies that kept the tick, inside the windows: each
 * dependency by each setter, per second of one window (family
 * tick_dep_setters: complete when every setter has its metric). Only
 * where the setters are traced (a nohz_full target).
 */
static void setter_metrics(struct bench *b, const struct ts_windows *win,
			   const struct ts_window_set *set)
{
	const struct tick_dep_sets *sum = &set->sum.deps;
	bool complete = !sum->other;
	char names[TICK_DEP_SETTERS][80], part[48], dep[16], agg[200];
	int nnames = 0;

	if (!win->deps.open)
		return;
	for (int i = 0; i < sum->names.n; i++) {
		const struct tick_dep_setter *e = &sum->s[i];
		const char *func = timer_softirq_deps_func(sum, i);
		const char *dn = e->dep < CPU_TRACE_DEPS ? timer_softirq_trace_dep_names[e->dep] :
			"unknown";
		struct setter_windows x = { set->w, e->dep, func };
		struct metric *m;
		bool dup = false;

		metric_name_part(dep, sizeof(dep), dn, sizeof(dep));
		/* a metric name is at most 63 characters: "tick_dep_" DEP "_by_" FUNC "_per_s" */
		metric_name_part(part, sizeof(part), strcmp(func, "?") ? func : "unknown",
				 63 - 19 - strlen(dep));
		snprintf(names[nnames], sizeof(names[0]), "tick_dep_%s_by_%s_per_s", dep, part);
		/* two setters one name once made a metric name: the second left out */
		for (int j = 0; j < nnames && !dup; j++)
			dup = !strcmp(names[j], names[nnames]);
		if (dup) {
			complete = false;
			continue;
		}
		snprintf(agg, sizeof(agg), "quiet: the target's tick dependency %s set by %s, per second of one window",
			 dn, func);
		m = bench_metric(b, names[nnames++], "sets/s", BETTER_LOWER, agg);
		metric_add_rates(m, set->n, &x, sets_in);
		metric_kind(m, KIND_COUNT);
		metric_family(m, "tick_dep_setters");
		metric_sample_noun(m, "window", "windows");
		metric_extra(m, "sets", e->n);
	}
	if (complete)
		bench_count_family(b, "tick_dep_setters", "tick_dep_*_by_*_per_s", "sets/s", set->n);
}

/* The IPIs sent to the target in the windows, by callback; ours apart. */
static void ipis_print(int cpu, const struct cpu_trace_counts *t)
{
	char list[400] = "";
	size_t off = 0;

	for (int i = 0; i <= t->cb_names.n && off < sizeof(list); i++) {
		/* after the named callbacks, the others, if any */
		const struct cpu_trace_ipi *c = i < t->cb_names.n ? &t->cb[i] : &t->cb_other;

		if (c->n)
			off += snprintf(list + off, sizeof(list) - off, "%s %s %llu (%llu ours)",
					i ? "," : ":",
					tally_slot_name(&t->cb_names, i < t->cb_names.n ? i : TALLY_OTHER),
					(unsigned long long)c->n, (unsigned long long)c->self);
	}
	ksft_print_msg("quiet cpu %d: %llu IPIs sent to it inside the windows, %llu by this process%s\n",
		       cpu, (unsigned long long)t->ipis, (unsigned long long)t->ipis_self, list);
	if (t->ipis_self)
		ksft_print_msg("quiet cpu %d: %llu of this process's IPIs were reschedules (a wakeup or preemption there, not a remote call); the last was sent from %s\n",
			       cpu, (unsigned long long)t->ipis_self_resched, t->self_callsite);
}

static bool quiet_runs(const void *ctx)
{
	const struct ts_run *r = ctx;

	return r->quiet || r->control;
}

static unsigned int quiet_judged(const void *ctx)
{
	return ((const struct ts_run *)ctx)->quiet;
}

static void quiet_setup(struct bench *b, void *ctx)
{
	timer_softirq_windows_open(b, ctx);
}

/* the busy loop alone */
static void quiet_run(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	const struct ts_window_set *set = &r->win->quiet;
	char desc[160], err[512];
	struct metric *m;
	uint64_t n;

	n = timer_softirq_windows_spin(b, r, &(struct ts_spin){ "quiet", &r->win->quiet,
						b->opt.runs, .settle = true }, err, sizeof(err));
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("quiet window: %s\n", err);
	if (!n)
		bench_skip(b, "interrupted before the quiet window was counted");
	timer_softirq_windows_print("quiet", b->target, &set->sum);
	if (r->quiet) {
		raised_metric(b, r);
		tick_kept_metrics(b, set);
		expiry_metrics(b, set);
		setter_metrics(b, r->win, set);
	}
	timer_softirq_windows_deps_print("quiet", b->target, r->win, set);
	snprintf(desc, sizeof(desc), "%s busy loop", r->cpu_desc);
	m = timer_softirq_windows_metric(b, "quiet_timer_softirqs_per_s", "quiet TIMER softirqs",
					 desc, set);
	/* how long the tick kept running after the warm-up (nohz_full) */
	if (!isnan(r->win->tick_quiet_s))
		metric_extra(m, "tick_last_after_warmup_s", r->win->tick_quiet_s);
	timer_softirq_noise_report(b, r, "quiet", set, r->quiet);
}

/* The quiet phase's results, in the order printed. */
enum { Q_COUNTED, Q_RAISED, Q_NO_IPI, Q_TICK, Q_SOFTIRQS, Q_NOISE, Q_CHECKS };
static const char *const quiet_checks[Q_CHECKS] = {
	[Q_COUNTED] = "quiet: windows of busy loop counted, no event lost",
	[Q_RAISED] = "quiet: TIMER softirqs raised for due timers only",
	[Q_NO_IPI] = "quiet: the counting sent no IPI to the cpu inside the windows",
	[Q_TICK] = "quiet: the tick stopped",
	[Q_SOFTIRQS] = "quiet: TIMER softirqs within --max-softirqs",
	[Q_NOISE] = "quiet: every gap of the busy loop attributed or counted unexplained",
};

/* On a nohz_full CPU (or with --assert-nohz): the tick stopped, few TIMER softirqs. */
static void quiet_nohz_verdicts(struct bench *b, const struct ts_run *r)
{
	const struct ts_window_set *set = &r->win->quiet;
	const struct cpu_window *q = &set->sum.w;
	const struct ts_opts *o = r->o;
	/* the rows per second of their own span (just around the windows) */
	double ticks = per(q->row[ROW_LOC], set->sum.rows_s);
	uint64_t most = 0;
	char why[160];

	snprintf(why, sizeof(why), "cpu %d is not nohz_full (--assert-nohz asserts it anyway)",
		 b->target);
	if (!r->nohz && !o->assert_nohz) {
		bench_verdict(b, KSFT_SKIP, why, "%s", quiet_checks[Q_TICK]);
		bench_verdict(b, KSFT_SKIP, why, "%s", quiet_checks[Q_SOFTIRQS]);
		return;
	}
	ksft_print_msg("quiet cpu %d: %.1f local timer interrupts/s, max %g; tick_stop success %llu\n",
		       b->target, ticks, o->max_ticks_per_s,
		       (unsigned long long)set->sum.t.tick_stopped);
	/* the windows' sum counts a missing row as 0: ask a window whether it has one */
	if (!set->n || set->w[0].w.row[ROW_LOC] < 0)
		bench_verdict(b, KSFT_SKIP, "no LOC row in /proc/interrupts: the tick is not counted here",
			      "%s", quiet_checks[Q_TICK]);
	else
		bench_verdict(b, ticks <= o->max_ticks_per_s ? KSFT_PASS : KSFT_FAIL, NULL,
			      "%s", quiet_checks[Q_TICK]);
	/* the worst window */
	for (uint64_t i = 0; i < set->n; i++)
		if (set->w[i].t.timer_runs > most)
			most = set->w[i].t.timer_runs;
	ksft_print_msg("quiet cpu %d: at most %llu TIMER softirqs in a %.1f s window, max %llu\n",
		       b->target, (unsigned long long)most,
		       b->opt.duration_s, (unsigned long long)o->max_softirqs);
	bench_verdict(b, most <= o->max_softirqs ? KSFT_PASS : KSFT_FAIL,
		      NULL, "%s", quiet_checks[Q_SOFTIRQS]);
}

static void quiet_verdicts(struct bench *b, void *ctx)
{
	const struct ts_run *r = ctx;
	const struct ts_windows *win = r->win;
	const struct ts_window *s = &win->quiet.sum;
	const struct cpu_trace_counts *t = &s->t;
	double max_needless = r->o->max_needless_per_tick;

	/* no record at all is a quiet CPU (6.1 guest, nohz_full): the control shows the counting works */
	ksft_print_msg("quiet cpu %d: %d windows of busy loop, %lld events lost, %llu records\n",
		       b->target, t->windows, t->lost, (unsigned long long)t->lines);
	/* a field an older kernel's event lacks: its records are not counted, never read as 0 */
	if (t->missing)
		ksft_print_msg("quiet cpu %d: %llu fields this kernel's events lack (the first: %s): those records not counted\n",
			       b->target, (unsigned long long)t->missing, t->missing_what);
	bench_verdict(b, s->w.seconds > 0 && !t->lost ? KSFT_PASS : KSFT_FAIL, NULL,
		      "%s", quiet_checks[Q_COUNTED]);
	ksft_print_msg("quiet cpu %d: %llu of %llu TIMER softirqs ran no timer, %llu ticks: %.4f/tick, max %g\n",
		       b->target, (unsigned long long)t->raised_without_expiry,
		       (unsigned long long)t->timer_raised, (unsigned long long)s->ticks,
		       per(t->raised_without_expiry, s->ticks), max_needless);
	bench_verdict(b, timer_softirq_trace_raise_ok(t, max_needless) ? KSFT_PASS : KSFT_FAIL,
		      NULL, "%s", quiet_checks[Q_RAISED]);
	ipis_print(b->target, t);
	if (win->tr.have_ipi_cpu)
		ksft_print_msg("quiet cpu %d: %llu function calls of %llu IPIs to it were ours\n",
			       b->target, (unsigned long long)(t->ipis_self - t->ipis_self_resched),
			       (unsigned long long)t->ipis);
	bench_verdict(b, !win->tr.have_ipi_cpu ? KSFT_SKIP :
		      t->ipis_self > t->ipis_self_resched ? KSFT_FAIL : KSFT_PASS,
		      win->tr.have_ipi_cpu ? NULL : win->tr.ipi_error,
		      "%s", quiet_checks[Q_NO_IPI]);
	quiet_nohz_verdicts(b, r);
	timer_softirq_noise_verdict(b, r, &win->quiet, "quiet", quiet_checks[Q_NOISE]);
}

const struct phase timer_softirq_quiet_phase = {
	.name = "quiet",
	.nverdicts = Q_CHECKS,
	.checks = quiet_checks,
	.runs = quiet_runs,
	.judged = quiet_judged,
	.setup = quiet_setup,
	.run = quiet_run,
	.verdicts = quiet_verdicts,
	.shares = &timer_softirq_windows,	/* with the control and tick phases */
};
