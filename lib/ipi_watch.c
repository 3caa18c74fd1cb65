// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "ipi_watch.h"
#include "util.h"

#define WATCH_BUF	(1 << 16)
#define MIN_NS		60000000000ULL
/* the last drain of the trace buffer: at most this long */
#define DRAIN_MAX_NS	2000000000ULL

const char *const ipi_watch_method_names[] = { "auto", "trace", "procfs", NULL };

static int watch_trace_open(struct ipi_watch *w, const char *list, char *err,
			    size_t errlen)
{
	char f[600];

	if (trace_instance_create(&w->ti, "isolbench-ipistorm", err, errlen))
		return -1;
	snprintf(f, sizeof(f), "cpu & CPUS{%s}", list);
	if (trace_instance_enable(&w->ti, "ipi:ipi_send_cpu", f, err, errlen))
		return -1;
	snprintf(f, sizeof(f), "cpumask & CPUS{%s}", list);
	if (trace_instance_enable(&w->ti, "ipi:ipi_send_cpumask", f, err, errlen))
		return -1;
	/* optional: the functions behind single-target IPIs */
	snprintf(f, sizeof(f), "cpu & CPUS{%s}", list);
	if (tracepoint_exists("csd:csd_queue_cpu") &&
	    trace_instance_enable(&w->ti, "csd:csd_queue_cpu", f, w->note + 30,
				  sizeof(w->note) - 30))
		memcpy(w->note, "queued functions not counted: ", 30);
	w->buf = malloc(WATCH_BUF);
	if (!w->buf) {
		snprintf(err, errlen, "no memory");
		return -1;
	}
	return 0;
}

int ipi_watch_open(struct ipi_watch *w, enum ipi_watch_method method,
		   const cpu_mask_t *cpus, char *err, size_t errlen)
{
	char list[512];
	int cpu;

	w->cpus = *cpus;
	w->ti.pipe_fd = -1;
	cpu_mask_format(cpus, list, sizeof(list));
	if (method == IPI_WATCH_AUTO) {
		method = IPI_WATCH_TRACE;
		if (!tracepoint_exists("ipi:ipi_send_cpu") ||
		    !tracepoint_exists("ipi:ipi_send_cpumask")) {
			snprintf(w->why_procfs, sizeof(w->why_procfs),
				 "the ipi_send_cpu/cpumask tracepoints do not exist on this kernel (since 6.3)");
			method = IPI_WATCH_PROCFS;
		}
	}
	w->method = method;
	if (method == IPI_WATCH_TRACE) {
		w->how = "traced sends (ipi tracepoints)";
		return watch_trace_open(w, list, err, errlen);
	}
	w->how = "received, /proc/interrupts";
	if (irq_table_read("/proc/interrupts", &w->first)) {
		snprintf(err, errlen, "/proc/interrupts: %s", strerror(errno));
		return -1;
	}
	cpu = cpu_mask_first(cpus);
	if (irq_table_delta(&w->first, &w->first, "CAL", cpu) < 0 ||
	    irq_table_delta(&w->first, &w->first, "RES", cpu) < 0) {
		snprintf(err, errlen, "/proc/interrupts has no CAL and RES rows for cpu %d (they are x86's)",
			 cpu);
		return -1;
	}
	return 0;
}

int ipi_watch_start(struct ipi_watch *w, char *err, size_t errlen)
{
	irq_table_free(&w->first);
	if (irq_table_read("/proc/interrupts", &w->first)) {
		snprintf(err, errlen, "/proc/interrupts: %s", strerror(errno));
		return -1;
	}
	w->samples = 1;
	w->start_ns = w->last_ns = mono_ns();
	if (w->method == IPI_WATCH_TRACE)
		return trace_instance_start(&w->ti, err, errlen);
	return 0;
}

static int64_t row_delta(const struct irq_table *a, const struct irq_table *b,
			 const char *row, int cpu)
{
	int64_t d = irq_table_delta(a, b, row, cpu);

	return d > 0 ? d : 0;	/* a missing row or an offlined CPU: none */
}

/*
 * What the watched CPUs received since the last sample, into the minute
 * the interval began in. A remote TLB flush runs from a function call
 * interrupt (CAL counts it too), or from a polling idle loop without
 * one, so TLB is taken out of CAL, at most all of it.
 */
static int watch_procfs_sample(struct ipi_watch *w, uint64_t now)
{
	const struct irq_table *prev = w->samples > 1 ? &w->last : &w->first;
	struct irq_table t;
	size_t minute = (w->last_ns - w->start_ns) / MIN_NS;
	int cpu;

	if (irq_table_read("/proc/interrupts", &t))
		return -1;
	cpu_mask_for_each(cpu, &w->cpus) {
		int64_t cal = row_delta(prev, &t, "CAL", cpu);
		int64_t tlb = row_delta(prev, &t, "TLB", cpu);

		tlb = tlb < cal ? tlb : cal;
		if (ipi_tally_add(&w->t, cpu, IPI_CALL, cal - tlb, minute) ||
		    ipi_tally_add(&w->t, cpu, IPI_TLB, tlb, minute) ||
		    ipi_tally_add(&w->t, cpu, IPI_RESCHED,
				  row_delta(prev, &t, "RES", cpu), minute)) {
			irq_table_free(&t);
			errno = ENOMEM;
			return -1;
		}
	}
	irq_table_free(&w->last);
	w->last = t;
	w->last_ns = now;
	w->samples++;
	return 0;
}

static int watch_procfs_poll(struct ipi_watch *w, bool last)
{
	struct timespec ts = { 0, 200000000L };
	uint64_t now = mono_ns(), next_min;

	if (!last) {
		nanosleep(&ts, NULL);
		now = mono_ns();
		/* every second, and at each minute boundary */
		next_min = w->start_ns + ((w->last_ns - w->start_ns) / MIN_NS + 1) * MIN_NS;
		if (now - w->last_ns < 1000000000ULL && now < next_min)
			return 0;
	}
	return watch_procfs_sample(w, now);
}

static int watch_trace_poll(struct ipi_watch *w, bool last)
{
	uint64_t drain_end = mono_ns() + DRAIN_MAX_NS;
	char *l, *nl;
	size_t minute;
	ssize_t n;

	/*
	 * The last poll drains the buffer until a read comes back empty:
	 * stop tracing first, or a steady IPI stream refills it forever.
	 * Bounded in time too, should tracing_on not be writable.
	 */
	if (last && trace_instance_stop(&w->ti))
		drain_end = mono_ns() + DRAIN_MAX_NS / 10;
	do {
		n = trace_instance_read(&w->ti, w->buf + w->have,
					WATCH_BUF - 1 - w->have, last ? 0 : 200);
		if (n < 0)
			return -1;
		minute = (mono_ns() - w->start_ns) / MIN_NS;
		w->have += n;
		w->buf[w->have] = '\0';
		for (l = w->buf; (nl = strchr(l, '\n')); l = nl + 1) {
			*nl = '\0';
			if (ipi_tally_line(&w->t, l, &w->cpus, minute) < 0) {
				errno = ENOMEM;
				return -1;
			}
		}
		w->have -= l - w->buf;
		memmove(w->buf, l, w->have);
		if (w->have == WATCH_BUF - 1)
			w->have = 0;	/* a line longer than the buffer: drop it */
	} while (last && n > 0 && mono_ns() < drain_end);
	return 0;
}

int ipi_watch_poll(struct ipi_watch *w, bool last)
{
	int ret;

	if (last)
		w->seconds = (mono_ns() - w->start_ns) / 1e9;
	ret = w->method == IPI_WATCH_TRACE ? watch_trace_poll(w, last) :
	      watch_procfs_poll(w, last);
	if (!last || ret)
		return ret;
	if (w->method == IPI_WATCH_TRACE) {
		irq_table_free(&w->last);
		if (irq_table_read("/proc/interrupts", &w->last))
			return -1;
		w->lost = trace_instance_overruns(&w->ti);
		trace_instance_remove(&w->ti);
		free(w->buf);
		w->buf = NULL;
	}
	return 0;
}
