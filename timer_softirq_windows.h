/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counted windows of the quiet and control phases: a busy loop on
 * the target (and for the control a thread sleeping in recv() beside
 * it), counted by a trace instance read from a housekeeping thread after
 * each window (timer_softirq_trace.h), the loop's gaps attributed to
 * what ran in them (timer_softirq_gaps.h). The quiet phase opens the
 * counting; the control's windows use it and the quiet ones as their
 * baseline, so the last of the two closes it.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_WINDOWS_H
#define ISOLBENCH_TIMER_SOFTIRQ_WINDOWS_H

#include "lib/harness/phase.h"
#include "timer_softirq_common.h"
#include "timer_softirq_deps.h"
#include "timer_softirq_gaps.h"
#include "timer_softirq_trace.h"

#define TS_KEEPS	3	/* the tick phase's planted dependencies */

/* One window's noise of the busy loop, kept for its metrics. */
struct ts_noise {
	uint64_t gaps, gap_ns;		/* the loop's gaps over the threshold */
	uint64_t unexplained, unexplained_ns;
	uint64_t lost;			/* gaps the log could not keep */
	uint64_t steal_ns;		/* the hypervisor's, /proc/stat */
	uint64_t src_gaps[NOISE_SOURCES + 1];	/* per source of the phase; the last: other */
	uint64_t sleeper_runs, sleeper_in_gaps;	/* control: the sleeper's runs, in gaps */
};

/* One counted window of the quiet or control phase. */
struct ts_window {
	struct cpu_trace_counts t;	/* from the trace instance */
	struct cpu_window w;		/* rows, jiffies; perf counts if asked */
	double rows_s;			/* from the first /proc read to the last: their rates' span */
	uint64_t timeouts;		/* control: recv() timeouts */
	uint64_t ticks;			/* t.ticks, or jiffies without the tick's symbol */
	struct ts_noise noise;
	/* who set the tick's dependencies: inside the window, and before it since the last */
	struct tick_dep_sets deps, deps_before;
};

/* One phase's windows. */
struct ts_window_set {
	struct ts_window *w;
	uint64_t n;			/* counted */
	struct ts_window sum;		/* added up (counts, rows, seconds, jiffies) */
	struct noise_sources ns;	/* the noise's sources */
};

/* The counting, and the windows of both phases. */
struct ts_windows {
	struct cpu_trace tr;
	struct tick_deps deps;		/* on a nohz_full target (or --assert-nohz) */
	struct cpu_events rows;		/* /proc rows and jiffies only: no IPIs */
	struct cpu_events k;		/* perf counters, with --perf-counters */
	bool tick_fn;			/* the tick's hrtimer function is known */
	double tick_quiet_s;	/* last LOC after the warm-up; -1 none in 3 s, NAN not waited */
	struct ts_window_set quiet, control;
	struct ts_window_set keep[TS_KEEPS];	/* the tick phase's, a dependency each */
};

/*
 * Something planted beside the busy loop for a set of windows (the tick
 * phase's dependencies): started after the loop runs on the target
 * (@loop_tid), before the warm-up; stopped after the last window.
 */
struct ts_plant {
	int (*start)(struct ts_plant *p, int cpu, pid_t loop_tid, char *err, size_t errlen);
	void (*stop)(struct ts_plant *p);
};

/* What a set of windows runs beside the busy loop. */
struct ts_spin {
	const char *what;		/* its name in the # lines: "quiet" */
	struct ts_window_set *set;	/* where its windows go */
	uint64_t runs;			/* windows to count */
	bool sleeper;			/* the control's sleeper beside the loop */
	bool settle;			/* on nohz_full, wait for the tick to stop first */
	struct ts_plant *plant;		/* NULL: nothing more */
};

/*
 * The counting thread (this one) on the housekeeping CPUs, the trace
 * instance, the rows and, with --perf-counters, the perf counters, into
 * r->win; a SKIP of the program when the trace instance cannot count.
 */
void timer_softirq_windows_open(struct bench *b, struct ts_run *r);
/*
 * The counted windows, which the quiet, control and tick phases share:
 * the harness closes the counting and frees them (nothing when none are
 * open) after the last of those phases that runs.
 */
extern const struct phase_shared timer_softirq_windows;
/*
 * The windows @how describes, into its set: a busy loop (and the
 * sleeper, the plant) get ready on the target and warm up once, then
 * the counted windows run one after the other while they do their
 * work. Returns the windows counted; with a reason in @err when fewer
 * than asked (none when interrupted).
 */
uint64_t timer_softirq_windows_spin(struct bench *b, struct ts_run *r, const struct ts_spin *how,
				    char *err, size_t errlen);
void timer_softirq_windows_print(const char *what, int cpu, const struct ts_window *s);
/* Who set the tick's dependencies in @set's windows and before them (when traced). */
void timer_softirq_windows_deps_print(const char *what, int cpu, const struct ts_windows *win,
				      const struct ts_window_set *set);
/* A phase's windows as one metric, a sample per window, totals as extras. */
struct metric *timer_softirq_windows_metric(struct bench *b, const char *name, const char *label,
					    const char *ctx, const struct ts_window_set *set);

#endif
