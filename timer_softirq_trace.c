// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/clock.h"
#include "lib/base/cpu.h"
#include "timer_softirq_trace.h"
#include "lib/kernel/ksym.h"
#include "lib/kernel/trace_record.h"
#include "lib/base/util.h"

const char *const timer_softirq_trace_dep_names[CPU_TRACE_DEPS] = {
	"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP"
};

void timer_softirq_trace_parse_begin(struct cpu_trace_parser *p, int cpu,
				     struct cpu_trace_counts *c)
{
	p->cpu = cpu;
	p->pending = 0;
	p->in_run = false;
	p->run_raised = p->run_expiries = 0;
	p->narmed = 0;
	memset(p->armed, 0, sizeof(p->armed));
	memset(c, 0, sizeof(*c));
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

static void ipi_seen(struct cpu_trace_parser *p, const struct trace_record *r)
{
	struct cpu_trace_counts *c = p->c;
	const char *v = trace_field(r->fields, "callback");
	char cb[64] = "?";
	/* sent by our thread, not by an interrupt that happened to hit it */
	bool self = !r->irq && is_self(p, r->pid);
	int i;

	/* no callback (a reschedule IPI, 0x0): name it by its call site */
	if (v && !strncmp(v, "0x0", 3) && (v[3] == ' ' || !v[3])) {
		v = trace_field(r->fields, "callsite");
		c->ipis_self_resched += self;
	}
	if (v)
		snprintf(cb, sizeof(cb), "%.*s", (int)strcspn(v, " +\n"), v);
	c->ipis++;
	c->ipis_self += self;
	if (self) {
		const char *cs = trace_field(r->fields, "callsite");

		if (cs)
			snprintf(c->self_callsite, sizeof(c->self_callsite), "%.*s",
				 (int)strcspn(cs, " \n"), cs);
	}
	for (i = 0; i < c->ncb && strcmp(c->cb[i].callback, cb); i++)
		;
	if (i == c->ncb) {
		if (c->ncb == CPU_TRACE_CALLBACKS)
			i = CPU_TRACE_CALLBACKS - 1;	/* the last one: "others" */
		else
			c->ncb++;
		if (i == CPU_TRACE_CALLBACKS - 1 && c->cb[i].n)
			snprintf(c->cb[i].callback, sizeof(c->cb[i].callback), "others");
		else
			snprintf(c->cb[i].callback, sizeof(c->cb[i].callback), "%s", cb);
	}
	c->cb[i].n++;
	c->cb[i].self += self;
}

static bool mask_has(const char *list, int cpu)
{
	char buf[256], err[64];
	cpu_mask_t m;

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(list, " \n"), list);
	return !cpu_mask_parse(buf, &m, err, sizeof(err)) && cpu < CPU_SETSIZE &&
	       CPU_ISSET(cpu, &m);
}

static void tick_stop_seen(struct cpu_trace_counts *c, const char *f)
{
	if (trace_field_long(f, "success", -1) == 1) {
		c->tick_stopped++;
		return;
	}
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		if (trace_field_is(f, "dependency", timer_softirq_trace_dep_names[i]))
			c->tick_kept[i]++;
}

/* The "timer=" value of @f into @buf (empty when missing). */
static void timer_id(const char *f, char *buf, size_t len)
{
	const char *v = trace_field(f, "timer");

	snprintf(buf, len, "%.*s", v ? (int)strcspn(v, " \n") : 0, v ? v : "");
}

/* A process_timeout timer armed on the CPU: followed until it expires. */
static void sleep_armed(struct cpu_trace_parser *p, const struct trace_record *r)
{
	char id[sizeof(p->armed[0].id)];
	int i;

	p->c->sleep_armed++;
	timer_id(r->fields, id, sizeof(id));
	for (i = 0; i < CPU_TRACE_ARMED && strcmp(p->armed[i].id, id); i++)
		;
	if (i == CPU_TRACE_ARMED) {
		i = p->narmed;
		p->narmed = (p->narmed + 1) % CPU_TRACE_ARMED;
	}
	snprintf(p->armed[i].id, sizeof(p->armed[i].id), "%s", id);
	p->armed[i].own = !r->irq && is_self(p, r->pid);
}

/*
 * Whether a process_timeout expiry is of a timer armed on the CPU: 0
 * no, 1 yes, 2 yes and by this process. It is followed no more.
 */
static int sleep_was_armed(struct cpu_trace_parser *p, const char *f)
{
	char id[sizeof(p->armed[0].id)];

	timer_id(f, id, sizeof(id));
	for (int i = 0; id[0] && i < CPU_TRACE_ARMED; i++)
		if (!strcmp(p->armed[i].id, id)) {
			p->armed[i].id[0] = '\0';
			return p->armed[i].own ? 2 : 1;
		}
	return 0;
}

void timer_softirq_trace_parse_line(struct cpu_trace_parser *p, const char *line)
{
	struct cpu_trace_counts *c = p->c;
	struct trace_record r;
	const char *f, *v;
	long vec;

	if (!*line || *line == '#' || *line == '\n')
		return;
	c->lines++;
	if (trace_record_parse(line, &r)) {
		c->unparsed++;
		return;
	}
	f = r.fields;
	if (!strcmp(r.event, "ipi_send_cpu")) {
		if (trace_field_long(f, "cpu", -1) == p->cpu)
			ipi_seen(p, &r);
		return;
	}
	if (!strcmp(r.event, "ipi_send_cpumask")) {
		v = trace_field(f, "cpumask");
		if (v && mask_has(v, p->cpu))
			ipi_seen(p, &r);
		return;
	}
	if (r.cpu != p->cpu) {
		if (!strcmp(r.event, "timer_expire_entry") &&
		    trace_field_is(f, "function", "process_timeout") && sleep_was_armed(p, f))
			c->sleep_expiries_elsewhere++;
		return;
	}
	vec = trace_field_long(f, "vec", -1);
	if (!strcmp(r.event, "softirq_raise") && vec == 1) {
		c->timer_raised++;
		p->pending++;
	} else if (!strcmp(r.event, "softirq_entry") && vec == 1) {
		c->timer_runs++;
		p->in_run = true;
		p->run_raised = p->pending;
		p->pending = 0;
		p->run_expiries = 0;
		p->run_sleep = false;
		p->run_own_sleep = false;
	} else if (!strcmp(r.event, "softirq_entry") && vec == 8) {
		c->hrtimer_runs++;
	} else if (!strcmp(r.event, "softirq_exit") && vec == 1) {
		if (p->in_run && p->run_sleep)
			c->sleep_runs++;
		if (p->in_run && p->run_own_sleep)
			c->own_sleep_runs++;
		if (p->in_run && p->run_expiries)
			c->runs_with_expiry++;
		else if (p->in_run)
			c->raised_without_expiry += p->run_raised;
		p->in_run = false;
	} else if (!strcmp(r.event, "timer_expire_entry")) {
		c->timer_expiries++;
		if (trace_field_is(f, "function", "process_timeout")) {
			c->sleep_expiries++;
			p->run_sleep = true;
			p->run_own_sleep |= sleep_was_armed(p, f) == 2;
		}
		p->run_expiries++;
	} else if (!strcmp(r.event, "timer_start")) {
		if (trace_field_is(f, "function", "process_timeout"))
			sleep_armed(p, &r);
	} else if (!strcmp(r.event, "hrtimer_expire_entry")) {
		c->hrtimer_expiries++;
		c->ticks += trace_field_is(f, "function", "tick_nohz_handler") ||
			    trace_field_is(f, "function", "tick_sched_timer");
	} else if (!strcmp(r.event, "tick_stop")) {
		tick_stop_seen(c, f);
	}
}

void timer_softirq_trace_parse_end(struct cpu_trace_parser *p)
{
	p->c->raised_unrun = p->pending + (p->in_run ? p->run_raised : 0);
	p->pending = 0;
	p->in_run = false;
}

void timer_softirq_trace_add(struct cpu_trace_counts *sum, const struct cpu_trace_counts *c)
{
	sum->timer_raised += c->timer_raised;
	sum->timer_runs += c->timer_runs;
	sum->hrtimer_runs += c->hrtimer_runs;
	sum->timer_expiries += c->timer_expiries;
	sum->sleep_expiries += c->sleep_expiries;
	sum->sleep_runs += c->sleep_runs;
	sum->own_sleep_runs += c->own_sleep_runs;
	sum->sleep_armed += c->sleep_armed;
	sum->sleep_expiries_elsewhere += c->sleep_expiries_elsewhere;
	sum->hrtimer_expiries += c->hrtimer_expiries;
	sum->ticks += c->ticks;
	sum->tick_stopped += c->tick_stopped;
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		sum->tick_kept[i] += c->tick_kept[i];
	sum->raised_without_expiry += c->raised_without_expiry;
	sum->runs_with_expiry += c->runs_with_expiry;
	sum->raised_unrun += c->raised_unrun;
	sum->ipis += c->ipis;
	sum->ipis_self += c->ipis_self;
	sum->ipis_self_resched += c->ipis_self_resched;
	if (c->self_callsite[0])
		memcpy(sum->self_callsite, c->self_callsite, sizeof(sum->self_callsite));
	for (int i = 0; i < c->ncb; i++) {
		int j;

		for (j = 0; j < sum->ncb && strcmp(sum->cb[j].callback, c->cb[i].callback); j++)
			;
		if (j == sum->ncb) {
			if (sum->ncb == CPU_TRACE_CALLBACKS)
				j = CPU_TRACE_CALLBACKS - 1;
			else
				sum->cb[sum->ncb++] = (struct cpu_trace_ipi){ 0 };
			if (!sum->cb[j].n)
				snprintf(sum->cb[j].callback, sizeof(sum->cb[j].callback),
					 "%s", c->cb[i].callback);
		}
		sum->cb[j].n += c->cb[i].n;
		sum->cb[j].self += c->cb[i].self;
	}
	sum->lines += c->lines;
	sum->unparsed += c->unparsed;
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

static int set_on(struct cpu_trace *t, const char *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/tracing_on", t->ti.dir);
	return write_file(path, v);
}

/*
 * Enable @event with @filter, else (a kernel without that filter
 * syntax) unfiltered: the parser applies the same filter to each record.
 */
static int enable(struct cpu_trace *t, const char *event, const char *filter,
		  char *err, size_t errlen)
{
	if (!trace_instance_enable(&t->ti, event, filter, err, errlen))
		return 0;
	if (strstr(err, "no such tracepoint") ||
	    trace_instance_enable(&t->ti, event, NULL, err, errlen))
		return -1;
	if (t->nnotes < 4)
		snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
			 "%s: filter '%s' refused by the kernel: filtered in user space",
			 event, filter);
	return 0;
}

int timer_softirq_trace_open(struct cpu_trace *t, int cpu, char *err, size_t errlen)
{
	static const char *const events[][2] = {
		{ "irq:softirq_raise", "vec == 1 && CPU == %d" },
		{ "irq:softirq_entry", "CPU == %d" },
		{ "irq:softirq_exit", "CPU == %d" },
		{ "timer:tick_stop", "CPU == %d" },
	};
	char filter[128], e[160];
	unsigned long long sleep_fn, wake_fn;
	char path[300];

	memset(t, 0, sizeof(*t));
	t->cpu = cpu;
	if (trace_instance_create(&t->ti, "isolbench-timer", err, errlen))
		return -1;
	if (set_on(t, "0")) {
		snprintf(err, errlen, "%s/tracing_on: %s", t->ti.dir, strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(filter, sizeof(filter), events[i][1], cpu);
		if (enable(t, events[i][0], filter, err, errlen))
			goto fail;
	}
	/*
	 * The process_timeout timers armed on the CPU, and the timer-wheel
	 * expiries there and, of process_timeout, anywhere: the parser
	 * follows each armed timer to the CPU that expires it.
	 */
	if (ksym_addr("process_timeout", &sleep_fn)) {
		snprintf(filter, sizeof(filter), "CPU == %d", cpu);
		if (enable(t, "timer:timer_expire_entry", filter, err, errlen))
			goto fail;
		if (t->nnotes < 4)
			snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
				 "no process_timeout in /proc/kallsyms: its expiries on other CPUs are not seen");
	} else {
		snprintf(filter, sizeof(filter), "CPU == %d || function == 0x%llx", cpu, sleep_fn);
		if (enable(t, "timer:timer_expire_entry", filter, err, errlen))
			goto fail;
		snprintf(filter, sizeof(filter), "CPU == %d && function == 0x%llx", cpu, sleep_fn);
		if (enable(t, "timer:timer_start", filter, err, errlen))
			goto fail;
	}
	/*
	 * The hrtimer expiries on the CPU, and the sleepers' timers armed
	 * there, followed to the CPU that expires them (a nohz_full CPU's
	 * may be queued on a housekeeping one): timer_softirq_gaps.c.
	 */
	if (ksym_addr("hrtimer_wakeup", &wake_fn)) {
		snprintf(filter, sizeof(filter), "CPU == %d", cpu);
		if (enable(t, "timer:hrtimer_expire_entry", filter, err, errlen))
			goto fail;
	} else {
		snprintf(filter, sizeof(filter), "CPU == %d || function == 0x%llx", cpu, wake_fn);
		if (enable(t, "timer:hrtimer_expire_entry", filter, err, errlen))
			goto fail;
		snprintf(filter, sizeof(filter), "CPU == %d && function == 0x%llx", cpu, wake_fn);
		if (enable(t, "timer:hrtimer_start", filter, err, errlen))
			goto fail;
	}
	/* the IPIs sent to the CPU, from any CPU (6.3+) */
	snprintf(filter, sizeof(filter), "cpu == %d", cpu);
	t->have_ipi_cpu = !enable(t, "ipi:ipi_send_cpu", filter, e, sizeof(e));
	if (!t->have_ipi_cpu)
		snprintf(t->ipi_error, sizeof(t->ipi_error), "%s", e);
	snprintf(filter, sizeof(filter), "cpumask & CPUS{%d}", cpu);
	t->have_ipi_mask = !enable(t, "ipi:ipi_send_cpumask", filter, e, sizeof(e));
	if (!t->have_ipi_mask && !*t->ipi_error)
		snprintf(t->ipi_error, sizeof(t->ipi_error), "%s", e);
	snprintf(path, sizeof(path), "%s/trace_pipe", t->ti.dir);
	t->ti.pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->ti.pipe_fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	trace_instance_remove(&t->ti);
	return -1;
}

/* One record of a window: its counts, and what ran for the noise. */
static void window_line(struct cpu_trace *t, struct cpu_trace_parser *p, const char *line)
{
	timer_softirq_trace_parse_line(p, line);
	if (t->noise)
		timer_softirq_gaps_timeline_line(&t->tl, t->ns, line);
}

/* Read what is buffered, each line to @p (NULL: discard). */
static int drain(struct cpu_trace *t, struct cpu_trace_parser *p)
{
	static char buf[65536];
	size_t have = 0;
	ssize_t n;

	while ((n = trace_instance_read(&t->ti, buf + have, sizeof(buf) - 1 - have, 0)) > 0) {
		char *line = buf, *nl;

		have += n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (p)
				window_line(t, p, line);
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: dropped */
	}
	if (have && p) {
		buf[have] = '\0';
		window_line(t, p, buf);
	}
	return n < 0 ? -1 : 0;
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

/* This process's threads, the senders of IPIs that are ours. */
static void self_threads(struct cpu_trace_parser *p)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	p->nself = 0;
	while (d && (de = readdir(d)) && p->nself < CPU_TRACE_SELF)
		if (isdigit((unsigned char)de->d_name[0]))
			p->self[p->nself++] = (pid_t)strtol(de->d_name, NULL, 10);
	if (d)
		closedir(d);
}

int timer_softirq_trace_end(struct cpu_trace *t, struct cpu_trace_counts *c)
{
	struct cpu_trace_parser p;
	int ret = set_on(t, "0") ? trace_failed(t, "tracing_on (0)") : 0;

	t->off_ns = mono_ns();
	timer_softirq_trace_parse_begin(&p, t->cpu, c);
	self_threads(&p);
	if (t->noise)
		timer_softirq_gaps_timeline_begin(&t->tl, t->cpu, t->loop_tid);
	if (drain(t, &p) && !ret)
		ret = trace_failed(t, "trace_pipe");
	timer_softirq_trace_parse_end(&p);
	if (t->noise)
		timer_softirq_gaps_timeline_end(&t->tl, t->ns, t->off_ns);
	c->lost = trace_instance_overruns(&t->ti) - t->lost0;
	return ret;
}

void timer_softirq_trace_close(struct cpu_trace *t)
{
	trace_instance_remove(&t->ti);
	timer_softirq_gaps_timeline_free(&t->tl);
}

int timer_softirq_trace_noise(struct cpu_trace *t, char *err, size_t errlen)
{
	static const char *const events[][2] = {
		{ "irq:irq_handler_entry", "CPU == %d" },
		{ "irq:irq_handler_exit", "CPU == %d" },
		{ "sched:sched_switch", "CPU == %d" },
	};
	static const char *const stacks[][2] = {
		{ "ipi/ipi_send_cpu", "stacktrace if callback != 0 && cpu == %d" },
		{ "ipi/ipi_send_cpumask", "stacktrace if callback != 0 && cpumask & CPUS{%d}" },
	};
	char filter[96], path[400];

	/* records on the clock the busy loop reads: CLOCK_MONOTONIC */
	if (trace_instance_clock(&t->ti, "mono")) {
		snprintf(err, errlen, "%s/trace_clock: no 'mono' clock: %s", t->ti.dir, strerror(errno));
		return -1;
	}
	/* the CPU's own records: room for a busy second's interrupts, nothing lost */
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/buffer_size_kb", t->ti.dir, t->cpu);
	if (write_file(path, "16384") && t->nnotes < 4)
		snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
			 "cpu %d's trace buffer left at its default size: %s", t->cpu, strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(filter, sizeof(filter), events[i][1], t->cpu);
		if (enable(t, events[i][0], filter, err, errlen))
			return -1;
	}
	/* the system vectors of x86 (timer, IPIs, irq_work ...), where they exist */
	snprintf(path, sizeof(path), "%s/events/irq_vectors", t->ti.dir);
	if (!access(path, F_OK)) {
		snprintf(filter, sizeof(filter), "CPU == %d", t->cpu);
		snprintf(path, sizeof(path), "%s/events/irq_vectors/filter", t->ti.dir);
		if (write_file(path, filter) && t->nnotes < 4)
			snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
				 "irq_vectors: filter '%s' refused: every CPU's vectors recorded", filter);
		snprintf(path, sizeof(path), "%s/events/irq_vectors/enable", t->ti.dir);
		if (write_file(path, "1")) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	} else if (t->nnotes < 4) {
		snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
			 "no irq_vectors events: system interrupts are seen by their softirqs and threads only");
	}
	/* where the IPIs to the CPU came from: their senders' stacks */
	if (t->have_ipi_cpu && !ipi_stacks_reliable(path, sizeof(path)) && t->nnotes < 4)
		snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
			 "IPIs to cpu %d named by their call site: the guess unwinder's stacks are not true",
			 t->cpu);
	for (size_t i = 0; t->have_ipi_cpu && ipi_stacks_reliable(path, sizeof(path)) &&
	     i < ARRAY_SIZE(stacks); i++) {
		snprintf(filter, sizeof(filter), stacks[i][1], t->cpu);
		snprintf(path, sizeof(path), "%s/events/%s/trigger", t->ti.dir, stacks[i][0]);
		if (write_file(path, filter) && t->nnotes < 4) {
			snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]),
				 "no stacks of the IPIs to cpu %d (%s trigger: %.40s): named by their call site",
				 t->cpu, stacks[i][0], strerror(errno));
			break;
		}
	}
	t->noise = true;
	return 0;
}
