// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/trace_event.c: fields read by name from
 * trace_pipe text, and the one field of a "(%s)" record; a field a
 * record lacks (an older kernel's tick_stop without its dependency)
 * reported, not read as 0; an event without a row counted. And on this
 * host, when tracing works: one window of a CPU read by both sources,
 * the text one from the instance's "trace" file (read without
 * consuming) and the raw one from trace_pipe_raw, counted alike by
 * timer_softirq's table; and the raw source's symbols and missing
 * fields on a real format, and the frames of its stack records.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timer_softirq_trace.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"
#include "lib/kernel/trace_rows.h"

struct seen {
	uint64_t cpu, timer;
	char fn[64], dep[32];
	bool has_cpu, has_dep, mask1, mask2;
	int calls;
};

static void read_fields(void *ctx, const struct trace_event_record *r)
{
	struct seen *s = ctx;

	s->calls++;
	s->has_cpu = !trace_event_u64(r, "cpu", &s->cpu);
	trace_event_u64(r, "timer", &s->timer);
	if (!trace_event_str(r, "function", s->fn, sizeof(s->fn)))
		trace_event_str(r, "callback", s->fn, sizeof(s->fn));
	s->has_dep = trace_event_str(r, "dependency", s->dep, sizeof(s->dep));
	s->mask1 = trace_event_mask_has(r, "cpumask", 1);
	s->mask2 = trace_event_mask_has(r, "cpumask", 2);
}

static const struct trace_event_row rows[] = {
	{ "timer", "timer_start", NULL, false, read_fields },
	{ "ipi", "ipi_send_cpumask", NULL, false, read_fields },
	{ "timer", "tick_stop", NULL, false, read_fields },
};

/* Fields by name from text, and what a record lacks reported. */
static void text_fields(void)
{
	struct trace_event_table tab = TRACE_EVENT_TABLE(rows);
	struct seen s = { 0 };

	trace_event_dispatch_line(&tab, &s, "   timer_softirq-187     [001] d..1.    16.826446: timer_start: timer=00000000e748286d function=process_timeout expires=4294896399 [timeout=1] bucket_expiry=4294896400 cpu=1 idx=16 flags=");
	ksft_test_result(s.calls == 1 && s.has_cpu && s.cpu == 1 && s.timer == 0xe748286dULL &&
			 !strcmp(s.fn, "process_timeout"),
			 "text: a number, a hashed pointer and a function by name");
	s = (struct seen){ 0 };
	trace_event_dispatch_line(&tab, &s, "    kworker/0:1-77      [000] d..2.  1593.9: ipi_send_cpumask: cpumask=00000000,0000000b callsite=on_each_cpu_cond_mask+0x2a/0x40 callback=do_sync_core+0x0/0x30");
	ksft_test_result(s.mask1 && !s.mask2 && !strcmp(s.fn, "do_sync_core"),
			 "text: a CPU set and a %%pS value (its function) by name");
	ksft_print_msg("missing fields: %llu, the first %s\n",
		       (unsigned long long)tab.missing, tab.missing_what);
	ksft_test_result(tab.missing == 7 && !strcmp(tab.missing_what, "timer_start dependency"),
			 "text: fields the records lack are counted, the first named");
}

struct reason {
	char s[48];
	bool got, has;
};

static void read_reason(void *ctx, const struct trace_event_record *r)
{
	struct reason *x = ctx;

	x->got = trace_event_str(r, "reason", x->s, sizeof(x->s));
	x->has = trace_event_has(r, "reason");
}

static const struct trace_event_row reason_rows[] = {
	{ "ipi", "ipi_entry", NULL, false, read_reason },
};

/* arm64's ipi_entry prints "(%s)" alone: its one field is in the brackets. */
static void text_bracketed(void)
{
	struct trace_event_table tab = TRACE_EVENT_TABLE(reason_rows);
	struct reason x = { 0 };

	trace_event_dispatch_line(&tab, &x, "          spin-900     [001] d.h1.  1000.000300: ipi_entry: (Rescheduling interrupts)");
	ksft_test_result(x.got && !strcmp(x.s, "Rescheduling interrupts") && !x.has && !tab.missing,
			 "text: a \"(%%s)\" record's one string field, blanks and all");
	x = (struct reason){ 0 };
	trace_event_dispatch_line(&tab, &x, "          spin-900     [001] d.h1.  1000.000300: ipi_entry: (Rescheduling interrupts) cpu=1");
	ksft_test_result(!x.got && tab.missing == 1,
			 "text: brackets with more after them are no field: missing, counted");
	x = (struct reason){ 0 };
	trace_event_dispatch_line(&tab, &x, "          spin-900     [001] d.h1.  1000.000300: ipi_entry: (CPU stop (for crash dump) interrupts)");
	ksft_test_result(x.got && !strcmp(x.s, "CPU stop (for crash dump) interrupts"),
			 "text: a \"(%%s)\" field with brackets of its own, whole");
}

/* What a table's rows, its every-record hook and its stack frames were given. */
struct given {
	int softirqs, vectors, stacks, records, frames, stack_ends;
	uint64_t vec;
	char vec_name[16], expires[16], frame[2][32];
	bool vector_has;
};

static void given_softirq(void *ctx, const struct trace_event_record *r)
{
	struct given *g = ctx;

	g->softirqs++;
	trace_event_u64(r, "vec", &g->vec);
	trace_event_str(r, "vec", g->vec_name, sizeof(g->vec_name));
}

static void given_vector(void *ctx, const struct trace_event_record *r)
{
	struct given *g = ctx;

	g->vectors++;
	g->vector_has = trace_event_has(r, "vector") && !trace_event_has(r, "vec");
}

static void given_stack(void *ctx, const struct trace_event_record *r)
{
	((struct given *)ctx)->stacks += !strcmp(r->event, "kernel_stack");
}

static void given_timer(void *ctx, const struct trace_event_record *r)
{
	struct given *g = ctx;

	trace_event_str(r, "expires", g->expires, sizeof(g->expires));
}

static void given_record(void *ctx, const struct trace_event_record *r)
{
	(void)r;
	((struct given *)ctx)->records++;
}

static void given_frame(void *ctx, const char *func)
{
	struct given *g = ctx;

	if (!func)
		g->stack_ends++;
	else if (g->frames < 2)
		snprintf(g->frame[g->frames++], sizeof(g->frame[0]), "%s", func);
	else
		g->frames++;
}

/*
 * A row by pattern after an exact one, a bracketed symbolic name, the
 * hook every record is given, the stacktrace trigger's records and
 * their frames (ended by the next record, or the end).
 */
static void table_rows(void)
{
	static const struct trace_event_row given_rows[] = {
		{ "irq", "softirq_entry", NULL, false, given_softirq },
		{ "ftrace", "kernel_stack", NULL, false, given_stack },
		{ "timer", "timer_start", NULL, false, given_timer },
		{ "irq_vectors", "*_entry", NULL, false, given_vector },
	};
	static const char *const lines[] = {
		"    spin-900  [001] ..s1.  1000.000108: softirq_entry: vec=1 [action=TIMER]",
		"    spin-900  [001] d.h1.  1000.000100: local_timer_entry: vector=236",
		"    spin-900  [001] d..1.  1000.000200: timer_start: timer=00000000e748286d function=process_timeout expires=5 [timeout=1] cpu=1",
		"    a-1  [000] d..1.  1010.000100: <stack trace>",
		" => trace_event_raw_event_ipi_send_cpu",
		" => membarrier_private_expedited+0x1a/0x2b0",
		" => __x64_sys_membarrier",
		"    spin-900  [001] d..2.  1010.000200: sched_switch: prev_comm=spin prev_pid=900",
		"    a-1  [000] d..1.  1010.000300: <stack trace>",
		" => smp_call_function_single",
	};
	struct trace_event_table tab = TRACE_EVENT_TABLE(given_rows);
	struct given g = { 0 };
	int bad = 0;

	tab.each = given_record;
	tab.frame = given_frame;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		bad += trace_event_dispatch_line(&tab, &g, lines[i]) < 0;
	trace_event_dispatch_end(&tab, &g);
	ksft_test_result(!bad && g.softirqs == 1 && g.vectors == 1 && g.vector_has,
			 "text: an exact row takes its event before a pattern row, which takes the rest");
	ksft_test_result(g.vec == 1 && !strcmp(g.vec_name, "TIMER") && !strcmp(g.expires, "5"),
			 "text: a number's bracketed name is its name, a bracketed number is not");
	ksft_print_msg("records %d (unknown %llu), stacks %d, frames %d (%s, %s), ends %d\n",
		       g.records, (unsigned long long)tab.unknown, g.stacks, g.frames,
		       g.frame[0], g.frame[1], g.stack_ends);
	ksft_test_result(g.records == 6 && tab.unknown == 1,
			 "text: every record is given to the table's hook, one without a row too");
	ksft_test_result(g.stacks == 2 && g.frames == 4 && g.stack_ends == 2 &&
			 !strcmp(g.frame[1], "membarrier_private_expedited"),
			 "text: a stack trace is a kernel_stack record, its frames ended by the next record or the end");
	ksft_test_result(trace_event_dispatch_line(&tab, &g, "    spin-900  [001] d..1.  softirq_entry: vec=1") < 0,
			 "text: a record without a timestamp cannot be read");
}

/* An older kernel's tick_stop (no dependency): reported, not counted as a kept tick. */
static void old_tick_stop(void)
{
	struct cpu_trace_parser p = { 0 };
	struct cpu_trace_counts c;
	uint64_t kept = 0;

	timer_softirq_trace_parse_begin(&p, 1, &c);
	timer_softirq_trace_parse_line(&p, "          <idle>-0       [001] d..1.    16.9: tick_stop: success=0");
	timer_softirq_trace_parse_line(&p, "          <idle>-0       [001] d..1.    17.0: tick_stop: success=0 dependency=SCHED");
	timer_softirq_trace_parse_line(&p, "          <idle>-0       [001] d..1.    17.1: no_such_event: x=1");
	timer_softirq_trace_parse_end(&p);
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		kept += c.tick_kept[i];
	ksft_print_msg("missing: %s; unknown %llu of %llu records\n", c.missing_what,
		       (unsigned long long)c.unknown, (unsigned long long)c.lines);
	ksft_test_result(c.missing == 1 && !strcmp(c.missing_what, "tick_stop dependency") &&
			 kept == 1 && c.tick_kept[2] == 1,
			 "a tick_stop without dependency is reported, not read as a kept tick");
	ksft_test_result(c.unknown == 1 && c.lines == 3,
			 "a record of an event without a row is counted");
}

/* The last CPU this process may run on. */
static int last_cpu(void)
{
	cpu_set_t set;
	int last = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			last = i;
	return last;
}

/* 100 short sleeps and a few timer-wheel ones on @cpu: TIMER softirqs, hrtimers, ticks. */
static void sleep_on(int cpu)
{
	struct timespec ts = { 0, 2000000 };
	cpu_set_t old, set;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < 100; i++)
		nanosleep(&ts, NULL);
	sched_setaffinity(0, sizeof(old), &old);
}

/* The instance's "trace" file (read, not consumed) through the text source. */
static void count_text(struct cpu_trace *t, struct cpu_trace_counts *c)
{
	struct cpu_trace_parser p = { 0 };
	char path[300], *txt, *line, *save = NULL;

	timer_softirq_trace_parse_begin(&p, t->cpu, c);
	p.self[p.nself++] = gettid();
	snprintf(path, sizeof(path), "%s/trace", t->ti.dir);
	txt = read_file_all(path, NULL);
	for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		timer_softirq_trace_parse_line(&p, line);
	free(txt);
	timer_softirq_trace_parse_end(&p);
}

static void both_sources(void)
{
	struct cpu_trace_counts text, raw;
	struct cpu_trace t;
	char err[256];
	int cpu = last_cpu();
	bool same;

	if (timer_softirq_trace_open(&t, cpu, err, sizeof(err))) {
		ksft_test_result_skip("one window read by both sources: %s", err);
		return;
	}
	if (!t.raw) {
		ksft_test_result_skip("one window read by both sources: %s", t.raw_error);
		timer_softirq_trace_close(&t);
		return;
	}
	timer_softirq_trace_begin(&t);
	sleep_on(cpu);
	trace_instance_stop(&t.ti);
	count_text(&t, &text);
	timer_softirq_trace_end(&t, &raw);
	timer_softirq_trace_close(&t);
	same = !memcmp(text.n, raw.n, sizeof(text.n)) && text.cb_names.n == raw.cb_names.n;
	for (size_t i = 0; i < ARRAY_SIZE(text.n); i++)
		if (text.n[i] != raw.n[i])
			ksft_print_msg("counter %zu: text %llu raw %llu\n", i,
				       (unsigned long long)text.n[i], (unsigned long long)raw.n[i]);
	ksft_print_msg("cpu %d: %llu records, %llu hrtimer expiries, %llu TIMER runs\n",
		       cpu, (unsigned long long)raw.lines, (unsigned long long)raw.hrtimer_expiries,
		       (unsigned long long)raw.timer_runs);
	ksft_test_result(same && raw.lines > 100 && !raw.missing,
			 "one window read by both sources: the same counts");
}

struct wakeups {
	uint64_t expiries, wakeups;
};

static void hrtimer_expiry(void *ctx, const struct trace_event_record *r)
{
	struct wakeups *w = ctx;
	uint64_t v;

	w->expiries++;
	w->wakeups += trace_event_func_is(r, "function", "hrtimer_wakeup");
	trace_event_u64(r, "dependency", &v);
}

/* The raw source: a function pointer by its symbol; a field the format lacks reported. */
static void raw_fields(void)
{
	static const struct trace_event_row hrtimer_rows[] = {
		{ "timer", "hrtimer_expire_entry", "CPU == %s", false, hrtimer_expiry },
	};
	struct trace_event_table tab = TRACE_EVENT_TABLE(hrtimer_rows);
	struct trace_event_raw *raw = NULL;
	struct trace_instance ti;
	struct wakeups w = { 0 };
	struct trace_rows_on on;
	char err[256], list[16];
	int cpu = last_cpu();

	snprintf(list, sizeof(list), "%d", cpu);
	if (!trace_instance_create(&ti, "isolbench-unit", err, sizeof(err)) &&
	    !trace_rows_enable(&ti, &tab, list, false, &on, err, sizeof(err)))
		raw = trace_event_raw_open(ti.dir, (const struct trace_event_table *[]){ &tab },
					   1, err, sizeof(err));
	if (!raw) {
		ksft_test_result_skip("raw: the symbol of a function pointer: %s", err);
		ksft_test_result_skip("raw: a field the format lacks is reported: %s", err);
		trace_instance_remove(&ti);
		return;
	}
	sleep_on(cpu);
	trace_instance_stop(&ti);
	trace_event_raw_read(raw, &(struct trace_event_reader){ &tab, &w }, 1);
	trace_event_raw_close(raw);
	trace_instance_remove(&ti);
	ksft_print_msg("cpu %d: %llu of %llu expiries are hrtimer_wakeup; missing: %s\n", cpu,
		       (unsigned long long)w.wakeups, (unsigned long long)w.expiries,
		       tab.missing_what);
	ksft_test_result(w.wakeups >= 90, "raw: the symbol of a function pointer");
	ksft_test_result(tab.missing == w.expiries && w.expiries &&
			 !strcmp(tab.missing_what, "timer:hrtimer_expire_entry dependency"),
			 "raw: a field the format lacks is reported, not read as 0");
}

/* The frames of every stack, one "|"-joined line a stack. */
struct stacks {
	char text[16384];
	size_t len;
	int n, frames;
};

static void stack_frame(void *ctx, const char *func)
{
	struct stacks *st = ctx;

	if (st->len + 130 >= sizeof(st->text))
		return;
	if (!func) {
		st->n++;
		st->len += snprintf(st->text + st->len, sizeof(st->text) - st->len, "\n");
		return;
	}
	st->frames++;
	st->len += snprintf(st->text + st->len, sizeof(st->text) - st->len, "%.120s|", func);
}

/* The instance's "trace" file (read, not consumed) through the text source. */
static void stacks_text(const char *dir, struct trace_event_table *tab, struct stacks *st)
{
	char path[300], *txt, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/trace", dir);
	txt = read_file_all(path, NULL);
	for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		trace_event_dispatch_line(tab, st, line);
	trace_event_dispatch_end(tab, st);
	free(txt);
}

/*
 * The raw source: the frames of the stacktrace trigger's records, as
 * many and the same as the text source gives (this thread's switches
 * out, each with its stack).
 */
static void raw_stacks(void)
{
	static const struct trace_event_row switch_rows[] = {
		{ "sched", "sched_switch", NULL, false, NULL },
		{ "ftrace", "kernel_stack", NULL, false, NULL },
	};
	struct trace_event_table text_tab = TRACE_EVENT_TABLE(switch_rows);
	struct trace_event_table raw_tab = TRACE_EVENT_TABLE(switch_rows);
	struct stacks *text = calloc(1, sizeof(*text)), *raw = calloc(1, sizeof(*raw));
	struct trace_event_raw *src = NULL;
	struct trace_instance ti;
	char err[512] = "no memory", path[400], trig[64];

	text_tab.frame = raw_tab.frame = stack_frame;
	snprintf(trig, sizeof(trig), "stacktrace if prev_pid == %d", (int)gettid());
	if (text && raw &&
	    !trace_instance_create(&ti, "isolbench-unit", err, sizeof(err)) &&
	    !trace_instance_enable(&ti, "sched:sched_switch", trig + 14, err, sizeof(err))) {
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/trigger", ti.dir);
		if (write_file(path, trig))
			snprintf(err, sizeof(err), "%s: %s", path, strerror(errno));
		else
			src = trace_event_raw_open(ti.dir,
						   (const struct trace_event_table *[]){ &raw_tab },
						   1, err, sizeof(err));
	}
	if (!src) {
		ksft_test_result_skip("raw: a stack's frames as the text source gives them: %s", err);
		trace_instance_remove(&ti);
		free(text);
		free(raw);
		return;
	}
	sleep_on(last_cpu());
	trace_instance_stop(&ti);
	stacks_text(ti.dir, &text_tab, text);
	trace_event_raw_read(src, &(struct trace_event_reader){ &raw_tab, raw }, 1);
	trace_event_raw_close(src);
	trace_instance_remove(&ti);
	ksft_print_msg("%d stacks, %d frames (text); %d stacks, %d frames (raw)\n",
		       text->n, text->frames, raw->n, raw->frames);
	if (strcmp(text->text, raw->text))
		ksft_print_msg("first stack: text %.200s raw %.200s\n", text->text, raw->text);
	ksft_test_result(raw->n >= 50 && raw->frames >= 3 * raw->n &&
			 !strcmp(text->text, raw->text),
			 "raw: a stack's frames as the text source gives them");
	free(text);
	free(raw);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(17);
	text_fields();
	text_bracketed();
	table_rows();
	old_tick_stop();
	both_sources();
	raw_fields();
	raw_stacks();
	ksft_finished();
}
