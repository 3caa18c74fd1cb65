// SPDX-License-Identifier: GPL-2.0
/*
 * The noise timeline of one window: the trace records of the CPU, through
 * one event table, made into activities (an interrupt, nested or not, a
 * thread that preempted the loop, an IPI by where it came from) and the
 * marks of a sleeper's wakeup; timer_softirq_gaps.c attributes the gaps
 * to them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/util.h"
#include "timer_softirq_gaps.h"

#define ARM64_IPI_IRQ	"IPI"	/* the one IRQ of every arm64 IPI (6.x) */

/* An IPI sent to the CPU: queued until the interrupt that runs it. */
static void ipi_sent(void *arg, const struct ipi_send *s)
{
	struct noise_timeline *tl = arg;
	char name[64];

	if (tl->nipis == NOISE_IPIS) {
		memmove(&tl->ipis[0], &tl->ipis[1], (NOISE_IPIS - 1) * sizeof(tl->ipis[0]));
		tl->nipis--;
	}
	snprintf(name, sizeof(name), "%s", s->source[0] ? s->source : s->callback);
	tl->ipis[tl->nipis].ts = s->ts_ns;
	tl->ipis[tl->nipis].kind = intf_kind_of_callback(s->callback);
	tl->ipis[tl->nipis].src = timer_softirq_gaps_source(tl->ns, tl->ipis[tl->nipis].kind, name);
	tl->nipis++;
}

void timer_softirq_gaps_timeline_free(struct noise_timeline *tl)
{
	free(tl->acts);
	free(tl->marks);
	tl->acts = NULL;
	tl->marks = NULL;
	tl->nacts = tl->cap = tl->nmarks = tl->mcap = 0;
}

static void mark(struct noise_timeline *tl, uint64_t ts, bool switch_in, int cpu)
{
	if (tl->nmarks == tl->mcap) {
		size_t cap = tl->mcap ? 2 * tl->mcap : 1024;
		struct noise_mark *m = realloc(tl->marks, cap * sizeof(*m));

		if (!m) {
			tl->oom = true;
			return;
		}
		tl->marks = m;
		tl->mcap = cap;
	}
	tl->marks[tl->nmarks++] = (struct noise_mark){ ts, switch_in, cpu };
}

/* A new activity from @ts: its index, or -1 (no memory). */
static int act_start(struct noise_timeline *tl, enum intf_kind kind, int src,
		     pid_t pid, uint64_t ts)
{
	if (tl->nacts == tl->cap) {
		size_t cap = tl->cap ? 2 * tl->cap : 1024;
		struct noise_act *a = realloc(tl->acts, cap * sizeof(*a));

		if (!a) {
			tl->oom = true;
			return -1;
		}
		tl->acts = a;
		tl->cap = cap;
	}
	tl->acts[tl->nacts] = (struct noise_act){ .start = ts, .end = ts, .kind = kind,
						  .src = src, .pid = pid };
	return (int)tl->nacts++;
}

/*
 * Activity @i ends at @ts: its own time is its length less what nested
 * in it (kept in own meanwhile), and its length is taken from the one
 * it nested in (@parent, or -1).
 */
static void act_end(struct noise_timeline *tl, int i, int parent, uint64_t ts)
{
	struct noise_act *a = &tl->acts[i];
	uint64_t len = ts > a->start ? ts - a->start : 0;

	a->end = ts > a->start ? ts : a->start;
	a->own = len > a->own ? len - a->own : 0;
	(a->src < 0 ? &tl->ns->other : &tl->ns->src[a->src])->acts++;
	if (parent >= 0)
		tl->acts[parent].own += len;
}

/* What an interrupt nests in: the one below it, else a thread that is not the loop. */
static int nest_parent(const struct noise_timeline *tl)
{
	return tl->depth > 1 ? tl->nest[tl->depth - 2] : tl->thread;
}

/* An interrupt entered: its activity's index, or -1 (no memory, or nested too deep). */
static int irq_enter(struct noise_timeline *tl, enum intf_kind kind, int src, uint64_t ts)
{
	int i = act_start(tl, kind, src, 0, ts);

	if (i < 0 || tl->depth == NOISE_NEST)
		return -1;
	tl->nest[tl->depth++] = i;
	return i;
}

static void irq_exit(struct noise_timeline *tl, uint64_t ts)
{
	if (!tl->depth)
		return;		/* it began before the window */
	if (tl->nest[tl->depth - 1] == tl->ipi_irq) {	/* no ipi_entry named it */
		tl->acts[tl->ipi_irq].src = timer_softirq_gaps_source(tl->ns, INTF_IRQ, ARM64_IPI_IRQ);
		tl->ipi_irq = -1;
	}
	act_end(tl, tl->nest[tl->depth - 1], nest_parent(tl), ts);
	tl->depth--;
}

/* The oldest IPI sent before @ts that arrives by a vector of @kind's. */
static int ipi_take(struct noise_timeline *tl, enum intf_kind kind, uint64_t ts, const char *vector)
{
	char name[72];	/* a vector (at most 47) and the note */

	for (int i = 0; i < tl->nipis; i++) {
		int src = tl->ipis[i].src;

		if (!intf_kind_arrives_as(tl->ipis[i].kind, kind) || tl->ipis[i].ts > ts)
			continue;
		memmove(&tl->ipis[i], &tl->ipis[i + 1], (tl->nipis - i - 1) * sizeof(tl->ipis[0]));
		tl->nipis--;
		return src;
	}
	snprintf(name, sizeof(name), "%s (sender not traced)", vector);
	return timer_softirq_gaps_source(tl->ns, kind, name);
}

/* The source of a thread from its comm ("kworker/1:2" -> thread kworker). */
static int thread_source(struct noise_timeline *tl, const struct trace_event_record *r,
			 const char *field)
{
	char comm[32], name[32];

	if (!trace_event_str(r, field, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(comm, "/"), comm);
	return timer_softirq_gaps_source(tl->ns, INTF_THREAD, name);
}

/*
 * A switch out of thread @prev, a thread that is not the loop, whose
 * switch-in the trace did not show: it ran at most since the CPU's last
 * record of another task (from the window's first record if all were
 * its). The one shown running before, if any, ran until then at most.
 */
static void thread_untraced(struct noise_timeline *tl, const struct trace_event_record *r,
			    pid_t prev)
{
	uint64_t since = tl->last_pid == prev ? tl->last_other_ts : r->ts_ns;
	int i;

	if (tl->thread >= 0)
		act_end(tl, tl->thread, -1, since);
	tl->thread = -1;
	i = act_start(tl, INTF_THREAD, thread_source(tl, r, "prev_comm"), prev, since);
	if (i < 0)
		return;
	tl->acts[i].start_untraced = true;
	act_end(tl, i, -1, r->ts_ns);
}

/* A pid field, -1 when the record has none. */
static pid_t pid_field(const struct trace_event_record *r, const char *field)
{
	uint64_t v;

	return trace_event_u64(r, field, &v) ? -1 : (pid_t)v;
}

/* Which thread runs: a thread that is not the loop is an interference. */
static void sched_switch(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;
	pid_t prev = pid_field(r, "prev_pid"), next = pid_field(r, "next_pid");

	if (r->cpu != tl->cpu)
		return;
	if (prev > 0 && prev != tl->loop_tid &&
	    (tl->thread < 0 || tl->acts[tl->thread].pid != prev))
		thread_untraced(tl, r, prev);
	if (tl->thread >= 0)
		act_end(tl, tl->thread, -1, r->ts_ns);
	tl->thread = -1;
	if (next == tl->loop_tid)
		mark(tl, r->ts_ns, true, tl->cpu);
	if (next == tl->loop_tid || next <= 0)
		return;		/* the loop, or idle */
	tl->thread = act_start(tl, INTF_THREAD, thread_source(tl, r, "next_comm"), next, r->ts_ns);
}

/*
 * The start of an interrupt on the CPU: an IRQ by its name, a softirq
 * by its type, an x86 vector by its event (irq_vectors:
 * "local_timer_entry: vector=236"), an IPI by its sender. arm64's IPIs
 * are all one IRQ, named by the ipi_entry record that follows.
 */
static void interrupt_entry(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;
	enum intf_kind kind = intf_kind_of_record(r);
	char name[48];
	int src;

	if (r->cpu != tl->cpu || kind == INTF_NONE)
		return;
	if (trace_event_has(r, "vector"))
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(r->event) - 6), r->event);
	/* a softirq by its name ("TIMER"), an IRQ by its handler's ("virtio0-input") */
	else if (!trace_event_str(r, kind == INTF_SOFTIRQ ? "vec" : "name", name, sizeof(name)))
		snprintf(name, sizeof(name), "?");
	if (kind == INTF_IRQ && !strcmp(name, ARM64_IPI_IRQ)) {
		tl->ipi_irq = irq_enter(tl, kind, -1, r->ts_ns);
		return;
	}
	src = intf_kind_is_ipi(kind) ? ipi_take(tl, kind, r->ts_ns, name) :
	      timer_softirq_gaps_source(tl->ns, kind, name);
	irq_enter(tl, kind, src, r->ts_ns);
}

/*
 * arm64's IPI IRQ named by its reason: "Rescheduling interrupts" is a
 * reschedule IPI, then taken from its sender; the IPIs of no IPI kind
 * ("IRQ work interrupts") are IRQs by their reason ("IRQ work").
 */
static void ipi_entry(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;
	struct noise_act *a;
	char reason[48];
	size_t n;

	if (r->cpu != tl->cpu || tl->ipi_irq < 0)
		return;
	if (!trace_event_str(r, "reason", reason, sizeof(reason)))
		snprintf(reason, sizeof(reason), "?");
	a = &tl->acts[tl->ipi_irq];
	a->kind = intf_kind_of_reason(reason);
	n = strlen(reason);
	if (n > 11 && !strcmp(reason + n - 11, " interrupts"))
		reason[n - 11] = '\0';
	a->src = intf_kind_is_ipi(a->kind) ? ipi_take(tl, a->kind, a->start, reason) :
		 timer_softirq_gaps_source(tl->ns, a->kind, reason);
	tl->ipi_irq = -1;
}

/* The end of an interrupt: a hard IRQ's or a softirq's. */
static void interrupt_exit(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;

	if (r->cpu == tl->cpu)
		irq_exit(tl, r->ts_ns);
}

/* The end of an x86 vector's ("local_timer_exit: vector=236"). */
static void vector_exit(void *ctx, const struct trace_event_record *r)
{
	if (trace_event_has(r, "vector"))
		interrupt_exit(ctx, r);
}

/* The address of a record's hrtimer (hashed or not), 0 when it has none. */
static uint64_t hrtimer_of(const struct trace_event_record *r)
{
	uint64_t h;

	return trace_event_u64(r, "hrtimer", &h) ? 0 : h;
}

/* A sleeper's hrtimer armed on the CPU: followed to where it expires. */
static void hrtimer_start(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;

	if (r->cpu == tl->cpu && trace_event_func_is(r, "function", "hrtimer_wakeup"))
		tl->sleepers[tl->nsleepers++ % NOISE_SLEEPERS] = hrtimer_of(r);
}

static bool sleeper_armed(const struct noise_timeline *tl, const struct trace_event_record *r)
{
	uint64_t h = hrtimer_of(r);
	unsigned int n = tl->nsleepers < NOISE_SLEEPERS ? tl->nsleepers : NOISE_SLEEPERS;

	for (unsigned int i = 0; h && i < n; i++)
		if (tl->sleepers[i] == h)
			return true;
	return false;
}

/* A sleeper woken: on the CPU, or by its timer of this CPU expiring elsewhere. */
static void hrtimer_expire_entry(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;

	if (!trace_event_func_is(r, "function", "hrtimer_wakeup") ||
	    (r->cpu != tl->cpu && !sleeper_armed(tl, r)))
		return;
	mark(tl, r->ts_ns, false, r->cpu);
}

/* Who ran when: a switch-in not traced came after the last record of another task. */
static void any_record(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;

	if (r->cpu != tl->cpu || r->pid < 0)
		return;
	if (r->pid != tl->last_pid)
		tl->last_other_ts = tl->last_pid < 0 ? r->ts_ns : tl->last_ts;
	tl->last_pid = r->pid;
	tl->last_ts = r->ts_ns;
}

static void ipi_record(void *ctx, const struct trace_event_record *r)
{
	struct noise_timeline *tl = ctx;

	ipi_sends_record(&tl->sends, r);
}

static void ipi_frame(void *ctx, const char *func)
{
	struct noise_timeline *tl = ctx;

	ipi_sends_frame(&tl->sends, func);
}

/*
 * The records of the CPU, the IPIs sent to it and the sleepers' timers
 * that expire elsewhere. The rows with a filter are the timeline's own
 * events, enabled for it (timer_softirq_trace_noise()); the others are
 * the counting's (timer_softirq_trace_parse.c), and the stacks the
 * IPIs' trigger. The irq_vectors of x86 (timer, IPIs, irq_work ...) are
 * enabled as a system, by the pattern's row; arm64 has none, and names
 * its IPIs by ipi_entry. A pattern comes last: from the text source it
 * matches any event of its name.
 */
static const struct trace_event_row timeline_events[] = {
	{ "ipi", "ipi_send_cpu", NULL, true, ipi_record },
	{ "ipi", "ipi_send_cpumask", NULL, true, ipi_record },
	{ "ftrace", "kernel_stack", NULL, true, ipi_record },
	{ "sched", "sched_switch", "CPU == %s", false, sched_switch },
	{ "irq", "irq_handler_entry", "CPU == %s", false, interrupt_entry },
	{ "irq", "irq_handler_exit", "CPU == %s", false, interrupt_exit },
	{ "ipi", "ipi_entry", "CPU == %s", true, ipi_entry },
	{ "irq", "softirq_entry", NULL, false, interrupt_entry },
	{ "irq", "softirq_exit", NULL, false, interrupt_exit },
	{ "timer", "hrtimer_start", NULL, false, hrtimer_start },
	{ "timer", "hrtimer_expire_entry", NULL, false, hrtimer_expire_entry },
	{ "irq_vectors", "*_entry", "CPU == %s", true, interrupt_entry },
	{ "irq_vectors", "*_exit", NULL, true, vector_exit },
};

const struct trace_event_table timer_softirq_gaps_timeline_events = {
	.rows = timeline_events, .nrows = ARRAY_SIZE(timeline_events),
	.each = any_record, .frame = ipi_frame,
};

void timer_softirq_gaps_timeline_begin(struct noise_timeline *tl, int cpu, pid_t loop_tid)
{
	cpu_mask_t one;

	tl->cpu = cpu;
	tl->loop_tid = loop_tid;
	tl->nacts = 0;
	tl->nmarks = 0;
	tl->depth = 0;
	tl->thread = -1;
	tl->ipi_irq = -1;
	tl->nipis = 0;
	tl->oom = false;
	tl->last_pid = -1;
	tl->last_ts = tl->last_other_ts = 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ipi_sends_init(&tl->sends, &one, ipi_sent, tl);
	tl->tab = timer_softirq_gaps_timeline_events;
}

void timer_softirq_gaps_timeline_line(struct noise_timeline *tl, struct noise_sources *ns,
				      const char *line)
{
	tl->ns = ns;
	trace_event_dispatch_line(&tl->tab, tl, line);
}

struct trace_event_reader timer_softirq_gaps_timeline_reader(struct noise_timeline *tl,
							     struct noise_sources *ns)
{
	tl->ns = ns;
	return (struct trace_event_reader){ &tl->tab, tl };
}

void timer_softirq_gaps_timeline_end(struct noise_timeline *tl, struct noise_sources *ns, uint64_t end_ns)
{
	tl->ns = ns;
	trace_event_dispatch_end(&tl->tab, tl);
	ipi_sends_flush(&tl->sends);
	while (tl->depth)
		irq_exit(tl, end_ns);
	if (tl->thread >= 0)
		act_end(tl, tl->thread, -1, end_ns);
	tl->thread = -1;
}

