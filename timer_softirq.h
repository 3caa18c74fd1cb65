/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer_softirq's parts (timer_softirq.c reads as the experiment): the
 * counted windows of the quiet and control phases in
 * timer_softirq_windows.c, their per-CPU events (timer_softirq_events.c)
 * and trace (timer_softirq_trace.c), the gaps of the busy loop and their
 * sources (timer_softirq_gaps.c, judged in timer_softirq_noise.c), the
 * cyclic phase in timer_softirq_cyclic.c.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_H
#define ISOLBENCH_TIMER_SOFTIRQ_H

#include <math.h>

#include "lib/harness/bench.h"
#include "timer_softirq_events.h"
#include "timer_softirq_trace.h"
#include "lib/load/cyclic.h"
#include "lib/kernel/knob.h"
#include "timer_softirq_gaps.h"
#include "lib/load/spinner.h"

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

/* One window's noise of the busy loop (timer_softirq_gaps.h), kept for its metrics. */
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
	uint64_t timeouts;		/* control: recv() timeouts */
	uint64_t ticks;			/* t.ticks, or jiffies without the tick's symbol */
	struct ts_noise noise;
};

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

/* One run: the phases asked for, the counting and what they found. */
struct ts_run {
	bool quiet, control, cyclic, nohz;
	bool tick_fn;		/* the tick's hrtimer function is known */
	char cpu_desc[96];
	struct cpu_trace tr;
	struct cpu_events rows;	/* /proc rows and jiffies only: no IPIs */
	struct cpu_events k;	/* perf counters */
	struct ts_window *quiet_w, *ctl_w, quiet_sum, ctl_sum;
	struct noise_sources quiet_ns, ctl_ns;	/* the noise's sources per phase */
	uint64_t quiet_max_softirqs;	/* the worst quiet window */
	double tick_quiet_s;	/* last LOC after the warm-up; -1 none in 3 s, NAN not waited */
	struct cyclic_result cyc;
};

static inline double per(double n, double d)
{
	return d > 0 ? n / d : NAN;
}

/* timer_softirq_windows.c: the quiet and control windows */
void timer_softirq_counters_open(struct bench *b, struct cpu_events *k);
void timer_softirq_counting_open(struct bench *b, const struct ts_opts *o, struct ts_run *r);
void timer_softirq_timer_migration_off(struct bench *b, bool nohz, struct knob *k);
uint64_t timer_softirq_spin_windows(struct bench *b, const struct ts_opts *o, struct ts_run *r,
				    bool control, struct ts_window *w, char *err, size_t errlen);
void timer_softirq_windows_sum(const struct ts_window *w, uint64_t n, struct ts_window *sum);
void timer_softirq_window_print(const char *what, int cpu, const struct ts_window *s);
struct metric *timer_softirq_window_metric(struct bench *b, const char *name, const char *label,
					   const char *ctx, const struct ts_window *w, uint64_t n,
			     const struct ts_window *s);
void timer_softirq_raised_metric(struct bench *b, const struct ts_opts *o, const struct ts_run *r,
				 uint64_t n);
void timer_softirq_ipis_print(int cpu, const struct cpu_trace_counts *t);

/* timer_softirq_noise.c: the busy loop's gaps, attributed */
void timer_softirq_noise_window(struct ts_run *r, struct spinner_gaps *g, pid_t sleeper,
				uint64_t steal0, struct ts_window *w);
void timer_softirq_noise_report(struct bench *b, const struct ts_opts *o, const char *what,
				struct ts_run *r, const struct noise_sources *ns,
		     const struct ts_window *w, uint64_t n, bool metrics);
void timer_softirq_noise_verdict(struct bench *b, const struct ts_run *r, const struct noise_sources *ns,
				 const char *what);
void timer_softirq_noise_control_verdict(struct bench *b, const struct ts_run *r,
					 const struct ts_window *w, uint64_t n, uint64_t timeouts);

/* timer_softirq_cyclic.c */
void timer_softirq_cyclic_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r);

#endif
