/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who set the tick's dependencies. The kernel has no tracepoint where a
 * dependency is set: kprobe events on the four functions every setter
 * calls (tick_nohz_dep_set for every CPU, _cpu for one, _task for a
 * task, _signal for a process), each with the stacktrace trigger, go to
 * a trace instance of their own that records from the windows' open to
 * their close: a dependency is set once, often while a phase sets up (a
 * timer armed, a perf event opened, a task woken), not inside a window.
 * Read after each window: the sets inside it, and those before it since
 * the last read (the setup, the warm-up).
 *
 * Of the sets, those that concern the target: of its CPU, of every CPU,
 * of a task set on the target, of a process set on the target or by
 * this process (which the busy loop is of). A task's or process's
 * dependency follows it wherever it runs; the probe does not read which
 * task it is for, so these are judged by where and by whom it was set.
 * The
 * setter is the first function on the stack below the probed one that
 * is not tick code ("enqueue_dl_entity"), with the task and CPU it ran
 * on; "?" when the stack did not come.
 *
 *	struct tick_deps d;
 *	timer_softirq_deps_open(&d, cpu, err, sizeof(err));	before the windows' instance
 *	...window [on, off]...
 *	timer_softirq_deps_read(&d, on, off, &inside, &before);
 *	timer_softirq_deps_close(&d);
 */
#ifndef ISOLBENCH_TIMER_SOFTIRQ_DEPS_H
#define ISOLBENCH_TIMER_SOFTIRQ_DEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "timer_softirq_trace_parse.h"
#include "lib/kernel/trace_event.h"
#include "lib/kernel/stack_wait.h"
#include "lib/kernel/trace_instance.h"

#define TICK_DEP_SETTERS	16	/* setters told apart; the rest is "other" */
#define TICK_DEP_PENDING	8	/* sets waiting for their stack */
#define TICK_DEP_SELF		64	/* threads of this process */

/* The sets of one dependency by one setter. */
struct tick_dep_setter {
	int dep;		/* timer_softirq_trace_dep_names[]; CPU_TRACE_DEPS: a bit not named */
	char comm[16];		/* the task first seen setting it so */
	int cpu;		/* ...and the CPU it ran on */
	uint64_t n;
};

/*
 * Sets of the target's dependencies, by setter: a slot of @names per
 * dependency (the kind) and setter function (the name, "?" without its
 * stack; timer_softirq_deps_func()). Zeroed, it is empty.
 */
struct tick_dep_sets {
	struct tally_slots names;
	struct tick_dep_setter s[TICK_DEP_SETTERS];
	uint64_t other;		/* sets of setters beyond the table */
	uint64_t total;
};

struct tick_deps {
	int cpu;
	bool open;			/* recording */
	char why_not[224];		/* why not, when not */
	struct trace_instance ti;
	struct trace_event_raw *raw;	/* its records raw; NULL: its trace_pipe text */
	char raw_error[160];		/* why the text is read */
	struct trace_event_table tab;
	/* while reading: where each set goes by its time */
	uint64_t from, to;
	struct tick_dep_sets *inside, *before, carry;	/* carry: after @to, the next read's */
	pid_t self[TICK_DEP_SELF];
	int nself;
	struct stack_wait wait;		/* sets waiting for their stack */
	struct tick_dep_set {
		struct stack_wait_item w;	/* the CPU it was set on; its stack came */
		int dep;
		char comm[16], func[48];
		uint64_t ts;
		bool below;		/* its frames are below the probe */
	} pend[TICK_DEP_PENDING];
};

/* The table and state of @cpu's reader, nothing recorded (the unit tests'). */
void timer_softirq_deps_init(struct tick_deps *d, int cpu);
/*
 * Add the kprobe events and record them in an instance, from now to the
 * close. 0, or -1 with why in @err and d->why_not (no kprobe events, a
 * kernel without nohz_full's functions).
 */
int timer_softirq_deps_open(struct tick_deps *d, int cpu, char *err, size_t errlen);
/*
 * The sets since the last read into @inside (those in [@from_ns, @to_ns],
 * CLOCK_MONOTONIC) and @before (the earlier ones and those carried from
 * the last read), both zeroed first. 0, or -1 with errno.
 */
int timer_softirq_deps_read(struct tick_deps *d, uint64_t from_ns, uint64_t to_ns,
			    struct tick_dep_sets *inside, struct tick_dep_sets *before);
/* The same from lines: begin, each trace_pipe line, end. */
void timer_softirq_deps_begin(struct tick_deps *d, uint64_t from_ns, uint64_t to_ns,
			      struct tick_dep_sets *inside, struct tick_dep_sets *before);
void timer_softirq_deps_line(void *d, char *line);
void timer_softirq_deps_end(struct tick_deps *d);
void timer_softirq_deps_close(struct tick_deps *d);

/* @sum += @s (by dependency and setter). */
void timer_softirq_deps_add(struct tick_dep_sets *sum, const struct tick_dep_sets *s);
/* The setter function of slot @i of @s. */
const char *timer_softirq_deps_func(const struct tick_dep_sets *s, int i);
/* The sets of @s by @func for dependency @dep (0 when none). */
uint64_t timer_softirq_deps_count(const struct tick_dep_sets *s, int dep, const char *func);
/* Whether a setter of @dep is named in @s (its stack came). */
bool timer_softirq_deps_named(const struct tick_dep_sets *s, int dep);
/* "SCHED 3 by enqueue_dl_entity (migration/0 on cpu 0), ..." most first, or "none". */
void timer_softirq_deps_list(const struct tick_dep_sets *s, char *buf, size_t len);

#endif
