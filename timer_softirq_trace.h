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
#include "timer_softirq_trace_parse.h"
#include "lib/kernel/trace_event.h"
#include "lib/kernel/trace_instance.h"

struct cpu_trace {
	int cpu;
	struct trace_instance ti;
	bool have_ipi_cpu, have_ipi_mask;	/* the ipi tracepoints exist */
	char ipi_error[160];		/* why IPIs are not recorded */
	char notes[4][160];		/* filters done in user space instead */
	int nnotes;
	long long lost0;		/* lost events when the window began */
	char error[256];		/* why a timer_softirq_trace_ call failed */
	struct trace_event_raw *raw;	/* the raw source, NULL: trace_pipe's text */
	char raw_error[160];		/* why the text source is read */
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
/* Switch tracing off: the window ends (t->off_ns). 0, or -1 and t->error. */
int timer_softirq_trace_stop(struct cpu_trace *t);
/* Read and count the stopped window into @c. 0, or -1 and t->error. */
int timer_softirq_trace_read(struct cpu_trace *t, struct cpu_trace_counts *c);
/* Both: _stop(), then _read(). 0, or -1 and t->error. */
int timer_softirq_trace_end(struct cpu_trace *t, struct cpu_trace_counts *c);
void timer_softirq_trace_close(struct cpu_trace *t);

#endif
