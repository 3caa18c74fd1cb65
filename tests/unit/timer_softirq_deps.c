// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of timer_softirq_deps.c: the kprobe records of the tick's
 * dependency setters and their stacks (in the format of a Debian 6.12
 * guest with nohz_full=2-3, stacks partly made up) read for target cpu 2: which sets concern
 * it, the setter named below the probed function with tick code
 * skipped, a set whose stack never came named "?", each set placed
 * inside the window, before it or carried to the next read by its time.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timer_softirq_deps.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"

#define KPROBE_FRAMES	" => kprobe_trace_func", " => kprobe_dispatcher", \
			" => kprobe_ftrace_handler", " => 0xffffffffc02c40de"

/* The window is [5 s, 8 s]. */
static const char *const first[] = {
	/* SCHED of cpu 2, before the window: a task moved there */
	"     migration/0-23      [000] d..3.     3.501099: tick_dep_set_cpu: (tick_nohz_dep_set_cpu+0x4/0x90) cpu=2 bit=2",
	"     migration/0-23      [000] d..3.     3.501206: <stack trace>",
	KPROBE_FRAMES,
	" => tick_nohz_dep_set_cpu",
	" => enqueue_task_fair",
	" => enqueue_task",
	" => move_queued_task",
	/* of another CPU: not the target's */
	"          <idle>-0       [000] d.h2.     4.379456: tick_dep_set_cpu: (tick_nohz_dep_set_cpu+0x4/0x90) cpu=3 bit=2",
	"          <idle>-0       [000] d.h2.     4.383776: <stack trace>",
	KPROBE_FRAMES,
	" => tick_nohz_dep_set_cpu",
	" => enqueue_dl_entity",
	/* a task's on another CPU, of another process: not the target's */
	"              sh-179     [001] ..s..     5.475848: tick_dep_set_task: (tick_nohz_dep_set_task+0x4/0x50) bit=4",
	"              sh-179     [001] ..s..     5.476302: <stack trace>",
	KPROBE_FRAMES,
	" => tick_nohz_dep_set_task",
	" => rcu_do_batch",
	/* a process's, on the target, inside: tick code below the probe skipped */
	"   timer_softirq-900     [002] d..1.     6.000000: tick_dep_set_signal: (tick_nohz_dep_set_signal+0x4/0x60) bit=0",
	"   timer_softirq-900     [002] d..1.     6.000010: <stack trace>",
	KPROBE_FRAMES,
	" => tick_nohz_dep_set_signal",
	" => tick_nohz_dep_set_all",
	" => posix_cpu_timer_set",
	" => do_timer_settime",
	/* SCHED of cpu 2 inside, its stack never came (another record came first) */
	"              sh-184     [002] dN.2.     7.395443: tick_dep_set_cpu: (tick_nohz_dep_set_cpu+0x4/0x90) cpu=2 bit=2",
	"              sh-184     [002] d..2.     7.395500: tick_dep_set_cpu: (tick_nohz_dep_set_cpu+0x4/0x90) cpu=2 bit=9",
	/* an IPI's stack, of no set */
	"              sh-184     [000] d..2.     7.500000: <stack trace>",
	" => smp_call_function_single",
	/* every CPU's, after the window: the next read's */
	"            perf-300     [000] d..1.     8.500000: tick_dep_set: (tick_nohz_dep_set+0x4/0x40) bit=1",
	"            perf-300     [000] d..1.     8.500010: <stack trace>",
	KPROBE_FRAMES,
	" => tick_nohz_dep_set",
	" => account_event",
	" => perf_event_alloc",
};

/*
 * This process's own sets, from a housekeeping CPU: its process's
 * concerns the target (the busy loop is of it), a task's not (it was
 * set on the thread it interrupted there: RCU's rcu_do_batch).
 */
static void self_lines(char *sig, char *task, size_t len)
{
	snprintf(sig, len, "       isolbench-%d     [000] d..1.     9.000000: tick_dep_set_signal: (tick_nohz_dep_set_signal+0x4/0x50) bit=0",
		 (int)gettid());
	snprintf(task, len, "       isolbench-%d     [000] ..s1.     9.100000: tick_dep_set_task: (tick_nohz_dep_set_task+0x4/0x50) bit=4",
		 (int)gettid());
}

static void read_lines(struct tick_deps *d, const char *const *lines, size_t n, uint64_t from,
		       uint64_t to, struct tick_dep_sets *in, struct tick_dep_sets *before)
{
	char buf[256];

	timer_softirq_deps_begin(d, from, to, in, before);
	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s", lines[i]);
		timer_softirq_deps_line(d, buf);
	}
	timer_softirq_deps_end(d);
}

/* @n setters f@from.. of dependency @dep, one set each, into @s. */
static void setters(struct tick_dep_sets *s, int dep, int from, int n)
{
	memset(s, 0, sizeof(*s));
	tally_slots_init(&s->names, TICK_DEP_SETTERS);
	for (int i = 0; i < n; i++) {
		char func[16];
		int slot;

		snprintf(func, sizeof(func), "f%d", from + i);
		slot = tally_slot(&s->names, timer_softirq_trace_dep_names[dep], func, NULL);
		s->s[slot] = (struct tick_dep_setter){ .dep = dep, .comm = "t", .n = 1 };
		s->total++;
	}
}

/* A setter is its dependency and function; those beyond the table are "other". */
static void setters_kept(void)
{
	struct tick_dep_sets a, b, sum = { 0 };

	setters(&a, 0, 0, TICK_DEP_SETTERS - 2);
	setters(&b, 2, 0, 4);
	timer_softirq_deps_add(&sum, &a);
	timer_softirq_deps_add(&sum, &b);
	timer_softirq_deps_add(&sum, &b);
	ksft_test_result(sum.names.n == TICK_DEP_SETTERS && sum.total == TICK_DEP_SETTERS + 6 &&
			 sum.other == 4 && timer_softirq_deps_count(&sum, 0, "f1") == 1 &&
			 timer_softirq_deps_count(&sum, 2, "f1") == 2 &&
			 timer_softirq_deps_count(&sum, 2, "f3") == 0,
			 "a setter is its dependency and function; setters beyond the %d kept are other",
			 TICK_DEP_SETTERS);
}

int main(void)
{
	const uint64_t s = 1000000000ULL;
	struct tick_dep_sets in, before, in2, before2, sum = { 0 };
	struct tick_deps d;
	char list[400], sig[200], task[200];
	const char *const second[] = { sig, task };

	ksft_print_header();
	ksft_set_plan(8);
	timer_softirq_deps_init(&d, 2);
	read_lines(&d, first, ARRAY_SIZE(first), 5 * s, 8 * s, &in, &before);
	timer_softirq_deps_list(&before, list, sizeof(list));
	ksft_print_msg("before: %s\n", list);
	ksft_test_result(before.total == 1 && timer_softirq_deps_count(&before, 2, "enqueue_task_fair") == 1 &&
			 !strcmp(before.s[0].comm, "migration/0") && before.s[0].cpu == 0,
			 "a set before the window: SCHED by enqueue_task_fair, from migration/0 on cpu 0");
	timer_softirq_deps_list(&in, list, sizeof(list));
	ksft_print_msg("inside: %s\n", list);
	ksft_test_result(in.total == 3 && timer_softirq_deps_count(&in, 0, "posix_cpu_timer_set") == 1,
			 "inside: the setter below the probed function, tick code skipped; other CPUs' and tasks' left out");
	ksft_test_result(timer_softirq_deps_count(&in, 2, "?") == 1 &&
			 !timer_softirq_deps_named(&in, 2) && timer_softirq_deps_named(&in, 0),
			 "a set whose stack never came is '?': its setter is not named");
	ksft_test_result(timer_softirq_deps_count(&in, CPU_TRACE_DEPS, "?") == 1,
			 "a dependency bit the program does not name is counted unknown");
	self_lines(sig, task, sizeof(sig));
	read_lines(&d, second, 2, 10 * s, 11 * s, &in2, &before2);
	timer_softirq_deps_list(&before2, list, sizeof(list));
	ksft_print_msg("next read, before: %s\n", list);
	ksft_test_result(timer_softirq_deps_count(&before2, 1, "account_event") == 1,
			 "a set after the window is the next read's, before its window");
	ksft_test_result(timer_softirq_deps_count(&before2, 0, "?") == 1 && before2.total == 2 &&
			 in2.total == 0,
			 "this process's process dependency set on another CPU concerns the target, a task one not");
	timer_softirq_deps_add(&sum, &in);
	timer_softirq_deps_add(&sum, &in);
	timer_softirq_deps_add(&sum, &before);
	ksft_test_result(sum.total == 7 && timer_softirq_deps_count(&sum, 0, "posix_cpu_timer_set") == 2,
			 "windows' sets add up by dependency and setter");
	setters_kept();
	ksft_finished();
}
