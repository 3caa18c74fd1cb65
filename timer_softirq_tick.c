// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq's tick phase: why the tick runs on a nohz_full target,
 * shown by three positive controls. The busy loop runs again, each time
 * with one tick dependency planted beside it, for one counted window;
 * each time tick_stop keeps the tick it names a dependency, and the
 * planted one must come first; where the setters are traced
 * (timer_softirq_deps.h), the function that set it must be named too
 * (it is set as the plant starts, before the window):
 *
 *   posix  the process arms a POSIX CPU-time timer (CLOCK_PROCESS_CPUTIME_ID,
 *          due long after the window): POSIX_TIMER
 *   perf   a perf event sampling by frequency on the target (context
 *          switches): PERF_EVENTS (the kernel adjusts its period from
 *          the tick)
 *   sched  a second busy thread on the target: SCHED (two runnable tasks
 *          share the CPU by the tick)
 *
 * A CPU that is not nohz_full never asks to stop its tick: there the
 * checks SKIP unless --assert-nohz asks for them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/kernel/counters.h"
#include "lib/load/spinner.h"
#include "timer_softirq_phases.h"
#include "timer_softirq_windows.h"

#define PERF_FREQ_HZ	10	/* samples a second: few interruptions of their own */

struct keep {
	struct ts_plant plant;		/* first: the windows hold a pointer to it */
	const char *name;		/* in the # lines: "posix" */
	const char *dep;		/* the dependency tick_stop must name */
	double max_s;			/* the second spinner's own deadline */
	char not_planted[200];		/* why it could not be planted here: its SKIP */
	timer_t timer;
	struct counter ev;
	struct spinner second;
};

static void fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
}

/* A dependency this kernel or machine cannot have planted: its control SKIPs. */
static int plant_refused(struct keep *k, char *err, size_t errlen)
{
	snprintf(k->not_planted, sizeof(k->not_planted), "%s", err);
	snprintf(err, errlen, "%s not planted: %s", k->name, k->not_planted);
	return -1;
}

/* A signal no one handles: the timer is due long after the window. */
static int posix_start(struct ts_plant *p, int cpu, pid_t loop_tid, char *err, size_t errlen)
{
	struct keep *k = (struct keep *)p;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGURG };
	/* SIGEV_NONE timers are never armed: the kernel polls them */
	struct itimerspec due = { .it_value = { .tv_sec = 1000000 } };

	(void)cpu;
	(void)loop_tid;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &k->timer)) {
		fail(err, errlen, "timer_create(CLOCK_PROCESS_CPUTIME_ID)");
		return plant_refused(k, err, errlen);
	}
	if (timer_settime(k->timer, 0, &due, NULL)) {
		fail(err, errlen, "timer_settime");
		timer_delete(k->timer);
		return plant_refused(k, err, errlen);
	}
	return 0;
}

static void posix_stop(struct ts_plant *p)
{
	timer_delete(((struct keep *)p)->timer);
}

static int perf_start(struct ts_plant *p, int cpu, pid_t loop_tid, char *err, size_t errlen)
{
	struct keep *k = (struct keep *)p;

	(void)loop_tid;
	/*
	 * Not cpu-clock or task-clock: the kernel turns their frequency
	 * into a fixed hrtimer period, which needs no tick.
	 */
	if (counter_open_sw_sampling(&k->ev, PERF_COUNT_SW_CONTEXT_SWITCHES, -1, cpu,
				     PERF_FREQ_HZ)) {
		snprintf(err, errlen, "%s", k->ev.error);
		return plant_refused(k, err, errlen);
	}
	if (counter_enable(&k->ev)) {
		fail(err, errlen, "enabling the sampling event");
		counter_close(&k->ev);
		return plant_refused(k, err, errlen);
	}
	return 0;
}

static void perf_stop(struct ts_plant *p)
{
	counter_close(&((struct keep *)p)->ev);
}

static int sched_start(struct ts_plant *p, int cpu, pid_t loop_tid, char *err, size_t errlen)
{
	struct keep *k = (struct keep *)p;

	(void)loop_tid;
	return spinner_start(&k->second, cpu, 0, k->max_s, err, errlen);
}

static void sched_stop(struct ts_plant *p)
{
	spinner_stop(&((struct keep *)p)->second);
}

/* The controls, in the order they run (the windows' keep[]). */
static struct keep keeps[TS_KEEPS] = {
	{ .plant = { posix_start, posix_stop }, .name = "posix", .dep = "POSIX_TIMER" },
	{ .plant = { perf_start, perf_stop }, .name = "perf", .dep = "PERF_EVENTS" },
	{ .plant = { sched_start, sched_stop }, .name = "sched", .dep = "SCHED" },
};

static const char *const tick_checks[TS_KEEPS] = {
	"tick: a POSIX CPU-time timer keeps the tick, for POSIX_TIMER",
	"tick: a perf event sampling by frequency keeps the tick, for PERF_EVENTS",
	"tick: a second runnable task keeps the tick, for SCHED",
};

static unsigned int tick_judged(const void *ctx)
{
	return ((const struct ts_run *)ctx)->tick;
}

/* Asked for on a CPU whose tick could stop (or with --assert-nohz). */
static bool tick_asserted(const struct ts_run *r)
{
	return r->nohz || r->o->assert_nohz;
}

/* "POSIX_TIMER 250, SCHED 3" (the dependencies named), or "none". */
static void kept_list(const struct cpu_trace_counts *t, char *buf, size_t len)
{
	size_t off = 0;

	*buf = '\0';
	for (int i = 0; i < CPU_TRACE_DEPS && off < len; i++)
		if (t->tick_kept[i])
			off += snprintf(buf + off, len - off, "%s%s %llu", off ? ", " : "",
					timer_softirq_trace_dep_names[i],
					(unsigned long long)t->tick_kept[i]);
	if (t->tick_kept_unknown && off < len)
		off += snprintf(buf + off, len - off, "%sunknown %llu", off ? ", " : "",
				(unsigned long long)t->tick_kept_unknown);
	if (!off)
		snprintf(buf, len, "none");
}

static void tick_run(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	char err[512], kept[200];

	if (!tick_asserted(r))
		return;
	if (!r->win)
		timer_softirq_windows_open(b, r);
	for (int i = 0; i < TS_KEEPS && !bench_stop; i++) {
		struct ts_window_set *set = &r->win->keep[i];
		struct keep *k = &keeps[i];
		char what[32];
		struct ts_spin how = { what, set, 1, .plant = &k->plant };

		snprintf(what, sizeof(what), "tick %s", k->name);
		k->max_s = r->o->warmup_s + b->opt.duration_s + 12;
		k->not_planted[0] = '\0';
		if (timer_softirq_windows_spin(b, r, &how, err, sizeof(err)) < 1 &&
		    !bench_stop && !k->not_planted[0])
			ksft_exit_fail_msg("%s window: %s\n", what, err);
		if (k->not_planted[0]) {
			ksft_print_msg("tick cpu %d: %s\n", b->target, err);
			continue;
		}
		if (!set->n)
			break;
		kept_list(&set->sum.t, kept, sizeof(kept));
		ksft_print_msg("tick cpu %d: %s (%s planted): tick_stop kept the tick for %s; stopped it %llu times; %lld local timer interrupts in %.2f s\n",
			       b->target, k->name, k->dep, kept,
			       (unsigned long long)set->sum.t.tick_stopped,
			       (long long)set->sum.w.row[ROW_LOC], set->sum.rows_s);
		timer_softirq_windows_deps_print(what, b->target, r->win, set);
	}
}

/*
 * The control kept the tick for @dep and, where its sets were seen, named
 * who set it (a dependency already set, as PERF_EVENTS is while another
 * frequency event exists, is not set again: no set, nothing to name).
 */
static int kept_verdict(const struct ts_run *r, const struct ts_window_set *set, int dep)
{
	const struct tick_dep_sets *before = &set->sum.deps_before, *inside = &set->sum.deps;
	bool seen = false;

	if (!timer_softirq_trace_kept_for(&set->sum.t, dep))
		return KSFT_FAIL;
	for (int i = 0; i < before->names.n; i++)
		seen |= before->s[i].dep == dep;
	for (int i = 0; i < inside->names.n; i++)
		seen |= inside->s[i].dep == dep;
	if (!r->win->deps.open || !seen)
		return KSFT_PASS;
	return timer_softirq_deps_named(before, dep) || timer_softirq_deps_named(inside, dep) ?
	       KSFT_PASS : KSFT_FAIL;
}

static void tick_verdicts(struct bench *b, void *ctx)
{
	const struct ts_run *r = ctx;
	char why[160];

	if (!tick_asserted(r)) {
		snprintf(why, sizeof(why), "cpu %d is not nohz_full (--assert-nohz asserts it anyway)",
			 b->target);
		phase_skip(b, &timer_softirq_tick_phase, ctx, why);
		return;
	}
	for (int i = 0; i < TS_KEEPS; i++) {
		const struct ts_window_set *set = &r->win->keep[i];
		int dep = 0;

		while (dep < CPU_TRACE_DEPS && strcmp(timer_softirq_trace_dep_names[dep], keeps[i].dep))
			dep++;
		if (keeps[i].not_planted[0])
			phase_verdict(b, &timer_softirq_tick_phase, ctx, 0, i, KSFT_SKIP,
				      keeps[i].not_planted);
		else if (!set->n || bench_stop)	/* a window cut short is not judged */
			phase_verdict(b, &timer_softirq_tick_phase, ctx, 0, i, KSFT_SKIP, "interrupted");
		else
			phase_verdict(b, &timer_softirq_tick_phase, ctx, 0, i,
				      kept_verdict(r, set, dep), NULL);
	}
}

const struct phase timer_softirq_tick_phase = {
	.name = "tick",
	.nverdicts = TS_KEEPS,
	.checks = tick_checks,
	.judged = tick_judged,
	.run = tick_run,
	.verdicts = tick_verdicts,
	.shares = &timer_softirq_windows,	/* opened here when no earlier phase ran */
};
