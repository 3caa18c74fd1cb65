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
 * cyclic   cyclictest's measurement, --runs runs: clock_nanosleep
 *          (TIMER_ABSTIME) every interval, latency = wake time -
 *          programmed time, /dev/cpu_dma_latency held at 0 unless
 *          --laptop; then a short counted pass (tracepoint counters are
 *          kept off the measured runs: each counted event costs the
 *          wakeup path).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/kernel/knob.h"
#include "lib/base/util.h"
#include "timer_softirq.h"

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
/*
 * Below this interval a SCHED_FIFO cyclic thread hardly sleeps: without
 * RT throttling (sched_rt_runtime_us -1) it could own its CPU.
 */
#define FIFO_MIN_INTERVAL_US	50
#define MAX_RUNS		1000

enum phase { PH_QUIET, PH_CONTROL, PH_CYCLIC, PH_ALL };
static const char *const phase_names[] = { "quiet", "control", "cyclic", "all", NULL };
static const char *const policy_names[] = { "fifo", "other", NULL };

/* quiet: the busy loop alone; also the baseline of the control */
static void quiet_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	char ctx[160], err[512];
	struct metric *m;
	uint64_t n;

	r->quiet_w = calloc(b->opt.runs, sizeof(*r->quiet_w));
	if (!r->quiet_w)
		ksft_exit_fail_msg("out of memory\n");
	n = timer_softirq_spin_windows(b, o, r, false, r->quiet_w, err, sizeof(err));
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("quiet window: %s\n", err);
	if (!n)
		bench_skip(b, "interrupted before the quiet window was counted");
	timer_softirq_windows_sum(r->quiet_w, n, &r->quiet_sum);
	for (uint64_t i = 0; i < n; i++)
		if (r->quiet_w[i].t.timer_runs > r->quiet_max_softirqs)
			r->quiet_max_softirqs = r->quiet_w[i].t.timer_runs;
	timer_softirq_window_print("quiet", b->target, &r->quiet_sum);
	if (r->quiet)
		timer_softirq_raised_metric(b, o, r, n);
	snprintf(ctx, sizeof(ctx), "%s busy loop", r->cpu_desc);
	m = timer_softirq_window_metric(b, "quiet_timer_softirqs_per_s", "quiet TIMER softirqs", ctx,
					r->quiet_w, n, &r->quiet_sum);
	/* how long the tick kept running after the warm-up (nohz_full) */
	if (!isnan(r->tick_quiet_s))
		metric_extra(m, "tick_last_after_warmup_s", r->tick_quiet_s);
	timer_softirq_noise_report(b, o, "quiet", r, &r->quiet_ns, r->quiet_w, n, r->quiet);
}

static void quiet_verdicts(struct bench *b, const struct ts_opts *o, const struct ts_run *r)
{
	const struct ts_window *s = &r->quiet_sum;
	const struct cpu_trace_counts *t = &s->t;
	const struct cpu_window *q = &s->w;
	bool nohz = r->nohz || o->assert_nohz;
	double ticks = per(q->row[ROW_LOC], q->seconds);
	char why[160];

	/* no record at all is a quiet CPU (6.1 guest, nohz_full): the control shows the counting works */
	ksft_print_msg("quiet cpu %d: %d windows of busy loop, %lld events lost, %llu records\n",
		       b->target, t->windows, t->lost, (unsigned long long)t->lines);
	bench_verdict(b, q->seconds > 0 && !t->lost ? KSFT_PASS : KSFT_FAIL, NULL,
		      "quiet: windows of busy loop counted, no event lost");
	ksft_print_msg("quiet cpu %d: %llu of %llu TIMER softirqs ran no timer, %llu ticks: %.4f/tick, max %g\n",
		       b->target, (unsigned long long)t->raised_without_expiry,
		       (unsigned long long)t->timer_raised, (unsigned long long)s->ticks,
		       per(t->raised_without_expiry, s->ticks), o->max_needless_per_tick);
	bench_verdict(b, timer_softirq_trace_raise_ok(t, o->max_needless_per_tick) ? KSFT_PASS : KSFT_FAIL,
		      NULL, "quiet: TIMER softirqs raised for due timers only");
	timer_softirq_ipis_print(b->target, t);
	if (r->tr.have_ipi_cpu)
		ksft_print_msg("quiet cpu %d: %llu function calls of %llu IPIs to it were ours\n",
			       b->target, (unsigned long long)(t->ipis_self - t->ipis_self_resched),
			       (unsigned long long)t->ipis);
	bench_verdict(b, !r->tr.have_ipi_cpu ? KSFT_SKIP :
		      t->ipis_self > t->ipis_self_resched ? KSFT_FAIL : KSFT_PASS,
		      r->tr.have_ipi_cpu ? NULL : r->tr.ipi_error,
		      "quiet: the counting sent no IPI to the cpu inside the windows");
	snprintf(why, sizeof(why), "cpu %d is not nohz_full (--assert-nohz asserts it anyway)",
		 b->target);
	if (!nohz) {
		bench_verdict(b, KSFT_SKIP, why, "quiet: the tick stopped");
		bench_verdict(b, KSFT_SKIP, why, "quiet: TIMER softirqs within --max-softirqs");
	} else {
		ksft_print_msg("quiet cpu %d: %.1f local timer interrupts/s, max %g; tick_stop success %llu\n",
			       b->target, ticks, o->max_ticks_per_s,
			       (unsigned long long)t->tick_stopped);
		bench_verdict(b, q->row[ROW_LOC] >= 0 && ticks <= o->max_ticks_per_s ?
			      KSFT_PASS : KSFT_FAIL, NULL, "quiet: the tick stopped");
		ksft_print_msg("quiet cpu %d: at most %llu TIMER softirqs in a %.1f s window, max %llu\n",
			       b->target, (unsigned long long)r->quiet_max_softirqs,
			       b->opt.duration_s, (unsigned long long)o->max_softirqs);
		bench_verdict(b, r->quiet_max_softirqs <= o->max_softirqs ? KSFT_PASS : KSFT_FAIL,
			      NULL, "quiet: TIMER softirqs within --max-softirqs");
	}
	timer_softirq_noise_verdict(b, r, &r->quiet_ns, "quiet");
}

static void control_verdicts(struct bench *b, const struct ts_run *r)
{
	const struct ts_window *q = &r->quiet_sum, *c = &r->ctl_sum;
	uint64_t tmo = c->timeouts;

	/* timer_softirq_trace.h: timer_softirq_trace_sleep_ok() */
	ksft_print_msg("control cpu %d: %llu timeouts, their process_timeout expired %llu there, %llu on other cpus\n",
		       b->target, (unsigned long long)tmo,
		       (unsigned long long)c->t.sleep_expiries,
		       (unsigned long long)c->t.sleep_expiries_elsewhere);
	bench_verdict(b, tmo >= 10 && timer_softirq_trace_sleep_ok(&c->t, tmo) ? KSFT_PASS : KSFT_FAIL,
		      NULL, "control: each recv() timeout expired a process_timeout armed on the cpu, most of them there");
	/*
	 * The TIMER softirq runs on the target that expired a timer the
	 * control armed (followed from its timer_start): the same softirq
	 * counting as the quiet phase's must see them. Other processes'
	 * sleeps on a busy shared CPU are told apart (compared with the
	 * quiet windows they swung by more than the control adds). One run
	 * may expire several timers: 1 in 4 timeouts suffices.
	 */
	ksft_print_msg("control cpu %d: %llu TIMER softirq runs of its timers in %.1f s for %llu timeouts (other sleepers: %.1f/s, quiet %.1f/s)\n",
		       b->target, (unsigned long long)c->t.own_sleep_runs, c->w.seconds,
		       (unsigned long long)tmo,
		       (c->t.sleep_runs - c->t.own_sleep_runs) / c->w.seconds,
		       q->t.sleep_runs / q->w.seconds);
	bench_verdict(b, tmo >= 10 && c->t.own_sleep_runs >= tmo / 4 ? KSFT_PASS : KSFT_FAIL, NULL,
		      "control: TIMER softirqs on the cpu ran the control's timers");
}

/* control: the same windows with process_timeout timers armed on the target */
static void control_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct knob migration;
	char ctx[160], err[512];
	uint64_t n;

	if (bench_stop) {
		bench_phase_skip(b, "control", "interrupted");
		return;
	}
	r->ctl_w = calloc(b->opt.runs, sizeof(*r->ctl_w));
	if (!r->ctl_w)
		ksft_exit_fail_msg("out of memory\n");
	timer_softirq_timer_migration_off(b, r->nohz, &migration);
	n = timer_softirq_spin_windows(b, o, r, true, r->ctl_w, err, sizeof(err));
	knob_restore(&migration);
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("control window: %s\n", err);
	timer_softirq_windows_sum(r->ctl_w, n, &r->ctl_sum);
	timer_softirq_window_print("control", b->target, &r->ctl_sum);
	ksft_print_msg("control cpu %d: %llu recv() timeouts of 1 ms (SO_RCVTIMEO) next to the busy loop\n",
		       b->target, (unsigned long long)r->ctl_sum.timeouts);
	snprintf(ctx, sizeof(ctx), "%s busy loop, %llu recv() timeouts",
		 r->cpu_desc, (unsigned long long)r->ctl_sum.timeouts);
	metric_extra(timer_softirq_window_metric(b, "control_timer_softirqs_per_s", "control TIMER softirqs",
						 ctx, r->ctl_w, n, &r->ctl_sum),
		     "recv_timeouts", r->ctl_sum.timeouts);
	timer_softirq_noise_report(b, o, "control", r, &r->ctl_ns, r->ctl_w, n, false);
	if (n) {
		control_verdicts(b, r);
		timer_softirq_noise_control_verdict(b, r, r->ctl_w, n, r->ctl_sum.timeouts);
	} else {
		bench_phase_skip(b, "control", "interrupted");
	}
}

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
	r->cyclic = o->phase == PH_CYCLIC || o->phase == PH_ALL;
	if (r->cyclic && o->policy == POL_FIFO && o->interval_us < FIFO_MIN_INTERVAL_US &&
	    rt_throttling_off())
		bench_usage_error(b, "-i %g with SCHED_FIFO needs RT throttling (%s is -1): use -i %d or more, or --policy other",
				  o->interval_us, RT_RUNTIME, FIFO_MIN_INTERVAL_US);
	r->nohz = CPU_ISSET(b->target, &b->sets.nohz_full);
	if (!CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "needs a housekeeping CPU besides cpu %d to count from", b->target);
	bench_phases(b, (const struct plan_phase[]){
		{ "quiet", 6, r->quiet },	/* quiet_verdicts() */
		{ "control", 3, r->control },	/* control_verdicts(), timer_softirq_noise_control_verdict() */
		{ "cyclic", 4, r->cyclic },	/* timer_softirq_cyclic_phase() */
		{ NULL }
	});
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
	{ "assert-nohz", OPT_NEEDS, "phase=quiet|phase=all" },
	{ NULL }
};

int main(int argc, char **argv)
{
	struct ts_opts o = {
		.phase = PH_ALL, .policy = POL_FIFO, .interval_us = 1000,
		.priority = 95, .hist_max_us = 10000, .warmup_s = 1,
		.max_softirqs = 5, .max_ticks_per_s = 10, .max_needless_per_tick = 0.25,
		.noise_threshold_us = 5, .explain_n = 5,
	};
	const struct opt opts[] = {
		{ .name = "phase", .type = OPT_CHOICE, .dest = &o.phase, .arg = "PHASE",
		  .help = "what to run", .choices = phase_names },
		{ .name = "interval", .key = 'i', .type = OPT_DOUBLE, .dest = &o.interval_us,
		  .arg = "US", .help = "cyclic: wakeup interval in us (cyclictest -i)",
		  .min = 1, .max = 1e7 },
		{ .name = "priority", .key = 'p', .type = OPT_INT, .dest = &o.priority,
		  .arg = "PRIO", .help = "cyclic: SCHED_FIFO priority (cyclictest -p)",
		  .min = 1, .max = 99 },
		{ .name = "policy", .type = OPT_CHOICE, .dest = &o.policy, .arg = "POLICY",
		  .help = "cyclic: scheduling policy (other: cyclictest -p 0)",
		  .choices = policy_names },
		{ .name = "mlockall", .key = 'm', .type = OPT_FLAG, .dest = &o.mlock,
		  .help = "cyclic: lock memory (cyclictest -m)" },
		{ .name = "laptop", .type = OPT_FLAG, .dest = &o.laptop,
		  .help = "cyclic: leave /dev/cpu_dma_latency alone (cyclictest --laptop); default: held at 0 us" },
		{ .name = "histogram", .type = OPT_DOUBLE, .dest = &o.hist_max_us,
		  .arg = "US", .help = "cyclic: histogram range in us, 1 us buckets (cyclictest -h)",
		  .min = 10, .max = 1e6 },
		{ .name = "warmup", .type = OPT_DOUBLE, .dest = &o.warmup_s, .arg = "SECS",
		  .help = "quiet/control: spin this long before the first window", .min = 0, .max = 600 },
		{ .name = "max-needless-per-tick", .type = OPT_DOUBLE,
		  .dest = &o.max_needless_per_tick, .arg = "N",
		  .help = "quiet: TIMER softirq raises whose run expired no timer, per tick",
		  .min = 0, .max = 100 },
		{ .name = "max-softirqs", .type = OPT_UINT, .dest = &o.max_softirqs,
		  .arg = "N", .help = "quiet, nohz_full: TIMER softirqs allowed in a window",
		  .min = 0, .max = 1e9 },
		{ .name = "max-ticks-per-s", .type = OPT_DOUBLE, .dest = &o.max_ticks_per_s,
		  .arg = "N", .help = "quiet, nohz_full: local timer interrupts per s that still count as a stopped tick",
		  .min = 0, .max = 1e4 },
		{ .name = "assert-nohz", .type = OPT_FLAG, .dest = &o.assert_nohz,
		  .help = "quiet: assert the nohz_full bounds even on a CPU that is not nohz_full" },
		{ .name = "noise-threshold", .type = OPT_DOUBLE, .dest = &o.noise_threshold_us,
		  .arg = "US", .min = 0.1, .max = 1e6,
		  .help = "quiet/control: a gap in the busy loop's progress longer than US is noise, attributed to what ran (default 5, as osnoise)" },
		{ .name = "explain", .type = OPT_UINT, .dest = &o.explain_n, .arg = "N",
		  .min = 0, .max = 1000,
		  .help = "cyclic: take apart the N worst wakeups of a traced pass paired with the measured runs (default 5; 0: no such pass)" },
		{ .name = "explain-over", .type = OPT_DOUBLE, .dest = &o.explain_over_us, .arg = "US",
		  .min = 0, .max = 1e7,
		  .help = "cyclic: also take apart every wakeup of that pass later than US (at most 20 in all)" },
		{ .name = "perf-counters", .type = OPT_FLAG, .dest = &o.perf_counters,
		  .help = "quiet/control: also count with per-cpu perf counters inside each window (each enable, disable and read is an IPI to the target)" },
		{ NULL }
	};
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
	struct ts_run r = { .tick_quiet_s = NAN };

	bench_init(&b, &spec, argc, argv);
	ts_check(&b, &o, &r);
	/* the target's /proc rows and jiffies: read from anywhere, no IPI */
	timer_softirq_events_init(&r.rows, b.target);
	timer_softirq_events_row(&r.rows, ROW_LOC, "/proc/interrupts", "LOC");
	timer_softirq_events_row(&r.rows, ROW_TIMER, "/proc/softirqs", "TIMER");
	timer_softirq_events_row(&r.rows, ROW_HRTIMER, "/proc/softirqs", "HRTIMER");
	if (r.quiet || r.control)
		timer_softirq_counting_open(&b, &o, &r);
	if (r.quiet || r.control)
		quiet_phase(&b, &o, &r);
	if (r.quiet)
		quiet_verdicts(&b, &o, &r);
	if (r.control)
		control_phase(&b, &o, &r);
	if (r.quiet || r.control) {
		timer_softirq_trace_close(&r.tr);
		timer_softirq_events_close(&r.k);
	}
	if (r.cyclic)
		timer_softirq_cyclic_phase(&b, &o, &r);
	timer_softirq_events_close(&r.k);
	bench_finish(&b);
}

