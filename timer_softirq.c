// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq: does the target CPU stay quiet, and how fast does it
 * wake up? (the timer-softirq thread, "do not raise timer softirq
 * unconditionally": cyclictest latency from 25us to 14us on isolated
 * CPUs; docs/references.md.)
 *
 * quiet    a pure user-space busy loop on the target CPU, no timers armed
 *          by the process, counted in --runs windows on that CPU only by
 *          a trace instance read from a housekeeping thread after each
 *          window (timer_softirq_trace.h: nothing is sent to the target to
 *          count): TIMER softirqs raised against the ticks and the timer
 *          expiries that were due (the timer-softirq thread: raise it
 *          only when a timer is due, on any CPU), softirq runs,
 *          tick_stop, the IPIs sent to the target (none may come from
 *          the counting), local timer interrupts and /proc/softirqs. On
 *          a nohz_full CPU (or with --assert-nohz) the tick must stop
 *          and TIMER softirqs stay within --max-softirqs.
 * control  the same windows with timer-wheel timers armed on the target:
 *          a second thread there blocks in recv() on a silent AF_UNIX
 *          datagram socket with a 1 ms SO_RCVTIMEO, so each call sleeps in
 *          schedule_timeout(), whose timer_list (process_timeout) expires
 *          in a TIMER softirq on that CPU; the same counting must see them.
 *          (poll/select/nanosleep timeouts are hrtimers and would not.)
 * tick     why the tick runs: the busy loop again, one window each with
 *          a tick dependency planted beside it (a POSIX CPU-time timer, a
 *          perf event sampling by frequency, a second runnable task), and
 *          tick_stop must name it when it keeps the tick (nohz_full, or
 *          --assert-nohz).
 * cyclic   cyclictest's measurement, --runs runs: clock_nanosleep
 *          (TIMER_ABSTIME) every interval, latency = wake time -
 *          programmed time, /dev/cpu_dma_latency held at 0 unless
 *          --laptop; then a short counted pass (tracepoint counters are
 *          kept off the measured runs: each counted event costs the
 *          wakeup path).
 *
 * Each phase is timer_softirq_PHASE.c, run from the table below by the
 * harness (lib/harness/phase.h); here are the options, the checks that
 * decide the run and main().
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/util.h"
#include "timer_softirq_common.h"
#include "timer_softirq_phases.h"

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
/*
 * Below this interval a SCHED_FIFO cyclic thread hardly sleeps: without
 * RT throttling (sched_rt_runtime_us -1) it could own its CPU.
 */
#define FIFO_MIN_INTERVAL_US	50
#define MAX_RUNS		1000

enum ts_phase_choice { PH_QUIET, PH_CONTROL, PH_TICK, PH_CYCLIC, PH_ALL };
static const char *const phase_names[] = { "quiet", "control", "tick", "cyclic", "all", NULL };
static const char *const policy_names[] = { "fifo", "other", NULL };

/* The phases, in the order they run (lib/harness/phase.h). */
static const struct phase *const ts_phases[] = {
	&timer_softirq_quiet_phase,	/* also the control's baseline */
	&timer_softirq_control_phase,
	&timer_softirq_tick_phase,
	&timer_softirq_cyclic_phase,
	NULL
};

/* sched_rt_runtime_us is -1: nothing stops a runaway SCHED_FIFO thread */
static bool rt_throttling_off(void)
{
	char *txt = read_file_all(RT_RUNTIME, NULL);
	bool off = txt && strtol(txt, NULL, 10) < 0;

	free(txt);
	return off;
}

/* --quick, the phases asked for, bad combinations, the plan. */
static void ts_check(struct bench *b, struct ts_opts *o, struct ts_run *r)
{
	if (b->opt.quick)
		o->warmup_s = o->warmup_s < 0.3 ? o->warmup_s : 0.3;
	if (b->opt.runs > MAX_RUNS)
		bench_usage_error(b, "--runs %llu: at most %d",
				  (unsigned long long)b->opt.runs, MAX_RUNS);
	r->quiet = o->phase == PH_QUIET || o->phase == PH_ALL;
	r->control = o->phase == PH_CONTROL || o->phase == PH_ALL;
	r->tick = o->phase == PH_TICK || o->phase == PH_ALL;
	r->cyclic = o->phase == PH_CYCLIC || o->phase == PH_ALL;
	if (r->cyclic && o->policy == POL_FIFO && o->interval_us < FIFO_MIN_INTERVAL_US &&
	    rt_throttling_off())
		bench_usage_error(b, "-i %g with SCHED_FIFO needs RT throttling (%s is -1): use -i %d or more, or --policy other",
				  o->interval_us, RT_RUNTIME, FIFO_MIN_INTERVAL_US);
	r->nohz = CPU_ISSET(b->target, &b->sets.nohz_full);
	if (!CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "needs a housekeeping CPU besides cpu %d to count from", b->target);
	phases_plan(b, ts_phases, r);
	snprintf(r->cpu_desc, sizeof(r->cpu_desc), "cpu %d (%s)", b->target,
		 cpu_isolation_name(&b->sets, b->target));
	if (o->assert_nohz && !r->nohz)
		bench_note(b, "--assert-nohz: the nohz_full assertions apply to cpu %d, which is not nohz_full",
			   b->target);
}

/*
 * Options that would do nothing in the phases asked for are refused
 * (lib/harness/opts.h), given at their default value too.
 */
static const struct opt_rule ts_rules[] = {
	/* the cyclic phase's */
	{ "interval", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "priority", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "policy", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "mlockall", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "laptop", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "histogram", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "loops", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "explain", OPT_NEEDS, "phase=cyclic|phase=all" },
	{ "explain-over", OPT_NEEDS, "phase=cyclic|phase=all" },
	/* SCHED_OTHER has no priority (cyclictest -p 0) */
	{ "priority", OPT_CONFLICTS, "policy=other" },
	/* the counted windows' (quiet, and control with its quiet baseline) */
	{ "warmup", OPT_CONFLICTS, "phase=cyclic" },
	{ "perf-counters", OPT_CONFLICTS, "phase=cyclic" },
	{ "noise-threshold", OPT_CONFLICTS, "phase=cyclic" },
	/* the quiet phase's verdicts */
	{ "max-needless-per-tick", OPT_NEEDS, "phase=quiet|phase=all" },
	{ "max-softirqs", OPT_NEEDS, "phase=quiet|phase=all" },
	{ "max-ticks-per-s", OPT_NEEDS, "phase=quiet|phase=all" },
	{ "assert-nohz", OPT_NEEDS, "phase=quiet|phase=tick|phase=all" },
	{ NULL }
};

/* timer_softirq's own options, over @o, into @opts (lib/harness/opts.h). */
#define TS_OPTIONS	16

static void ts_options(struct ts_opts *o, struct opt opts[TS_OPTIONS + 1])
{
	const struct opt table[] = {
		{ .name = "phase", .type = OPT_CHOICE, .dest = &o->phase, .arg = "PHASE",
		  .help = "what to run", .choices = phase_names },
		{ .name = "interval", .key = 'i', .type = OPT_DOUBLE, .dest = &o->interval_us,
		  .arg = "US", .help = "cyclic: wakeup interval in us (cyclictest -i)",
		  .min = 1, .max = 1e7 },
		{ .name = "priority", .key = 'p', .type = OPT_INT, .dest = &o->priority,
		  .arg = "PRIO", .help = "cyclic: SCHED_FIFO priority (cyclictest -p)",
		  .min = 1, .max = 99 },
		{ .name = "policy", .type = OPT_CHOICE, .dest = &o->policy, .arg = "POLICY",
		  .help = "cyclic: scheduling policy (other: cyclictest -p 0)",
		  .choices = policy_names },
		{ .name = "mlockall", .key = 'm', .type = OPT_FLAG, .dest = &o->mlock,
		  .help = "cyclic: lock memory (cyclictest -m)" },
		{ .name = "laptop", .type = OPT_FLAG, .dest = &o->laptop,
		  .help = "cyclic: leave /dev/cpu_dma_latency alone (cyclictest --laptop); default: held at 0 us" },
		{ .name = "histogram", .type = OPT_DOUBLE, .dest = &o->hist_max_us,
		  .arg = "US", .help = "cyclic: histogram range in us, 1 us buckets (cyclictest -h)",
		  .min = 10, .max = 1e6 },
		{ .name = "warmup", .type = OPT_DOUBLE, .dest = &o->warmup_s, .arg = "SECS",
		  .help = "quiet/control: spin this long before the first window", .min = 0, .max = 600 },
		{ .name = "max-needless-per-tick", .type = OPT_DOUBLE,
		  .dest = &o->max_needless_per_tick, .arg = "N",
		  .help = "quiet: TIMER softirq raises whose run expired no timer, per tick",
		  .min = 0, .max = 100 },
		{ .name = "max-softirqs", .type = OPT_UINT, .dest = &o->max_softirqs,
		  .arg = "N", .help = "quiet, nohz_full: TIMER softirqs allowed in a window",
		  .min = 0, .max = 1e9 },
		{ .name = "max-ticks-per-s", .type = OPT_DOUBLE, .dest = &o->max_ticks_per_s,
		  .arg = "N", .help = "quiet, nohz_full: local timer interrupts per s that still count as a stopped tick",
		  .min = 0, .max = 1e4 },
		{ .name = "assert-nohz", .type = OPT_FLAG, .dest = &o->assert_nohz,
		  .help = "quiet, tick: assert the nohz_full bounds and controls even on a CPU that is not nohz_full" },
		{ .name = "noise-threshold", .type = OPT_DOUBLE, .dest = &o->noise_threshold_us,
		  .arg = "US", .min = 0.1, .max = 1e6,
		  .help = "quiet/control: a gap in the busy loop's progress longer than US is noise, attributed to what ran (default 5, as osnoise)" },
		{ .name = "explain", .type = OPT_UINT, .dest = &o->explain_n, .arg = "N",
		  .min = 0, .max = 1000,
		  .help = "cyclic: take apart the N worst wakeups of a traced pass paired with the measured runs (default 5; 0: no such pass)" },
		{ .name = "explain-over", .type = OPT_DOUBLE, .dest = &o->explain_over_us, .arg = "US",
		  .min = 0, .max = 1e7,
		  .help = "cyclic: also take apart every wakeup of that pass later than US (at most 20 in all)" },
		{ .name = "perf-counters", .type = OPT_FLAG, .dest = &o->perf_counters,
		  .help = "quiet/control: also count with per-cpu perf counters inside each window (each enable, disable and read is an IPI to the target)" },
		{ NULL }
	};

	_Static_assert(ARRAY_SIZE(table) == TS_OPTIONS + 1, "TS_OPTIONS counts the table");
	memcpy(opts, table, sizeof(table));
}

int main(int argc, char **argv)
{
	struct ts_opts o = {
		.phase = PH_ALL, .policy = POL_FIFO, .interval_us = 1000,
		.priority = 95, .hist_max_us = 10000, .warmup_s = 1,
		.max_softirqs = 5, .max_ticks_per_s = 10, .max_needless_per_tick = 0.25,
		.noise_threshold_us = 5, .explain_n = 5,
	};
	struct opt opts[TS_OPTIONS + 1];
	const struct prog_spec spec = {
		.name = "timer_softirq",
		.one_cpu = true,
		.summary = "Timer-softirq suppression on the target CPU (quiet, positive control) and cyclictest-style wakeup latency.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS | COMMON_RUNS |
			  COMMON_DURATION,
		.opts = opts,
		.quick = { .runs = 2, .duration_s = 1 },
		.rules = ts_rules,
		.common_help = (const struct opt_help[]){
			{ "loops", "cyclic: at most N wakeups per run (-D, when given too, also ends it)" },
			{ NULL }
		},
	};
	struct bench b = { .opt = { .duration_s = 2, .runs = 5 } };
	struct ts_run r = { .o = &o };

	ts_options(&o, opts);
	bench_init(&b, &spec, argc, argv);
	ts_check(&b, &o, &r);
	phases_run(&b, ts_phases, &r);
	bench_finish(&b);
}

