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
 * must name.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipistorm_common.h"
#include "lib/harness/cpulock.h"
#include "ipistorm_watcher.h"

/*
 * The control's membarrier calls: at least this many and for at least
 * this long (a tenth of a second on an idle machine, a few seconds under
 * TCG), so that the spinner's share below is of a measurable time.
 */
#define CONTROL_CALLS	2000
#define CONTROL_NS	100000000ULL
#define CONTROL_NICE	-10	/* its spinner owns the CPU for them (nice 0 without root) */
#define CONTROL_MIN	50	/* IPIs it must have caused to judge */
/*
 * membarrier interrupts only the CPUs that run this process: while other
 * tasks hold the control's CPU, its calls send nothing. Below this share
 * of the CPU for its spinner, too few IPIs say nothing of the watch.
 */
#define CONTROL_MIN_SHARE	0.9
#define CONTROL_NAME	"control: the watch named membarrier the source of a membarrier storm"
#define TOP_SOURCES	5	/* sources printed */
#define TOP_SENDERS	4	/* senders printed per source */


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

static void source_print(const struct ipi_tally_source *s, const struct ipi_watch *w)
{
	char senders[320];

	ipistorm_tally_senders(s, TOP_SENDERS, senders, sizeof(senders));
	ksft_print_msg("source %s: %llu IPIs (%.2f/s), callback %s, %s%s; from %s\n",
		       s->name, (unsigned long long)s->n,
		       w->seconds > 0 ? s->n / w->seconds : 0, s->callback,
		       s->stacks == s->n ? "named from the sender's stack" :
		       s->stacks ? "named from the sender's stack (some)" : "named by its call site",
		       "", senders[0] ? senders : "?");
}

/*
 * Where the IPIs came from: the top sources in the KTAP, every source a
 * count metric of its windows (compare shows which appeared or grew).
 */
static void watch_sources(struct bench *b, struct ipi_watch *w)
{
	int idx[IPI_TALLY_SOURCES], n = w->t.nsrc;
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
		source_print(&w->t.src[idx[i]], w);
	if (n > TOP_SOURCES)
		ksft_print_msg("... and %d more sources (all in the JSON)\n", n - TOP_SOURCES);
	for (int i = 0; i <= n; i++) {
		const struct ipi_tally_source *s = i < n ? &w->t.src[idx[i]] : &w->t.src_other;
		struct watch_windows c = watch_windows(w, s, -1);
		char name[64], part[48], agg[200];
		struct metric *m;

		if (s->n && b->nmetrics == BENCH_MAX_METRICS)
			complete = false;
		if (!s->n || b->nmetrics == BENCH_MAX_METRICS)
			continue;
		metric_name_part(part, sizeof(part), s->name, 40);
		snprintf(name, sizeof(name), "ipis_from_%s_per_s", part);
		snprintf(agg, sizeof(agg), "IPIs from %.80s to the watched cpus in one %g s window of the machine's own time, per second",
			 s->name, w->window_s);
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
	for (int i = 0; i < w->t.cb.n; i++) {
		char *key;

		enum intf_kind kind = intf_kind_of_callback(w->t.cb.e[i].name);
		char what[48] = "";

		/* a reschedule runs no callback ("0x0"): its kind says what it is */
		if (kind == INTF_IPI_RESCHED)
			snprintf(what, sizeof(what), " (%s)", intf_kinds[kind].what);
		ksft_print_msg("callback %s%s: %llu\n", w->t.cb.e[i].name, what,
			       (unsigned long long)w->t.cb.e[i].n);
		if (m->nextras < BENCH_MAX_EXTRAS && asprintf(&key, "callback:%s", w->t.cb.e[i].name) > 0)
			metric_extra(m, key, w->t.cb.e[i].n);
	}
	for (int i = 0; i < w->t.func.n; i++) {
		ksft_print_msg("queued function %s: %llu\n", w->t.func.e[i].name,
			       (unsigned long long)w->t.func.e[i].n);
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s %llu",
			 i ? ", " : "", w->t.func.e[i].name, (unsigned long long)w->t.func.e[i].n);
	}
	if (w->t.func.n)
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

static void watch_report(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
			 const char *list)
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
	if (traced)
		bench_verdict(b, w->lost ? KSFT_FAIL : KSFT_PASS, NULL,
			      "traced every IPI sent to the watched cpus");
	else
		bench_verdict(b, w->samples >= 2 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "counted the IPIs received by the watched cpus in /proc/interrupts");
	if (o->max_given)
		bench_verdict(b, w->t.total > o->max_ipis ? KSFT_FAIL : KSFT_PASS, NULL,
			      "IPI count to the watched cpus within --max");
	else
		bench_verdict(b, KSFT_SKIP, "no --max given",
			      "IPI count to the watched cpus within --max");
}

/* The control's sender: membarrier calls to @cpu from a housekeeping CPU. */
struct control {
	int cpu, from;
	struct ipi_watch *w;
	struct spinner *sp;
	atomic_int ready;	/* 1: calling, -1: could not pin itself */
	atomic_bool done;
	uint64_t calls;
	double spinner_share;	/* of the CPU during the calls, -1: unknown */
	const char *skip;	/* why it did not run */
	char why[192];
};

static void *control_main(void *arg)
{
	struct control *c = arg;
	unsigned long long run0, run1;
	uint64_t t0, t1;

	if (cpu_pin_self(c->from)) {
		atomic_store(&c->ready, -1);
		atomic_store(&c->done, true);
		return NULL;
	}
	c->w->control_tid = gettid();
	atomic_store(&c->ready, 1);
	run0 = spinner_runtime_ns(c->sp);
	t0 = mono_ns();
	do {
		ipistorm_membarrier_ipi(c->cpu);
		c->calls++;
		t1 = mono_ns();
	} while ((c->calls < CONTROL_CALLS || t1 - t0 < CONTROL_NS) && !bench_stop);
	__atomic_store_n(&c->w->control_end_ns, t1, __ATOMIC_RELEASE);
	run1 = spinner_runtime_ns(c->sp);
	c->spinner_share = run0 && run1 >= run0 ? (double)(run1 - run0) / (double)(t1 - t0) : -1;
	atomic_store(&c->done, true);
	return NULL;
}

/*
 * The positive control, after the window (its IPIs apart from the
 * window's): a spinner of this process on the first watched CPU (its
 * lock taken, another run there is left alone) and membarrier calls to
 * it from a housekeeping CPU, each a real IPI while the spinner runs
 * there. Its verdict, after the watch's: control_verdict().
 */
static void control_run(struct bench *b, const struct ipistorm_opts *o, struct ipi_watch *w,
			struct control *c)
{
	struct spinner sp = { 0 };
	cpu_mask_t one;
	pthread_t th;

	c->cpu = cpu_mask_first(&w->cpus);
	c->w = w;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	if (o->no_control)
		c->skip = "--no-control";
	else if (w->method != IPI_WATCH_TRACE)
		c->skip = "no sources without the ipi tracepoints";
	else if (!w->stacks)
		c->skip = w->why_no_stacks;
	else if (bench_stop)
		c->skip = "interrupted";
	else if (!CPU_COUNT(&b->opt.housekeeping))
		c->skip = "no housekeeping CPU to send from";
	else if (ipistorm_membarrier_ready(c->why, sizeof(c->why)) ||
		 cpulock_take(&one, b->spec->name, false, c->why, sizeof(c->why)))
		c->skip = c->why;
	if (c->skip)
		return;
	c->from = cpu_mask_first(&b->opt.housekeeping);
	if (spinner_start(&sp, c->cpu, CONTROL_NICE, 10, c->why, sizeof(c->why))) {
		c->skip = c->why;
		return;
	}
	c->sp = &sp;
	c->spinner_share = -1;
	if (pthread_create(&th, NULL, control_main, c)) {
		c->skip = "cannot start the control's thread";
	} else {
		/*
		 * The trace read while the calls run, as in the window: thousands
		 * of them would overrun its buffer before a read at their end.
		 */
		while (!atomic_load(&c->done) && !ipistorm_watcher_poll(w))
			;
		pthread_join(th, NULL);
		if (atomic_load(&c->ready) < 0)
			c->skip = "cannot pin the control's thread to a housekeeping CPU";
	}
	spinner_stop(&sp);
}

/* The watch must name membarrier (from the sender's stack: the call site is generic). */
static void control_verdict(struct bench *b, const struct ipi_watch *w, const struct control *c)
{
	/* what membarrier queues on the CPUs it interrupts */
	static const char *const funcs[] = {
		"ipi_mb", "ipi_rseq", "ipi_sync_core", "ipi_sync_rq_state", NULL
	};
	uint64_t named, other, excused;
	char why[256];

	if (c->skip) {
		bench_verdict(b, KSFT_SKIP, c->skip, "%s", CONTROL_NAME);
		return;
	}
	ipistorm_watcher_control_count(w, "membarrier", funcs, &named, &other, &excused);
	if (c->spinner_share >= 0)
		snprintf(why, sizeof(why), " (its spinner had %.0f%% of it)", 100 * c->spinner_share);
	else
		snprintf(why, sizeof(why), " (no schedstat: its spinner's share unknown)");
	ksft_print_msg("control: %llu membarrier calls from cpu %d to cpu %d%s: %llu IPIs named membarrier, %llu named otherwise, %llu of its thread's own besides (queued functions not membarrier's)\n",
		       (unsigned long long)c->calls, c->from, c->cpu, why,
		       (unsigned long long)named, (unsigned long long)other,
		       (unsigned long long)excused);
	if (w->lost_after)
		ksft_print_msg("control: %lld events lost after the window (the trace buffer overran under its storm): its counts are of the records kept\n",
			       w->lost_after);
	for (int i = 0; i < w->after.nsrc && other + excused; i++)
		if (!strstr(w->after.src[i].name, "membarrier"))
			source_print(&w->after.src[i], w);
	if (named + other < CONTROL_MIN && w->lost_after) {
		snprintf(why, sizeof(why),
			 "the trace lost %lld events under the control's storm: %llu of its IPIs kept, %d needed",
			 w->lost_after, (unsigned long long)(named + other), CONTROL_MIN);
		bench_verdict(b, KSFT_SKIP, why, "%s", CONTROL_NAME);
		return;
	}
	if (named + other < CONTROL_MIN && c->spinner_share >= 0 &&
	    c->spinner_share < CONTROL_MIN_SHARE) {
		snprintf(why, sizeof(why),
			 "cpu %d ran other tasks: the control's spinner had %.0f%% of it, and membarrier sends no IPI while another process runs there (%llu IPIs, %d needed)",
			 c->cpu, 100 * c->spinner_share, (unsigned long long)(named + other),
			 CONTROL_MIN);
		bench_verdict(b, KSFT_SKIP, why, "%s", CONTROL_NAME);
		return;
	}
	bench_verdict(b, named + other >= CONTROL_MIN && named * 100 >= (named + other) * 99 ?
		      KSFT_PASS : KSFT_FAIL, NULL,
		      "%s", CONTROL_NAME);
}

noreturn void ipistorm_watch_main(struct bench *b, const struct ipistorm_opts *o)
{
	struct ipi_watch *w = calloc(1, sizeof(*w));
	const struct plan_phase phases[] = {
		{ "watch", 1, 1 },	/* watch_report: every IPI traced or counted */
		{ "limit", 1, 1 },	/* watch_report: --max */
		{ "control", 1, 1 },	/* watch_control */
		{ NULL }
	};
	struct control c = { 0 };
	const cpu_mask_t *watched = &b->watched;
	char list[512], err[256];

	if (!w)
		ksft_exit_fail_msg("no memory\n");
	cpu_mask_format(watched, list, sizeof(list));
	bench_phases(b, phases);
	if (ipistorm_watcher_open(w, o->method, watched, o->window_s, o->trace_buffer_kb,
				  err, sizeof(err)))
		bench_skip(b, "%s", err);
	if (w->why_procfs[0])
		bench_note(b, "%s: counting the IPIs received instead", w->why_procfs);
	if (w->note[0])
		bench_note(b, "%s", w->note);
	bench_note(b, "method: %s", w->how);
	ksft_print_msg("watching the IPIs %s cpus %s for %g s in %g s windows%s\n",
		       w->method == IPI_WATCH_TRACE ? "sent to" : "received by", list,
		       b->opt.duration_s, o->window_s,
		       b->opt.load ? " under the housekeeping load" : "");
	if (b->opt.load) {
		char hk[512];

		ksft_print_msg("housekeeping load on cpus %s\n",
			       cpu_mask_format(&b->opt.housekeeping, hk, sizeof(hk)));
		bench_load_start(b);
	}
	if (ipistorm_watcher_start(w, err, sizeof(err)))
		bench_skip(b, "%s", err);
	watch_collect(b, w, b->opt.duration_s);
	bench_load_stop(b);
	control_run(b, o, w, &c);
	if (ipistorm_watcher_stop(w))
		ksft_exit_fail_msg("watching the IPIs: %s\n", strerror(errno));
	watch_report(b, o, w, list);
	control_verdict(b, w, &c);
	ipistorm_tally_free(&w->t);
	ipistorm_tally_free(&w->after);
	bench_finish(b);
}
