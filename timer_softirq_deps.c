// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "timer_softirq_deps.h"
#include "lib/base/util.h"
#include "lib/kernel/tracefs.h"

#define PROBE_GROUP	"isolbench"

/*
 * The probed functions, their events and what their arguments are:
 * the dependency's bit (the kernel's enum tick_dep_bits, in the order
 * of timer_softirq_trace_dep_names) and, of the one-CPU setter, the CPU.
 */
static const struct {
	const char *event, *def, *filter;
} probes[] = {
	{ "tick_dep_set", "tick_nohz_dep_set bit=$arg1:u32", NULL },
	{ "tick_dep_set_cpu", "tick_nohz_dep_set_cpu cpu=$arg1:s32 bit=$arg2:u32", "cpu == %d" },
	{ "tick_dep_set_task", "tick_nohz_dep_set_task bit=$arg2:u32", NULL },
	{ "tick_dep_set_signal", "tick_nohz_dep_set_signal bit=$arg2:u32", NULL },
};

static const char *dep_name(int dep)
{
	return dep < CPU_TRACE_DEPS ? timer_softirq_trace_dep_names[dep] : "unknown";
}

/* @n sets of @dep by @func, by task @comm on @cpu (its first). */
static void sets_add(struct tick_dep_sets *s, int dep, const char *func, const char *comm,
		     int cpu, uint64_t n)
{
	struct tick_dep_setter *e;
	bool added;
	int i;

	if (!s->names.max)
		tally_slots_init(&s->names, TICK_DEP_SETTERS);
	s->total += n;
	i = tally_slot(&s->names, dep_name(dep), func, &added);
	if (i == TALLY_OTHER) {
		s->other += n;
		return;
	}
	e = &s->s[i];
	if (added) {
		e->dep = dep;
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
		e->cpu = cpu;
	}
	e->n += n;
}

void timer_softirq_deps_add(struct tick_dep_sets *sum, const struct tick_dep_sets *s)
{
	for (int i = 0; i < s->names.n; i++)
		sets_add(sum, s->s[i].dep, timer_softirq_deps_func(s, i), s->s[i].comm, s->s[i].cpu,
			 s->s[i].n);
	sum->other += s->other;
	sum->total += s->other;
}

const char *timer_softirq_deps_func(const struct tick_dep_sets *s, int i)
{
	return tally_slot_name(&s->names, i);
}

uint64_t timer_softirq_deps_count(const struct tick_dep_sets *s, int dep, const char *func)
{
	for (int i = 0; i < s->names.n; i++)
		if (s->s[i].dep == dep && !strcmp(timer_softirq_deps_func(s, i), func))
			return s->s[i].n;
	return 0;
}

bool timer_softirq_deps_named(const struct tick_dep_sets *s, int dep)
{
	for (int i = 0; i < s->names.n; i++)
		if (s->s[i].dep == dep && strcmp(timer_softirq_deps_func(s, i), "?"))
			return true;
	return false;
}

static uint64_t setter_n(const void *arg, int i)
{
	return ((const struct tick_dep_sets *)arg)->s[i].n;
}

void timer_softirq_deps_list(const struct tick_dep_sets *s, char *buf, size_t len)
{
	int idx[TICK_DEP_SETTERS];
	size_t off = 0;

	snprintf(buf, len, "none");
	tally_rank(s->names.n, idx, setter_n, s);
	for (int i = 0; i < s->names.n && off < len; i++) {
		const struct tick_dep_setter *e = &s->s[idx[i]];

		off += snprintf(buf + off, len - off, "%s%s %llu by %s (%s on cpu %d)",
				i ? ", " : "", dep_name(e->dep), (unsigned long long)e->n,
				timer_softirq_deps_func(s, idx[i]), e->comm, e->cpu);
	}
	if (s->other && off < len)
		snprintf(buf + off, len - off, ", other %llu", (unsigned long long)s->other);
}

/* Set @item is complete: to the sets of its time. */
static void set_done(void *arg, void *item)
{
	struct tick_deps *d = arg;
	const struct tick_dep_set *e = item;
	struct tick_dep_sets *to = e->ts > d->to ? &d->carry : e->ts >= d->from ? d->inside : d->before;

	sets_add(to, e->dep, e->func, e->comm, e->w.cpu, 1);
}

/*
 * Whether a set of @r's kind concerns the target: every CPU's; the
 * target's; a task's set on the target (most set their own, or the
 * task they interrupt); a process's set on the target or by this
 * process, whose busy loop it covers.
 */
static bool concerns_target(const struct tick_deps *d, const struct trace_event_record *r)
{
	uint64_t cpu;

	if (!strcmp(r->event, "tick_dep_set"))
		return true;
	if (!strcmp(r->event, "tick_dep_set_cpu"))
		return !trace_event_u64(r, "cpu", &cpu) && cpu == (uint64_t)d->cpu;
	if (r->cpu == d->cpu)
		return true;
	for (int i = 0; strcmp(r->event, "tick_dep_set_task") && i < d->nself; i++)
		if (d->self[i] == r->pid)
			return true;
	return false;
}

static void dep_set(void *ctx, const struct trace_event_record *r)
{
	struct tick_deps *d = ctx;
	struct tick_dep_set *e;
	uint64_t bit;

	if (trace_event_u64(r, "bit", &bit) || !concerns_target(d, r))
		return;
	e = stack_wait_next(&d->wait, r->cpu);
	e->dep = bit < CPU_TRACE_DEPS ? (int)bit : CPU_TRACE_DEPS;
	snprintf(e->comm, sizeof(e->comm), "%s", r->comm ? r->comm : "<...>");
	snprintf(e->func, sizeof(e->func), "?");
	e->ts = r->ts_ns;
	stack_wait_keep(&d->wait);
}

static void dep_stack(void *ctx, const struct trace_event_record *r)
{
	struct tick_deps *d = ctx;

	stack_wait_stack(&d->wait, r->cpu);
}

/*
 * A frame of the set's stack, innermost first: the kprobe's own, the
 * probed tick_nohz_dep_set*(), then the setter (tick code skipped).
 */
static void dep_frame(void *ctx, const char *func)
{
	struct tick_deps *d = ctx;
	struct tick_dep_set *e = stack_wait_frame(&d->wait, func);

	if (!e)
		return;
	if (!e->below)
		e->below = !strncmp(func, "tick_nohz_dep_set", 17);
	else if (!strcmp(e->func, "?") && strncmp(func, "tick_", 5))
		snprintf(e->func, sizeof(e->func), "%s", func);
}

static const struct trace_event_row dep_events[] = {
	{ PROBE_GROUP, "tick_dep_set", NULL, false, dep_set },
	{ PROBE_GROUP, "tick_dep_set_cpu", NULL, false, dep_set },
	{ PROBE_GROUP, "tick_dep_set_task", NULL, false, dep_set },
	{ PROBE_GROUP, "tick_dep_set_signal", NULL, false, dep_set },
	{ "ftrace", "kernel_stack", NULL, false, dep_stack },
};

void timer_softirq_deps_init(struct tick_deps *d, int cpu)
{
	memset(d, 0, sizeof(*d));
	d->cpu = cpu;
	d->ti.pipe_fd = -1;
	stack_wait_init(&d->wait, d->pend, sizeof(d->pend[0]), TICK_DEP_PENDING, set_done, d);
	d->tab = (struct trace_event_table)TRACE_EVENT_TABLE(dep_events);
	d->tab.frame = dep_frame;
}

void timer_softirq_deps_begin(struct tick_deps *d, uint64_t from_ns, uint64_t to_ns,
			      struct tick_dep_sets *inside, struct tick_dep_sets *before)
{
	memset(inside, 0, sizeof(*inside));
	*before = d->carry;
	memset(&d->carry, 0, sizeof(d->carry));
	d->from = from_ns;
	d->to = to_ns;
	d->inside = inside;
	d->before = before;
	d->nself = self_threads(d->self, TICK_DEP_SELF);
}

void timer_softirq_deps_line(void *d, char *line)
{
	struct tick_deps *deps = d;

	trace_event_dispatch_line(&deps->tab, deps, line);
}

void timer_softirq_deps_end(struct tick_deps *d)
{
	trace_event_dispatch_end(&d->tab, d);
	stack_wait_flush(&d->wait);
}

int timer_softirq_deps_read(struct tick_deps *d, uint64_t from_ns, uint64_t to_ns,
			    struct tick_dep_sets *inside, struct tick_dep_sets *before)
{

	const struct trace_event_reader reader = { &d->tab, d };
	int ret = 0;

	timer_softirq_deps_begin(d, from_ns, to_ns, inside, before);
	if (d->raw)
		ret = trace_event_raw_read(d->raw, &reader, 1) < 0 ? -1 : 0;
	else if (d->open)
		ret = trace_instance_read_lines(&d->ti, timer_softirq_deps_line, d);
	timer_softirq_deps_end(d);
	return ret;
}

/* The probes in the instance, each with its stack. */
static int deps_enable(struct tick_deps *d, char *err, size_t errlen)
{
	char event[64], filter[64], trigger[96], path[320];

	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		/* one a killed run left (the journal puts back one kprobe_events change) */
		snprintf(trigger, sizeof(trigger), "-:" PROBE_GROUP "/%s", probes[i].event);
		tracefs_write("kprobe_events", trigger);
		snprintf(event, sizeof(event), PROBE_GROUP "/%s", probes[i].event);
		if (tracefs_kprobe_add(event, probes[i].def, err, errlen))
			return -1;
	}
	if (trace_instance_create(&d->ti, "isolbench-tickdep", err, errlen))
		return -1;
	/* records on the clock the windows are timed by */
	if (trace_instance_clock(&d->ti, "mono")) {
		snprintf(err, errlen, "%s/trace_clock: no 'mono' clock", d->ti.dir);
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		snprintf(event, sizeof(event), PROBE_GROUP ":%s", probes[i].event);
		snprintf(filter, sizeof(filter), probes[i].filter ? probes[i].filter : "", d->cpu);
		if (trace_instance_enable(&d->ti, event, probes[i].filter ? filter : NULL,
					  err, errlen))
			return -1;
		snprintf(trigger, sizeof(trigger), "stacktrace%s%s",
			 probes[i].filter ? " if " : "", filter);
		snprintf(path, sizeof(path), "%s/events/" PROBE_GROUP "/%s/trigger", d->ti.dir,
			 probes[i].event);
		if (write_file(path, trigger)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	return trace_instance_start(&d->ti, err, errlen);
}

int timer_softirq_deps_open(struct tick_deps *d, int cpu, char *err, size_t errlen)
{
	const struct trace_event_table *tabs[] = { &d->tab };

	timer_softirq_deps_init(d, cpu);
	if (deps_enable(d, err, errlen)) {
		snprintf(d->why_not, sizeof(d->why_not), "%s", err);
		trace_instance_remove(&d->ti);
		return -1;
	}
	/* raw records laid out by their format files, else trace_pipe's text */
	d->raw = trace_event_raw_open(d->ti.dir, tabs, 1, d->raw_error, sizeof(d->raw_error));
	d->open = true;
	return 0;
}

void timer_softirq_deps_close(struct tick_deps *d)
{
	/* its files open, the instance could not be removed */
	trace_event_raw_close(d->raw);
	d->raw = NULL;
	trace_instance_remove(&d->ti);
	d->open = false;
}
