/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One window's records of a CPU's timer activity (timer_softirq_trace.h
 * records them), read in order and counted: TIMER softirqs raised and
 * run, and whether each run expired a timer; the timer-wheel and hrtimer
 * expiries, the process_timeout timers armed on the CPU followed to where
 * they expire; the tick and tick_stop; the IPIs sent to the CPU, this
 * process's apart. And the rules the quiet and control phases judge
 * those counts by.
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_TRACE_PARSE_H
#define ISOLBENCH_TIMER_SOFTIRQ_TRACE_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/tally.h"
#include "lib/kernel/trace_event.h"

#define CPU_TRACE_DEPS		6	/* tick dependencies: POSIX_TIMER .. RCU_EXP */
#define CPU_TRACE_CALLBACKS	8	/* IPI callbacks told apart */
#define CPU_TRACE_SELF		64	/* threads of this process */
#define CPU_TRACE_ARMED		16	/* process_timeout timers followed */
#define CPU_TRACE_FUNCTIONS	12	/* timer functions given a metric per kind */

extern const char *const timer_softirq_trace_dep_names[CPU_TRACE_DEPS];

/* What expired a timer on the CPU: an hrtimer, or the TIMER softirq's wheel. */
enum cpu_trace_expiry { CPU_TRACE_HRTIMER, CPU_TRACE_TIMER, CPU_TRACE_EXPIRY_KINDS };
extern const char *const timer_softirq_trace_expiry_names[CPU_TRACE_EXPIRY_KINDS];

/* The IPIs of one callback. */
struct cpu_trace_ipi {
	uint64_t n, self;	/* sends, and those by this process */
};

/*
 * Counters under their names and as one array, the same memory: the
 * members (uint64_t, or arrays of them) of an unnamed struct and of
 * struct @tag, and n[] over all of them (a loop that sums them misses
 * none).
 */
#define COUNTER_GROUP(tag, ...)						\
	union {								\
		struct { __VA_ARGS__ };					\
		struct tag { __VA_ARGS__ } tag##_named;			\
		uint64_t n[sizeof(struct tag) / sizeof(uint64_t)];	\
	}

/*
 * What one window recorded; timer_softirq_trace_add() sums windows.
 * The counters are named for the phases that judge them and, as one
 * array, summed in one loop.
 */
struct cpu_trace_counts {
	COUNTER_GROUP(cpu_trace_counters,
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
		uint64_t tick_kept_unknown;	/* ...for a dependency not named above */
		/*
		 * Raises followed by a run that expired no timer, and runs that
		 * expired at least one; raises whose run came after the window.
		 */
		uint64_t raised_without_expiry, runs_with_expiry, raised_unrun;
		uint64_t ipis;			/* IPIs sent to the CPU */
		uint64_t ipis_self;		/* ...by a thread of this process (not in an interrupt) */
		uint64_t ipis_self_resched;	/* ...of those, reschedule IPIs (no callback) */
		uint64_t lines, unparsed;	/* records read, and not understood */
		uint64_t unknown;		/* records of an event with no row */
		uint64_t missing;		/* fields a record had not (missing_what) */
	);
	char missing_what[96];		/* the first field missing: "tick_stop dependency" */
	char self_callsite[96];		/* the call site of the last IPI of this process */
	/* the IPIs by their callback symbol, per slot of @cb_names */
	struct tally_slots cb_names;
	struct cpu_trace_ipi cb[CPU_TRACE_CALLBACKS], cb_other;
	/* the CPU's expiries by the timer's function, one tally per kind */
	struct tally expired[CPU_TRACE_EXPIRY_KINDS];
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
		uint64_t id;		/* the timer's (hashed) pointer, 0: none */
		bool own;		/* armed by a thread of this process */
	} armed[CPU_TRACE_ARMED];	/* the last timers armed */
	int narmed;
	struct trace_event_table tab;	/* timer_softirq_trace_events */
	struct cpu_trace_counts *c;
};

/* Start reading a window's records for @cpu into @c (zeroed). */
void timer_softirq_trace_parse_begin(struct cpu_trace_parser *p, int cpu,
				     struct cpu_trace_counts *c);
/*
 * The events recorded for the CPU, a row each (system, name, filter of
 * the CPU, handler); rows without a handler are read by the noise
 * timeline (timer_softirq_gaps.h).
 */
extern const struct trace_event_table timer_softirq_trace_events;

/*
 * One record line of trace_pipe. The raw source's records go through
 * @p->tab with @p as the context (trace_event_raw_read()).
 */
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
 * The tick phase's rule for a dependency @dep planted beside the busy
 * loop: tick_stop kept the tick for @dep at least once, and for no
 * other dependency (nor one it does not name) as often.
 */
bool timer_softirq_trace_kept_for(const struct cpu_trace_counts *c, int dep);

#endif
