// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq: does the target CPU stay quiet, and how fast does it
 * wake up? (seed: "do not raise timer softirq unconditionally",
 * cyclictest latency from 25us to 14us on isolated CPUs.)
 *
 * quiet    a pure user-space busy loop on the target CPU, no timers armed
 *          by the process; counted on that CPU only, by per-CPU counting
 *          events opened from a housekeeping thread: TIMER and HRTIMER
 *          softirqs raised and run, timer-wheel and hrtimer expiries,
 *          tick_stop events (and the dependency that kept the tick), local
 *          timer interrupts and /proc/softirqs. On a nohz_full CPU the
 *          tick must stop and TIMER softirqs stay within --max-softirqs.
 * control  the same window with timer-wheel timers armed on the target:
 *          a second thread there blocks in recv() on a silent AF_UNIX
 *          datagram socket with a 1 ms SO_RCVTIMEO, so each call sleeps in
 *          schedule_timeout(), whose timer_list (process_timeout) expires
 *          in a TIMER softirq on that CPU; the same counting must see them.
 *          (poll/select/nanosleep timeouts are hrtimers and would not.)
 * cyclic   cyclictest's measurement: clock_nanosleep(TIMER_ABSTIME) every
 *          interval, latency = wake time - programmed time; with TIMER
 *          and HRTIMER softirqs and local timer interrupts per wakeup.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/bench.h"
#include "lib/cpu_events.h"
#include "lib/cyclic.h"
#include "lib/knob.h"
#include "lib/ksym.h"
#include "lib/sched.h"
#include "lib/spinner.h"
#include "lib/util.h"

#define TIMER_MIGRATION	"/proc/sys/kernel/timer_migration"
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
/*
 * Below this interval a SCHED_FIFO cyclic thread hardly sleeps: without
 * RT throttling (sched_rt_runtime_us -1) it could own its CPU.
 */
#define FIFO_MIN_INTERVAL_US	50

enum phase { PH_QUIET, PH_CONTROL, PH_CYCLIC, PH_ALL };
static const char *const phase_names[] = { "quiet", "control", "cyclic", "all", NULL };
enum policy { POL_FIFO, POL_OTHER };
static const char *const policy_names[] = { "fifo", "other", NULL };

struct ts_opts {
	int phase, policy;
	double interval_us, hist_max_us, warmup_s, max_ticks_per_s;
	int64_t priority;
	uint64_t max_softirqs;
	bool mlock;
};

/* What is counted on the target CPU, one counting event each. */
enum ev {
	EV_TIMER_RAISE, EV_TIMER_RUN, EV_HRTIMER_RUN, EV_TIMER_EXPIRE,
	EV_HRTIMER_EXPIRE, EV_SLEEP_EXPIRE, EV_TICK_STOPPED,
	EV_TICK_KEPT,	/* + dependency bit: POSIX_TIMER .. RCU_EXP */
	EV_N = EV_TICK_KEPT + 6
};
static const char *const tick_dep_names[] = {
	"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP"
};
/* ...and the target CPU's rows of /proc/interrupts and /proc/softirqs */
enum row { ROW_LOC, ROW_TIMER, ROW_HRTIMER };

struct cyclic_result {
	struct cyclic c;	/* wakeups, overruns, early, latencies */
	struct hist h;
	struct cpu_window w;
	char policy[32];
};

/* One run: the phases asked for, the counting and what they found. */
struct ts_run {
	bool quiet, control, cyclic, nohz;
	char cpu_desc[96];
	struct cpu_events k;
	struct cpu_window quiet_w, ctl_w;
	struct cyclic_result cyc;
};

/*
 * The control's sleeping thread on the target CPU, next to the busy
 * loop (lib/spinner.h).
 */
struct sleeper {
	int cpu;
	uint64_t deadline_ns;
	atomic_int ready, failed, stop;
	atomic_ullong timeouts;		/* recv() calls that timed out */
	char error[160];
};

/* Counted on the target from this (housekeeping) thread. */
static void counting_open(struct bench *b, struct cpu_events *k)
{
	char filter[64];
	unsigned long long addr;

	/* the counting thread (this one) stays on the housekeeping CPUs */
	if (cpu_pin_self_mask(&b->opt.housekeeping))
		ksft_exit_fail_msg("cannot pin to the housekeeping cpus: %s\n", strerror(errno));
	cpu_events_init(k, b->target);
	cpu_events_tracepoint(k, EV_TIMER_RAISE, "irq:softirq_raise", "vec == 1");
	cpu_events_tracepoint(k, EV_TIMER_RUN, "irq:softirq_entry", "vec == 1");
	cpu_events_tracepoint(k, EV_HRTIMER_RUN, "irq:softirq_entry", "vec == 8");
	cpu_events_tracepoint(k, EV_TIMER_EXPIRE, "timer:timer_expire_entry", NULL);
	cpu_events_tracepoint(k, EV_HRTIMER_EXPIRE, "timer:hrtimer_expire_entry", NULL);
	/* schedule_timeout()'s handler, to count its expiries on their own */
	if (!ksym_addr("process_timeout", &addr)) {
		snprintf(filter, sizeof(filter), "function == 0x%llx", addr);
		cpu_events_tracepoint(k, EV_SLEEP_EXPIRE, "timer:timer_expire_entry", filter);
	} else {
		cpu_events_missing(k, EV_SLEEP_EXPIRE, "process_timeout not in /proc/kallsyms");
	}
	cpu_events_tracepoint(k, EV_TICK_STOPPED, "timer:tick_stop", "success == 1");
	for (int i = 0; i < 6; i++) {
		snprintf(filter, sizeof(filter), "success == 0 && dependency == %d", 1 << i);
		cpu_events_tracepoint(k, EV_TICK_KEPT + i, "timer:tick_stop", filter);
	}
	cpu_events_row(k, ROW_LOC, "/proc/interrupts", "LOC");
	cpu_events_row(k, ROW_TIMER, "/proc/softirqs", "TIMER");
	cpu_events_row(k, ROW_HRTIMER, "/proc/softirqs", "HRTIMER");
	for (int i = 0; i < EV_N; i++)
		if (k->c[i].fd < 0 && (i == EV_TIMER_RUN || i == EV_SLEEP_EXPIRE ||
				       i == EV_TICK_STOPPED))
			bench_note(b, "not counted: %s", cpu_events_error(k, i));
}

/* TIMER softirqs run: the tracepoint count, else /proc/softirqs. */
static int64_t timer_softirqs(const struct cpu_window *w)
{
	return w->ev[EV_TIMER_RUN] != UINT64_MAX ? (int64_t)w->ev[EV_TIMER_RUN]
						 : w->row[ROW_TIMER];
}

static void sleeper_fail(struct sleeper *s, const char *what)
{
	snprintf(s->error, sizeof(s->error), "%s: %s", what, strerror(errno));
	atomic_store(&s->failed, 1);
}

/*
 * The positive control: recv() on a datagram socket that never receives,
 * with a 1 ms SO_RCVTIMEO, sleeps in schedule_timeout(): a timer-wheel
 * timer (process_timeout) armed on this CPU, which expires in a TIMER
 * softirq here, since the spinner keeps this CPU from going idle (an
 * idle CPU's timers may be expired by another one).
 */
static void *timeout_main(void *arg)
{
	struct sleeper *s = arg;
	struct timeval tmo = { .tv_usec = 1000 };
	char buf[1];
	int sv[2];

	if (cpu_pin_self(s->cpu)) {
		sleeper_fail(s, "pin to the target cpu");
		return NULL;
	}
	/* AF_UNIX: no network needed (a guest's loopback may be down) */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		sleeper_fail(s, "socketpair");
		return NULL;
	}
	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)))
		sleeper_fail(s, "SO_RCVTIMEO");
	else
		atomic_store(&s->ready, 1);
	while (!atomic_load(&s->failed) && !atomic_load(&s->stop) && !bench_stop &&
	       mono_ns() < s->deadline_ns)
		if (recv(sv[0], buf, sizeof(buf), 0) < 0 && errno == EAGAIN)
			atomic_fetch_add(&s->timeouts, 1);
	close(sv[0]);
	close(sv[1]);
	return NULL;
}

/*
 * Before Linux 6.9 an unpinned timer armed on a nohz_full CPU is queued
 * on a housekeeping CPU while timer migration is on, so the control's
 * timers would expire elsewhere. Switch migration off for the control
 * window only (restored after it, and on every exit path).
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

/*
 * One window: a busy loop (and, for the control, the sleeper) get ready
 * on the target, warm up, then the counted window runs while they do
 * their work. 0, or -1 with a reason in @err (none when interrupted).
 */
static int spin_window(struct bench *b, struct cpu_events *k, bool control,
		       double warmup_s, struct cpu_window *w, uint64_t *timeouts,
		       char *err, size_t errlen)
{
	double seconds = b->opt.duration_s, max_s = warmup_s + seconds + 10;
	struct sleeper sl = { .cpu = b->target };
	struct spinner sp = { 0 };
	bool sleeping = false;
	pthread_t th;
	int ret = -1;
	uint64_t t0;

	*err = '\0';
	if (spinner_start(&sp, b->target, 0, max_s, err, errlen))
		return -1;
	sl.deadline_ns = mono_ns() + (uint64_t)(max_s * 1e9);
	if (control) {
		sleeping = !pthread_create(&th, NULL, timeout_main, &sl);
		if (!sleeping)
			snprintf(err, errlen, "pthread_create failed");
		while (sleeping && !atomic_load(&sl.ready) && !atomic_load(&sl.failed) &&
		       !bench_stop)
			usleep(1000);
		if (atomic_load(&sl.failed))
			snprintf(err, errlen, "%s", sl.error);
	}
	if (*err || bench_stop)
		goto out;
	usleep(warmup_s * 1e6);
	if (b->opt.verbose)	/* bench/timer_softirq.sh enables perf stat here */
		ksft_print_msg("%s window: counting on cpu %d for %.1f s\n",
			       control ? "control" : "quiet", b->target, seconds);
	cpu_events_begin(k);
	t0 = atomic_load(&sl.timeouts);
	for (uint64_t end = mono_ns() + seconds * 1e9; mono_ns() < end && !bench_stop;)
		usleep(20000);
	*timeouts = atomic_load(&sl.timeouts) - t0;
	if (b->opt.verbose)
		ksft_print_msg("%s window: done\n", control ? "control" : "quiet");
	cpu_events_end(k, w);
	ret = w->seconds > 0 ? 0 : -1;
out:
	atomic_store(&sl.stop, 1);
	if (sleeping)
		pthread_join(th, NULL);
	spinner_stop(&sp);
	return ret;
}

static void window_print(const char *what, int cpu, const struct cpu_window *w)
{
	char deps[160] = "";
	size_t off = 0;

	for (int i = 0; i < 6; i++)
		if (w->ev[EV_TICK_KEPT + i] && w->ev[EV_TICK_KEPT + i] != UINT64_MAX)
			off += snprintf(deps + off, sizeof(deps) - off, " %s=%llu",
					tick_dep_names[i],
					(unsigned long long)w->ev[EV_TICK_KEPT + i]);
	ksft_print_msg("%s cpu %d: %.2f s, %llu jiffies (HZ %d): TIMER softirqs raised %.0f run %.0f (%.2f/s, %.4f/tick), HRTIMER run %.0f, timer expiries %.0f (process_timeout %.0f), hrtimer expiries %.0f\n",
		       what, cpu, w->seconds, (unsigned long long)w->jiffies, w->hz,
		       cpu_window_ev(w, EV_TIMER_RAISE), cpu_window_ev(w, EV_TIMER_RUN),
		       timer_softirqs(w) / w->seconds,
		       w->jiffies ? timer_softirqs(w) / (double)w->jiffies : NAN,
		       cpu_window_ev(w, EV_HRTIMER_RUN), cpu_window_ev(w, EV_TIMER_EXPIRE),
		       cpu_window_ev(w, EV_SLEEP_EXPIRE), cpu_window_ev(w, EV_HRTIMER_EXPIRE));
	ksft_print_msg("%s cpu %d: local timer interrupts %lld (%.1f/s), /proc/softirqs TIMER %lld HRTIMER %lld, tick_stop stopped %.0f kept%s\n",
		       what, cpu, (long long)w->row[ROW_LOC], w->row[ROW_LOC] / w->seconds,
		       (long long)w->row[ROW_TIMER], (long long)w->row[ROW_HRTIMER],
		       cpu_window_ev(w, EV_TICK_STOPPED), deps[0] ? deps : " 0");
}

/* A window's counts as one metric sample with its details as extras. */
static struct metric *window_metric(struct bench *b, const char *name, const char *label,
				    const char *ctx, const struct cpu_window *w)
{
	struct metric *m = bench_metric(b, name, "softirqs/s", BETTER_LOWER,
					"TIMER softirqs run on the target per second of one window");
	static const char *const keys[EV_TICK_KEPT] = {
		"timer_softirqs_raised", "timer_softirqs_run", "hrtimer_softirqs_run",
		"timer_expiries", "hrtimer_expiries", "process_timeout_expiries",
		"tick_stop_success"
	};

	metric_add(m, timer_softirqs(w) / w->seconds);
	metric_summary(m, label, "%s, %.1f s", ctx, w->seconds);
	metric_extra(m, "window_s", w->seconds);
	for (int i = 0; i < EV_TICK_KEPT; i++)
		metric_extra(m, keys[i], cpu_window_ev(w, i));
	for (int i = 0; i < 6; i++)
		if (w->ev[EV_TICK_KEPT + i])
			metric_extra(m, tick_dep_names[i], cpu_window_ev(w, EV_TICK_KEPT + i));
	metric_extra(m, "local_timer_irqs", w->row[ROW_LOC]);
	metric_extra(m, "proc_softirqs_timer", w->row[ROW_TIMER]);
	metric_extra(m, "proc_softirqs_hrtimer", w->row[ROW_HRTIMER]);
	metric_extra(m, "jiffies", w->jiffies);
	metric_extra(m, "hz", w->hz);
	metric_extra(m, "timer_softirqs_per_tick",
		     w->jiffies ? timer_softirqs(w) / (double)w->jiffies : NAN);
	metric_extra(m, "local_timer_irqs_per_s", w->row[ROW_LOC] / w->seconds);
	return m;
}

/* quiet: the busy loop alone; also the baseline of the control */
static void quiet_window(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	char ctx[160], err[160];
	uint64_t none;

	if (spin_window(b, &r->k, false, o->warmup_s, &r->quiet_w, &none, err, sizeof(err))) {
		if (!bench_stop)
			ksft_exit_fail_msg("quiet window: %s\n", err);
		bench_skip(b, "interrupted before the quiet window was counted");
	}
	window_print("quiet", b->target, &r->quiet_w);
	snprintf(ctx, sizeof(ctx), "%s busy loop", r->cpu_desc);
	window_metric(b, "quiet_timer_softirqs_per_s", "quiet TIMER softirqs", ctx, &r->quiet_w);
}

static void quiet_verdicts(struct bench *b, const struct ts_opts *o, const struct ts_run *r)
{
	const struct cpu_window *q = &r->quiet_w;
	int64_t n = timer_softirqs(q);
	double ticks = q->row[ROW_LOC] / q->seconds;
	char why[160];

	bench_verdict(b, q->row[ROW_LOC] >= 0 && n >= 0 ? KSFT_PASS : KSFT_FAIL, NULL,
		      "quiet: counted %.1f s of busy loop on cpu %d (TIMER softirqs %lld, local timer interrupts %lld)",
		      q->seconds, b->target, (long long)n, (long long)q->row[ROW_LOC]);
	snprintf(why, sizeof(why), "cpu %d is not nohz_full", b->target);
	if (!r->nohz)
		bench_verdict(b, KSFT_SKIP, why, "quiet: the tick stopped on cpu %d", b->target);
	else
		bench_verdict(b, q->row[ROW_LOC] >= 0 && ticks <= o->max_ticks_per_s ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "quiet: the tick stopped on cpu %d (%.1f local timer interrupts/s, max %g; tick_stop success %.0f)",
			      b->target, ticks, o->max_ticks_per_s,
			      cpu_window_ev(q, EV_TICK_STOPPED));
	if (!r->nohz)
		bench_verdict(b, KSFT_SKIP, why, "quiet: TIMER softirqs on cpu %d within --max-softirqs", b->target);
	else
		bench_verdict(b, n >= 0 && n <= (int64_t)o->max_softirqs ? KSFT_PASS : KSFT_FAIL,
			      NULL, "quiet: %lld TIMER softirqs on cpu %d in %.1f s (max %llu%s)",
			      (long long)n, b->target, q->seconds,
			      (unsigned long long)o->max_softirqs,
			      q->ev[EV_TIMER_RUN] == UINT64_MAX ? ", from /proc/softirqs" : "");
}

static void control_verdicts(struct bench *b, const struct ts_run *r, uint64_t tmo)
{
	const struct cpu_window *q = &r->quiet_w, *c = &r->ctl_w;
	int64_t rise = timer_softirqs(c) - (int64_t)(timer_softirqs(q) / q->seconds * c->seconds);

	if (c->ev[EV_SLEEP_EXPIRE] == UINT64_MAX)
		bench_verdict(b, KSFT_SKIP, cpu_events_error(&r->k, EV_SLEEP_EXPIRE),
			      "control: each recv() timeout was a timer-wheel expiry on cpu %d", b->target);
	else	/* +2: a timeout may straddle either edge of the window */
		bench_verdict(b, tmo >= 10 && c->ev[EV_SLEEP_EXPIRE] + 2 >= tmo ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "control: each recv() timeout was a timer-wheel expiry on cpu %d (%llu process_timeout expiries, %llu timeouts)",
			      b->target, (unsigned long long)c->ev[EV_SLEEP_EXPIRE],
			      (unsigned long long)tmo);
	/* a jiffy may already have had a softirq for another timer: 1 in 4 suffices */
	bench_verdict(b, tmo >= 10 && rise >= (int64_t)tmo / 4 ? KSFT_PASS : KSFT_FAIL, NULL,
		      "control: TIMER softirqs on cpu %d rose from %.1f/s to %.1f/s (+%lld in %.1f s, %llu timeouts)",
		      b->target, timer_softirqs(q) / q->seconds,
		      timer_softirqs(c) / c->seconds, (long long)rise, c->seconds,
		      (unsigned long long)tmo);
}

/* control: the same window with process_timeout timers armed on the target */
static void control_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct knob migration;
	char ctx[160], err[160];
	uint64_t tmo = 0;

	if (bench_stop) {
		for (int i = 0; i < 2; i++)
			bench_verdict(b, KSFT_SKIP, "interrupted", "control phase");
		return;
	}
	timer_migration_off(b, r->nohz, &migration);
	if (spin_window(b, &r->k, true, o->warmup_s, &r->ctl_w, &tmo, err, sizeof(err)) &&
	    !bench_stop)
		ksft_exit_fail_msg("control window: %s\n", err);
	knob_restore(&migration);
	window_print("control", b->target, &r->ctl_w);
	ksft_print_msg("control cpu %d: %llu recv() timeouts of 1 ms (SO_RCVTIMEO) next to the busy loop\n",
		       b->target, (unsigned long long)tmo);
	snprintf(ctx, sizeof(ctx), "%s busy loop, %llu recv() timeouts",
		 r->cpu_desc, (unsigned long long)tmo);
	metric_extra(window_metric(b, "control_timer_softirqs_per_s", "control TIMER softirqs",
				   ctx, &r->ctl_w), "recv_timeouts", tmo);
	control_verdicts(b, r, tmo);
}
/* cyclictest's loop on the target, counted from the housekeeping CPUs */
static void cyclic_run(struct bench *b, const struct ts_opts *o,
		       struct cpu_events *k, struct cyclic_result *r)
{
	size_t cap = b->opt.duration_s * 1e6 / o->interval_us + 16;

	if (b->opt.loops_given && cap > b->opt.loops)
		cap = b->opt.loops;
	if (cap > (1u << 22))
		cap = 1u << 22;	/* exact percentiles of the first 4M wakeups */
	r->c = (struct cyclic){
		.interval_ns = o->interval_us * 1000,
		.max_wakeups = b->opt.loops_given ? b->opt.loops : 0,
		.h = &r->h,
		.lat_us = malloc(cap * sizeof(*r->c.lat_us)),
	};
	r->c.cap = r->c.lat_us ? cap : 0;
	if (b->opt.duration_given || !b->opt.loops_given)
		r->c.duration_ns = b->opt.duration_s * 1e9;
	cpu_events_begin(k);
	cyclic_loop(&r->c);
	cpu_events_end(k, &r->w);
}

/*
 * The cyclic thread (this one) on the target at the asked policy, with
 * memory locked if asked; all of it undone before returning.
 */
static void cyclic_measure(struct bench *b, const struct ts_opts *o,
			   struct cpu_events *k, struct cyclic_result *r,
			   struct mlock_saved *ms)
{
	struct sched_saved ss = { .handle = -1 };
	char err[160];

	if (hist_init(&r->h, 0, 1, (size_t)o->hist_max_us))
		ksft_exit_fail_msg("no memory for the histogram\n");
	if (cpu_pin_self(b->target))
		ksft_exit_fail_msg("cannot pin to cpu %d: %s\n", b->target, strerror(errno));
	if (o->mlock && mlock_enter(ms, err, sizeof(err)))
		bench_note(b, "%s: running without locked memory", err);
	if (o->policy == POL_FIFO && sched_fifo_enter(&ss, o->priority, err, sizeof(err)))
		bench_note(b, "%s: the cyclic thread runs SCHED_OTHER", err);
	sched_describe(r->policy, sizeof(r->policy));
	cyclic_run(b, o, k, r);
	sched_restore(&ss);
	mlock_restore(ms);
	cpu_pin_self_mask(&b->opt.housekeeping);
}

/* The latency distribution and what each wakeup cost, text and JSON. */
static struct metric *cyclic_report(struct bench *b, const struct ts_opts *o,
				    const char *cpu_desc, const struct cyclic_result *r)
{
	const struct cpu_window *w = &r->w;
	double per = r->c.wakeups;
	struct stats st = { 0 };
	struct metric *m;

	m = bench_metric(b, "wakeup_latency_us", "us", BETTER_LOWER,
			 "one wakeup: wake time - programmed time");
	if (r->c.nlat)
		stats_compute(r->c.lat_us, r->c.nlat, &st);
	metric_extra(m, "wakeups", r->c.wakeups);
	metric_extra(m, "interval_us", o->interval_us);
	metric_extra(m, "min_us", st.min);
	metric_extra(m, "avg_us", st.mean);
	metric_extra(m, "p50_us", st.p50);
	metric_extra(m, "p90_us", st.p90);
	metric_extra(m, "p99_us", st.p99);
	metric_extra(m, "p99_9_us", st.p999);
	metric_extra(m, "max_us", r->h.max);
	metric_extra(m, "overruns", r->c.overruns);
	metric_extra(m, "timer_softirqs_per_wakeup", timer_softirqs(w) / per);
	metric_extra(m, "hrtimer_softirqs_per_wakeup", cpu_window_ev(w, EV_HRTIMER_RUN) / per);
	metric_extra(m, "local_timer_irqs_per_wakeup", w->row[ROW_LOC] / per);
	metric_extra(m, "hrtimer_expiries_per_wakeup", cpu_window_ev(w, EV_HRTIMER_EXPIRE) / per);
	if (!r->c.wakeups)
		return m;
	ksft_print_msg("cyclic: %s %s, %llu wakeups every %g us: min %.1f avg %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us (%llu overruns)\n",
		       cpu_desc, r->policy, (unsigned long long)r->c.wakeups,
		       o->interval_us, st.min, st.mean, st.p50, st.p90,
		       st.p99, st.p999, r->h.max, (unsigned long long)r->c.overruns);
	ksft_print_msg("cyclic per wakeup: TIMER softirqs %.3f, HRTIMER softirqs %.3f, local timer interrupts %.3f, hrtimer expiries %.3f\n",
		       timer_softirqs(w) / per, cpu_window_ev(w, EV_HRTIMER_RUN) / per,
		       w->row[ROW_LOC] / per, cpu_window_ev(w, EV_HRTIMER_EXPIRE) / per);
	if (!b->opt.quiet)
		hist_print(&r->h, stdout, "us", 50);
	return m;
}

/* cyclic: cyclictest's measurement on the target */
static void cyclic_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct cyclic_result *c = &r->cyc;
	const struct cpu_window *w = &c->w;
	struct mlock_saved ms = { .handle = -1 };
	struct sched_param before, after;
	int pol_before = sched_getscheduler(0), pol_after;
	long locked;

	if (bench_stop) {
		for (int i = 0; i < 3; i++)
			bench_verdict(b, KSFT_SKIP, "interrupted", "cyclic phase");
		return;
	}
	sched_getparam(0, &before);
	cyclic_measure(b, o, &r->k, c, &ms);
	pol_after = sched_getscheduler(0);
	sched_getparam(0, &after);
	locked = mlock_locked_kb();
	cyclic_report(b, o, r->cpu_desc, c)->hist = &c->h;
	free(c->c.lat_us);
	c->c.lat_us = NULL;

	bench_verdict(b, c->c.wakeups && !c->c.early ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : NULL,
		      "cyclic: %llu wakeups on cpu %d, none early (%llu early)",
		      (unsigned long long)c->c.wakeups, b->target,
		      (unsigned long long)c->c.early);
	if (w->ev[EV_HRTIMER_EXPIRE] == UINT64_MAX)
		bench_verdict(b, KSFT_SKIP, cpu_events_error(&r->k, EV_HRTIMER_EXPIRE),
			      "cyclic: the wakeups were hrtimer expiries on cpu %d", b->target);
	else
		/* at least half: under emulation many sleeps are already past due */
		bench_verdict(b, c->c.wakeups && 2 * w->ev[EV_HRTIMER_EXPIRE] >= c->c.wakeups ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "cyclic: the wakeups were hrtimer expiries on cpu %d (%llu expiries, %llu wakeups)",
			      b->target, (unsigned long long)w->ev[EV_HRTIMER_EXPIRE],
			      (unsigned long long)c->c.wakeups);
	bench_verdict(b, pol_after == pol_before &&
		      after.sched_priority == before.sched_priority &&
		      (ms.was_locked || locked == 0) ? KSFT_PASS : KSFT_FAIL, NULL,
		      "cyclic: scheduling policy and memory locking restored (policy %d, %ld kB locked)",
		      pol_after, locked);
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
	if (b->opt.quick) {
		if (!b->opt.duration_given)
			b->opt.duration_s = 1;
		o->warmup_s = o->warmup_s < 0.3 ? o->warmup_s : 0.3;
	}
	r->quiet = o->phase == PH_QUIET || o->phase == PH_ALL;
	r->control = o->phase == PH_CONTROL || o->phase == PH_ALL;
	r->cyclic = o->phase == PH_CYCLIC || o->phase == PH_ALL;
	if (r->cyclic && o->policy == POL_FIFO && o->interval_us < FIFO_MIN_INTERVAL_US &&
	    rt_throttling_off())
		bench_usage_error(b, "-i %g with SCHED_FIFO needs RT throttling (%s is -1): use -i %d or more, or --policy other",
				  o->interval_us, RT_RUNTIME, FIFO_MIN_INTERVAL_US);
	r->nohz = CPU_ISSET(b->target, &b->sets.nohz_full);
	if (CPU_COUNT(&b->opt.cpus) > 1)
		bench_note(b, "timer_softirq measures one CPU: using cpu %d of the list", b->target);
	if (!CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "needs a housekeeping CPU besides cpu %d to count from", b->target);
	bench_plan(b, 3 * r->quiet + 2 * r->control + 3 * r->cyclic);
	snprintf(r->cpu_desc, sizeof(r->cpu_desc), "cpu %d (%s)", b->target,
		 cpu_isolation_name(&b->sets, b->target));
}

int main(int argc, char **argv)
{
	struct ts_opts o = {
		.phase = PH_ALL, .policy = POL_FIFO, .interval_us = 1000,
		.priority = 95, .hist_max_us = 10000, .warmup_s = 1,
		.max_softirqs = 5, .max_ticks_per_s = 2,
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
		{ .name = "histogram", .type = OPT_DOUBLE, .dest = &o.hist_max_us,
		  .arg = "US", .help = "cyclic: histogram range in us, 1 us buckets (cyclictest -h)",
		  .min = 10, .max = 1e6 },
		{ .name = "warmup", .type = OPT_DOUBLE, .dest = &o.warmup_s, .arg = "SECS",
		  .help = "quiet/control: spin this long before counting", .min = 0, .max = 600 },
		{ .name = "max-softirqs", .type = OPT_UINT, .dest = &o.max_softirqs,
		  .arg = "N", .help = "quiet, nohz_full: TIMER softirqs allowed in the window",
		  .min = 0, .max = 1e9 },
		{ .name = "max-ticks-per-s", .type = OPT_DOUBLE, .dest = &o.max_ticks_per_s,
		  .arg = "N", .help = "quiet, nohz_full: local timer interrupts per s that still count as a stopped tick",
		  .min = 0, .max = 1e4 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "timer_softirq",
		.summary = "Timer-softirq suppression on the target CPU (quiet, positive control) and cyclictest-style wakeup latency.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS | COMMON_DURATION,
		.opts = opts,
	};
	struct bench b = { .opt = { .duration_s = 5 } };
	struct ts_run r = { 0 };

	bench_init(&b, &spec, argc, argv);
	ts_check(&b, &o, &r);
	counting_open(&b, &r.k);
	if (r.quiet || r.control)
		quiet_window(&b, &o, &r);
	if (r.quiet)
		quiet_verdicts(&b, &o, &r);
	if (r.control)
		control_phase(&b, &o, &r);
	if (r.cyclic)
		cyclic_phase(&b, &o, &r);
	cpu_events_close(&r.k);
	bench_finish(&b);
}
