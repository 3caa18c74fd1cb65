// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq's control phase, the positive control of the quiet one:
 * the same windows with timer-wheel timers armed on the target. A second
 * thread there blocks in recv() on a silent AF_UNIX datagram socket with
 * a 1 ms SO_RCVTIMEO, so each call sleeps in schedule_timeout(), whose
 * timer_list (process_timeout) expires in a TIMER softirq on that CPU;
 * the same counting must see them (poll/select/nanosleep timeouts are
 * hrtimers and would not).
 */
#include <unistd.h>

#include "lib/kernel/knob.h"
#include "timer_softirq_noise.h"
#include "timer_softirq_phases.h"
#include "timer_softirq_windows.h"

#define TIMER_MIGRATION	"/proc/sys/kernel/timer_migration"

/*
 * Before Linux 6.9 an unpinned timer armed on a nohz_full CPU is queued
 * on a housekeeping CPU while timer migration is on, so the control's
 * timers would expire elsewhere. Switch migration off for the control
 * windows only (restored after them, and on every exit path).
 */
static void timer_migration_off(struct bench *b, bool nohz, struct knob *k)
{
	char err[192];

	k->handle = -1;
	if (!nohz || access(TIMER_MIGRATION, F_OK))
		return;
	if (knob_set(k, TIMER_MIGRATION, "0", err, sizeof(err)))
		bench_note(b, "control: %s; its timers may expire on a housekeeping CPU", err);
	else if (k->handle >= 0)
		bench_note(b, "control: %s set to 0 for the window (restored after): unpinned timers of a nohz_full CPU otherwise may go to a housekeeping CPU",
			   TIMER_MIGRATION);
}

static unsigned int control_judged(const void *ctx)
{
	return ((const struct ts_run *)ctx)->control;
}

/* the windows with process_timeout timers armed on the target */
static void control_run(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	const struct ts_window_set *set = &r->win->control;
	struct knob migration;
	char desc[160], err[512];
	uint64_t n;

	timer_migration_off(b, r->nohz, &migration);
	n = timer_softirq_windows_spin(b, r, &(struct ts_spin){ "control", &r->win->control,
						b->opt.runs, .sleeper = true }, err, sizeof(err));
	knob_restore(&migration);
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("control window: %s\n", err);
	timer_softirq_windows_print("control", b->target, &set->sum);
	ksft_print_msg("control cpu %d: %llu recv() timeouts of 1 ms (SO_RCVTIMEO) next to the busy loop\n",
		       b->target, (unsigned long long)set->sum.timeouts);
	snprintf(desc, sizeof(desc), "%s busy loop, %llu recv() timeouts",
		 r->cpu_desc, (unsigned long long)set->sum.timeouts);
	metric_extra(timer_softirq_windows_metric(b, "control_timer_softirqs_per_s",
						  "control TIMER softirqs", desc, set),
		     "recv_timeouts", set->sum.timeouts);
	timer_softirq_noise_report(b, r, "control", set, false);
}

/* The control's results, in the order printed. */
enum { C_EXPIRED, C_RAN, C_NOISE, C_CHECKS };
static const char *const control_checks[C_CHECKS] = {
	[C_EXPIRED] = "control: each recv() timeout expired a process_timeout armed on the cpu, most of them there",
	[C_RAN] = "control: TIMER softirqs on the cpu ran the control's timers",
	[C_NOISE] = "control: the sleeper's preemptions of the busy loop attributed to it",
};

static void control_verdicts(struct bench *b, void *ctx)
{
	const struct ts_run *r = ctx;
	const struct ts_window *q = &r->win->quiet.sum, *c = &r->win->control.sum;
	uint64_t tmo = c->timeouts;

	if (!r->win->control.n) {
		phase_skip(b, &timer_softirq_control_phase, ctx, "interrupted");
		return;
	}
	/* timer_softirq_trace.h: timer_softirq_trace_sleep_ok() */
	ksft_print_msg("control cpu %d: %llu timeouts, their process_timeout expired %llu there, %llu on other cpus\n",
		       b->target, (unsigned long long)tmo,
		       (unsigned long long)c->t.sleep_expiries,
		       (unsigned long long)c->t.sleep_expiries_elsewhere);
	bench_verdict(b, tmo >= 10 && timer_softirq_trace_sleep_ok(&c->t, tmo) ? KSFT_PASS : KSFT_FAIL,
		      NULL, "%s", control_checks[C_EXPIRED]);
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
		      "%s", control_checks[C_RAN]);
	timer_softirq_noise_control_verdict(b, r, control_checks[C_NOISE]);
}

const struct phase timer_softirq_control_phase = {
	.name = "control",
	.nverdicts = C_CHECKS,
	.checks = control_checks,
	.judged = control_judged,
	.run = control_run,
	.verdicts = control_verdicts,
	.shares = &timer_softirq_windows,	/* opened by the quiet phase */
};
