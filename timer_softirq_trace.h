/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timer activity of one CPU and the IPIs sent to it, recorded in a
 * private trace instance (lib/kernel/trace_instance.h) during windows and read
 * from a housekeeping thread after each one. Counting this way sends the
 * watched CPU nothing during the window: the tracepoints are enabled
 * before it (that patches kernel text and interrupts every CPU), a
 * window starts and ends by writing the instance's tracing_on flag, and
 * the ring buffer is read only while tracing is off, never waited on (a
 * waiting reader is woken through irq_work on the CPU that logged the
 * event). A per-CPU perf event of another CPU, in contrast, is enabled,
 * disabled and read by an IPI to that CPU.
 *
 * Recorded on the CPU: TIMER softirqs raised (irq:softirq_raise vec 1),
 * TIMER and HRTIMER softirq runs (softirq_entry/exit), timer-wheel
 * expiries (timer:timer_expire_entry, process_timeout apart), the
 * process_timeout timers armed there (timer:timer_start) and, on any
 * CPU, the expiries of those timers (since 6.9 an idle CPU of the timer
 * migration hierarchy expires the global timers of a CPU whose tick is
 * stopped, nohz_full and busy included, when they are due before that
 * CPU gets to them; kernel.timer_migration does not stop it), hrtimer
 * expiries and among them the tick (the tick_nohz_handler or
 * tick_sched_timer hrtimer), tick_stop; and from every CPU the IPIs
 * whose target is the CPU (ipi:ipi_send_cpu, ipi_send_cpumask, 6.3+),
 * with the sending thread.
 *
 *	struct cpu_trace t;
 *	timer_softirq_trace_open(&t, cpu, err, sizeof(err));
 *	timer_softirq_trace_begin(&t);	...window...	timer_softirq_trace_end(&t, &counts);
 *	timer_softirq_trace_close(&t);
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_TRACE_H
#define ISOLBENCH_TIMER_SOFTIRQ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "timer_softirq_gaps.h"
#include "lib/kernel/trace_instance.h"

#define CPU_TRACE_DEPS		6	/* tick dependencies: POSIX_TIMER .. RCU_EXP */
#define CPU_TRACE_CALLBACKS	8	/* IPI callbacks told apart */
#define CPU_TRACE_SELF		64	/* threads of this process */
#define CPU_TRACE_ARMED		16	/* process_timeout timers followed */

extern const char *const timer_softirq_trace_dep_names[CPU_TRACE_DEPS];

struct cpu_trace_ipi {
	char callback[64];	/* the IPI's callback symbol */
	uint64_t n, self;	/* sends, and those by this process */
};

/* What one window recorded; timer_softirq_trace_add() sums windows. */
struct cpu_trace_counts {
	uint64_t timer_raised;		/* TIMER softirq raised on the CPU */
	uint64_t timer_runs;		/* TIMER softirq runs (entries) */
	uint64_t hrtimer_runs;
	uint64_t timer_expiries;	/* timer-wheel expiries on the CPU */
	uint64_t sleep_expiries;	/* ...of process_timeout */
	uint64_t sleep_runs;		/* TIMER softirq runs that expired a process_timeout */
	uint64_t own_sleep_runs;	/* ...one that a thread of this process armed */
	uint64_t sleep_armed;		/* process_timeout timers armed on the CPU */
	uint64_t sleep_expiries_elsewhere;	/* ...of those, expired by another CPU */
	uint64_t hrtimer_expiries;
	uint64_t ticks;			/* tick hrtimer expiries */
	uint64_t tick_stopped, tick_kept[CPU_TRACE_DEPS];
	/*
	 * Raises followed by a run that expired no timer, and runs that
	 * expired at least one; raises whose run came after the window.
	 */
	uint64_t raised_without_expiry, runs_with_expiry, raised_unrun;
	uint64_t ipis;			/* IPIs sent to the CPU */
	uint64_t ipis_self;		/* ...by a thread of this process (not in an interrupt) */
	uint64_t ipis_self_resched;	/* ...of those, reschedule IPIs (no callback) */
	char self_callsite[96];		/* the call site of the last of those */
	struct cpu_trace_ipi cb[CPU_TRACE_CALLBACKS];
	int ncb;
	uint64_t lines, unparsed;	/* records read, and not understood */
	long long lost;			/* events the ring buffer lost */
	int windows;
};

/* The state of reading one window's records in order. */
struct cpu_trace_parser {
	int cpu;
	pid_t self[CPU_TRACE_SELF];	/* this process's threads */
	int nself;
	uint64_t pending;		/* raised, not run yet */
	bool in_run;
	uint64_t run_raised, run_expiries;
	bool run_sleep;			/* the run expired a process_timeout */
	bool run_own_sleep;		/* ...one of this process's */
	struct {
		char id[24];		/* the timer's (hashed) pointer */
		bool own;		/* armed by a thread of this process */
	} armed[CPU_TRACE_ARMED];	/* the last timers armed */
	int narmed;
	struct cpu_trace_counts *c;
};

struct cpu_trace {
	int cpu;
	struct trace_instance ti;
	bool have_ipi_cpu, have_ipi_mask;	/* the ipi tracepoints exist */
	char ipi_error[160];		/* why IPIs are not recorded */
	char notes[4][160];		/* filters done in user space instead */
	int nnotes;
	long long lost0;		/* lost events when the window began */
	char error[256];		/* why timer_softirq_trace_begin or _end failed */
	/*
	 * With timer_softirq_trace_noise(): what ran on the CPU in the last window
	 * (its hard IRQs, softirqs, threads and the IPIs sent to it), for
	 * the gaps of the busy loop @loop_tid, the sources in @ns.
	 */
	bool noise;
	pid_t loop_tid;
	struct noise_sources *ns;
	struct noise_timeline tl;
	uint64_t on_ns, off_ns;		/* the window's tracing, CLOCK_MONOTONIC */
};

/* Start reading a window's records for @cpu into @c (zeroed). */
void timer_softirq_trace_parse_begin(struct cpu_trace_parser *p, int cpu,
				     struct cpu_trace_counts *c);
/* One record line of trace_pipe. */
void timer_softirq_trace_parse_line(struct cpu_trace_parser *p, const char *line);
/* End of the window's records. */
void timer_softirq_trace_parse_end(struct cpu_trace_parser *p);

/* @sum += @c. */
void timer_softirq_trace_add(struct cpu_trace_counts *sum, const struct cpu_trace_counts *c);

/*
 * The timer-softirq thread's rule on counts: the tick raised the TIMER
 * softirq only when a timer was due, i.e. the raises whose run expired
 * nothing are at most @max_per_tick per tick, plus 2 per window for a
 * run cut by the window's edges. On a kernel that raises on every tick with few timers
 * due, they are nearly one per tick.
 */
bool timer_softirq_trace_raise_ok(const struct cpu_trace_counts *c, double max_per_tick);

/*
 * The positive control's rule, for @timeouts sleeps of one thread on the
 * CPU, each in schedule_timeout() (a process_timeout timer armed there),
 * counted in @c->windows windows: every timeout is explained by an
 * expiry of such a timer, on the CPU or on another one, but for one per
 * window (a timer that expired just before the window opened, whose
 * sleeper returned inside it), and most expired on the CPU itself.
 */
bool timer_softirq_trace_sleep_ok(const struct cpu_trace_counts *c, uint64_t timeouts);

/*
 * Create the instance and enable the events, tracing off. 0, or -1
 * with the reason in @err.
 */
int timer_softirq_trace_open(struct cpu_trace *t, int cpu, char *err, size_t errlen);
/*
 * Also record what ran on the CPU (irq_handler, the x86 irq_vectors,
 * all softirqs, sched_switch, the stacks of the IPIs sent to it), for
 * the noise of a busy loop (timer_softirq_gaps.h): into t->tl at each
 * timer_softirq_trace_end(). 0, or -1 with the reason in @err.
 */
int timer_softirq_trace_noise(struct cpu_trace *t, char *err, size_t errlen);
/* Discard what is buffered and switch tracing on. 0, or -1 and t->error. */
int timer_softirq_trace_begin(struct cpu_trace *t);
/* Switch tracing off, read and count the window into @c. 0, or -1 and t->error. */
int timer_softirq_trace_end(struct cpu_trace *t, struct cpu_trace_counts *c);
void timer_softirq_trace_close(struct cpu_trace *t);

#endif
