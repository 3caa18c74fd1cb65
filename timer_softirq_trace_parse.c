// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/cpu.h"
#include "lib/base/util.h"
#include "timer_softirq_trace_parse.h"

const char *const timer_softirq_trace_dep_names[CPU_TRACE_DEPS] = {
	"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP"
};

const char *const timer_softirq_trace_expiry_names[CPU_TRACE_EXPIRY_KINDS] = {
	[CPU_TRACE_HRTIMER] = "hrtimer", [CPU_TRACE_TIMER] = "timer",
};

static void names_init(struct cpu_trace_counts *c)
{
	tally_slots_init(&c->cb_names, CPU_TRACE_CALLBACKS);
	for (int k = 0; k < CPU_TRACE_EXPIRY_KINDS; k++)
		tally_init(&c->expired[k], TALLY_MAX);
}

/* An expiry on the CPU under its timer's function ("?" if the record has none). */
static void expired(struct cpu_trace_counts *c, enum cpu_trace_expiry kind,
		    const struct trace_event_record *r)
{
	char fn[64];
	const char *v = trace_event_str(r, "function", fn, sizeof(fn));

	tally_add(&c->expired[kind], v ? v : "?", 1);
}

void timer_softirq_trace_parse_begin(struct cpu_trace_parser *p, int cpu,
				     struct cpu_trace_counts *c)
{
	p->cpu = cpu;
	p->pending = 0;
	p->in_run = false;
	p->run_raised = p->run_expiries = 0;
	p->narmed = 0;
	memset(p->armed, 0, sizeof(p->armed));
	p->tab = timer_softirq_trace_events;
	memset(c, 0, sizeof(*c));
	names_init(c);
	c->windows = 1;
	p->c = c;
}

static bool is_self(const struct cpu_trace_parser *p, pid_t pid)
{
	for (int i = 0; i < p->nself; i++)
		if (p->self[i] == pid)
			return true;
	return false;
}

/* The IPIs of callback @cb: its own slot, or the others'. */
static struct cpu_trace_ipi *callback_slot(struct cpu_trace_counts *c, const char *cb)
{
	int i = tally_slot(&c->cb_names, "", cb, NULL);

	return i == TALLY_OTHER ? &c->cb_other : &c->cb[i];
}

static void ipi_seen(struct cpu_trace_parser *p, const struct trace_event_record *r)
{
	struct cpu_trace_counts *c = p->c;
	/* sent by our thread, not by an interrupt that happened to hit it */
	bool self = !r->irq && is_self(p, r->pid);
	char cb[64], site[sizeof(c->self_callsite)];
	const char *v = trace_event_str(r, "callback", cb, sizeof(cb));
	const char *cs = trace_event_str(r, "callsite", site, sizeof(site));
	struct cpu_trace_ipi *slot;

	/* no callback (a reschedule IPI): name it by its call site */
	if (v && !strcmp(v, "0x0")) {
		v = cs;
		c->ipis_self_resched += self;
	}
	c->ipis++;
	c->ipis_self += self;
	if (self && cs)
		snprintf(c->self_callsite, sizeof(c->self_callsite), "%s", cs);
	slot = callback_slot(c, v ? v : "?");
	slot->n++;
	slot->self += self;
}

static void ipi_send_cpu(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;
	uint64_t cpu;

	if (!trace_event_u64(r, "cpu", &cpu) && cpu == (uint64_t)p->cpu)
		ipi_seen(p, r);
}

static void ipi_send_cpumask(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;

	if (trace_event_mask_has(r, "cpumask", p->cpu))
		ipi_seen(p, r);
}

static void tick_stop(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;
	uint64_t success;
	char dep[32];

	if (r->cpu != p->cpu || trace_event_u64(r, "success", &success))
		return;
	if (success == 1) {
		p->c->tick_stopped++;
		return;
	}
	if (!trace_event_str(r, "dependency", dep, sizeof(dep)))
		return;
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		if (!strcmp(dep, timer_softirq_trace_dep_names[i])) {
			p->c->tick_kept[i]++;
			return;
		}
	/* a dependency newer than this list: counted, never dropped */
	p->c->tick_kept_unknown++;
}

/* The timer's address (hashed in text), 0 when missing. */
static uint64_t timer_id(const struct trace_event_record *r)
{
	uint64_t id;

	return trace_event_u64(r, "timer", &id) ? 0 : id;
}

/* A process_timeout timer armed on the CPU: followed until it expires. */
static void sleep_armed(struct cpu_trace_parser *p, const struct trace_event_record *r)
{
	uint64_t id = timer_id(r);
	int i;

	p->c->sleep_armed++;
	for (i = 0; i < CPU_TRACE_ARMED && p->armed[i].id != id; i++)
		;
	if (i == CPU_TRACE_ARMED) {
		i = p->narmed;
		p->narmed = (p->narmed + 1) % CPU_TRACE_ARMED;
	}
	p->armed[i].id = id;
	p->armed[i].own = !r->irq && is_self(p, r->pid);
}

/*
 * Whether a process_timeout expiry is of a timer armed on the CPU: 0
 * no, 1 yes, 2 yes and by this process. It is followed no more.
 */
static int sleep_was_armed(struct cpu_trace_parser *p, const struct trace_event_record *r)
{
	uint64_t id = timer_id(r);

	for (int i = 0; id && i < CPU_TRACE_ARMED; i++)
		if (p->armed[i].id == id) {
			p->armed[i].id = 0;
			return p->armed[i].own ? 2 : 1;
		}
	return 0;
}

/* The softirq vector of a record on the CPU, -1 for another CPU's. */
static long vec_on_cpu(const struct cpu_trace_parser *p, const struct trace_event_record *r)
{
	uint64_t vec;

	if (r->cpu != p->cpu || trace_event_u64(r, "vec", &vec))
		return -1;
	return (long)vec;
}

static void softirq_raise(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;

	if (vec_on_cpu(p, r) != 1)
		return;
	p->c->timer_raised++;
	p->pending++;
}

static void softirq_entry(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;
	long vec = vec_on_cpu(p, r);

	if (vec == 8)
		p->c->hrtimer_runs++;
	if (vec != 1)
		return;
	p->c->timer_runs++;
	p->in_run = true;
	p->run_raised = p->pending;
	p->pending = 0;
	p->run_expiries = 0;
	p->run_sleep = false;
	p->run_own_sleep = false;
}

static void softirq_exit(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;
	struct cpu_trace_counts *c = p->c;

	if (vec_on_cpu(p, r) != 1)
		return;
	if (p->in_run && p->run_sleep)
		c->sleep_runs++;
	if (p->in_run && p->run_own_sleep)
		c->own_sleep_runs++;
	if (p->in_run && p->run_expiries)
		c->runs_with_expiry++;
	else if (p->in_run)
		c->raised_without_expiry += p->run_raised;
	p->in_run = false;
}

/* A timer-wheel expiry: the CPU's, or one of its process_timeout timers elsewhere. */
static void timer_expire_entry(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;
	bool sleep = trace_event_func_is(r, "function", "process_timeout");

	if (r->cpu != p->cpu) {
		if (sleep && sleep_was_armed(p, r))
			p->c->sleep_expiries_elsewhere++;
		return;
	}
	p->c->timer_expiries++;
	expired(p->c, CPU_TRACE_TIMER, r);
	if (sleep) {
		p->c->sleep_expiries++;
		p->run_sleep = true;
		p->run_own_sleep |= sleep_was_armed(p, r) == 2;
	}
	p->run_expiries++;
}

static void timer_start(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;

	if (r->cpu == p->cpu && trace_event_func_is(r, "function", "process_timeout"))
		sleep_armed(p, r);
}

static void hrtimer_expire_entry(void *ctx, const struct trace_event_record *r)
{
	struct cpu_trace_parser *p = ctx;

	if (r->cpu != p->cpu)
		return;
	p->c->hrtimer_expiries++;
	expired(p->c, CPU_TRACE_HRTIMER, r);
	p->c->ticks += trace_event_func_is(r, "function", "tick_nohz_handler") ||
		       trace_event_func_is(r, "function", "tick_sched_timer");
}

/*
 * Filters of the CPU (trace_rows.h); the expiries and timer starts are filtered by
 * timer_softirq_trace.c (the CPU, or a timer function anywhere).
 */
static const struct trace_event_row counting_events[] = {
	{ "irq", "softirq_raise", "vec == 1 && CPU == %s", false, softirq_raise },
	{ "irq", "softirq_entry", "CPU == %s", false, softirq_entry },
	{ "irq", "softirq_exit", "CPU == %s", false, softirq_exit },
	{ "timer", "tick_stop", "CPU == %s", false, tick_stop },
	{ "timer", "timer_expire_entry", NULL, false, timer_expire_entry },
	{ "timer", "timer_start", NULL, false, timer_start },
	{ "timer", "hrtimer_expire_entry", NULL, false, hrtimer_expire_entry },
	{ "ipi", "ipi_send_cpu", "cpu == %s", true, ipi_send_cpu },
	{ "ipi", "ipi_send_cpumask", "cpumask & CPUS{%s}", true, ipi_send_cpumask },
	/* the noise timeline's (timer_softirq_gaps.c); its irq_vectors count as unknown */
	{ "timer", "hrtimer_start", NULL, false, NULL },
	{ "irq", "irq_handler_entry", NULL, false, NULL },
	{ "irq", "irq_handler_exit", NULL, false, NULL },
	{ "sched", "sched_switch", NULL, false, NULL },
};
const struct trace_event_table timer_softirq_trace_events = TRACE_EVENT_TABLE(counting_events);

void timer_softirq_trace_parse_line(struct cpu_trace_parser *p, const char *line)
{
	if (trace_event_dispatch_line(&p->tab, p, line) < 0)
		p->c->unparsed++;
}

void timer_softirq_trace_parse_end(struct cpu_trace_parser *p)
{
	p->c->raised_unrun = p->pending + (p->in_run ? p->run_raised : 0);
	p->pending = 0;
	p->in_run = false;
	p->c->lines = p->tab.records + p->c->unparsed;
	p->c->unknown = p->tab.unknown;
	p->c->missing = p->tab.missing;
	memcpy(p->c->missing_what, p->tab.missing_what, sizeof(p->c->missing_what));
}

void timer_softirq_trace_add(struct cpu_trace_counts *sum, const struct cpu_trace_counts *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(c->n); i++)
		sum->n[i] += c->n[i];
	if (c->self_callsite[0])
		memcpy(sum->self_callsite, c->self_callsite, sizeof(sum->self_callsite));
	if (!sum->missing_what[0])
		memcpy(sum->missing_what, c->missing_what, sizeof(sum->missing_what));
	/* a sum zeroed by its owner starts its tables here */
	if (!sum->cb_names.max)
		names_init(sum);
	for (int i = 0; i < c->cb_names.n; i++) {
		struct cpu_trace_ipi *slot = callback_slot(sum, tally_slot_name(&c->cb_names, i));

		slot->n += c->cb[i].n;
		slot->self += c->cb[i].self;
	}
	sum->cb_other.n += c->cb_other.n;
	sum->cb_other.self += c->cb_other.self;
	for (int k = 0; k < CPU_TRACE_EXPIRY_KINDS; k++) {
		for (int i = 0; i < c->expired[k].names.n; i++)
			tally_add(&sum->expired[k], tally_slot_name(&c->expired[k].names, i),
				  c->expired[k].n[i]);
		sum->expired[k].other += c->expired[k].other;
	}
	sum->lost += c->lost;
	sum->windows += c->windows;
}

bool timer_softirq_trace_raise_ok(const struct cpu_trace_counts *c, double max_per_tick)
{
	return c->raised_without_expiry <=
	       max_per_tick * (double)c->ticks + 2.0 * (c->windows > 0 ? c->windows : 1);
}

bool timer_softirq_trace_sleep_ok(const struct cpu_trace_counts *c, uint64_t timeouts)
{
	uint64_t edges = c->windows > 0 ? (uint64_t)c->windows : 1;

	return c->sleep_expiries + c->sleep_expiries_elsewhere + edges >= timeouts &&
	       2 * c->sleep_expiries >= timeouts;
}

bool timer_softirq_trace_kept_for(const struct cpu_trace_counts *c, int dep)
{
	if (dep < 0 || dep >= CPU_TRACE_DEPS || !c->tick_kept[dep] ||
	    c->tick_kept_unknown >= c->tick_kept[dep])
		return false;
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		if (i != dep && c->tick_kept[i] >= c->tick_kept[dep])
			return false;
	return true;
}
