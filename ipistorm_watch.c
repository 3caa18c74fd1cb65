// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's watch (--watch CPULIST -D SECS [--load]): every IPI sent to
 * the watched CPUs, per CPU in windows of the machine's own time (the
 * samples compare and bisect judge), per minute, kind and callback, and
 * where each came from: the sender's stack past the generic cross-CPU
 * call code (the IPI-deferral series did it with trace-cmd and
 * ipi_send_cpu filters over 6 hours). Where the ipi tracepoints do not
 * exist (before 6.3) or with --method procfs, the IPIs they received,
 * from /proc/interrupts. After the window, a positive control: a
 * membarrier storm to the first watched CPU, whose source the watch
 * must name. The watch phase is here (it runs the control's storm too,
 * and judges --max); the control's is ipistorm_control.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/util.h"
#include "ipistorm_watch_phases.h"

#define TOP_SOURCES	5	/* sources printed */

static void watch_collect(struct bench *b, struct ipi_watch *w, double dur_s)
{
	uint64_t now, last_progress = 0;

	while (!bench_stop && (now = mono_ns()) - w->start_ns < dur_s * 1e9) {
		if (ipistorm_watcher_poll(w))
			ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
		if (bench_progress_wanted(b) && now - last_progress > 1000000000ULL) {
			last_progress = now;
			fprintf(stderr, "\ripistorm watch: %.0f/%g s, %llu IPIs to watched CPUs (%s) ",
				(now - w->start_ns) / 1e9, dur_s,
				(unsigned long long)w->t.total, w->how);
		}
	}
	if (ipistorm_watcher_end_window(w))
		ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
	if (bench_progress_wanted(b))
		fprintf(stderr, "\n");
}

/* The IPIs in each full window of the watch: a CPU's, or a source's. */
struct watch_windows {
	const struct ipi_tally *t;
	const struct ipi_tally_source *src;	/* NULL: the CPU at @place */
	int place;
	double win_s;				/* a window's length */
};

static struct watch_windows watch_windows(const struct ipi_watch *w,
					  const struct ipi_tally_source *src, int place)
{
	return (struct watch_windows){
		.t = &w->t, .src = src, .place = place,
		.win_s = w->seconds < w->window_s ? w->seconds : w->window_s,
	};
}

static double window_count(const void *arg, size_t win, double *span)
{
	const struct watch_windows *c = arg;

	*span = c->win_s;
	if (!c->src)
		return ipistorm_tally_win(c->t, win, c->place);
	return win < c->src->nwin ? c->src->per_win[win] : 0;
}

/* One sample per full window: its IPIs per second. */
static void window_samples(struct metric *m, const struct ipi_watch *w,
			   const struct watch_windows *c)
{
	metric_add_rates(m, ipistorm_watcher_windows(w), c, window_count);
	metric_kind(m, KIND_COUNT);	/* IPIs in windows of the machine's own time */
	metric_sample_noun(m, "window", "windows");
}

/*
 * "CAL +3, RES +5, TLB +0": the IPI kinds' /proc/interrupts rows of @cpu
 * over the watch, those the machine has (arm64 has no TLB row).
 */
static const char *rows_delta(const struct ipi_watch *w, int cpu, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < INTF_KINDS && off < len; k++) {
		int64_t d = intf_kinds[k].row ?
			    irq_table_delta(&w->first, &w->last, intf_kinds[k].row, cpu) : -1;

		if (d >= 0)
			off += snprintf(buf + off, len - off, "%s%s +%lld", off ? ", " : "",
					intf_kinds[k].row, (long long)d);
	}
	return buf;
}

/* Per watched CPU, one count metric of its windows: a regression on cpu 3 is not diluted by cpu 2. */
static void watch_cpu_metrics(struct bench *b, struct ipi_watch *w)
{
	bool traced = w->method == IPI_WATCH_TRACE;
	int cpu;

	cpu_mask_for_each(cpu, &w->cpus) {
		struct watch_windows c = watch_windows(w, NULL, w->t.cpu_index[cpu]);
		char name[64], agg[200], rows[128];
		struct metric *m;

		snprintf(name, sizeof(name), "ipis_to_cpu%d_per_s", cpu);
		snprintf(agg, sizeof(agg), "IPIs %s cpu %d in one %g s window of the machine's own time, per second",
			 traced ? "sent to" : "received by", cpu, w->window_s);
		uint64_t in_windows = 0;

		m = bench_metric(b, name, "IPIs/s", BETTER_LOWER, agg);
		window_samples(m, w, &c);
		for (size_t i = 0; i < ipistorm_watcher_windows(w); i++)
			in_windows += ipistorm_tally_win(&w->t, i, c.place);
		metric_summary(m, "IPIs per second", "to cpu %d (%s), %.1f s in %g s windows, %llu in all",
			       cpu, cpu_isolation_name(&b->sets, cpu), w->seconds, w->window_s,
			       (unsigned long long)w->t.per_cpu[cpu]);
		metric_extra(m, "ipis", w->t.per_cpu[cpu]);
		/* the samples' windows are whole: the watch's last fraction of one is not */
		metric_extra(m, "ipis_in_windows", in_windows);
		metric_extra(m, "window_s", w->window_s);
		ksft_print_msg("cpu %d: %llu IPIs %s (%.2f per minute); /proc/interrupts: %s\n",
			       cpu, (unsigned long long)w->t.per_cpu[cpu],
			       traced ? "sent to it" : "received",
			       w->seconds > 0 ? w->t.per_cpu[cpu] * 60 / w->seconds : 0,
			       rows_delta(w, cpu, rows, sizeof(rows)));
	}
}

static uint64_t source_ipis(const void *arg, int i)
{
	return ((const struct ipi_tally *)arg)->src[i].n;
}

/*
 * Where the IPIs came from: the top sources in the KTAP, every source a
 * count metric of its windows (compare shows which appeared or grew).
 */
static void watch_sources(struct bench *b, struct ipi_watch *w)
{
	int idx[IPI_TALLY_SOURCES], n = w->t.sources.n;
	/* complete (absent = 0) unless a source went unnamed, unseen or unwritten */
	bool complete = !w->lost && !w->t.src_other.n;

	tally_rank(n, idx, source_ipis, &w->t);	/* most IPIs first */
	if (w->method != IPI_WATCH_TRACE) {
		bench_note(b, "sources: unavailable: /proc/interrupts counts interrupts, not their senders");
		return;
	}
	if (w->t.no_callsite)
		bench_note(b, "this kernel's ipi tracepoints have no callsite: %llu IPIs named by their callback",
			   (unsigned long long)w->t.no_callsite);
	if (!w->stacks)
		bench_note(b, "sources named by the call site only, no sender stacks: %s",
			   w->why_no_stacks);
	for (int i = 0; i < n && i < TOP_SOURCES; i++)
		ipistorm_tally_source_print(&w->t, idx[i], w->seconds);
	if (n > TOP_SOURCES)
		ksft_print_msg("... and %d more sources (all in the JSON)\n", n - TOP_SOURCES);
	for (int i = 0; i <= n; i++) {
		int slot = i < n ? idx[i] : TALLY_OTHER;
		const struct ipi_tally_source *s = ipistorm_tally_source(&w->t, slot);
		const char *src = tally_slot_name(&w->t.sources, slot);
		struct watch_windows c = watch_windows(w, s, -1);
		char name[64], part[48], agg[200];
		struct metric *m;

		if (s->n && b->nmetrics == BENCH_MAX_METRICS)
			complete = false;
		if (!s->n || b->nmetrics == BENCH_MAX_METRICS)
			continue;
		metric_name_part(part, sizeof(part), src, 40);
		snprintf(name, sizeof(name), "ipis_from_%s_per_s", part);
		snprintf(agg, sizeof(agg), "IPIs from %.80s to the watched cpus in one %g s window of the machine's own time, per second",
			 src, w->window_s);
		m = bench_metric(b, name, "IPIs/s", BETTER_LOWER, agg);
		window_samples(m, w, &c);
		metric_family(m, "ipi_sources");
		metric_extra(m, "ipis", s->n);
		metric_extra(m, "ipis_named_from_stack", s->stacks);
	}
	if (complete)
		bench_count_family(b, "ipi_sources", "ipis_from_*_per_s", "IPIs/s",
				   ipistorm_watcher_windows(w));
}

/* Per callback and queued function (traced), or why there are none. */
static void watch_callbacks(struct bench *b, struct ipi_watch *w, struct metric *m)
{
	char note[160] = "";

	if (w->method != IPI_WATCH_TRACE) {
		bench_note(b, "callbacks: unavailable: /proc/interrupts counts interrupts, not the functions they ran%s",
			   w->why_procfs[0] ? "; ipi tracing is not usable on this kernel" : "");
		return;
	}
	for (int i = 0; i < w->t.cb.names.n; i++) {
		const char *cb = tally_slot_name(&w->t.cb.names, i);
		enum intf_kind kind = intf_kind_of_callback(cb);
		char what[48] = "";
		char *key;

		/* a reschedule runs no callback ("0x0"): its kind says what it is */
		if (kind == INTF_IPI_RESCHED)
			snprintf(what, sizeof(what), " (%s)", intf_kinds[kind].what);
		ksft_print_msg("callback %s%s: %llu\n", cb, what, (unsigned long long)w->t.cb.n[i]);
		if (m->nextras < BENCH_MAX_EXTRAS && asprintf(&key, "callback:%s", cb) > 0)
			metric_extra(m, key, w->t.cb.n[i]);
	}
	for (int i = 0; i < w->t.func.names.n; i++) {
		const char *func = tally_slot_name(&w->t.func.names, i);

		ksft_print_msg("queued function %s: %llu\n", func,
			       (unsigned long long)w->t.func.n[i]);
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s %llu",
			 i ? ", " : "", func, (unsigned long long)w->t.func.n[i]);
	}
	if (w->t.func.names.n)
		bench_note(b, "queued functions (csd_queue_cpu): %s", note);
	metric_extra(m, "csd_queued", w->t.queued);
}

/*
 * The per-minute samples: the full minutes; the partial last one left
 * out, or scaled to 60 s when there is no full minute.
 */
static void watch_minutes(struct ipi_watch *w, struct metric *m)
{
	size_t full = (size_t)(w->seconds / 60);
	double part_s = w->seconds - full * 60.0;
	uint64_t part = full < w->t.nmin ? w->t.per_min[full] : 0;

	if (!ipistorm_watcher_windows(w))
		return;	/* interrupted before its first window: no minute either */
	for (size_t i = 0; i < full && i < w->t.nmin; i++)
		metric_add(m, w->t.per_min[i]);
	for (size_t i = w->t.nmin; i < full; i++)
		metric_add(m, 0);
	/* events of a later minute than the window's own: none expected */
	for (size_t i = full + 1; i < w->t.nmin; i++)
		part += w->t.per_min[i];
	if (!full && part_s > 0)
		metric_add(m, part * 60.0 / part_s);
	else if (!full)
		metric_add(m, 0);
	metric_extra(m, "full_minutes", full);
	metric_extra(m, "last_minute_s", part_s);
	metric_extra(m, "last_minute_ipis", part);
	metric_extra(m, "last_minute_scaled", !full);
	if (part_s > 0.001)
		ksft_print_msg("per minute: %zu full minute%s%s; the last %.1f s (%llu IPIs) %s\n",
			       full, full == 1 ? "" : "s",
			       w->method == IPI_WATCH_TRACE && w->ts_mono ?
			       ", records bucketed by their own timestamps" : "",
			       part_s, (unsigned long long)part,
			       full ? "left out of the per-minute samples (in the totals)" :
			       "scaled to 60 s (the watch is shorter than a minute)");
}

/* Per IPI kind: a JSON extra and the "by kind" line. */
static void watch_kinds(const struct ipi_watch *w, struct metric *m)
{
	char list[160];
	size_t off = 0;

	list[0] = '\0';
	for (int k = 0; k < INTF_KINDS; k++) {
		if (!intf_kind_is_ipi(k))
			continue;
		metric_extra(m, intf_kinds[k].key, w->t.kind[k]);
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%llu %s",
				off ? ", " : "", (unsigned long long)w->t.kind[k], intf_kinds[k].what);
	}
	ksft_print_msg("by kind: %s\n", list);
}

static void watch_report(struct bench *b, struct ipi_watch *w, const char *list)
{
	bool traced = w->method == IPI_WATCH_TRACE;
	struct metric *m;

	/* first: the per-CPU windows are what compare and bisect judge by default */
	watch_cpu_metrics(b, w);
	m = bench_metric(b, "ipis_per_min", "IPIs", BETTER_LOWER, traced ?
			 "IPIs sent to watched CPUs in one full minute (by the records' own timestamps); a partial last minute is left out, or scaled to 60 s when the watch is shorter than a minute; ipi tracepoints" :
			 "IPIs received by watched CPUs in one full minute; a partial last minute is left out, or scaled to 60 s when the watch is shorter than a minute; /proc/interrupts");
	metric_kind(m, KIND_COUNT);	/* IPIs in a minute of the machine's own time */
	watch_minutes(w, m);
	metric_sample_noun(m, "minute", "minutes");
	metric_summary(m, "IPIs per minute to watched cpus", "cpus %s, %.1f s%s, %llu in all, %s",
		       list, w->seconds, b->opt.load ? " with housekeeping load" : "",
		       (unsigned long long)w->t.total, w->how);
	metric_extra(m, "ipis_total", w->t.total);
	metric_extra(m, "watch_s", w->seconds);
	metric_extra(m, "setup_ipis", w->setup_ipis);
	metric_extra(m, "teardown_ipis", w->teardown_ipis);
	ksft_print_msg("outside the window: %lld IPIs (CAL + RES) to cpus %s while the watch set itself up, %lld while it tore itself down%s\n",
		       (long long)w->setup_ipis, list, (long long)w->teardown_ipis,
		       traced ? " (enabling and disabling tracepoints patches kernel text, which interrupts every CPU)" : "");
	if (traced)
		metric_extra(m, "events_lost", w->lost);
	else
		metric_extra(m, "procfs_samples", w->samples);
	watch_kinds(w, m);
	watch_callbacks(b, w, m);
	watch_sources(b, w);
	ksft_print_msg("watched cpus %s for %.1f s%s: %llu IPIs, %lld events lost, %llu procfs samples\n",
		       list, w->seconds, bench_stop ? " (interrupted)" : "",
		       (unsigned long long)w->t.total, w->lost,
		       (unsigned long long)w->samples);
}

/*
 * The watch's results: the window traced or counted (named for its
 * method: traced, or counted in /proc/interrupts), and --max on its
 * count, judged on what was measured also when interrupted.
 */
static const char *const watch_checks[] = {
	"traced every IPI sent to the watched cpus",
	"counted the IPIs received by the watched cpus in /proc/interrupts",
	"IPI count to the watched cpus within --max",
};

static void watch_check_name(const void *ctx, unsigned int run, unsigned int i, char *buf,
			     size_t len)
{
	const struct ipistorm_watch_run *r = ctx;
	/* the method asked for when an interruption came before the watcher opened */
	int method = r->w->method != IPI_WATCH_AUTO ? (int)r->w->method : r->o->method;

	(void)run;
	snprintf(buf, len, "%s", watch_checks[i ? 2 : method == IPI_WATCH_PROCFS]);
}

/* The watcher opened and started, the load beside it with --load. */
static void watch_setup(struct bench *b, void *ctx)
{
	struct ipistorm_watch_run *r = ctx;
	struct ipi_watch *w = r->w;
	char err[256];

	cpu_mask_format(&b->watched, r->list, sizeof(r->list));
	if (ipistorm_watcher_open(w, r->o->method, &b->watched, r->o->window_s,
				  r->o->trace_buffer_kb, err, sizeof(err)))
		bench_skip(b, "%s", err);
	if (w->why_procfs[0])
		bench_note(b, "%s: counting the IPIs received instead", w->why_procfs);
	if (w->note[0])
		bench_note(b, "%s", w->note);
	bench_note(b, "method: %s", w->how);
	if (w->method == IPI_WATCH_TRACE)
		bench_note(b, "trace records read from %s",
			   trace_event_source_desc(w->raw, w->raw_error, err, sizeof(err)));
	ksft_print_msg("watching the IPIs %s cpus %s for %g s in %g s windows%s\n",
		       w->method == IPI_WATCH_TRACE ? "sent to" : "received by", r->list,
		       b->opt.duration_s, r->o->window_s,
		       b->opt.load ? " under the housekeeping load" : "");
	if (b->opt.load) {
		char hk[512];

		ksft_print_msg("housekeeping load on cpus %s\n",
			       cpu_mask_format(&b->opt.housekeeping, hk, sizeof(hk)));
		bench_load_start(b);
	}
	if (ipistorm_watcher_start(w, err, sizeof(err)))
		bench_skip(b, "%s", err);
}

/*
 * The window, then the control's storm while the trace goes on, then
 * the watcher stopped: only then are the window's counts and lost
 * events final (a record of the window that the drain at its end left
 * unread is read later, its overruns are added at the stop).
 */
static void watch_run(struct bench *b, void *ctx)
{
	struct ipistorm_watch_run *r = ctx;

	watch_collect(b, r->w, b->opt.duration_s);
	bench_load_stop(b);
	ipistorm_control_storm(b, r->o, r->w, &r->c);
	if (ipistorm_watcher_stop(r->w))
		ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
}

/* Every IPI traced (none lost) or counted (two samples or more); --max on their count. */
static void watch_verdicts(struct bench *b, void *ctx)
{
	struct ipistorm_watch_run *r = ctx;
	struct ipi_watch *w = r->w;
	bool traced = w->method == IPI_WATCH_TRACE;
	const struct phase *p = &ipistorm_watch_phase;

	watch_report(b, w, r->list);
	phase_verdict(b, p, ctx, 0, 0, (traced ? !w->lost : w->samples >= 2) ? KSFT_PASS : KSFT_FAIL,
		      NULL);
	if (r->o->max_given)
		phase_verdict(b, p, ctx, 0, 1, w->t.total > r->o->max_ipis ? KSFT_FAIL : KSFT_PASS,
			      NULL);
	else
		phase_verdict(b, p, ctx, 0, 1, KSFT_SKIP, "no --max given");
}

const struct phase ipistorm_watch_phase = {
	.name = "watch",
	.nverdicts = 2,
	.check_name = watch_check_name,
	.setup = watch_setup,
	.run = watch_run,
	.verdicts = watch_verdicts,
};
