// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of timer_softirq_trace.c: trace_pipe records counted for one CPU,
 * the IPIs sent to it told apart by sender, and the timer-softirq thread's rule (TIMER
 * softirq raised only for due timers) passing on a kernel that follows it
 * and failing on one that raises on every tick.
 */
#include <stdio.h>
#include <string.h>

#include "timer_softirq_trace.h"
#include "lib/base/ktap.h"

#define TICK	"          spin-900     [001] d.h..  %llu.%06u: hrtimer_expire_entry: hrtimer=00000000be45f5df function=tick_nohz_handler now=1590656015487"
#define RAISE	"          spin-900     [001] d.h..  %llu.%06u: softirq_raise: vec=1 [action=TIMER]"
#define ENTRY	"          spin-900     [001] ..s..  %llu.%06u: softirq_entry: vec=1 [action=TIMER]"
#define EXPIRE	"          spin-900     [001] ..s..  %llu.%06u: timer_expire_entry: timer=000000009145a02e function=%s now=4295290688 baseclk=4295290688"
#define EXIT	"          spin-900     [001] ..s..  %llu.%06u: softirq_exit: vec=1 [action=TIMER]"

static void line(struct cpu_trace_parser *p, const char *fmt, unsigned long long s,
		 const char *fn)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, s, 0u, fn);
	timer_softirq_trace_parse_line(p, buf);
}

/*
 * @ticks ticks on cpu 1; every @due-th has a timer due (process_timeout
 * every other time); @every: the tick raises TIMER on every tick.
 */
static void kernel(struct cpu_trace_counts *c, int ticks, int due, bool every)
{
	struct cpu_trace_parser p = { 0 };

	timer_softirq_trace_parse_begin(&p, 1, c);
	for (int t = 1; t <= ticks; t++) {
		bool is_due = t % due == 0;

		line(&p, TICK, t, NULL);
		if (!is_due && !every)
			continue;
		line(&p, RAISE, t, NULL);
		line(&p, ENTRY, t, NULL);
		if (is_due)
			line(&p, EXPIRE, t, t % (2 * due) ? "process_timeout" : "delayed_work_timer_fn");
		line(&p, EXIT, t, NULL);
	}
	timer_softirq_trace_parse_end(&p);
}

/* The rule on a kernel that raises when due, and on one that raises every tick. */
static void raise_rule(struct cpu_trace_counts *good, struct cpu_trace_counts *bad)
{
	/* 6.18 as measured for the issue: ~1 tick in 13 has a timer due */
	kernel(good, 2000, 13, false);
	ksft_test_result(good->ticks == 2000 && good->timer_raised == 153 &&
			 good->timer_runs == 153 && good->timer_expiries == 153 &&
			 good->raised_without_expiry == 0 && good->runs_with_expiry == 153,
			 "raise only when due: 2000 ticks, 153 raised, run and expired (got %llu %llu %llu %llu, %llu without)",
			 (unsigned long long)good->ticks, (unsigned long long)good->timer_raised,
			 (unsigned long long)good->timer_runs,
			 (unsigned long long)good->timer_expiries,
			 (unsigned long long)good->raised_without_expiry);
	ksft_test_result(good->sleep_expiries == 77 && good->sleep_runs == 77,
			 "process_timeout expiries and the runs that had one told apart (got %llu, %llu)",
			 (unsigned long long)good->sleep_expiries, (unsigned long long)good->sleep_runs);
	ksft_test_result(timer_softirq_trace_raise_ok(good, 0.25), "the rule passes on that kernel");

	/* the timer-softirq thread's "before": raised on every tick */
	kernel(bad, 2000, 13, true);
	ksft_test_result(bad->timer_raised == 2000 && bad->raised_without_expiry == 1847,
			 "raise on every tick: 2000 raised, 1847 ran no timer (got %llu, %llu)",
			 (unsigned long long)bad->timer_raised,
			 (unsigned long long)bad->raised_without_expiry);
	ksft_test_result(!timer_softirq_trace_raise_ok(bad, 0.25),
			 "the rule fails on a kernel that raises on every tick");
	ksft_test_result(!timer_softirq_trace_raise_ok(bad, 0.9) && timer_softirq_trace_raise_ok(bad, 0.95),
			 "the bound is per tick (0.9 fails, 0.95 passes at 0.92/tick)");
}

/* nohz_full: the edges of a window without a tick. */
static void no_tick(void)
{
	struct cpu_trace_parser p = { 0 };
	struct cpu_trace_counts c;

	/* nohz_full: no tick, one stray raise; a run cut by the window's end */
	timer_softirq_trace_parse_begin(&p, 1, &c);
	line(&p, RAISE, 1, NULL);
	line(&p, ENTRY, 1, NULL);
	line(&p, EXIT, 1, NULL);
	line(&p, RAISE, 2, NULL);
	timer_softirq_trace_parse_end(&p);
	ksft_test_result(c.ticks == 0 && c.raised_without_expiry == 1 && c.raised_unrun == 1 &&
			 timer_softirq_trace_raise_ok(&c, 0.25),
			 "no tick: a stray raise and one after the window stay within the edge allowance");
}

static const char *cb_name(const struct cpu_trace_counts *c, int i)
{
	return tally_slot_name(&c->cb_names, i);
}

/* IPIs to the target told apart by sender; other CPUs' records ignored. */
static void ipis_by_sender(void)
{
	struct cpu_trace_parser p = { 0 };
	struct cpu_trace_counts c;

	/* other CPUs' records are not the target's; IPIs to it are, by sender */
	timer_softirq_trace_parse_begin(&p, 1, &c);
	p.self[p.nself++] = 4242;
	timer_softirq_trace_parse_line(&p, "             cc1-11108   [000] .Ns..  1593.834797: softirq_entry: vec=1 [action=TIMER]");
	timer_softirq_trace_parse_line(&p, "             cc1-11108   [000] .Ns..  1593.834799: timer_expire_entry: timer=000000003a97a9c6 function=process_timeout now=4295290684 baseclk=4295290683");
	timer_softirq_trace_parse_line(&p, "            bash-11115   [000] d..2.  1593.827016: ipi_send_cpu: cpu=1 callsite=update_curr+0x80/0x140 callback=0x0");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-4242    [000] d..2.  1593.827016: ipi_send_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x20");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-4242    [000] d..2.  1593.827016: ipi_send_cpu: cpu=0 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x20");
	timer_softirq_trace_parse_line(&p, "    kworker/0:1-77      [000] d..2.  1593.9: ipi_send_cpumask: cpumask=00000000,0000000b callsite=on_each_cpu_cond_mask+0x2a/0x40 callback=do_sync_core+0x0/0x30");
	timer_softirq_trace_parse_line(&p, "    kworker/0:1-77      [000] d..2.  1593.9: ipi_send_cpumask: cpumask=0000000c callsite=on_each_cpu_cond_mask+0x2a/0x40 callback=do_sync_core+0x0/0x30");
	/* a reschedule from our thread: ours, told apart */
	timer_softirq_trace_parse_line(&p, "   timer_softirq-4242    [000] d..2.  1593.9: ipi_send_cpu: cpu=1 callsite=update_curr+0x80/0x140 callback=0x0");
	/* a timer interrupt that hit our thread sends it: not ours */
	timer_softirq_trace_parse_line(&p, "   timer_softirq-4242    [000] d.h2.  1593.9: ipi_send_cpu: cpu=1 callsite=dl_task_timer+0x1/0x2 callback=0x0");
	timer_softirq_trace_parse_line(&p, "garbage without a cpu column");
	timer_softirq_trace_parse_end(&p);
	ksft_test_result(c.timer_runs == 0 && c.timer_expiries == 0,
			 "records of another CPU are not counted");
	ksft_test_result(c.ipis == 5 && c.ipis_self == 2 && c.ipis_self_resched == 1 &&
			 !strcmp(c.self_callsite, "update_curr"),
			 "IPIs to cpu 1: 5 (cpu and cpumask targets), 2 sent by this process, not in an interrupt, 1 of them a reschedule (got %llu, %llu)",
			 (unsigned long long)c.ipis, (unsigned long long)c.ipis_self);
	ksft_test_result(c.cb_names.n == 4 && !strcmp(cb_name(&c, 0), "update_curr") &&
			 c.cb[0].self == 1 &&
			 !strcmp(cb_name(&c, 1), "generic_smp_call_function_single_interrupt") &&
			 c.cb[1].self == 1 && !strcmp(cb_name(&c, 2), "do_sync_core") &&
			 !strcmp(cb_name(&c, 3), "dl_task_timer") && !c.cb[3].self && !c.cb_other.n,
			 "IPIs by callback, a reschedule (0x0) by its call site");
	ksft_test_result(c.lines == 10 && c.unparsed == 1, "unparsed records counted (%llu of %llu)",
			 (unsigned long long)c.unparsed, (unsigned long long)c.lines);
}

/* The control's sleeps followed to the CPU that expires them. */
static void sleeps_followed(void)
{
	struct cpu_trace_parser p = { 0 };
	struct cpu_trace_counts c;

	/*
	 * process_timeout timers armed on cpu 1, followed to the CPU that
	 * expires them (6.12's timer migration pulls them when cpu 1's tick
	 * is late); an expiry elsewhere of a timer not armed there is not one
	 */
	timer_softirq_trace_parse_begin(&p, 1, &c);
	p.nself = 1;
	p.self[0] = 187;
	timer_softirq_trace_parse_line(&p, "   timer_softirq-187     [001] d..1.    16.826446: timer_start: timer=00000000e748286d function=process_timeout expires=4294896399 [timeout=1] bucket_expiry=4294896400 cpu=1 idx=16 flags=");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-179     [000] ..s..    16.918741: timer_expire_entry: timer=00000000e748286d function=process_timeout now=4294896421 baseclk=4294896400");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-187     [001] d..1.    16.920000: timer_start: timer=000000007b366680 function=process_timeout expires=4294896423 [timeout=1] bucket_expiry=4294896424 cpu=1 idx=34 flags=");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.923990: softirq_entry: vec=1 [action=TIMER]");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.924000: timer_expire_entry: timer=000000007b366680 function=process_timeout now=4294896424 baseclk=4294896424");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.924010: softirq_exit: vec=1 [action=TIMER]");
	/* another task's sleep on cpu 1, expired there: not the control's */
	timer_softirq_trace_parse_line(&p, "              cc-900     [001] d..1.    16.924100: timer_start: timer=00000000aaaa0001 function=process_timeout expires=4294896425 [timeout=1] bucket_expiry=4294896426 cpu=1 idx=35 flags=");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.928000: softirq_entry: vec=1 [action=TIMER]");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.928010: timer_expire_entry: timer=00000000aaaa0001 function=process_timeout now=4294896426 baseclk=4294896426");
	timer_softirq_trace_parse_line(&p, "   timer_softirq-186     [001] ..s..    16.928020: softirq_exit: vec=1 [action=TIMER]");
	timer_softirq_trace_parse_line(&p, "          <idle>-0       [000] ..s1.    16.925000: timer_expire_entry: timer=000000001071632c function=process_timeout now=4294896424 baseclk=4294896424");
	/* the same timer expiring twice elsewhere is one expiry of ours */
	timer_softirq_trace_parse_line(&p, "   timer_softirq-179     [000] ..s..    16.926000: timer_expire_entry: timer=00000000e748286d function=process_timeout now=4294896425 baseclk=4294896425");
	timer_softirq_trace_parse_end(&p);
	ksft_test_result(c.sleep_armed == 3 && c.sleep_expiries == 2 && c.sleep_expiries_elsewhere == 1 &&
			 c.timer_expiries == 2,
			 "process_timeout armed on cpu 1: 3, expired there 2, elsewhere 1 (got %llu %llu %llu)",
			 (unsigned long long)c.sleep_armed, (unsigned long long)c.sleep_expiries,
			 (unsigned long long)c.sleep_expiries_elsewhere);
	ksft_test_result(c.sleep_runs == 2 && c.own_sleep_runs == 1,
			 "TIMER softirq runs that expired a process_timeout: 2, of this process's timers 1 (got %llu, %llu)",
			 (unsigned long long)c.sleep_runs, (unsigned long long)c.own_sleep_runs);
}

/* The control's rule: every timeout explained by an expiry somewhere. */
static void control_rule(void)
{
	struct cpu_trace_counts c;

	c = (struct cpu_trace_counts){ .windows = 5, .sleep_expiries = 1069,
				       .sleep_expiries_elsewhere = 17 };
	ksft_test_result(timer_softirq_trace_sleep_ok(&c, 1091) && !timer_softirq_trace_sleep_ok(&c, 1092),
			 "control rule: 1091 timeouts explained by 1069 + 17 elsewhere + 5 window edges, not 1092");
	c = (struct cpu_trace_counts){ .windows = 5, .sleep_expiries = 1069 };
	ksft_test_result(!timer_softirq_trace_sleep_ok(&c, 1091),
			 "control rule fails when 22 timeouts have no expiry anywhere");
	c = (struct cpu_trace_counts){ .windows = 5, .sleep_expiries = 500,
				       .sleep_expiries_elsewhere = 591 };
	ksft_test_result(!timer_softirq_trace_sleep_ok(&c, 1091),
			 "control rule fails when most timers expired on other cpus");
}

/* The expiry of tally @kind under @fn (0 when not there). */
static uint64_t expired_n(const struct cpu_trace_counts *c, int kind, const char *fn)
{
	const struct tally *t = &c->expired[kind];

	for (int i = 0; i < t->names.n; i++)
		if (!strcmp(tally_slot_name(&t->names, i), fn))
			return t->n[i];
	return 0;
}

/* Each expiry on the CPU under its timer's function. */
static void expiries_by_function(const struct cpu_trace_counts *good)
{
	ksft_test_result(expired_n(good, CPU_TRACE_HRTIMER, "tick_nohz_handler") == 2000 &&
			 good->expired[CPU_TRACE_HRTIMER].names.n == 1 &&
			 expired_n(good, CPU_TRACE_TIMER, "process_timeout") == 77 &&
			 expired_n(good, CPU_TRACE_TIMER, "delayed_work_timer_fn") == 76 &&
			 good->expired[CPU_TRACE_TIMER].names.n == 2 && !good->expired[CPU_TRACE_TIMER].other,
			 "expiries by function: the tick's hrtimer 2000, process_timeout 77, delayed_work_timer_fn 76");
}

#define TICK_STOP "          spin-900     [%03d] d.h..  1.000000: tick_stop: success=%d dependency=%s"

/* tick_stop records of cpu 1 (and one of cpu 2) into @c. */
static void tick_stops(struct cpu_trace_counts *c, const char *const *deps, int n)
{
	struct cpu_trace_parser p = { 0 };
	char buf[256];

	timer_softirq_trace_parse_begin(&p, 1, c);
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), TICK_STOP, 1, !strcmp(deps[i], "NONE"), deps[i]);
		timer_softirq_trace_parse_line(&p, buf);
	}
	snprintf(buf, sizeof(buf), TICK_STOP, 2, 0, "SCHED");
	timer_softirq_trace_parse_line(&p, buf);
	timer_softirq_trace_parse_end(&p);
}

/*
 * Each refusal counted under its dependency (one this program does not
 * name as unknown), and the tick phase's rule: the planted dependency
 * first, failing when tick_stop names another.
 */
static void tick_kept(void)
{
	static const char *const posix[] = {
		"POSIX_TIMER", "POSIX_TIMER", "SCHED", "POSIX_TIMER", "NONE", "0x40"
	};
	static const char *const sched[] = { "SCHED", "SCHED", "SCHED" };
	static const char *const unknown[] = { "0x40", "0x40", "POSIX_TIMER" };
	struct cpu_trace_counts c;

	tick_stops(&c, posix, 6);
	ksft_test_result(c.tick_kept[0] == 3 && c.tick_kept[2] == 1 && c.tick_kept_unknown == 1 &&
			 c.tick_stopped == 1, "tick_stop: refusals by dependency, an unnamed one counted unknown, other cpus' left out");
	ksft_test_result(timer_softirq_trace_kept_for(&c, 0) && !timer_softirq_trace_kept_for(&c, 2) &&
			 !timer_softirq_trace_kept_for(&c, 1),
			 "kept for POSIX_TIMER: the rule passes for it, fails for SCHED (fewer) and PERF_EVENTS (none)");
	tick_stops(&c, sched, 3);
	ksft_test_result(!timer_softirq_trace_kept_for(&c, 0) && timer_softirq_trace_kept_for(&c, 2),
			 "a planted POSIX_TIMER the kernel named SCHED: the rule fails");
	tick_stops(&c, unknown, 3);
	ksft_test_result(!timer_softirq_trace_kept_for(&c, 0),
			 "more refusals for an unnamed dependency than the planted one: the rule fails");
}

/* Windows add up, and a failing sum stays failing. */
static void windows_add(const struct cpu_trace_counts *good, const struct cpu_trace_counts *bad)
{
	struct cpu_trace_counts sum = { 0 };

	timer_softirq_trace_add(&sum, good);
	timer_softirq_trace_add(&sum, bad);
	ksft_test_result(sum.windows == 2 && sum.ticks == 4000 &&
			 sum.raised_without_expiry == 1847 && !timer_softirq_trace_raise_ok(&sum, 0.25) &&
			 expired_n(&sum, CPU_TRACE_HRTIMER, "tick_nohz_handler") == 4000 &&
			 expired_n(&sum, CPU_TRACE_TIMER, "process_timeout") ==
			 77 + expired_n(bad, CPU_TRACE_TIMER, "process_timeout"),
			 "windows add up, their expiries by function too, and the sum still fails");
}

/* One window's IPIs by @n callbacks cb0.., @k each, to cpu 1. */
static void callbacks(struct cpu_trace_counts *c, int n, int k)
{
	struct cpu_trace_parser p = { 0 };
	char buf[200];

	timer_softirq_trace_parse_begin(&p, 1, c);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < k; j++) {
			snprintf(buf, sizeof(buf), "    kworker/0:1-77      [000] d..2.  1593.9: ipi_send_cpu: cpu=1 callsite=x+0x1/0x2 callback=cb%d+0x0/0x30",
				 i);
			timer_softirq_trace_parse_line(&p, buf);
		}
	timer_softirq_trace_parse_end(&p);
}

/* Callbacks beyond the table's counted as the others; windows summed by callback. */
static void callbacks_kept(void)
{
	struct cpu_trace_counts w1, w2, sum = { 0 };
	bool named = true;

	callbacks(&w1, CPU_TRACE_CALLBACKS + 2, 1);
	callbacks(&w2, 3, 2);
	timer_softirq_trace_add(&sum, &w2);
	timer_softirq_trace_add(&sum, &w1);
	for (int i = 0; i < CPU_TRACE_CALLBACKS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "cb%d", i);
		named &= !strcmp(cb_name(&w1, i), name) && w1.cb[i].n == 1 &&
			 !strcmp(cb_name(&sum, i), name) && sum.cb[i].n == (i < 3 ? 3 : 1);
	}
	ksft_test_result(named && w1.cb_names.n == CPU_TRACE_CALLBACKS && w1.cb_other.n == 2 &&
			 w1.ipis == CPU_TRACE_CALLBACKS + 2 && sum.cb_other.n == 2 &&
			 sum.ipis == CPU_TRACE_CALLBACKS + 8,
			 "IPI callbacks beyond the %d kept counted as others; windows summed by callback",
			 CPU_TRACE_CALLBACKS);
}

int main(void)
{
	struct cpu_trace_counts good, bad;

	ksft_print_header();
	ksft_set_plan(23);
	raise_rule(&good, &bad);
	expiries_by_function(&good);
	tick_kept();
	no_tick();
	ipis_by_sender();
	sleeps_followed();
	control_rule();
	windows_add(&good, &bad);
	callbacks_kept();
	ksft_finished();
}
