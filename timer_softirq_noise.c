// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "lib/base/tally.h"

#include "timer_softirq_noise.h"

#define NOISE_TOP	8	/* sources printed */
#define NOISE_METRICS	16	/* sources given a metric */
#define RECALL_MIN_PCT	95	/* of the control's runs found in gaps */

static uint64_t source_gaps_in(const void *arg, int i)
{
	return ((const struct noise_sources *)arg)->src[i].gaps;
}

/* "irq local_timer" -> "noise_irq_local_timer_per_s" */
static void noise_metric_name(char *buf, size_t len, const struct noise_sources *ns, int src)
{
	const struct noise_source *s = &ns->src[src];
	char part[48];

	metric_name_part(part, sizeof(part), tally_slot_name(&ns->names, src),
			 46 - 7 - strlen(intf_kinds[s->kind].name));
	snprintf(buf, len, "noise_%s_%s_per_s", intf_kinds[s->kind].name, part);
}

/* The windows' gaps of one source, for metric_add_rates() */
struct source_windows {
	const struct ts_window *w;
	int src;
};

static double source_gaps(const void *arg, size_t i, double *span)
{
	const struct source_windows *sw = arg;

	*span = sw->w[i].w.seconds;
	return sw->w[i].noise.src_gaps[sw->src];
}

static double unexplained_gaps(const void *arg, size_t i, double *span)
{
	const struct ts_window *w = arg;

	*span = w[i].w.seconds;
	return w[i].noise.unexplained;
}

static double steal_us(const void *arg, size_t i, double *span)
{
	const struct ts_window *w = arg;

	*span = w[i].w.seconds;
	return w[i].noise.steal_ns / 1e3;
}

static double gap_us(const void *arg, size_t i, double *span)
{
	const struct ts_window *w = arg;

	*span = w[i].w.seconds;
	return w[i].noise.gap_ns / 1e3;
}

/* Per source, the gaps it was in per second of each window: a count. */
static void noise_metrics(struct bench *b, const char *what, const struct ts_window_set *set,
			  const int *idx, int nsrc)
{
	const struct noise_sources *ns = &set->ns;
	const struct ts_window *w = set->w;
	uint64_t n = set->n;
	struct metric *m;
	char name[64], agg[200];

	/* the sources in most gaps; the rest count in the totals */
	for (int k = 0; k < nsrc && k < NOISE_METRICS; k++) {
		struct source_windows sw = { w, idx[k] };
		const struct noise_source *s = &ns->src[idx[k]];

		noise_metric_name(name, sizeof(name), ns, idx[k]);
		snprintf(agg, sizeof(agg), "%s: gaps of the busy loop that %s %s ran in, per second of one window",
			 what, intf_kinds[s->kind].name, tally_slot_name(&ns->names, idx[k]));
		m = bench_metric(b, name, "gaps/s", BETTER_LOWER, agg);
		metric_add_rates(m, n, &sw, source_gaps);
		metric_kind(m, KIND_COUNT);
		metric_family(m, "noise_sources");
		metric_sample_noun(m, "window", "windows");
		metric_extra(m, "gaps", s->gaps);
		metric_extra(m, "stolen_us", s->stolen_ns / 1e3);
	}
	/*
	 * complete (absent = 0) unless a source went unnamed, unkept or
	 * unwritten; its members have two parts (KIND_NAME), the totals below one
	 */
	if (nsrc <= NOISE_METRICS && !ns->other.gaps && !ns->lost)
		bench_count_family(b, "noise_sources", "noise_*_*_per_s", "gaps/s", n);
	m = bench_metric(b, "noise_unexplained_per_s", "gaps/s", BETTER_LOWER,
			 "gaps of the busy loop with nothing traced in them, per second of one window");
	metric_add_rates(m, n, w, unexplained_gaps);
	metric_kind(m, KIND_COUNT);
	metric_sample_noun(m, "window", "windows");
	metric_extra(m, "gaps", ns->unexplained);
	metric_extra(m, "unexplained_us", ns->unexplained_ns / 1e3);
	/*
	 * Beside the unexplained gaps: the time the hypervisor ran something
	 * else (named outside noise_*_*_per_s, the sources' family).
	 */
	m = bench_metric(b, "hypervisor_steal_us_per_s", "us/s", BETTER_LOWER,
			 "the hypervisor's steal on the target (/proc/stat), per second of one window");
	metric_add_rates(m, n, w, steal_us);
	metric_sample_noun(m, "window", "windows");
	m = bench_metric(b, "noise_us_per_s", "us/s", BETTER_LOWER,
			 "time the busy loop lost in gaps over the threshold, per second of one window");
	metric_add_rates(m, n, w, gap_us);
	metric_sample_noun(m, "window", "windows");
	metric_extra(m, "gaps", ns->gaps);
}

void timer_softirq_noise_report(struct bench *b, const struct ts_run *r, const char *what,
				const struct ts_window_set *set, bool metrics)
{
	const struct noise_sources *ns = &set->ns;
	const struct ts_window *w = set->w;
	uint64_t n = set->n;
	int idx[NOISE_SOURCES], nsrc = ns->names.n;
	uint64_t steal = 0, attributed = ns->gaps - ns->unexplained;
	double secs = 0;
	char list[600] = "";
	size_t off = 0;

	if (!r->win->tr.noise)
		return;
	tally_rank(nsrc, idx, source_gaps_in, ns);	/* in most gaps first */
	for (uint64_t i = 0; i < n; i++) {
		steal += w[i].noise.steal_ns;
		secs += w[i].w.seconds;
	}
	ksft_print_msg("%s cpu %d: noise of the busy loop (gaps over %g us): %llu gaps, %.3f ms in %.1f s; attributed %llu (%.1f%%), unexplained %llu (%.3f ms; the hypervisor's steal %.3f ms over the windows)\n",
		       what, b->target, r->o->noise_threshold_us, (unsigned long long)ns->gaps,
		       ns->gap_ns / 1e6, secs, (unsigned long long)attributed,
		       ns->gaps ? 100.0 * attributed / ns->gaps : 100.0,
		       (unsigned long long)ns->unexplained, ns->unexplained_ns / 1e6, steal / 1e6);
	for (int k = 0; k < nsrc && k < NOISE_TOP && off < sizeof(list); k++) {
		const struct noise_source *s = &ns->src[idx[k]];

		off += snprintf(list + off, sizeof(list) - off, "%s%s %s %llu (%.3f ms)",
				k ? ", " : "", intf_kinds[s->kind].name,
				tally_slot_name(&ns->names, idx[k]),
				(unsigned long long)s->gaps, s->stolen_ns / 1e6);
	}
	if (nsrc)
		ksft_print_msg("%s cpu %d: noise by source, gaps it ran in (its own time in them): %s%s\n",
			       what, b->target, list, nsrc > NOISE_TOP ? ", ..." : "");
	if (metrics)
		noise_metrics(b, what, set, idx, nsrc);
}

void timer_softirq_noise_verdict(struct bench *b, const struct ts_run *r,
				 const struct ts_window_set *set, const char *what,
				 const char *name)
{
	const struct noise_sources *ns = &set->ns;

	if (!r->win->tr.noise) {
		bench_verdict(b, KSFT_SKIP, "the CPU's interrupts and threads are not traced here",
			      "%s", name);
		return;
	}
	ksft_print_msg("%s cpu %d: %llu gaps, %llu unexplained, %llu lost\n",
		       what, b->target, (unsigned long long)ns->gaps,
		       (unsigned long long)ns->unexplained, (unsigned long long)ns->lost);
	bench_verdict(b, ns->lost ? KSFT_FAIL : KSFT_PASS, NULL, "%s", name);
}

void timer_softirq_noise_control_verdict(struct bench *b, const struct ts_run *r,
					 const char *name)
{
	const struct ts_window_set *set = &r->win->control;
	uint64_t runs = 0, in = 0, timeouts = set->sum.timeouts;

	if (!r->win->tr.noise) {
		bench_verdict(b, KSFT_SKIP, "the CPU's interrupts and threads are not traced here",
			      "%s", name);
		return;
	}
	for (uint64_t i = 0; i < set->n; i++) {
		runs += set->w[i].noise.sleeper_runs;
		in += set->w[i].noise.sleeper_in_gaps;
	}
	ksft_print_msg("control cpu %d: %llu sleeper runs in gaps of %llu, %llu timeouts, at least %d%% wanted\n",
		       b->target, (unsigned long long)in, (unsigned long long)runs,
		       (unsigned long long)timeouts, RECALL_MIN_PCT);
	bench_verdict(b, timeouts >= 10 && in * 100 >= timeouts * RECALL_MIN_PCT ?
		      KSFT_PASS : KSFT_FAIL, NULL, "%s", name);
}
