// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq's quiet and control windows as a noise measurement
 * (after rtla osnoise): the busy loop logs every gap in its own progress
 * over --noise-threshold, and each gap is attributed from the window's
 * trace to what ran on the CPU in it (timer_softirq_gaps.h): hard IRQs by vector
 * or name, softirqs by type, IPIs by where they came from, the threads
 * that preempted the loop. Unexplained gaps are reported with the
 * hypervisor's steal over the same windows.
 */
#include <stdlib.h>
#include <string.h>

#include "timer_softirq.h"

#define NOISE_TOP	8	/* sources printed */
#define NOISE_METRICS	16	/* sources given a metric */
#define RECALL_MIN_PCT	95	/* of the control's runs found in gaps */

void timer_softirq_noise_window(struct ts_run *r, struct spinner_gaps *g, pid_t sleeper,
				uint64_t steal0, struct ts_window *w)
{
	struct noise_sources *ns = r->tr.ns;
	struct ts_noise *n = &w->noise;
	uint64_t (*log)[2], steal1;
	struct noise_gap *gaps;
	size_t cnt;

	cnt = spinner_gaps_read(g, r->tr.on_ns, r->tr.off_ns, &log, &n->lost);
	gaps = malloc((cnt ? cnt : 1) * sizeof(*gaps));
	if (!gaps)
		ksft_exit_fail_msg("out of memory\n");
	for (size_t i = 0; i < cnt; i++)
		gaps[i] = (struct noise_gap){ log[i][0], log[i][1] };
	free(log);
	timer_softirq_gaps_attribute(&r->tr.tl, ns, gaps, cnt);
	ns->lost += n->lost;
	for (size_t i = 0; i < cnt; i++)
		n->gap_ns += gaps[i].end - gaps[i].start;
	n->gaps = cnt;
	n->unexplained = ns->win_unexplained;
	for (int i = 0; i < ns->nsrc; i++)
		n->src_gaps[i] = ns->src[i].win_gaps;
	n->src_gaps[NOISE_SOURCES] = ns->other.win_gaps;
	if (sleeper > 0)
		timer_softirq_gaps_thread_recall(&r->tr.tl, sleeper, gaps, cnt, &n->sleeper_runs,
						 &n->sleeper_in_gaps);
	if (!cpu_steal_ns(r->tr.cpu, &steal1) && steal1 >= steal0)
		n->steal_ns = steal1 - steal0;
	free(gaps);
}

/* The sources by the gaps they were in, most first (indices into ns->src). */
static int noise_sorted(const struct noise_sources *ns, int *idx)
{
	for (int i = 0; i < ns->nsrc; i++) {
		int j = i;

		while (j > 0 && ns->src[idx[j - 1]].gaps < ns->src[i].gaps) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return ns->nsrc;
}

/* "irq local_timer" -> "noise_irq_local_timer_per_s" */
static void noise_metric_name(char *buf, size_t len, const struct noise_source *s)
{
	size_t n = snprintf(buf, len, "noise_%s_", timer_softirq_gaps_kind_names[s->kind]);

	for (const char *p = s->name; *p && n + 7 < len && n < 46; p++)
		buf[n++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p :
			   (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : '_';
	snprintf(buf + n, len - n, "_per_s");
}

/* Per source, the gaps it was in per second of each window: a count. */
static void noise_metrics(struct bench *b, const char *what, const struct noise_sources *ns,
			  const struct ts_window *w, uint64_t n, const int *idx, int nsrc)
{
	struct metric *m;
	char name[64], agg[200];

	/* the sources in most gaps; the rest count in the totals */
	for (int k = 0; k < nsrc && k < NOISE_METRICS; k++) {
		int i = idx[k];
		const struct noise_source *s = &ns->src[i];

		noise_metric_name(name, sizeof(name), s);
		snprintf(agg, sizeof(agg), "%s: gaps of the busy loop that %s %s ran in, per second of one window",
			 what, timer_softirq_gaps_kind_names[s->kind], s->name);
		m = bench_metric(b, name, "gaps/s", BETTER_LOWER, agg);
		for (uint64_t j = 0; j < n; j++)
			metric_add(m, per(w[j].noise.src_gaps[i], w[j].w.seconds));
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
	for (uint64_t j = 0; j < n; j++)
		metric_add(m, per(w[j].noise.unexplained, w[j].w.seconds));
	metric_kind(m, KIND_COUNT);
	metric_sample_noun(m, "window", "windows");
	metric_extra(m, "gaps", ns->unexplained);
	metric_extra(m, "unexplained_us", ns->unexplained_ns / 1e3);
	m = bench_metric(b, "noise_us_per_s", "us/s", BETTER_LOWER,
			 "time the busy loop lost in gaps over the threshold, per second of one window");
	for (uint64_t j = 0; j < n; j++)
		metric_add(m, per(w[j].noise.gap_ns / 1e3, w[j].w.seconds));
	metric_sample_noun(m, "window", "windows");
	metric_extra(m, "gaps", ns->gaps);
}

void timer_softirq_noise_report(struct bench *b, const struct ts_opts *o, const char *what,
				struct ts_run *r, const struct noise_sources *ns,
		     const struct ts_window *w, uint64_t n, bool metrics)
{
	int idx[NOISE_SOURCES], nsrc = noise_sorted(ns, idx);
	uint64_t steal = 0, attributed = ns->gaps - ns->unexplained;
	double secs = 0;
	char list[600] = "";
	size_t off = 0;

	if (!r->tr.noise)
		return;
	for (uint64_t i = 0; i < n; i++) {
		steal += w[i].noise.steal_ns;
		secs += w[i].w.seconds;
	}
	ksft_print_msg("%s cpu %d: noise of the busy loop (gaps over %g us): %llu gaps, %.3f ms in %.1f s; attributed %llu (%.1f%%), unexplained %llu (%.3f ms; the hypervisor's steal %.3f ms over the windows)\n",
		       what, b->target, o->noise_threshold_us, (unsigned long long)ns->gaps,
		       ns->gap_ns / 1e6, secs, (unsigned long long)attributed,
		       ns->gaps ? 100.0 * attributed / ns->gaps : 100.0,
		       (unsigned long long)ns->unexplained, ns->unexplained_ns / 1e6, steal / 1e6);
	for (int k = 0; k < nsrc && k < NOISE_TOP && off < sizeof(list); k++) {
		const struct noise_source *s = &ns->src[idx[k]];

		off += snprintf(list + off, sizeof(list) - off, "%s%s %s %llu (%.3f ms)",
				k ? ", " : "", timer_softirq_gaps_kind_names[s->kind], s->name,
				(unsigned long long)s->gaps, s->stolen_ns / 1e6);
	}
	if (nsrc)
		ksft_print_msg("%s cpu %d: noise by source, gaps it ran in (its own time in them): %s%s\n",
			       what, b->target, list, nsrc > NOISE_TOP ? ", ..." : "");
	if (metrics)
		noise_metrics(b, what, ns, w, n, idx, nsrc);
}

void timer_softirq_noise_verdict(struct bench *b, const struct ts_run *r, const struct noise_sources *ns,
				 const char *what)
{
	if (!r->tr.noise) {
		bench_verdict(b, KSFT_SKIP, "the CPU's interrupts and threads are not traced here",
			      "%s: every gap of the busy loop attributed or counted unexplained", what);
		return;
	}
	ksft_print_msg("%s cpu %d: %llu gaps, %llu unexplained, %llu lost\n",
		       what, b->target, (unsigned long long)ns->gaps,
		       (unsigned long long)ns->unexplained, (unsigned long long)ns->lost);
	bench_verdict(b, ns->lost ? KSFT_FAIL : KSFT_PASS, NULL,
		      "%s: every gap of the busy loop attributed or counted unexplained", what);
}

/*
 * The control's sleeper preempts the loop once per timeout: at least
 * RECALL_MIN_PCT% of the timeouts must be runs of it that the loop
 * noticed as a gap (clocks and attribution agree).
 */
void timer_softirq_noise_control_verdict(struct bench *b, const struct ts_run *r,
					 const struct ts_window *w, uint64_t n, uint64_t timeouts)
{
	uint64_t runs = 0, in = 0;

	if (!r->tr.noise) {
		bench_verdict(b, KSFT_SKIP, "the CPU's interrupts and threads are not traced here",
			      "control: the sleeper's preemptions of the busy loop attributed to it");
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		runs += w[i].noise.sleeper_runs;
		in += w[i].noise.sleeper_in_gaps;
	}
	ksft_print_msg("control cpu %d: %llu sleeper runs in gaps of %llu, %llu timeouts, at least %d%% wanted\n",
		       b->target, (unsigned long long)in, (unsigned long long)runs,
		       (unsigned long long)timeouts, RECALL_MIN_PCT);
	bench_verdict(b, timeouts >= 10 && in * 100 >= timeouts * RECALL_MIN_PCT ?
		      KSFT_PASS : KSFT_FAIL, NULL,
		      "control: the sleeper's preemptions of the busy loop attributed to it");
}
