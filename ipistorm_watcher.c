// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/cleanup.h"
#include "lib/base/clock.h"
#include "ipistorm_watcher.h"
#include "lib/base/util.h"
#include "lib/kernel/trace_rows.h"

#define MIN_NS		60000000000ULL
/* room for storms and their stacks between two reads (lost ones are counted anyway) */
#define WATCH_BUFFER_KB	8192
/* the last drain of the trace buffer: at most this long */
#define DRAIN_MAX_NS	2000000000ULL

const char *const ipistorm_watcher_method_names[] = { "auto", "trace", "procfs", NULL };

/* Whether kind @k has a /proc/interrupts row of its own (CAL, RES; TLB is within CAL). */
static bool own_row(int k)
{
	return intf_kinds[k].row && !intf_kinds[k].row_in_call;
}

/* The IPIs (CAL + RES) of the watched CPUs from @a to @b. */
static int64_t watched_ipis(const struct ipi_watch *w, const struct irq_table *a,
			    const struct irq_table *b)
{
	int64_t n = 0, d;
	int cpu;

	cpu_mask_for_each(cpu, &w->cpus)
		for (int k = 0; k < INTF_KINDS; k++) {
			if (!own_row(k))
				continue;
			d = irq_table_delta(a, b, intf_kinds[k].row, cpu);
			n += d > 0 ? d : 0;
		}
	return n;
}

static int watch_procfs_open(struct ipi_watch *w, char *err, size_t errlen)
{
	int cpu = cpu_mask_first(&w->cpus);
	char rows[64] = "";
	bool missing = false;

	w->method = IPI_WATCH_PROCFS;
	w->how = "received, /proc/interrupts";
	irq_table_free(&w->first);
	if (irq_table_read("/proc/interrupts", &w->first)) {
		snprintf(err, errlen, "/proc/interrupts: %s", strerror(errno));
		return -1;
	}
	for (int k = 0; k < INTF_KINDS; k++) {
		if (!own_row(k))
			continue;
		snprintf(rows + strlen(rows), sizeof(rows) - strlen(rows), "%s%s",
			 rows[0] ? " and " : "", intf_kinds[k].row);
		missing |= irq_table_delta(&w->first, &w->first, intf_kinds[k].row, cpu) < 0;
	}
	if (missing) {
		snprintf(err, errlen, "/proc/interrupts has no %s rows for cpu %d (they are x86's)",
			 rows, cpu);
		return -1;
	}
	return 0;
}

/*
 * The sender's stack after each function-call IPI to a watched CPU, to
 * name where it came from (a reschedule's callsite says it already).
 */
static void watch_stacks(struct ipi_watch *w, const char *list)
{
	char cpu[540], mask[540];

	if (!ipi_stacks_reliable(w->why_no_stacks, sizeof(w->why_no_stacks)))
		return;
	trace_rows_filter(&w->tab, "ipi_send_cpu", list, cpu, sizeof(cpu));
	trace_rows_filter(&w->tab, "ipi_send_cpumask", list, mask, sizeof(mask));
	w->stacks = !ipi_stacks_trigger(w->ti.dir, cpu, mask, w->why_no_stacks,
					sizeof(w->why_no_stacks));
}

int ipistorm_watcher_trace_setup(struct ipi_watch *w, bool fall_back, char *err,
				 size_t errlen)
{
	const struct trace_event_table *tab = &w->tab;
	char list[512], f[600], why[256], kb[24];
	struct trace_rows_on on;

	cpu_mask_format(&w->cpus, list, sizeof(list));
	w->method = IPI_WATCH_TRACE;
	w->how = "traced sends (ipi tracepoints)";
	/* the probe: 6.3 to 6.5 have the tracepoints, not the CPUS{} filter */
	trace_rows_filter(tab, "ipi_send_cpu", list, f, sizeof(f));
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
	if (trace_rows_enable(&w->ti, tab, list, false, &on, err, errlen))
		return -1;
	/* the optional row, csd_queue_cpu: missing from older kernels, no note then */
	if (on.why[0] && tracepoint_exists("csd:csd_queue_cpu"))
		snprintf(w->note, sizeof(w->note), "queued functions not counted: %s", on.why);
	watch_stacks(w, list);
	/* records carry CLOCK_MONOTONIC times: placed by their own time */
	w->ts_mono = !trace_instance_clock(&w->ti, "mono");
	snprintf(f, sizeof(f), "%s/buffer_size_kb", w->ti.dir);
	snprintf(kb, sizeof(kb), "%llu",
		 (unsigned long long)(w->buffer_kb ? w->buffer_kb : WATCH_BUFFER_KB));
	if (write_file(f, kb))
		snprintf(w->note, sizeof(w->note), "trace buffer left at its default size: %s",
			 strerror(errno));
	/* raw records laid out by their format files, else trace_pipe's text */
	w->raw = trace_event_raw_open(w->ti.dir, &tab, 1, w->raw_error, sizeof(w->raw_error));
	return 0;
}

/* A record of the control thread's at @ts, after the window: is it of its calls? */
static bool control_time(const struct ipi_watch *w, uint64_t ts)
{
	uint64_t end = __atomic_load_n(&w->control_end_ns, __ATOMIC_ACQUIRE);

	return !end || !w->ts_mono || ts <= end;
}

/* Where a send goes: its window and minute, by its own timestamp. */
static void watch_send(void *arg, const struct ipi_send *s)
{
	struct ipi_watch *w = arg;
	uint64_t ts = w->ts_mono ? s->ts_ns : w->last_ns;
	uint64_t rel;

	if (w->end_ns && ts >= w->end_ns) {
		/* the control's function calls (its reschedules are not the storm) */
		if (s->pid == w->control_tid && !s->irq &&
		    intf_kind_of_callback(s->callback) != INTF_IPI_RESCHED &&
		    control_time(w, s->ts_ns)) {
			if (ipistorm_tally_send(&w->after, s, 0, 0))
				w->lost_after++;	/* no memory: said as lost */
		} else {
			w->after_others++;
		}
		return;
	}
	rel = ts > w->start_ns ? ts - w->start_ns : 0;
	if (ipistorm_tally_send(&w->t, s, rel / (uint64_t)(w->window_s * 1e9), rel / MIN_NS))
		w->lost++;
}

static void ipi_record(void *ctx, const struct trace_event_record *r)
{
	struct ipi_watch *w = ctx;

	ipi_sends_record(&w->sends, r);
}

static void ipi_frame(void *ctx, const char *func)
{
	struct ipi_watch *w = ctx;

	ipi_sends_frame(&w->sends, func);
}

/* A function queued for a watched CPU: in the window, or the control's after it. */
static void csd_queue_cpu(void *ctx, const struct trace_event_record *r)
{
	struct ipi_watch *w = ctx;

	if (!w->end_ns || r->ts_ns < w->end_ns)
		ipistorm_tally_queued(&w->t, r, &w->cpus);
	else if (r->pid == w->control_tid && control_time(w, r->ts_ns))
		ipistorm_tally_queued(&w->after, r, &w->cpus);
}

static const struct trace_event_row watch_events[] = {
	{ "ipi", "ipi_send_cpu", "cpu & CPUS{%s}", false, ipi_record },
	{ "ipi", "ipi_send_cpumask", "cpumask & CPUS{%s}", false, ipi_record },
	/* the stacktrace trigger's, on the two above (watch_stacks) */
	{ "ftrace", "kernel_stack", NULL, true, ipi_record },
	/* the functions behind single-target IPIs */
	{ "csd", "csd_queue_cpu", "cpu & CPUS{%s}", true, csd_queue_cpu },
};

void ipistorm_watcher_init(struct ipi_watch *w, const cpu_mask_t *cpus, double window_s)
{
	w->cpus = *cpus;
	w->window_s = window_s;
	w->control_tid = -1;	/* none: pid 0 is the idle task's */
	w->ti.pipe_fd = -1;
	ipistorm_tally_init(&w->t, cpus);
	ipistorm_tally_init(&w->after, cpus);
	ipi_sends_init(&w->sends, cpus, watch_send, w);
	w->tab = (struct trace_event_table)TRACE_EVENT_TABLE(watch_events);
	w->tab.frame = ipi_frame;
}

int ipistorm_watcher_open(struct ipi_watch *w, enum ipi_watch_method method,
			  const cpu_mask_t *cpus, double window_s, uint64_t buffer_kb,
			  char *err, size_t errlen)
{
	struct irq_table pre, post;
	bool auto_method = method == IPI_WATCH_AUTO;
	int ret;

	ipistorm_watcher_init(w, cpus, window_s);
	w->buffer_kb = buffer_kb;
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
		      ipistorm_watcher_trace_setup(w, auto_method, err, errlen);
	else
		ret = watch_procfs_open(w, err, errlen);
	if (!ret && !irq_table_read("/proc/interrupts", &post)) {
		w->setup_ipis = watched_ipis(w, &pre, &post);
		irq_table_free(&post);
	}
	irq_table_free(&pre);
	return ret;
}

int ipistorm_watcher_start(struct ipi_watch *w, char *err, size_t errlen)
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
 * What the watched CPUs received since the last sample, into the window
 * and minute the interval began in, per IPI kind from its row. A remote
 * TLB flush runs from a function call interrupt (CAL counts it too), or
 * from a polling idle loop without one, so TLB is taken out of CAL, at
 * most all of it.
 */
static int watch_procfs_sample(struct ipi_watch *w, uint64_t now)
{
	const struct irq_table *prev = w->samples > 1 ? &w->last : &w->first;
	uint64_t rel = w->last_ns - w->start_ns;
	size_t win = rel / (uint64_t)(w->window_s * 1e9), minute = rel / MIN_NS;
	struct irq_table t;
	int cpu;

	if (irq_table_read("/proc/interrupts", &t))
		return -1;
	cpu_mask_for_each(cpu, &w->cpus) {
		int64_t d[INTF_KINDS] = { 0 };
		int k;

		for (k = 0; k < INTF_KINDS; k++)
			if (intf_kinds[k].row)
				d[k] = row_delta(prev, &t, intf_kinds[k].row, cpu);
		for (k = 0; k < INTF_KINDS; k++) {
			if (!intf_kinds[k].row_in_call)
				continue;
			d[k] = d[k] < d[INTF_IPI_CALL] ? d[k] : d[INTF_IPI_CALL];
			d[INTF_IPI_CALL] -= d[k];
		}
		for (k = 0; k < INTF_KINDS; k++)
			if (intf_kinds[k].row && ipistorm_tally_add(&w->t, cpu, k, d[k], win, minute))
				break;
		if (k < INTF_KINDS) {
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

/* A sample at each window's end (and each minute's, which windows divide or not). */
static int watch_procfs_poll(struct ipi_watch *w, bool last)
{
	struct timespec ts = { 0, 100000000L };
	uint64_t win_ns = (uint64_t)(w->window_s * 1e9), now, next;

	if (!last) {
		nanosleep(&ts, NULL);
		now = mono_ns();
		next = w->start_ns + ((w->last_ns - w->start_ns) / win_ns + 1) * win_ns;
		if (next > w->start_ns + ((w->last_ns - w->start_ns) / MIN_NS + 1) * MIN_NS)
			next = w->start_ns + ((w->last_ns - w->start_ns) / MIN_NS + 1) * MIN_NS;
		if (now < next)
			return 0;
		return watch_procfs_sample(w, now);
	}
	return watch_procfs_sample(w, mono_ns());
}

/*
 * How a read of the trace ends: after one poll of up to 200 ms; when a
 * read comes back empty (the window's end, tracing still on); or, the
 * last, with tracing stopped first, when the buffer is empty.
 */
enum watch_read { WATCH_POLL, WATCH_DRAIN, WATCH_LAST };

static void watch_line(void *ctx, char *line)
{
	struct ipi_watch *w = ctx;

	trace_event_dispatch_line(&w->tab, w, line);
}

/* Each record the trace holds to its handler: how many, or -1. */
static ssize_t watch_trace_take(struct ipi_watch *w)
{
	struct trace_event_reader reader = { &w->tab, w };
	uint64_t before = w->tab.records;

	if (w->raw)
		return trace_event_raw_read(w->raw, &reader, 1);
	if (trace_instance_read_lines(&w->ti, watch_line, w))
		return -1;
	return (ssize_t)(w->tab.records - before);
}

static int watch_trace_read(struct ipi_watch *w, enum watch_read how)
{
	struct timespec poll_wait = { 0, 200000000L };
	uint64_t drain_end = mono_ns() + DRAIN_MAX_NS;
	bool last = how == WATCH_LAST, drain = how != WATCH_POLL;
	ssize_t n;

	/*
	 * A drain reads until a read comes back empty, bounded in time: the
	 * last stops tracing first, or a steady IPI stream refills the
	 * buffer forever; with tracing on (the window's end), or should
	 * tracing_on not be writable, sooner.
	 */
	if (!last || trace_instance_stop(&w->ti))
		drain_end = mono_ns() + DRAIN_MAX_NS / 10;
	do {
		n = watch_trace_take(w);
		/*
		 * A poll with nothing there reads once more 200 ms later: a
		 * sleep, never poll(), whose waiting reader the ring buffer
		 * would wake through irq_work on the watched CPU
		 */
		if (!n && !drain) {
			nanosleep(&poll_wait, NULL);
			n = watch_trace_take(w);
		}
		if (n < 0)
			return -1;
		w->last_ns = mono_ns();
	} while (drain && n > 0 && mono_ns() < drain_end);
	if (last) {
		trace_event_dispatch_end(&w->tab, w);
		ipi_sends_flush(&w->sends);
	}
	return 0;
}

int ipistorm_watcher_drain(struct ipi_watch *w)
{
	return watch_trace_read(w, WATCH_LAST);
}

int ipistorm_watcher_poll(struct ipi_watch *w)
{
	if (w->method == IPI_WATCH_TRACE)
		return watch_trace_read(w, WATCH_POLL);
	return watch_procfs_poll(w, false);
}

int ipistorm_watcher_end_window(struct ipi_watch *w)
{
	int ret;

	w->end_ns = mono_ns();
	w->seconds = (w->end_ns - w->start_ns) / 1e9;
	w->cut = bench_stop;
	if (w->method == IPI_WATCH_PROCFS)
		return watch_procfs_poll(w, true);
	/*
	 * The window's records read before the control runs, and the
	 * buffer's overruns counted then: later ones are counted after the
	 * window (a record of the window that a drain of at most 200 ms
	 * left unread, under a storm, among them).
	 */
	ret = watch_trace_read(w, WATCH_DRAIN);
	w->window_overruns = trace_instance_overruns(&w->ti);
	return ret;
}

int ipistorm_watcher_stop(struct ipi_watch *w)
{
	struct irq_table post;
	long long overruns;

	if (w->stopped)
		return 0;
	if (!w->end_ns && ipistorm_watcher_end_window(w))
		return -1;
	w->stopped = true;
	if (w->method != IPI_WATCH_TRACE)
		return 0;
	if (ipistorm_watcher_drain(w))
		return -1;
	irq_table_free(&w->last);
	if (irq_table_read("/proc/interrupts", &w->last))
		return -1;
	w->lost += w->window_overruns;
	overruns = trace_instance_overruns(&w->ti);
	/* (a stats file unread at the end: none counted after the window) */
	if (overruns > w->window_overruns)
		w->lost_after += overruns - w->window_overruns;
	/* its files open, the instance could not be removed */
	trace_event_raw_close(w->raw);
	w->raw = NULL;
	trace_instance_remove(&w->ti);
	/* removing the instance disables the events: text patching */
	if (!irq_table_read("/proc/interrupts", &post)) {
		w->teardown_ipis = watched_ipis(w, &w->last, &post);
		irq_table_free(&post);
	}
	return 0;
}

size_t ipistorm_watcher_windows(const struct ipi_watch *w)
{
	size_t full = (size_t)(w->seconds / w->window_s + 1e-9);

	return full ? full : !w->cut;
}

void ipistorm_watcher_control_count(const struct ipi_watch *w, const char *expect,
				    const char *const *funcs, uint64_t *named, uint64_t *other,
			     uint64_t *excused)
{
	size_t len = strlen(expect);
	uint64_t theirs = 0;	/* queued functions not the control's */
	int j;

	*named = *other = 0;
	for (int i = 0; i < w->after.sources.n; i++) {
		if (!strncmp(tally_slot_name(&w->after.sources, i), expect, len))
			*named += w->after.src[i].n;
		else
			*other += w->after.src[i].n;
	}
	*other += w->after.src_other.n;
	for (int i = 0; i < w->after.func.names.n; i++) {
		for (j = 0; funcs[j] && strcmp(funcs[j], tally_slot_name(&w->after.func.names, i)); j++)
			;
		if (!funcs[j])
			theirs += w->after.func.n[i];
	}
	theirs += w->after.func.other;
	*excused = theirs < *other ? theirs : *other;
	*other -= *excused;
}
