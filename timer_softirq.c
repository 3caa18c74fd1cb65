// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq: does the target CPU stay quiet, and how fast does it
 * wake up? (seed: "do not raise timer softirq unconditionally",
 * cyclictest latency from 25us to 14us on isolated CPUs.)
 *
 * quiet    a pure user-space busy loop on the target CPU, no timers armed
 *          by the process, counted in --runs windows on that CPU only by
 *          a trace instance read from a housekeeping thread after each
 *          window (lib/cpu_trace.h: nothing is sent to the target to
 *          count): TIMER softirqs raised against the ticks and the timer
 *          expiries that were due (seed 004: raise it only when a timer
 *          is due, on any CPU), softirq runs, tick_stop, the IPIs sent to
 *          the target (none may come from the counting), local timer
 *          interrupts and /proc/softirqs. On a nohz_full CPU (or with
 *          --assert-nohz) the tick must stop and TIMER softirqs stay
 *          within --max-softirqs.
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
#include "lib/cpu_trace.h"
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
#define MAX_RUNS		1000
/* the cyclic phase's counted pass, after the measured runs */
#define COUNTED_PASS_S		1.0

enum phase { PH_QUIET, PH_CONTROL, PH_CYCLIC, PH_ALL };
static const char *const phase_names[] = { "quiet", "control", "cyclic", "all", NULL };
enum policy { POL_FIFO, POL_OTHER };
static const char *const policy_names[] = { "fifo", "other", NULL };

struct ts_opts {
	int phase, policy;
	double interval_us, hist_max_us, warmup_s, max_ticks_per_s;
	double max_needless_per_tick;
	int64_t priority;
	uint64_t max_softirqs;
	bool mlock, laptop, assert_nohz, perf_counters;
};

/*
 * Counted with perf counters: the cyclic phase's counted pass, and the
 * windows with --perf-counters (the cross-check and the old method).
 */
enum ev {
	EV_TIMER_RAISE, EV_TIMER_RUN, EV_HRTIMER_RUN, EV_TIMER_EXPIRE,
	EV_HRTIMER_EXPIRE, EV_N
};
/* ...and the target CPU's rows of /proc/interrupts and /proc/softirqs */
enum row { ROW_LOC, ROW_TIMER, ROW_HRTIMER };

/* One counted window of the quiet or control phase. */
struct ts_window {
	struct cpu_trace_counts t;	/* from the trace instance */
	struct cpu_window w;		/* rows, jiffies; perf counts if asked */
	uint64_t timeouts;		/* control: recv() timeouts */
	uint64_t ticks;			/* t.ticks, or jiffies without the tick's symbol */
};

struct cyclic_result {
	struct cyclic c;	/* wakeups, overruns, early: all runs */
	struct hist h;
	struct cpu_window w;	/* the rows over the measured runs */
	struct cpu_window counted;	/* the counted pass */
	uint64_t counted_wakeups;
	double *p50_us, *p99_us, *max_us;	/* per run */
	uint64_t runs;
	struct stats st;	/* all wakeups (up to the cap) */
	bool dma_held;
	char policy[32];
};

/* One run: the phases asked for, the counting and what they found. */
struct ts_run {
	bool quiet, control, cyclic, nohz;
	bool tick_fn;		/* the tick's hrtimer function is known */
	char cpu_desc[96];
	struct cpu_trace tr;
	struct cpu_events rows;	/* /proc rows and jiffies only: no IPIs */
	struct cpu_events k;	/* perf counters */
	struct ts_window *quiet_w, *ctl_w, quiet_sum, ctl_sum;
	uint64_t quiet_max_softirqs;	/* the worst quiet window */
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

/* Perf counters on the target, opened from this (housekeeping) thread. */
static void counters_open(struct bench *b, struct cpu_events *k)
{
	cpu_events_init(k, b->target);
	cpu_events_tracepoint(k, EV_TIMER_RAISE, "irq:softirq_raise", "vec == 1");
	cpu_events_tracepoint(k, EV_TIMER_RUN, "irq:softirq_entry", "vec == 1");
	cpu_events_tracepoint(k, EV_HRTIMER_RUN, "irq:softirq_entry", "vec == 8");
	cpu_events_tracepoint(k, EV_TIMER_EXPIRE, "timer:timer_expire_entry", NULL);
	cpu_events_tracepoint(k, EV_HRTIMER_EXPIRE, "timer:hrtimer_expire_entry", NULL);
	cpu_events_row(k, ROW_LOC, "/proc/interrupts", "LOC");
	cpu_events_row(k, ROW_TIMER, "/proc/softirqs", "TIMER");
	cpu_events_row(k, ROW_HRTIMER, "/proc/softirqs", "HRTIMER");
}

/* The trace instance and the rows, for the quiet and control windows. */
static void counting_open(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	unsigned long long addr;
	char err[192];

	/* the counting thread (this one) stays on the housekeeping CPUs */
	if (cpu_pin_self_mask(&b->opt.housekeeping))
		ksft_exit_fail_msg("cannot pin to the housekeeping cpus: %s\n", strerror(errno));
	if (cpu_trace_open(&r->tr, b->target, err, sizeof(err)))
		bench_skip(b, "cannot count on cpu %d with a trace instance: %s", b->target, err);
	for (int i = 0; i < r->tr.nnotes; i++)
		bench_note(b, "%s", r->tr.notes[i]);
	if (!r->tr.have_ipi_cpu || !r->tr.have_ipi_mask)
		bench_note(b, "IPIs to cpu %d not fully traced: %s", b->target, r->tr.ipi_error);
	r->tick_fn = !ksym_addr("tick_nohz_handler", &addr) ||
		     !ksym_addr("tick_sched_timer", &addr);
	if (!r->tick_fn)
		bench_note(b, "no tick_nohz_handler or tick_sched_timer in /proc/kallsyms: ticks are the window's jiffies");
	if (o->perf_counters) {
		counters_open(b, &r->k);
		bench_note(b, "--perf-counters: per-cpu perf counters on cpu %d are enabled, disabled and read inside each window (each by an IPI to it)",
			   b->target);
	}
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

/*
 * One counted window: tracing on, -D seconds, tracing off, the records
 * read. The /proc rows are read just outside it: reading them sends
 * nothing, but the tables are allocated and freed, and memory this
 * process unmaps is flushed from the TLB of the target (the spinner
 * runs there in the same mm) by an IPI. With --perf-counters the perf
 * counters are enabled, disabled and read inside it, as before.
 */
static int count_window(struct bench *b, const struct ts_opts *o, struct ts_run *r,
			const char *what, struct sleeper *sl, struct ts_window *w)
{
	uint64_t t0, on_ns, off_ns;
	int ret;

	cpu_events_begin(&r->rows);
	if (cpu_trace_begin(&r->tr))
		return -1;
	on_ns = mono_ns();
	if (b->opt.verbose)	/* bench/timer_softirq.sh enables perf stat here */
		ksft_print_msg("%s window: counting on cpu %d for %.1f s\n",
			       what, b->target, b->opt.duration_s);
	if (o->perf_counters)
		cpu_events_begin(&r->k);
	t0 = atomic_load(&sl->timeouts);
	for (uint64_t end = mono_ns() + b->opt.duration_s * 1e9; mono_ns() < end && !bench_stop;)
		usleep(20000);
	w->timeouts = atomic_load(&sl->timeouts) - t0;
	if (o->perf_counters)
		cpu_events_end(&r->k, &w->w);
	if (b->opt.verbose)
		ksft_print_msg("%s window: done\n", what);
	off_ns = mono_ns();
	ret = cpu_trace_end(&r->tr, &w->t);
	if (o->perf_counters) {
		struct cpu_window rows;

		cpu_events_end(&r->rows, &rows);
		memcpy(w->w.row, rows.row, sizeof(rows.row));
		w->w.jiffies = rows.jiffies;
		w->w.hz = rows.hz;
	} else {
		cpu_events_end(&r->rows, &w->w);
	}
	w->w.seconds = (off_ns - on_ns) / 1e9;	/* the trace window's length */
	if (ret)
		return -1;
	w->ticks = r->tick_fn ? w->t.ticks : w->w.jiffies;
	return w->w.seconds > 0 ? 0 : -1;
}

/*
 * --runs windows: a busy loop (and, for the control, the sleeper) get
 * ready on the target and warm up once, then the counted windows run
 * one after the other while they do their work. Returns the windows
 * counted; with a reason in @err when fewer than asked (none when
 * interrupted).
 */
static uint64_t spin_windows(struct bench *b, const struct ts_opts *o, struct ts_run *r,
			     bool control, struct ts_window *w, char *err, size_t errlen)
{
	uint64_t runs = b->opt.runs, done = 0;
	double max_s = o->warmup_s + runs * (b->opt.duration_s + 2) + 10;
	struct sleeper sl = { .cpu = b->target };
	struct spinner sp = { 0 };
	bool sleeping = false;
	pthread_t th;

	*err = '\0';
	if (spinner_start(&sp, b->target, 0, max_s, err, errlen))
		return 0;
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
	if (!*err && !bench_stop)
		usleep(o->warmup_s * 1e6);
	while (!*err && !bench_stop && done < runs) {
		if (count_window(b, o, r, control ? "control" : "quiet", &sl, &w[done])) {
			snprintf(err, errlen, "window %llu could not be counted: %s",
				 (unsigned long long)done + 1, strerror(errno));
			break;
		}
		done++;
	}
	atomic_store(&sl.stop, 1);
	if (sleeping)
		pthread_join(th, NULL);
	spinner_stop(&sp);
	return done;
}

/* @sum = the windows added up (counts, rows, seconds, jiffies). */
static void windows_sum(const struct ts_window *w, uint64_t n, struct ts_window *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < CPU_EVENTS_MAX; i++)
		sum->w.ev[i] = n ? 0 : UINT64_MAX;
	for (uint64_t i = 0; i < n; i++) {
		cpu_trace_add(&sum->t, &w[i].t);
		sum->w.seconds += w[i].w.seconds;
		sum->w.jiffies += w[i].w.jiffies;
		sum->w.hz = w[i].w.hz ? w[i].w.hz : sum->w.hz;
		for (int j = 0; j < CPU_EVENTS_MAX_ROWS; j++)
			sum->w.row[j] += w[i].w.row[j] < 0 ? 0 : w[i].w.row[j];
		for (int j = 0; j < CPU_EVENTS_MAX; j++)
			sum->w.ev[j] = w[i].w.ev[j] == UINT64_MAX || sum->w.ev[j] == UINT64_MAX ?
				       UINT64_MAX : sum->w.ev[j] + w[i].w.ev[j];
		sum->timeouts += w[i].timeouts;
		sum->ticks += w[i].ticks;
	}
}

static double per(double n, double d)
{
	return d > 0 ? n / d : NAN;
}

static void window_print(const char *what, int cpu, const struct ts_window *s)
{
	const struct cpu_trace_counts *t = &s->t;
	const struct cpu_window *w = &s->w;
	char deps[160] = "";
	size_t off = 0;

	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		if (t->tick_kept[i])
			off += snprintf(deps + off, sizeof(deps) - off, " %s=%llu",
					cpu_trace_dep_names[i],
					(unsigned long long)t->tick_kept[i]);
	ksft_print_msg("%s cpu %d: %d x %.2f s, %llu ticks, %llu jiffies (HZ %d): TIMER softirqs raised %llu run %llu (%.2f/s, %.4f/tick), HRTIMER run %llu, timer expiries %llu (process_timeout %llu), hrtimer expiries %llu\n",
		       what, cpu, t->windows, w->seconds / (t->windows ? t->windows : 1),
		       (unsigned long long)s->ticks, (unsigned long long)w->jiffies, w->hz,
		       (unsigned long long)t->timer_raised, (unsigned long long)t->timer_runs,
		       per(t->timer_runs, w->seconds), per(t->timer_raised, s->ticks),
		       (unsigned long long)t->hrtimer_runs, (unsigned long long)t->timer_expiries,
		       (unsigned long long)t->sleep_expiries,
		       (unsigned long long)t->hrtimer_expiries);
	ksft_print_msg("%s cpu %d: raised %llu: %llu without a due timer (%.4f/tick), %llu runs expired timers, %llu ran after the window\n",
		       what, cpu, (unsigned long long)t->timer_raised,
		       (unsigned long long)t->raised_without_expiry,
		       per(t->raised_without_expiry, s->ticks),
		       (unsigned long long)t->runs_with_expiry,
		       (unsigned long long)t->raised_unrun);
	ksft_print_msg("%s cpu %d: local timer interrupts %lld (%.1f/s), /proc/softirqs TIMER %lld HRTIMER %lld, tick_stop stopped %llu kept%s\n",
		       what, cpu, (long long)w->row[ROW_LOC], per(w->row[ROW_LOC], w->seconds),
		       (long long)w->row[ROW_TIMER], (long long)w->row[ROW_HRTIMER],
		       (unsigned long long)t->tick_stopped, deps[0] ? deps : " 0");
	if (w->ev[EV_TIMER_RUN] != UINT64_MAX)
		ksft_print_msg("%s cpu %d: perf counters: TIMER softirqs raised %.0f run %.0f, timer expiries %.0f, hrtimer expiries %.0f\n",
			       what, cpu, cpu_window_ev(w, EV_TIMER_RAISE),
			       cpu_window_ev(w, EV_TIMER_RUN), cpu_window_ev(w, EV_TIMER_EXPIRE),
			       cpu_window_ev(w, EV_HRTIMER_EXPIRE));
}

/* A phase's windows as one metric, a sample per window, totals as extras. */
static struct metric *window_metric(struct bench *b, const char *name, const char *label,
				    const char *ctx, const struct ts_window *w, uint64_t n,
				    const struct ts_window *s)
{
	struct metric *m = bench_metric(b, name, "softirqs/s", BETTER_LOWER,
					"TIMER softirqs run on the target per second of one window");
	const struct cpu_trace_counts *t = &s->t;
	uint64_t kept = 0;

	for (uint64_t i = 0; i < n; i++)
		metric_add(m, per(w[i].t.timer_runs, w[i].w.seconds));
	metric_sample_noun(m, "window", "windows");
	metric_summary(m, label, "%s, %llu x %.1f s", ctx, (unsigned long long)n,
		       s->w.seconds / (n ? n : 1));
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		kept += t->tick_kept[i];
	metric_extra(m, "window_s", s->w.seconds);
	metric_extra(m, "timer_softirqs_raised", t->timer_raised);
	metric_extra(m, "timer_softirqs_run", t->timer_runs);
	metric_extra(m, "hrtimer_softirqs_run", t->hrtimer_runs);
	metric_extra(m, "timer_expiries", t->timer_expiries);
	metric_extra(m, "process_timeout_expiries", t->sleep_expiries);
	metric_extra(m, "hrtimer_expiries", t->hrtimer_expiries);
	metric_extra(m, "tick_stop_success", t->tick_stopped);
	metric_extra(m, "tick_stop_kept", kept);
	metric_extra(m, "ticks", s->ticks);
	metric_extra(m, "local_timer_irqs", s->w.row[ROW_LOC]);
	metric_extra(m, "proc_softirqs_timer", s->w.row[ROW_TIMER]);
	metric_extra(m, "jiffies", s->w.jiffies);
	metric_extra(m, "hz", s->w.hz);
	metric_extra(m, "timer_softirqs_per_tick", per(t->timer_runs, s->ticks));
	return m;	/* 15 extras: room for the control's recv_timeouts */
}

/* Seed 004's figure: TIMER softirqs raised per tick, one sample per window. */
static void raised_metric(struct bench *b, const struct ts_opts *o, const struct ts_run *r,
			  uint64_t n)
{
	struct metric *m = bench_metric(b, "timer_softirq_raised_per_tick", "softirqs/tick",
					BETTER_LOWER,
					"TIMER softirqs raised on the target per tick of one quiet window");
	const struct ts_window *s = &r->quiet_sum;

	for (uint64_t i = 0; i < n; i++)
		metric_add(m, per(r->quiet_w[i].t.timer_raised, r->quiet_w[i].ticks));
	metric_sample_noun(m, "window", "windows");
	metric_summary(m, "TIMER softirqs raised per tick", "%s busy loop, %llu raised in %llu ticks, %llu timer expiries",
		       r->cpu_desc, (unsigned long long)s->t.timer_raised,
		       (unsigned long long)s->ticks, (unsigned long long)s->t.timer_expiries);
	metric_extra(m, "timer_softirqs_raised", s->t.timer_raised);
	metric_extra(m, "ticks", s->ticks);
	metric_extra(m, "ticks_are_jiffies", !r->tick_fn);
	metric_extra(m, "timer_expiries", s->t.timer_expiries);
	metric_extra(m, "raised_without_expiry", s->t.raised_without_expiry);
	metric_extra(m, "raised_without_expiry_per_tick",
		     per(s->t.raised_without_expiry, s->ticks));
	metric_extra(m, "max_without_expiry_per_tick", o->max_needless_per_tick);
	metric_extra(m, "runs_with_expiry", s->t.runs_with_expiry);
	metric_extra(m, "raised_after_window", s->t.raised_unrun);
	metric_extra(m, "ipis_to_target", s->t.ipis);
	metric_extra(m, "ipis_to_target_from_counting", s->t.ipis_self - s->t.ipis_self_resched);
	metric_extra(m, "resched_ipis_to_target_from_us", s->t.ipis_self_resched);
	metric_extra(m, "window_s", s->w.seconds);
}

/* quiet: the busy loop alone; also the baseline of the control */
static void quiet_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	char ctx[160], err[160];
	uint64_t n;

	r->quiet_w = calloc(b->opt.runs, sizeof(*r->quiet_w));
	if (!r->quiet_w)
		ksft_exit_fail_msg("out of memory\n");
	n = spin_windows(b, o, r, false, r->quiet_w, err, sizeof(err));
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("quiet window: %s\n", err);
	if (!n)
		bench_skip(b, "interrupted before the quiet window was counted");
	windows_sum(r->quiet_w, n, &r->quiet_sum);
	for (uint64_t i = 0; i < n; i++)
		if (r->quiet_w[i].t.timer_runs > r->quiet_max_softirqs)
			r->quiet_max_softirqs = r->quiet_w[i].t.timer_runs;
	window_print("quiet", b->target, &r->quiet_sum);
	if (r->quiet)
		raised_metric(b, o, r, n);
	snprintf(ctx, sizeof(ctx), "%s busy loop", r->cpu_desc);
	window_metric(b, "quiet_timer_softirqs_per_s", "quiet TIMER softirqs", ctx,
		      r->quiet_w, n, &r->quiet_sum);
}

/* The IPIs sent to the target in the windows, by callback; ours apart. */
static void ipis_print(int cpu, const struct cpu_trace_counts *t)
{
	char list[400] = "";
	size_t off = 0;

	for (int i = 0; i < t->ncb && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s %s %llu (%llu ours)",
				i ? "," : ":", t->cb[i].callback,
				(unsigned long long)t->cb[i].n,
				(unsigned long long)t->cb[i].self);
	ksft_print_msg("quiet cpu %d: %llu IPIs sent to it inside the windows, %llu by this process%s\n",
		       cpu, (unsigned long long)t->ipis, (unsigned long long)t->ipis_self, list);
	if (t->ipis_self)
		ksft_print_msg("quiet cpu %d: %llu of this process's IPIs were reschedules (a wakeup or preemption there, not a remote call); the last was sent from %s\n",
			       cpu, (unsigned long long)t->ipis_self_resched, t->self_callsite);
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
	bench_verdict(b, q->seconds > 0 && !t->lost ? KSFT_PASS : KSFT_FAIL, NULL,
		      "quiet: counted %d windows of busy loop on cpu %d, no event lost (%lld lost, %llu records)",
		      t->windows, b->target, t->lost, (unsigned long long)t->lines);
	bench_verdict(b, cpu_trace_raise_ok(t, o->max_needless_per_tick) ? KSFT_PASS : KSFT_FAIL,
		      NULL, "quiet: cpu %d raised TIMER softirqs for due timers only (%llu of %llu ran none, %llu ticks: %.4f/tick, max %g)",
		      b->target, (unsigned long long)t->raised_without_expiry,
		      (unsigned long long)t->timer_raised, (unsigned long long)s->ticks,
		      per(t->raised_without_expiry, s->ticks), o->max_needless_per_tick);
	ipis_print(b->target, t);
	if (!r->tr.have_ipi_cpu)
		bench_verdict(b, KSFT_SKIP, r->tr.ipi_error,
			      "quiet: the counting sent no IPI to cpu %d inside the windows", b->target);
	else
		bench_verdict(b, t->ipis_self > t->ipis_self_resched ? KSFT_FAIL : KSFT_PASS, NULL,
			      "quiet: the counting sent no IPI to cpu %d inside the windows (%llu function calls of %llu IPIs to it were ours)",
			      b->target,
			      (unsigned long long)(t->ipis_self - t->ipis_self_resched),
			      (unsigned long long)t->ipis);
	snprintf(why, sizeof(why), "cpu %d is not nohz_full (--assert-nohz asserts it anyway)",
		 b->target);
	if (!nohz)
		bench_verdict(b, KSFT_SKIP, why, "quiet: the tick stopped on cpu %d", b->target);
	else
		bench_verdict(b, q->row[ROW_LOC] >= 0 && ticks <= o->max_ticks_per_s ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "quiet: the tick stopped on cpu %d (%.1f local timer interrupts/s, max %g; tick_stop success %llu)",
			      b->target, ticks, o->max_ticks_per_s,
			      (unsigned long long)t->tick_stopped);
	if (!nohz)
		bench_verdict(b, KSFT_SKIP, why, "quiet: TIMER softirqs on cpu %d within --max-softirqs", b->target);
	else
		bench_verdict(b, r->quiet_max_softirqs <= o->max_softirqs ? KSFT_PASS : KSFT_FAIL,
			      NULL, "quiet: at most %llu TIMER softirqs on cpu %d in a %.1f s window (max %llu)",
			      (unsigned long long)r->quiet_max_softirqs, b->target,
			      b->opt.duration_s, (unsigned long long)o->max_softirqs);
}

static void control_verdicts(struct bench *b, const struct ts_run *r)
{
	const struct ts_window *q = &r->quiet_sum, *c = &r->ctl_sum;
	uint64_t tmo = c->timeouts;
	int64_t sleep_rise = (int64_t)c->t.sleep_runs -
			     (int64_t)(q->t.sleep_runs / q->w.seconds * c->w.seconds);

	/* +2 per window: a timeout may straddle either edge of a window */
	bench_verdict(b, tmo >= 10 && c->t.sleep_expiries + 2 * c->t.windows >= tmo ?
		      KSFT_PASS : KSFT_FAIL, NULL,
		      "control: each recv() timeout was a timer-wheel expiry on cpu %d (%llu process_timeout expiries, %llu timeouts)",
		      b->target, (unsigned long long)c->t.sleep_expiries,
		      (unsigned long long)tmo);
	/*
	 * The TIMER softirqs that expired a process_timeout timer: the
	 * control's recv() timeouts add to them, while other processes'
	 * timers of every other kind (which on a busy shared CPU swing the
	 * total by more than the control adds) do not. A jiffy may already
	 * have had such a softirq for another sleeper: 1 in 4 suffices.
	 */
	bench_verdict(b, tmo >= 10 && sleep_rise >= (int64_t)tmo / 4 ? KSFT_PASS : KSFT_FAIL, NULL,
		      "control: TIMER softirqs on cpu %d rose: %.1f/s to %.1f/s expired a process_timeout (+%lld in %.1f s, %llu timeouts)",
		      b->target, q->t.sleep_runs / q->w.seconds, c->t.sleep_runs / c->w.seconds,
		      (long long)sleep_rise, c->w.seconds, (unsigned long long)tmo);
}

/* control: the same windows with process_timeout timers armed on the target */
static void control_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct knob migration;
	char ctx[160], err[160];
	uint64_t n;

	if (bench_stop) {
		bench_phase_skip(b, "control", "interrupted");
		return;
	}
	r->ctl_w = calloc(b->opt.runs, sizeof(*r->ctl_w));
	if (!r->ctl_w)
		ksft_exit_fail_msg("out of memory\n");
	timer_migration_off(b, r->nohz, &migration);
	n = spin_windows(b, o, r, true, r->ctl_w, err, sizeof(err));
	knob_restore(&migration);
	if (n < b->opt.runs && !bench_stop)
		ksft_exit_fail_msg("control window: %s\n", err);
	windows_sum(r->ctl_w, n, &r->ctl_sum);
	window_print("control", b->target, &r->ctl_sum);
	ksft_print_msg("control cpu %d: %llu recv() timeouts of 1 ms (SO_RCVTIMEO) next to the busy loop\n",
		       b->target, (unsigned long long)r->ctl_sum.timeouts);
	snprintf(ctx, sizeof(ctx), "%s busy loop, %llu recv() timeouts",
		 r->cpu_desc, (unsigned long long)r->ctl_sum.timeouts);
	metric_extra(window_metric(b, "control_timer_softirqs_per_s", "control TIMER softirqs",
				   ctx, r->ctl_w, n, &r->ctl_sum),
		     "recv_timeouts", r->ctl_sum.timeouts);
	if (n)
		control_verdicts(b, r);
	else
		bench_phase_skip(b, "control", "interrupted");
}

/*
 * cyclictest's loop on the target: --runs runs of -D (or -n wakeups)
 * each, one histogram, per-run percentiles; the /proc rows around them
 * (reading them sends nothing); then the counted pass with the perf
 * counters, kept apart from the measured runs.
 */
static void cyclic_run(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct cyclic_result *y = &r->cyc;
	size_t cap = b->opt.duration_s * 1e6 / o->interval_us + 16;
	double *all;
	size_t nall = 0, allcap;

	if (b->opt.loops_given && cap > b->opt.loops)
		cap = b->opt.loops;
	if (cap > (1u << 22))
		cap = 1u << 22;	/* exact percentiles of the first 4M wakeups of a run */
	allcap = cap * b->opt.runs < (1u << 22) ? cap * b->opt.runs : 1u << 22;
	all = malloc(allcap * sizeof(*all));
	y->p50_us = calloc(b->opt.runs, sizeof(double));
	y->p99_us = calloc(b->opt.runs, sizeof(double));
	y->max_us = calloc(b->opt.runs, sizeof(double));
	y->c = (struct cyclic){ .interval_ns = o->interval_us * 1000, .h = &y->h,
				.lat_us = malloc(cap * sizeof(double)), .cap = cap };
	if (!all || !y->p50_us || !y->p99_us || !y->max_us || !y->c.lat_us)
		ksft_exit_fail_msg("out of memory\n");
	cpu_events_begin(&r->rows);
	for (y->runs = 0; y->runs < b->opt.runs && !bench_stop; y->runs++) {
		struct cyclic c = y->c;
		struct stats st;

		c.wakeups = c.overruns = c.early = c.nlat = 0;
		c.max_wakeups = b->opt.loops_given ? b->opt.loops : 0;
		c.duration_ns = b->opt.duration_given || !b->opt.loops_given ?
				b->opt.duration_s * 1e9 : 0;
		cyclic_loop(&c);
		if (!c.nlat)
			break;
		stats_compute(c.lat_us, c.nlat, &st);
		y->p50_us[y->runs] = st.p50;
		y->p99_us[y->runs] = st.p99;
		y->max_us[y->runs] = st.max;
		for (size_t i = 0; i < c.nlat && nall < allcap; i++)
			all[nall++] = c.lat_us[i];
		y->c.wakeups += c.wakeups;
		y->c.overruns += c.overruns;
		y->c.early += c.early;
	}
	cpu_events_end(&r->rows, &y->w);
	if (nall)
		stats_compute(all, nall, &y->st);
	free(all);
	/* the counted pass: are the wakeups hrtimer expiries on the target? */
	if (!bench_stop) {
		struct cyclic c = { .interval_ns = o->interval_us * 1000,
				    .duration_ns = COUNTED_PASS_S * 1e9 };

		counters_open(b, &r->k);
		cpu_events_begin(&r->k);
		cyclic_loop(&c);
		cpu_events_end(&r->k, &y->counted);
		y->counted_wakeups = c.wakeups;
		y->c.early += c.early;
	}
	free(y->c.lat_us);
	y->c.lat_us = NULL;
}

/*
 * The cyclic thread (this one) on the target at the asked policy, with
 * memory locked if asked and /dev/cpu_dma_latency held at 0 unless
 * --laptop; all of it undone before returning.
 */
static void cyclic_measure(struct bench *b, const struct ts_opts *o, struct ts_run *r,
			   struct mlock_saved *ms, struct cpu_dma_latency *dl)
{
	struct sched_saved ss = { .handle = -1 };
	struct cyclic_result *y = &r->cyc;
	char err[160];

	if (hist_init(&y->h, 0, 1, (size_t)o->hist_max_us))
		ksft_exit_fail_msg("no memory for the histogram\n");
	if (!o->laptop && cpu_dma_latency_hold(dl, 0, err, sizeof(err)))
		bench_note(b, "%s: cpu_dma_latency left alone (as with --laptop)", err);
	y->dma_held = dl->fd >= 0;
	if (cpu_pin_self(b->target))
		ksft_exit_fail_msg("cannot pin to cpu %d: %s\n", b->target, strerror(errno));
	if (o->mlock && mlock_enter(ms, err, sizeof(err)))
		bench_note(b, "%s: running without locked memory", err);
	if (o->policy == POL_FIFO && sched_fifo_enter(&ss, o->priority, err, sizeof(err)))
		bench_note(b, "%s: the cyclic thread runs SCHED_OTHER", err);
	sched_describe(y->policy, sizeof(y->policy));
	cyclic_run(b, o, r);
	sched_restore(&ss);
	mlock_restore(ms);
	cpu_dma_latency_release(dl);
	cpu_pin_self_mask(&b->opt.housekeeping);
}

static struct metric *run_metric(struct bench *b, const char *name, const char *what,
				 const double *v, uint64_t n)
{
	struct metric *m = bench_metric(b, name, "us", BETTER_LOWER, what);

	for (uint64_t i = 0; i < n; i++)
		metric_add(m, v[i]);
	return m;
}

/* The latency distribution and what each wakeup cost, text and JSON. */
static void cyclic_report(struct bench *b, const struct ts_opts *o, const struct ts_run *r)
{
	const struct cyclic_result *y = &r->cyc;
	const struct cpu_window *w = &y->w, *k = &y->counted;
	const struct stats *st = &y->st;
	double n = y->c.wakeups;
	struct metric *m;

	m = run_metric(b, "wakeup_latency_us",
		       "median wakeup latency (wake time - programmed time) of one run",
		       y->p50_us, y->runs);
	m->hist = (struct hist *)&y->h;
	metric_extra(m, "wakeups", y->c.wakeups);
	metric_extra(m, "interval_us", o->interval_us);
	metric_extra(m, "min_us", st->min);
	metric_extra(m, "avg_us", st->mean);
	metric_extra(m, "p50_us", st->p50);
	metric_extra(m, "p90_us", st->p90);
	metric_extra(m, "p99_us", st->p99);
	metric_extra(m, "p99_9_us", st->p999);
	metric_extra(m, "max_us", y->h.max);
	metric_extra(m, "overruns", y->c.overruns);
	metric_extra(m, "cpu_dma_latency_us", y->dma_held ? 0 : -1);
	metric_extra(m, "timer_softirqs_per_wakeup", per(w->row[ROW_TIMER], n));
	metric_extra(m, "hrtimer_softirqs_per_wakeup", per(w->row[ROW_HRTIMER], n));
	metric_extra(m, "local_timer_irqs_per_wakeup", per(w->row[ROW_LOC], n));
	metric_extra(m, "hrtimer_expiries_per_wakeup",
		     per(cpu_window_ev(k, EV_HRTIMER_EXPIRE), y->counted_wakeups));
	metric_sample_noun(m, "run", "runs");
	run_metric(b, "wakeup_latency_p99_us", "99th percentile wakeup latency of one run",
		   y->p99_us, y->runs);
	run_metric(b, "wakeup_latency_max_us", "largest wakeup latency of one run",
		   y->max_us, y->runs);
	if (!y->c.wakeups)
		return;
	ksft_print_msg("cyclic: %s %s, %llu wakeups every %g us in %llu runs, cpu_dma_latency %s: min %.1f avg %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us (%llu overruns)\n",
		       r->cpu_desc, y->policy, (unsigned long long)y->c.wakeups,
		       o->interval_us, (unsigned long long)y->runs,
		       y->dma_held ? "held at 0 us" : "left alone",
		       st->min, st->mean, st->p50, st->p90, st->p99, st->p999, y->h.max,
		       (unsigned long long)y->c.overruns);
	ksft_print_msg("cyclic per wakeup: TIMER softirqs %.3f, HRTIMER softirqs %.3f, local timer interrupts %.3f (/proc); hrtimer expiries %.3f (counted pass of %llu wakeups)\n",
		       per(w->row[ROW_TIMER], n), per(w->row[ROW_HRTIMER], n),
		       per(w->row[ROW_LOC], n),
		       per(cpu_window_ev(k, EV_HRTIMER_EXPIRE), y->counted_wakeups),
		       (unsigned long long)y->counted_wakeups);
	if (!b->opt.quiet)
		hist_print(&y->h, stdout, "us", 50);
}

/* cyclic: cyclictest's measurement on the target */
static void cyclic_phase(struct bench *b, const struct ts_opts *o, struct ts_run *r)
{
	struct cyclic_result *c = &r->cyc;
	const struct cpu_window *k = &c->counted;
	struct mlock_saved ms = { .handle = -1 };
	struct cpu_dma_latency dl = { .fd = -1, .handle = -1 };
	struct sched_param before, after;
	int pol_before = sched_getscheduler(0), pol_after;
	long locked;

	if (bench_stop) {
		bench_phase_skip(b, "cyclic", "interrupted");
		return;
	}
	sched_getparam(0, &before);
	cyclic_measure(b, o, r, &ms, &dl);
	pol_after = sched_getscheduler(0);
	sched_getparam(0, &after);
	locked = mlock_locked_kb();
	cyclic_report(b, o, r);

	bench_verdict(b, c->c.wakeups && !c->c.early ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : NULL,
		      "cyclic: %llu wakeups on cpu %d in %llu runs, none early (%llu early)",
		      (unsigned long long)c->c.wakeups, b->target,
		      (unsigned long long)c->runs, (unsigned long long)c->c.early);
	if (k->ev[EV_HRTIMER_EXPIRE] == UINT64_MAX)
		bench_verdict(b, KSFT_SKIP, bench_stop ? "interrupted" :
			      cpu_events_error(&r->k, EV_HRTIMER_EXPIRE),
			      "cyclic: the wakeups were hrtimer expiries on cpu %d", b->target);
	else
		/* at least half: under emulation many sleeps are already past due */
		bench_verdict(b, c->counted_wakeups &&
			      2 * k->ev[EV_HRTIMER_EXPIRE] >= c->counted_wakeups ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "cyclic: the wakeups were hrtimer expiries on cpu %d (%llu expiries, %llu wakeups of the counted pass)",
			      b->target, (unsigned long long)k->ev[EV_HRTIMER_EXPIRE],
			      (unsigned long long)c->counted_wakeups);
	bench_verdict(b, pol_after == pol_before &&
		      after.sched_priority == before.sched_priority &&
		      (ms.was_locked || locked == 0) && dl.fd < 0 ? KSFT_PASS : KSFT_FAIL, NULL,
		      "cyclic: scheduling policy, memory locking and cpu_dma_latency restored (policy %d, %ld kB locked, cpu_dma_latency %s)",
		      pol_after, locked, dl.fd < 0 ? "released" : "still held");
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
		if (!b->opt.runs_given)
			b->opt.runs = 2;
		o->warmup_s = o->warmup_s < 0.3 ? o->warmup_s : 0.3;
	}
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
	if (CPU_COUNT(&b->opt.cpus) > 1)
		bench_note(b, "timer_softirq measures one CPU: using cpu %d of the list", b->target);
	if (!CPU_COUNT(&b->opt.housekeeping))
		bench_skip(b, "needs a housekeeping CPU besides cpu %d to count from", b->target);
	bench_phases(b, (const struct plan_phase[]){
		{ "quiet", 5, r->quiet },	/* quiet_verdicts() */
		{ "control", 2, r->control },	/* control_verdicts() */
		{ "cyclic", 3, r->cyclic },	/* cyclic_phase() */
		{ NULL }
	});
	snprintf(r->cpu_desc, sizeof(r->cpu_desc), "cpu %d (%s)", b->target,
		 cpu_isolation_name(&b->sets, b->target));
	if (o->assert_nohz && !r->nohz)
		bench_note(b, "--assert-nohz: the nohz_full assertions apply to cpu %d, which is not nohz_full",
			   b->target);
}

int main(int argc, char **argv)
{
	struct ts_opts o = {
		.phase = PH_ALL, .policy = POL_FIFO, .interval_us = 1000,
		.priority = 95, .hist_max_us = 10000, .warmup_s = 1,
		.max_softirqs = 5, .max_ticks_per_s = 2, .max_needless_per_tick = 0.25,
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
		{ .name = "perf-counters", .type = OPT_FLAG, .dest = &o.perf_counters,
		  .help = "quiet/control: also count with per-cpu perf counters inside each window (each enable, disable and read is an IPI to the target)" },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "timer_softirq",
		.summary = "Timer-softirq suppression on the target CPU (quiet, positive control) and cyclictest-style wakeup latency.",
		.common = COMMON_CPU | COMMON_HOUSEKEEPING | COMMON_LOOPS | COMMON_RUNS |
			  COMMON_DURATION,
		.opts = opts,
	};
	struct bench b = { .opt = { .duration_s = 2, .runs = 5 } };
	struct ts_run r = { 0 };

	bench_init(&b, &spec, argc, argv);
	ts_check(&b, &o, &r);
	/* the target's /proc rows and jiffies: read from anywhere, no IPI */
	cpu_events_init(&r.rows, b.target);
	cpu_events_row(&r.rows, ROW_LOC, "/proc/interrupts", "LOC");
	cpu_events_row(&r.rows, ROW_TIMER, "/proc/softirqs", "TIMER");
	cpu_events_row(&r.rows, ROW_HRTIMER, "/proc/softirqs", "HRTIMER");
	if (r.quiet || r.control)
		counting_open(&b, &o, &r);
	if (r.quiet || r.control)
		quiet_phase(&b, &o, &r);
	if (r.quiet)
		quiet_verdicts(&b, &o, &r);
	if (r.control)
		control_phase(&b, &o, &r);
	if (r.quiet || r.control) {
		cpu_trace_close(&r.tr);
		cpu_events_close(&r.k);
	}
	if (r.cyclic)
		cyclic_phase(&b, &o, &r);
	cpu_events_close(&r.k);
	bench_finish(&b);
}
