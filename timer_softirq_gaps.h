/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Noise of a busy loop, attributed (after rtla's osnoise, in user
 * space): the loop notes every gap in its own progress longer than a
 * threshold (lib/load/spinner.h), and a trace instance records what ran on
 * its CPU meanwhile (hard IRQs by vector or name, softirqs by type, the
 * threads that preempted the loop, the IPIs sent to the CPU by where
 * they came from). After the window each gap is attributed to what
 * overlapped it: per source, how many gaps it was in and how long it
 * ran in them (its own time: what nested in it is the nested one's).
 * Gaps with nothing traced are unexplained, never dropped.
 *
 *	struct noise_sources ns;	one per phase: the sources and totals
 *	struct noise_timeline tl;	one per window: what ran on the CPU
 *	timer_softirq_gaps_timeline_begin(&tl, cpu, loop_tid);
 *	for each trace_pipe line: timer_softirq_gaps_timeline_line(&tl, &ns, line);
 *	(or the raw records: trace_event_raw_read() to timer_softirq_gaps_timeline_reader())
 *	timer_softirq_gaps_timeline_end(&tl, &ns, end);
 *	timer_softirq_gaps_attribute(&tl, &ns, gaps, ngaps, &win);
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_GAPS_H
#define ISOLBENCH_TIMER_SOFTIRQ_GAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/tally.h"
#include "lib/kernel/interference.h"
#include "lib/kernel/ipi_source.h"
#include "lib/kernel/trace_event.h"

#define NOISE_SOURCES	64	/* told apart per phase; the rest is "other" */
#define NOISE_NEST	16	/* interrupts nested on the CPU */
#define NOISE_IPIS	64	/* IPIs sent to the CPU not yet taken */
/* a record's timestamp has 1 us: an activity this close to a gap is in it */
#define NOISE_SLACK_NS	2000

_Static_assert(NOISE_SOURCES <= TALLY_MAX, "a slot table names every source");

/* A gap in the loop's progress: [start, end] in CLOCK_MONOTONIC ns. */
struct noise_gap {
	uint64_t start, end;
};

/* What ran on the CPU: [start, end], and its own time (less what nested in it). */
struct noise_act {
	uint64_t start, end, own;
	enum intf_kind kind;
	int src;		/* its source in the phase's table */
	pid_t pid;		/* a thread's */
	/*
	 * A thread whose switch-in the trace does not show (6.18 traces no
	 * switch out of idle): it starts at the CPU's last record of
	 * another task, the earliest it can have begun.
	 */
	bool start_untraced;
};

/* A source: its slot's name is "local_timer", "TIMER", "kworker", an IPI's source. */
struct noise_source {
	enum intf_kind kind;	/* of its first activity */
	uint64_t acts;		/* times it ran in the windows */
	uint64_t gaps;		/* gaps it was in */
	uint64_t stolen_ns;	/* its own time inside gaps */
	uint64_t win_gaps;	/* gaps it was in, this window */
};

/* A phase's sources and totals, over its windows. */
struct noise_sources {
	struct tally_slots names;	/* the sources' names, keyed by kind */
	struct noise_source src[NOISE_SOURCES];	/* per slot of names */
	struct noise_source other;	/* TALLY_OTHER's */
	uint64_t gaps, gap_ns;		/* the loop's gaps */
	uint64_t unexplained, unexplained_ns;
	uint64_t lost;			/* gaps the loop could not keep */
	uint64_t win_unexplained;	/* this window's */
};

/* A point of the timeline: an hrtimer_wakeup expiry, the loop thread switched in. */
struct noise_mark {
	uint64_t ts;
	bool switch_in;
	int cpu;		/* of an expiry: where the timer expired */
};

/* hrtimers of hrtimer_wakeup armed on the CPU, followed to where they expire */
#define NOISE_SLEEPERS	8

/* One window's timeline of the CPU. */
struct noise_timeline {
	int cpu;
	pid_t loop_tid;		/* the busy loop's thread */
	struct noise_act *acts;
	size_t nacts, cap;
	int nest[NOISE_NEST];	/* open interrupts (indices into acts) */
	int depth;
	int thread;		/* the running thread's activity, or -1 */
	int ipi_irq;		/* arm64's IPI IRQ, its kind to come (ipi_entry), or -1 */
	struct {		/* IPIs sent to the CPU, oldest first */
		uint64_t ts;
		int src;
		enum intf_kind kind;
	} ipis[NOISE_IPIS];
	int nipis;
	struct trace_event_table tab;	/* the records' handlers */
	struct ipi_sends sends;	/* the IPI records, with their stacks */
	struct noise_mark *marks;	/* in time order */
	size_t nmarks, mcap;
	/*
	 * The sleepers' hrtimers armed on the CPU (hrtimer_start): a
	 * nohz_full CPU's may be queued on a housekeeping CPU (6.1), whose
	 * expiry then wakes the sleeper with an IPI.
	 */
	uint64_t sleepers[NOISE_SLEEPERS];
	unsigned int nsleepers;
	/* the task of the CPU's last record, its time, and the record of another task before */
	pid_t last_pid;
	uint64_t last_ts, last_other_ts;
	struct noise_sources *ns;	/* while a record is fed */
	bool oom;
};

/* A phase's sources, empty. */
void timer_softirq_gaps_sources_init(struct noise_sources *ns);
/*
 * The source @kind @name in @ns (TALLY_OTHER when full); the kinds of
 * one name (intf_kinds[].name: the IPI kinds are "ipi") are one source.
 */
int timer_softirq_gaps_source(struct noise_sources *ns, enum intf_kind kind, const char *name);

/* The timeline's events and handlers (the systems a raw source reads for it). */
extern const struct trace_event_table timer_softirq_gaps_timeline_events;

/* A new window of @cpu, whose busy loop is thread @loop_tid. */
void timer_softirq_gaps_timeline_begin(struct noise_timeline *tl, int cpu, pid_t loop_tid);
/*
 * One trace_pipe line of the window: the records of @cpu and the IPIs
 * sent to it, with their stacks (other lines are ignored).
 */
void timer_softirq_gaps_timeline_line(struct noise_timeline *tl, struct noise_sources *ns,
				      const char *line);
/* The same records from the raw source: the timeline as one of its readers. */
struct trace_event_reader timer_softirq_gaps_timeline_reader(struct noise_timeline *tl,
							     struct noise_sources *ns);
/* The end of the window's records: open activities end at @end_ns. */
void timer_softirq_gaps_timeline_end(struct noise_timeline *tl, struct noise_sources *ns, uint64_t end_ns);
void timer_softirq_gaps_timeline_free(struct noise_timeline *tl);

/*
 * Attribute the window's @n gaps (in time order) to the activities of
 * @tl: ns->gaps, unexplained, per source gaps and stolen time, and the
 * window's counts (win_gaps, win_unexplained, reset first).
 */
void timer_softirq_gaps_attribute(struct noise_timeline *tl, struct noise_sources *ns,
				  const struct noise_gap *gaps, size_t n);

/*
 * What made one wakeup of the loop thread late, as rtla timerlat's
 * auto-analysis does for one sample: programmed at @programmed, back
 * in user space at @woke; its timer's expiry (hrtimer_wakeup) and the
 * thread's switch-in between, and what ran on the CPU in between, the
 * longest first. Each instant of [programmed, woke] is given to at most
 * one source, the one on top then (an interrupt over the thread it
 * interrupted), so the parts, the rest and the unknown add up to
 * woke - programmed.
 */
#define NOISE_EXPLAIN_PARTS	6

struct noise_explain {
	uint64_t programmed, woke;
	uint64_t expiry, switch_in;	/* 0 when the trace did not show it */
	int expiry_cpu;			/* where the timer expired */
	int nparts;
	struct {
		int src;
		uint64_t ns;		/* its time inside [programmed, woke] */
		bool start_untraced;	/* ...some of it from a thread's untraced start */
	} parts[NOISE_EXPLAIN_PARTS];
	uint64_t rest_ns;		/* traced, of sources beyond the parts */
	uint64_t unknown_ns;		/* no traced activity covers it */
};

/* After timer_softirq_gaps_attribute() or timer_softirq_gaps_timeline_sort(). */
void timer_softirq_gaps_explain(const struct noise_timeline *tl, uint64_t programmed, uint64_t woke,
				struct noise_explain *e);
/* The activities in start order (timer_softirq_gaps_attribute() does it too). */
void timer_softirq_gaps_timeline_sort(struct noise_timeline *tl);

/*
 * The runs of thread @pid (an interrupter of known count, as the
 * control's sleeper) on the CPU in the window, and of those the ones
 * inside a gap of the loop: the attribution's recall on it. After
 * timer_softirq_gaps_attribute() (activities in start order).
 */
void timer_softirq_gaps_thread_recall(const struct noise_timeline *tl, pid_t pid,
				      const struct noise_gap *gaps, size_t n,
			 uint64_t *runs, uint64_t *in_gaps);

#endif
