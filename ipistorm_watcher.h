/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the IPIs of a set of CPUs for a while, into an ipi_tally
 * (ipistorm_tally.h: per CPU and window of the machine's own time, per
 * kind, per minute, per callback and per source), by one of two methods:
 *  - trace: the IPIs sent to them, from ipi:ipi_send_cpu/cpumask records
 *    (Linux >= 6.3) and csd:csd_queue_cpu in a private trace instance,
 *    each with the sender's stack (the stacktrace trigger) to name where
 *    it came from (lib/kernel/ipi_source.h); events lost are counted;
 *  - procfs: the IPIs they received, from the CAL, RES and TLB rows of
 *    /proc/interrupts (x86), sampled at each window's end; no callbacks
 *    or sources.
 * Both keep /proc/interrupts at the start and the end for the per-CPU
 * CAL/RES/TLB deltas. The trace is read from where the watch runs,
 * never waited on: nothing is sent to the watched CPUs to count.
 */
#ifndef ISOLBENCH_IPISTORM_WATCHER_H
#define ISOLBENCH_IPISTORM_WATCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/kernel/counters.h"
#include "lib/kernel/ipi_source.h"
#include "lib/kernel/trace_instance.h"
#include "ipistorm_tally.h"

enum ipi_watch_method { IPI_WATCH_AUTO, IPI_WATCH_TRACE, IPI_WATCH_PROCFS };
/* "auto", "trace", "procfs", NULL: for an OPT_CHOICE option */
extern const char *const ipistorm_watcher_method_names[];

struct ipi_watch {
	enum ipi_watch_method method;	/* trace or procfs once opened */
	const char *how;	/* "traced sends (ipi tracepoints)", ... */
	char why_procfs[256];	/* auto chose procfs: why */
	char note[224];		/* a part that could not be set up */
	bool stacks;		/* trace: the senders' stacks are recorded */
	char why_no_stacks[160];
	cpu_mask_t cpus;
	double window_s;	/* the windows of the per-window counts */
	uint64_t buffer_kb;	/* trace: the ring buffer per CPU, 0: WATCH_BUFFER_KB */
	struct ipi_tally t;	/* the watch's window */
	/*
	 * After ipistorm_watcher_end_window(): the sends of thread @control_tid
	 * (a positive control run while the trace goes on) apart in @after,
	 * up to @control_end_ns when set (what the thread sends as it exits,
	 * as glibc's madvise of its stack, is not the control); other
	 * senders' are only counted.
	 */
	struct ipi_tally after;
	pid_t control_tid;
	uint64_t control_end_ns;	/* CLOCK_MONOTONIC; set with __atomic */
	uint64_t after_others;
	uint64_t end_ns;	/* the window's end, 0 while it runs */
	/*
	 * trace: events of the window the ring buffer dropped (or no room
	 * to count), and those after it (while a control ran)
	 */
	long long lost, lost_after;
	long long window_overruns;	/* the buffer's, when the window ended */
	uint64_t samples;	/* procfs: /proc/interrupts reads */
	double seconds;		/* how long it watched */
	bool cut;		/* its window ended by the stop flag, not by time */
	/*
	 * IPIs (CAL + RES) the watched CPUs received while the watch set
	 * itself up (enabling tracepoints patches kernel text, which
	 * interrupts every CPU) and tore itself down, outside the window.
	 */
	int64_t setup_ipis, teardown_ipis;
	bool ts_mono;		/* trace: records placed by their own timestamps */
	struct irq_table first, last;
	uint64_t start_ns, last_ns;
	bool stopped;
	struct trace_instance ti;
	struct trace_event_table tab;	/* the trace's records, to their handlers */
	struct trace_event_raw *raw;	/* the raw source, NULL: trace_pipe's text */
	char raw_error[160];		/* why the text source is read */
	struct ipi_sends sends;
};

/* The tallies and the reading of a watch of @cpus in windows of @window_s. */
void ipistorm_watcher_init(struct ipi_watch *w, const cpu_mask_t *cpus, double window_s);
/*
 * Set up watching @cpus by @method (auto: trace when the ipi
 * tracepoints exist, else procfs), in windows of @window_s, a trace
 * in a ring buffer of @buffer_kb per CPU (0: the watch's default). 0,
 * or -1 with a reason in @err.
 */
int ipistorm_watcher_open(struct ipi_watch *w, enum ipi_watch_method method,
			  const cpu_mask_t *cpus, double window_s, uint64_t buffer_kb,
			  char *err, size_t errlen);
/*
 * The trace part of ipistorm_watcher_open() on the instance w->ti (created):
 * events, CPUS{} filters, the stacktrace trigger, clock. When the
 * kernel refuses the CPUS{} filter (6.3 to 6.5 have the ipi tracepoints
 * but not the filter) and @fall_back, the watch becomes a procfs one,
 * why_procfs says why. 0, or -1 with a reason in @err.
 */
int ipistorm_watcher_trace_setup(struct ipi_watch *w, bool fall_back, char *err,
				 size_t errlen);
int ipistorm_watcher_start(struct ipi_watch *w, char *err, size_t errlen);
/* Collect for about 200 ms. 0, or -1 with errno. */
int ipistorm_watcher_poll(struct ipi_watch *w);
/*
 * End the window (w->seconds set); later sends go to w->after while
 * the trace goes on. 0, or -1 with errno.
 */
int ipistorm_watcher_end_window(struct ipi_watch *w);
/* Everything left, and stop (trace instance removed). 0, or -1 with errno. */
int ipistorm_watcher_stop(struct ipi_watch *w);
/* trace: read every record left (tracing switched off first). 0, or -1 with errno. */
int ipistorm_watcher_drain(struct ipi_watch *w);
/*
 * The full windows of the watch (a shorter last one is left out, unless
 * it is the only one of a watch that ran its time: a watch interrupted
 * before its first window ended has none, it measured nothing).
 */
size_t ipistorm_watcher_windows(const struct ipi_watch *w);

/*
 * The positive control: of the IPIs thread w->control_tid sent after the
 * window and before w->control_end_ns, how many the watch named @expect
 * (a source whose name starts with it) and how many it named otherwise.
 * The thread may send IPIs of its own besides its calls (a TLB flush of
 * NUMA balancing's, run on its way back to user space): as many of those
 * named otherwise as it queued functions not in @funcs (csd:csd_queue_cpu,
 * NULL-terminated list of the control's own) are *@excused, not *@other.
 */
void ipistorm_watcher_control_count(const struct ipi_watch *w, const char *expect,
				    const char *const *funcs, uint64_t *named, uint64_t *other,
			     uint64_t *excused);

#endif
