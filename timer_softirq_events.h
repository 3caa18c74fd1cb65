/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What happened on one CPU during a window, counted from outside it (a
 * housekeeping thread, so the CPU itself runs nothing of ours): counting
 * events opened for that CPU (tracepoints with filters), rows of
 * /proc/interrupts or /proc/softirqs for that CPU, and jiffies with the
 * HZ they imply. Each event and row has the index its user gives it.
 *
 *	struct cpu_events s;
 *	struct cpu_window w;
 *	timer_softirq_events_init(&s, cpu);
 *	timer_softirq_events_tracepoint(&s, EV_RUN, "irq:softirq_entry", "vec == 1");
 *	timer_softirq_events_row(&s, ROW_LOC, "/proc/interrupts", "LOC");
 *	timer_softirq_events_begin(&s);	...the window...	timer_softirq_events_end(&s, &w);
 *	...w.ev[EV_RUN], w.row[ROW_LOC], w.seconds...
 *	timer_softirq_events_close(&s);
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_EVENTS_H
#define ISOLBENCH_TIMER_SOFTIRQ_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/kernel/counters.h"

#define CPU_EVENTS_MAX		32
#define CPU_EVENTS_MAX_ROWS	8
#define CPU_EVENTS_MAX_FILES	2

struct cpu_events {
	int cpu;
	int nev, nrows, nfiles;
	struct counter c[CPU_EVENTS_MAX];	/* fd -1: not counted, error says why */
	struct {
		const char *name;
		int file;
	} rows[CPU_EVENTS_MAX_ROWS];
	const char *files[CPU_EVENTS_MAX_FILES];
	struct irq_table before[CPU_EVENTS_MAX_FILES];
	uint64_t t0_ns, jiffies0;
	bool have_jiffies;
};

/* One counted window. */
struct cpu_window {
	double seconds;
	uint64_t ev[CPU_EVENTS_MAX];		/* UINT64_MAX: not counted */
	int64_t row[CPU_EVENTS_MAX_ROWS];	/* -1: not available */
	uint64_t jiffies;			/* 0: unknown */
	int hz;					/* 0: unknown */
};

/* An empty set for @cpu (no events yet). */
void timer_softirq_events_init(struct cpu_events *s, int cpu);
/*
 * Event @i: tracepoint "system:name" on the set's CPU, @filter may be
 * NULL. Returns 0, or -1 with s->c[i].error set (the event is then not
 * counted).
 */
int timer_softirq_events_tracepoint(struct cpu_events *s, int i, const char *event,
				    const char *filter);
/* Event @i is not counted, for @reason. */
void timer_softirq_events_missing(struct cpu_events *s, int i, const char *reason);
/* Why event @i is not counted ("" when it is). */
const char *timer_softirq_events_error(const struct cpu_events *s, int i);
/* Row @i: the row @name of @path (/proc/interrupts, /proc/softirqs). */
int timer_softirq_events_row(struct cpu_events *s, int i, const char *path,
			     const char *name);
/* Start a window: enable the events, snapshot the rows and jiffies. */
void timer_softirq_events_begin(struct cpu_events *s);
/* End the window begun last, into @w. */
void timer_softirq_events_end(struct cpu_events *s, struct cpu_window *w);
void timer_softirq_events_close(struct cpu_events *s);

/* Event @i of @w as a double, NAN when it was not counted. */
double timer_softirq_window_ev(const struct cpu_window *w, int i);

#endif
