// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/clock.h"
#include "lib/base/cpu.h"
#include "lib/base/ktap.h"
#include "timer_softirq_trace.h"
#include "lib/kernel/ksym.h"
#include "lib/kernel/trace_rows.h"
#include "lib/base/util.h"

static int set_on(struct cpu_trace *t, const char *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/tracing_on", t->ti.dir);
	return write_file(path, v);
}

/* A note, while there is room for one. */
static void __ktap_printf(2, 3) note(struct cpu_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes == (int)ARRAY_SIZE(t->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

/* Enable @event with @filter, else unfiltered and noted (trace_rows.h). */
static int enable(struct cpu_trace *t, const char *event, const char *filter,
		  char *err, size_t errlen)
{
	char refused[192];

	if (trace_rows_enable_event(&t->ti, event, filter, refused, sizeof(refused), err, errlen))
		return -1;
	if (refused[0])
		note(t, "%s", refused);
	return 0;
}

/*
 * The expiries @expire on the CPU and, of the timer function @fn,
 * anywhere, with the timers of @fn armed on the CPU (@start): the
 * parsers follow each armed timer to the CPU that expires it. Without
 * @fn in /proc/kallsyms, the CPU's expiries only, and @missing as a
 * note when given.
 */
static int enable_followed(struct cpu_trace *t, const char *expire, const char *start,
			   const char *fn, const char *missing, char *err, size_t errlen)
{
	unsigned long long addr;
	char filter[128];

	if (ksym_addr(fn, &addr)) {
		snprintf(filter, sizeof(filter), "CPU == %d", t->cpu);
		if (enable(t, expire, filter, err, errlen))
			return -1;
		if (missing)
			note(t, "%s", missing);
		return 0;
	}
	snprintf(filter, sizeof(filter), "CPU == %d || function == 0x%llx", t->cpu, addr);
	if (enable(t, expire, filter, err, errlen))
		return -1;
	snprintf(filter, sizeof(filter), "CPU == %d && function == 0x%llx", t->cpu, addr);
	return enable(t, start, filter, err, errlen);
}

/*
 * The rows of @tab that have a filter, on for the CPU; a refused filter
 * leaves its event unfiltered, noted (the parsers filter each record).
 */
static int enable_rows(struct cpu_trace *t, const struct trace_event_table *tab,
		       struct trace_rows_on *on, char *err, size_t errlen)
{
	char cpu[16];

	snprintf(cpu, sizeof(cpu), "%d", t->cpu);
	if (trace_rows_enable(&t->ti, tab, cpu, true, on, err, errlen))
		return -1;
	for (int i = 0; i < on->nnotes; i++)
		note(t, "%s", on->notes[i]);
	return 0;
}

/* The text source, trace_pipe (non-blocking): 0, or -1 with the reason. */
static int open_pipe(struct cpu_trace *t, char *err, size_t errlen)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/trace_pipe", t->ti.dir);
	t->ti.pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->ti.pipe_fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The counting table's records (and @timeline's), raw, else as text. */
static int open_source(struct cpu_trace *t, bool timeline, char *err, size_t errlen)
{
	const struct trace_event_table *tabs[] = {
		&timer_softirq_trace_events, &timer_softirq_gaps_timeline_events,
	};

	trace_event_raw_close(t->raw);
	t->raw = trace_event_raw_open(t->ti.dir, tabs, timeline ? 2 : 1,
				      t->raw_error, sizeof(t->raw_error));
	return t->raw || t->ti.pipe_fd >= 0 ? 0 : open_pipe(t, err, errlen);
}

int timer_softirq_trace_open(struct cpu_trace *t, int cpu, char *err, size_t errlen)
{
	struct trace_rows_on on;

	memset(t, 0, sizeof(*t));
	t->cpu = cpu;
	if (trace_instance_create(&t->ti, "isolbench-timer", err, errlen))
		return -1;
	if (set_on(t, "0")) {
		snprintf(err, errlen, "%s/tracing_on: %s", t->ti.dir, strerror(errno));
		goto fail;
	}
	if (enable_rows(t, &timer_softirq_trace_events, &on, err, errlen))
		goto fail;
	snprintf(t->ipi_error, sizeof(t->ipi_error), "%s", on.why);
	t->have_ipi_cpu = trace_rows_on(&timer_softirq_trace_events, &on, "ipi_send_cpu");
	t->have_ipi_mask = trace_rows_on(&timer_softirq_trace_events, &on, "ipi_send_cpumask");
	/* the timer-wheel expiries, and the process_timeout timers armed on the CPU */
	if (enable_followed(t, "timer:timer_expire_entry", "timer:timer_start", "process_timeout",
			    "no process_timeout in /proc/kallsyms: its expiries on other CPUs are not seen",
			    err, errlen))
		goto fail;
	/*
	 * The hrtimer expiries, and the sleepers' timers armed on the CPU
	 * (a nohz_full CPU's may be queued on a housekeeping one):
	 * timer_softirq_gaps.c.
	 */
	if (enable_followed(t, "timer:hrtimer_expire_entry", "timer:hrtimer_start", "hrtimer_wakeup",
			    NULL, err, errlen))
		goto fail;
	if (open_source(t, false, err, errlen))
		goto fail;
	return 0;
fail:
	trace_event_raw_close(t->raw);
	t->raw = NULL;
	trace_instance_remove(&t->ti);
	return -1;
}

/* One record of a window: its counts, and what ran for the noise. */
struct window_reader {
	struct cpu_trace *t;
	struct cpu_trace_parser *p;
};

static void window_line(void *ctx, char *line)
{
	struct window_reader *w = ctx;

	if (!w->p)
		return;
	timer_softirq_trace_parse_line(w->p, line);
	if (w->t->noise)
		timer_softirq_gaps_timeline_line(&w->t->tl, w->t->ns, line);
}

/* Read what is buffered, each record to @p and the timeline (no @p: discard). */
static int drain(struct cpu_trace *t, struct cpu_trace_parser *p)
{
	struct window_reader w = { t, p };
	struct trace_event_reader readers[2] = { 0 };
	size_t n = 0;

	if (!t->raw)
		return trace_instance_read_lines(&t->ti, window_line, &w);
	if (p)
		readers[n++] = (struct trace_event_reader){ &p->tab, p };
	if (p && t->noise)
		readers[n++] = timer_softirq_gaps_timeline_reader(&t->tl, t->ns);
	return trace_event_raw_read(t->raw, readers, n) < 0 ? -1 : 0;
}

/* Say which step failed, and how, in t->error. */
static int trace_failed(struct cpu_trace *t, const char *what)
{
	snprintf(t->error, sizeof(t->error), "%s/%s: %s", t->ti.dir, what, strerror(errno));
	return -1;
}

int timer_softirq_trace_begin(struct cpu_trace *t)
{
	drain(t, NULL);		/* what came before the window: dropped */
	t->lost0 = trace_instance_overruns(&t->ti);
	t->on_ns = mono_ns();
	if (set_on(t, "1"))
		return trace_failed(t, "tracing_on (1)");
	return 0;
}

int timer_softirq_trace_stop(struct cpu_trace *t)
{
	int ret = set_on(t, "0") ? trace_failed(t, "tracing_on (0)") : 0;

	t->off_ns = mono_ns();
	return ret;
}

int timer_softirq_trace_read(struct cpu_trace *t, struct cpu_trace_counts *c)
{
	struct cpu_trace_parser p;
	int ret = 0;

	timer_softirq_trace_parse_begin(&p, t->cpu, c);
	/* this process's threads, the senders of IPIs that are ours */
	p.nself = self_threads(p.self, CPU_TRACE_SELF);
	if (t->noise)
		timer_softirq_gaps_timeline_begin(&t->tl, t->cpu, t->loop_tid);
	if (drain(t, &p))
		ret = trace_failed(t, "trace_pipe");
	timer_softirq_trace_parse_end(&p);
	if (t->noise)
		timer_softirq_gaps_timeline_end(&t->tl, t->ns, t->off_ns);
	c->lost = trace_instance_overruns(&t->ti) - t->lost0;
	return ret;
}

int timer_softirq_trace_end(struct cpu_trace *t, struct cpu_trace_counts *c)
{
	if (timer_softirq_trace_stop(t)) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	return timer_softirq_trace_read(t, c);
}

void timer_softirq_trace_close(struct cpu_trace *t)
{
	/* its files open, the instance could not be removed */
	trace_event_raw_close(t->raw);
	t->raw = NULL;
	trace_instance_remove(&t->ti);
	timer_softirq_gaps_timeline_free(&t->tl);
}

int timer_softirq_trace_noise(struct cpu_trace *t, char *err, size_t errlen)
{
	const struct trace_event_table *tab = &timer_softirq_gaps_timeline_events;
	struct trace_rows_on on;
	char path[400], e[160] = "";

	/* the timeline's events read too */
	if (open_source(t, true, err, errlen))
		return -1;
	/* records on the clock the busy loop reads: CLOCK_MONOTONIC */
	if (trace_instance_clock(&t->ti, "mono")) {
		snprintf(err, errlen, "%s/trace_clock: no 'mono' clock: %s", t->ti.dir, strerror(errno));
		return -1;
	}
	/* the CPU's own records: room for a busy second's interrupts, nothing lost */
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/buffer_size_kb", t->ti.dir, t->cpu);
	if (write_file(path, "16384"))
		note(t, "cpu %d's trace buffer left at its default size: %s", t->cpu, strerror(errno));
	if (enable_rows(t, tab, &on, err, errlen))
		return -1;
	if (!trace_rows_on(tab, &on, "*_entry") && !trace_rows_on(tab, &on, "ipi_entry"))
		note(t, "no irq_vectors events: system interrupts are seen by their softirqs and threads only");
	/* where the IPIs to the CPU came from: their senders' stacks */
	if (t->have_ipi_cpu && !ipi_stacks_reliable(path, sizeof(path)))
		note(t, "IPIs to cpu %d named by their call site: the guess unwinder's stacks are not true",
		     t->cpu);
	if (t->have_ipi_cpu && ipi_stacks_reliable(path, sizeof(path))) {
		const struct trace_event_table *sends = &timer_softirq_trace_events;
		char list[16], cpu[48], mask[48];

		/* on the sends the counting records: its rows' filters */
		snprintf(list, sizeof(list), "%d", t->cpu);
		trace_rows_filter(sends, "ipi_send_cpu", list, cpu, sizeof(cpu));
		trace_rows_filter(sends, "ipi_send_cpumask", list, mask, sizeof(mask));
		if (ipi_stacks_trigger(t->ti.dir, cpu, mask, e, sizeof(e)))
			note(t, "no stacks of the IPIs to cpu %d (%.80s): named by their call site",
			     t->cpu, e);
	}
	t->noise = true;
	return 0;
}
