/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the IPIs of a set of CPUs for a while, into an ipi_tally
 * (per CPU, per kind, per minute), by one of two methods:
 *  - trace: the IPIs sent to them, from ipi:ipi_send_cpu/cpumask records
 *    (Linux >= 6.3) and csd:csd_queue_cpu in a private trace instance;
 *    per callback too, and events lost are counted;
 *  - procfs: the IPIs they received, from the CAL, RES and TLB rows of
 *    /proc/interrupts (x86), sampled every second; no callbacks.
 * Both keep /proc/interrupts at the start and the end for the per-CPU
 * CAL/RES/TLB deltas.
 */
#ifndef ISOLBENCH_IPI_WATCH_H
#define ISOLBENCH_IPI_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "ipi.h"
#include "trace_instance.h"

enum ipi_watch_method { IPI_WATCH_AUTO, IPI_WATCH_TRACE, IPI_WATCH_PROCFS };
/* "auto", "trace", "procfs", NULL: for an OPT_CHOICE option */
extern const char *const ipi_watch_method_names[];

struct ipi_watch {
	enum ipi_watch_method method;	/* trace or procfs once opened */
	const char *how;	/* "traced sends (ipi tracepoints)", ... */
	char why_procfs[256];	/* auto chose procfs: why */
	char note[224];		/* a part that could not be set up */
	cpu_mask_t cpus;
	struct ipi_tally t;
	long long lost;		/* trace: events the ring buffer dropped */
	uint64_t samples;	/* procfs: /proc/interrupts reads */
	double seconds;		/* how long it watched */
	/*
	 * IPIs (CAL + RES) the watched CPUs received while the watch set
	 * itself up (enabling tracepoints patches kernel text, which
	 * interrupts every CPU) and tore itself down, outside the window.
	 */
	int64_t setup_ipis, teardown_ipis;
	bool ts_mono;		/* trace: records bucketed by their timestamps */
	struct irq_table first, last;
	uint64_t start_ns, last_ns;
	struct trace_instance ti;
	char *buf;
	size_t have;
};

/*
 * Set up watching @cpus by @method (auto: trace when the ipi
 * tracepoints exist, else procfs). 0, or -1 with a reason in @err.
 */
int ipi_watch_open(struct ipi_watch *w, enum ipi_watch_method method,
		   const cpu_mask_t *cpus, char *err, size_t errlen);
/*
 * The trace part of ipi_watch_open() on the instance w->ti (created):
 * events, CPUS{} filters, clock. When the kernel refuses the CPUS{}
 * filter (6.3 to 6.5 have the ipi tracepoints but not the filter) and
 * @fall_back, the watch becomes a procfs one, why_procfs says why.
 * 0, or -1 with a reason in @err.
 */
int ipi_watch_trace_setup(struct ipi_watch *w, bool fall_back, char *err,
			  size_t errlen);
int ipi_watch_start(struct ipi_watch *w, char *err, size_t errlen);
/*
 * Collect for about 200 ms; with @last, everything left, and stop
 * (w->seconds set, trace instance removed). 0, or -1 with errno.
 */
int ipi_watch_poll(struct ipi_watch *w, bool last);

#endif
