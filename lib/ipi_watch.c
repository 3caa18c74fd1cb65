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

/* CAL + RES of the watched CPUs from @a to @b. */
static int64_t watched_ipis(const struct ipi_watch *w, const struct irq_table *a,
			    const struct irq_table *b)
{
	int64_t n = 0, d;
	int cpu;

	cpu_mask_for_each(cpu, &w->cpus) {
		d = irq_table_delta(a, b, "CAL", cpu);
		n += d > 0 ? d : 0;
		d = irq_table_delta(a, b, "RES", cpu);
		n += d > 0 ? d : 0;
	}
	return n;
}

static int watch_procfs_open(struct ipi_watch *w, char *err, size_t errlen)
{
	int cpu = cpu_mask_first(&w->cpus);

	w->method = IPI_WATCH_PROCFS;
	w->how = "received, /proc/interrupts";
	irq_table_free(&w->first);
	if (irq_table_read("/proc/interrupts", &w->first)) {
		snprintf(err, errlen, "/proc/interrupts: %s", strerror(errno));
		return -1;
	}
	if (irq_table_delta(&w->first, &w->first, "CAL", cpu) < 0 ||
	    irq_table_delta(&w->first, &w->first, "RES", cpu) < 0) {
		snprintf(err, errlen, "/proc/interrupts has no CAL and RES rows for cpu %d (they are x86's)",
			 cpu);
		return -1;
	}
	return 0;
}

int ipi_watch_trace_setup(struct ipi_watch *w, bool fall_back, char *err,
			  size_t errlen)
{
	char list[512], f[600], why[256];

	cpu_mask_format(&w->cpus, list, sizeof(list));
	w->method = IPI_WATCH_TRACE;
	w->how = "traced sends (ipi tracepoints)";
	/* the probe: 6.3 to 6.5 have the tracepoints, not the CPUS{} filter */
	snprintf(f, sizeof(f), "cpu & CPUS{%s}", list);
	if (trace_instance_filter(&w->ti, "ipi:ipi_send_cpu", f, why, sizeof(why))) {
		if (!fall_back) {
			snprintf(err, errlen, "%s", why);
			return -1;
		}
		snprintf(w->why_procfs, sizeof(w->why_procfs),
			 "the kernel refused the CPUS{} trace filter (newer than the ipi tracepoints, Linux >= 6.6): %.80s",
			 why);
		trace_instance_remove(&w->ti);
		return watch_procfs_open(w, err, errlen);
	}
	if (trace_instance_enable(&w->ti, "ipi:ipi_send_cpu", NULL, err, errlen))
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
	/* records carry CLOCK_MONOTONIC times: bucketed by their own time */
	w->ts_mono = !trace_instance_clock(&w->ti, "mono");
	/* room for storms between two reads (lost ones are counted anyway) */
	snprintf(f, sizeof(f), "%s/buffer_size_kb", w->ti.dir);
	if (write_file(f, "8192"))
		snprintf(w->note, sizeof(w->note), "trace buffer left at its default size: %s",
			 strerror(errno));
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
	struct irq_table pre, post;
	bool auto_method = method == IPI_WATCH_AUTO;
	int ret;

	w->cpus = *cpus;
	w->ti.pipe_fd = -1;
	if (irq_table_read("/proc/interrupts", &pre)) {
		snprintf(err, errlen, "/proc/interrupts: %s", strerror(errno));
		return -1;
	}
	if (auto_method) {
		method = IPI_WATCH_TRACE;
		if (!tracepoint_exists("ipi:ipi_send_cpu") ||
		    !tracepoint_exists("ipi:ipi_send_cpumask")) {
			snprintf(w->why_procfs, sizeof(w->why_procfs),
				 "the ipi_send_cpu/cpumask tracepoints do not exist on this kernel (since 6.3)");
			method = IPI_WATCH_PROCFS;
		}
	}
	if (method == IPI_WATCH_TRACE)
		ret = trace_instance_create(&w->ti, "isolbench-ipistorm", err, errlen) ? -1 :
		      ipi_watch_trace_setup(w, auto_method, err, errlen);
	else
		ret = watch_procfs_open(w, err, errlen);
	if (!ret && !irq_table_read("/proc/interrupts", &post)) {
		w->setup_ipis = watched_ipis(w, &pre, &post);
		irq_table_free(&post);
	}
	irq_table_free(&pre);
	return ret;
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

/*
 * The minute of a record: by its own timestamp (trace_clock mono),
 * else by when it was read; records after the end of the window go
 * into its last minute.
 */
static size_t record_minute(const struct ipi_watch *w, const char *line,
			    uint64_t read_ns)
{
	uint64_t ts = read_ns, end = w->start_ns + (uint64_t)(w->seconds * 1e9);

	if (w->ts_mono && ipi_trace_line_ns(line, &ts))
		ts = read_ns;
	if (w->seconds > 0 && ts > end)
		ts = end ? end - 1 : 0;
	return ts > w->start_ns ? (ts - w->start_ns) / MIN_NS : 0;
}

static int watch_trace_poll(struct ipi_watch *w, bool last)
{
	uint64_t drain_end = mono_ns() + DRAIN_MAX_NS;
	char *l, *nl;
	uint64_t now;
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
		now = mono_ns();
		w->have += n;
		w->buf[w->have] = '\0';
		for (l = w->buf; (nl = strchr(l, '\n')); l = nl + 1) {
			*nl = '\0';
			if (ipi_tally_line(&w->t, l, &w->cpus,
					   record_minute(w, l, now)) < 0) {
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
	struct irq_table post;
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
		/* removing the instance disables the events: text patching */
		if (!irq_table_read("/proc/interrupts", &post)) {
			w->teardown_ipis = watched_ipis(w, &w->last, &post);
			irq_table_free(&post);
		}
	}
	return 0;
}
