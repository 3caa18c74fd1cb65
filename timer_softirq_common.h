/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every phase of timer_softirq shares, below all of them: the
 * options, the run's context (decided once by timer_softirq.c), and the
 * events and rows the phases count on the target.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_COMMON_H
#define ISOLBENCH_TIMER_SOFTIRQ_COMMON_H

#include <math.h>

#include "lib/harness/bench.h"
#include "timer_softirq_events.h"

enum policy { POL_FIFO, POL_OTHER };

struct ts_opts {
	int phase, policy;
	double interval_us, hist_max_us, warmup_s, max_ticks_per_s;
	double max_needless_per_tick;
	double noise_threshold_us;	/* a gap of the busy loop longer than this is noise */
	uint64_t explain_n;		/* cyclic: the worst wakeups of the explained pass */
	double explain_over_us;		/* cyclic: and any later than this (0: none) */
	int64_t priority;
	uint64_t max_softirqs;
	bool mlock, laptop, assert_nohz, perf_counters;
};

/*
 * Counted with perf counters: the cyclic phase's counted pass, and the
 * windows with --perf-counters (the cross-check and the old method).
 */
enum ev {
	EV_TIMER_RAISE, EV_TIMER_RUN, EV_HRTIMER_RUN, EV_TIMER_EXPIRE,
	EV_HRTIMER_EXPIRE, EV_N
};
/* ...and the target CPU's rows of /proc/interrupts and /proc/softirqs */
enum timer_softirq_row { ROW_LOC, ROW_TIMER, ROW_HRTIMER };

struct ts_windows;	/* timer_softirq_windows.h */
struct ts_cyclic;	/* timer_softirq_cyclic.c */

/* One run: the phases asked for, the target, what the phases keep. */
struct ts_run {
	const struct ts_opts *o;
	bool quiet, control, tick, cyclic;	/* asked for (--phase) */
	bool nohz;			/* the target is nohz_full */
	char cpu_desc[96];		/* "cpu 1 (nohz_full)" */
	struct ts_windows *win;		/* the counted windows, open until the last phase of them */
	struct ts_cyclic *cyc;
};

static inline double per(double n, double d)
{
	return d > 0 ? n / d : NAN;
}

/* The target's rows (enum timer_softirq_row) and jiffies: read from anywhere, no IPI. */
void timer_softirq_common_rows_open(struct cpu_events *s, int cpu);
/* Perf counters on the target (enum ev) and its rows, opened from a housekeeping thread. */
void timer_softirq_common_counters_open(struct cpu_events *k, int cpu);

#endif
