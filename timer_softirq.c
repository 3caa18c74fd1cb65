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
#include "lib/knob.h"
#include "lib/sched.h"
#include "lib/tick.h"
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

struct counting {
	int cpu;
	struct counter c[EV_N];
	struct irq_table irq0, sirq0;
	uint64_t t0_ns, jiffies0;
	bool have_jiffies;
};

/* One counted window on the target CPU. */
struct window {
	double seconds;
	uint64_t ev[EV_N];		/* UINT64_MAX: not counted */
	int64_t loc, proc_timer, proc_hrtimer;	/* -1: not available */
	uint64_t jiffies;		/* 0: unknown */
	int hz;
};

/*
 * The target CPU's user-space side of a window: a spinning thread and,
 * for the control, a thread sleeping in recv() with SO_RCVTIMEO.
 */
struct spinner {
	int cpu;
	bool control;
	uint64_t deadline_ns;
	atomic_int ready, failed, stop;
	atomic_ullong timeouts;		/* recv() calls that timed out */
	char error[160];
};

static void counting_open(struct counting *k, int cpu, struct bench *b)
{
	char filter[64], addr[32] = "";
	const char *ka_filter = NULL;
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "r");

	/* schedule_timeout()'s handler, to count its expiries on their own */
	while (f && fgets(line, sizeof(line), f)) {
		char sym[128], type;

		if (sscanf(line, "%31s %c %127s", addr, &type, sym) == 3 &&
		    !strcmp(sym, "process_timeout") && strtoull(addr, NULL, 16)) {
			snprintf(filter, sizeof(filter), "function == 0x%s", addr);
			ka_filter = filter;
			break;
		}
	}
	if (f)
		fclose(f);
	k->cpu = cpu;
	counter_open_tracepoint(&k->c[EV_TIMER_RAISE], "irq:softirq_raise", "vec == 1", -1, cpu);
	counter_open_tracepoint(&k->c[EV_TIMER_RUN], "irq:softirq_entry", "vec == 1", -1, cpu);
	counter_open_tracepoint(&k->c[EV_HRTIMER_RUN], "irq:softirq_entry", "vec == 8", -1, cpu);
	counter_open_tracepoint(&k->c[EV_TIMER_EXPIRE], "timer:timer_expire_entry", NULL, -1, cpu);
	counter_open_tracepoint(&k->c[EV_HRTIMER_EXPIRE], "timer:hrtimer_expire_entry", NULL, -1, cpu);
	if (ka_filter)
		counter_open_tracepoint(&k->c[EV_SLEEP_EXPIRE], "timer:timer_expire_entry",
					ka_filter, -1, cpu);
	else
		k->c[EV_SLEEP_EXPIRE] = (struct counter){ .fd = -1,
			.error = "process_timeout not in /proc/kallsyms" };
	counter_open_tracepoint(&k->c[EV_TICK_STOPPED], "timer:tick_stop", "success == 1", -1, cpu);
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "success == 0 && dependency == %d", 1 << i);
		counter_open_tracepoint(&k->c[EV_TICK_KEPT + i], "timer:tick_stop", line, -1, cpu);
	}
	for (int i = 0; i < EV_N; i++)
		if (k->c[i].fd < 0 && (i == EV_TIMER_RUN || i == EV_SLEEP_EXPIRE ||
				       i == EV_TICK_STOPPED))
			bench_note(b, "not counted: %s", k->c[i].error);
	k->have_jiffies = !tick_jiffies(&k->jiffies0);
}

static void counting_begin(struct counting *k)
{
	for (int i = 0; i < EV_N; i++)
		if (k->c[i].fd >= 0)
			counter_enable(&k->c[i]);
	irq_table_read("/proc/interrupts", &k->irq0);
	irq_table_read("/proc/softirqs", &k->sirq0);
	if (k->have_jiffies)
		tick_jiffies(&k->jiffies0);
	k->t0_ns = mono_ns();
}

static void counting_end(struct counting *k, struct window *w)
{
	struct irq_table irq1 = { 0 }, sirq1 = { 0 };
	uint64_t j1;

	w->seconds = (mono_ns() - k->t0_ns) / 1e9;
	for (int i = 0; i < EV_N; i++) {
		w->ev[i] = UINT64_MAX;
		if (k->c[i].fd >= 0) {
			counter_disable(&k->c[i]);
			w->ev[i] = counter_read(&k->c[i]);
		}
	}
	irq_table_read("/proc/interrupts", &irq1);
	irq_table_read("/proc/softirqs", &sirq1);
	w->loc = irq_table_delta(&k->irq0, &irq1, "LOC", k->cpu);
	w->proc_timer = irq_table_delta(&k->sirq0, &sirq1, "TIMER", k->cpu);
	w->proc_hrtimer = irq_table_delta(&k->sirq0, &sirq1, "HRTIMER", k->cpu);
	w->jiffies = k->have_jiffies && !tick_jiffies(&j1) ? j1 - k->jiffies0 : 0;
	w->hz = tick_hz_from(w->jiffies, w->seconds);
	irq_table_free(&k->irq0);
	irq_table_free(&k->sirq0);
	irq_table_free(&irq1);
	irq_table_free(&sirq1);
}

/* TIMER softirqs run: the tracepoint count, else /proc/softirqs. */
static int64_t timer_softirqs(const struct window *w)
{
	return w->ev[EV_TIMER_RUN] != UINT64_MAX ? (int64_t)w->ev[EV_TIMER_RUN]
						 : w->proc_timer;
}

static double ev_or_nan(const struct window *w, int i)
{
	return w->ev[i] == UINT64_MAX ? NAN : (double)w->ev[i];
}

static bool spinner_pin(struct spinner *s)
{
	if (!cpu_pin_self(s->cpu))
		return true;
	snprintf(s->error, sizeof(s->error), "pin to cpu %d: %s", s->cpu, strerror(errno));
	atomic_store(&s->failed, 1);
	return false;
}

static bool spinner_done(struct spinner *s)
{
	return atomic_load_explicit(&s->stop, memory_order_relaxed) || bench_stop ||
	       mono_ns() > s->deadline_ns;
}

/* The quiet side: no syscalls in the spin, the clock is the vDSO's. */
static void *spinner_main(void *arg)
{
	struct spinner *s = arg;

	if (!spinner_pin(s))
		return NULL;
	atomic_fetch_add(&s->ready, 1);
	while (!spinner_done(s))
		for (int i = 0; i < 100000; i++)
			__asm__ __volatile__("" ::: "memory");	/* keep the loop */
	return NULL;
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
	struct spinner *s = arg;
	struct timeval tmo = { .tv_usec = 1000 };
	char buf[1];
	int sv[2];

	if (!spinner_pin(s))
		return NULL;
	/* AF_UNIX: no network needed (a guest's loopback may be down) */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		snprintf(s->error, sizeof(s->error), "socketpair: %s", strerror(errno));
		atomic_store(&s->failed, 1);
		return NULL;
	}
	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo))) {
		snprintf(s->error, sizeof(s->error), "SO_RCVTIMEO: %s", strerror(errno));
		atomic_store(&s->failed, 1);
	} else {
		atomic_fetch_add(&s->ready, 1);
	}
	while (!atomic_load(&s->failed) && !spinner_done(s))
		if (recv(sv[0], buf, sizeof(buf), 0) < 0 && errno == EAGAIN)
			atomic_fetch_add(&s->timeouts, 1);
	close(sv[0]);
	close(sv[1]);
	return NULL;
}

/*
 * One window: the threads get ready on the target, warm up, then the
 * counted window runs while they do their work.
 */
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

static int spin_window(struct bench *b, struct counting *k, bool control,
		       double warmup_s, struct window *w, struct spinner *s,
		       uint64_t *timeouts)
{
	void *(*fn[2])(void *) = { spinner_main, timeout_main };
	int nth = control ? 2 : 1, started = 0;
	double seconds = b->opt.duration_s;
	pthread_t th[2];
	uint64_t t0;

	*s = (struct spinner){ .cpu = b->target, .control = control };
	s->deadline_ns = mono_ns() + (uint64_t)((warmup_s + seconds + 10) * 1e9);
	for (; started < nth; started++)
		if (pthread_create(&th[started], NULL, fn[started], s))
			break;
	if (started < nth)
		snprintf(s->error, sizeof(s->error), "pthread_create failed");
	while (started == nth && atomic_load(&s->ready) < nth &&
	       !atomic_load(&s->failed) && !bench_stop)
		usleep(1000);
	if (started == nth && atomic_load(&s->ready) == nth && !bench_stop) {
		usleep(warmup_s * 1e6);
		if (b->opt.verbose)	/* bench/timer_softirq.sh enables perf stat here */
			ksft_print_msg("%s window: counting on cpu %d for %.1f s\n",
				       control ? "control" : "quiet", b->target, seconds);
		counting_begin(k);
		t0 = atomic_load(&s->timeouts);
		for (uint64_t end = mono_ns() + seconds * 1e9; mono_ns() < end && !bench_stop;)
			usleep(20000);
		*timeouts = atomic_load(&s->timeouts) - t0;
		if (b->opt.verbose)
			ksft_print_msg("%s window: done\n", control ? "control" : "quiet");
		counting_end(k, w);
	}
	atomic_store(&s->stop, 1);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	return started == nth && atomic_load(&s->ready) == nth && w->seconds > 0 ? 0 : -1;
}

static void window_print(const char *what, int cpu, const struct window *w)
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
		       ev_or_nan(w, EV_TIMER_RAISE), ev_or_nan(w, EV_TIMER_RUN),
		       timer_softirqs(w) / w->seconds,
		       w->jiffies ? timer_softirqs(w) / (double)w->jiffies : NAN,
		       ev_or_nan(w, EV_HRTIMER_RUN), ev_or_nan(w, EV_TIMER_EXPIRE),
		       ev_or_nan(w, EV_SLEEP_EXPIRE), ev_or_nan(w, EV_HRTIMER_EXPIRE));
	ksft_print_msg("%s cpu %d: local timer interrupts %lld (%.1f/s), /proc/softirqs TIMER %lld HRTIMER %lld, tick_stop stopped %.0f kept%s\n",
		       what, cpu, (long long)w->loc, w->loc / w->seconds,
		       (long long)w->proc_timer, (long long)w->proc_hrtimer,
		       ev_or_nan(w, EV_TICK_STOPPED), deps[0] ? deps : " 0");
}

/* A window's counts as one metric sample with its details as extras. */
static void window_metric(struct bench *b, const char *name, const char *label,
			  const char *ctx, const struct window *w)
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
		metric_extra(m, keys[i], ev_or_nan(w, i));
	for (int i = 0; i < 6; i++)
		if (w->ev[EV_TICK_KEPT + i])
			metric_extra(m, tick_dep_names[i], ev_or_nan(w, EV_TICK_KEPT + i));
	metric_extra(m, "local_timer_irqs", w->loc);
	metric_extra(m, "proc_softirqs_timer", w->proc_timer);
	metric_extra(m, "proc_softirqs_hrtimer", w->proc_hrtimer);
	metric_extra(m, "jiffies", w->jiffies);
	metric_extra(m, "hz", w->hz);
	metric_extra(m, "timer_softirqs_per_tick",
		     w->jiffies ? timer_softirqs(w) / (double)w->jiffies : NAN);
	metric_extra(m, "local_timer_irqs_per_s", w->loc / w->seconds);
}

struct cyclic_result {
	uint64_t wakeups, overruns, early;
	double *lat_us;
	size_t nlat;
	struct hist h;
	struct window w;
	char policy[32];
};

/* cyclictest's loop: sleep to an absolute time, take the lateness. */
static void cyclic_run(struct bench *b, const struct ts_opts *o,
		       struct counting *k, struct cyclic_result *r)
{
	uint64_t interval_ns = o->interval_us * 1000, next, now, end;
	uint64_t max_loops = b->opt.loops_given ? b->opt.loops : UINT64_MAX;
	size_t cap = b->opt.duration_s * 1e6 / o->interval_us + 16;
	struct timespec ts;

	if (b->opt.loops_given && cap > b->opt.loops)
		cap = b->opt.loops;
	if (cap > (1u << 22))
		cap = 1u << 22;	/* exact percentiles of the first 4M wakeups */
	r->lat_us = malloc(cap * sizeof(*r->lat_us));
	if (!r->lat_us)
		cap = 0;
	counting_begin(k);
	now = mono_ns();
	end = b->opt.duration_given || !b->opt.loops_given ?
	      now + b->opt.duration_s * 1e9 : UINT64_MAX;
	next = now + interval_ns;
	while (r->wakeups < max_loops && next <= end && !bench_stop) {
		double lat;

		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			break;	/* EINTR: the stop signal */
		now = mono_ns();
		lat = ((double)now - (double)next) / 1000;
		r->early += now < next;
		hist_add(&r->h, lat);
		if (r->nlat < cap)
			r->lat_us[r->nlat++] = lat;
		r->wakeups++;
		next += interval_ns;
		while (next <= now) {	/* missed periods are skipped, as cyclictest does */
			next += interval_ns;
			r->overruns++;
		}
	}
	counting_end(k, &r->w);
}

static void cyclic_phase(struct bench *b, const struct ts_opts *o,
			 struct counting *k, const char *cpu_desc,
			 struct cyclic_result *res)
{
	struct cyclic_result r = { 0 };
	struct sched_saved ss = { .handle = -1 };
	struct mlock_saved ms = { .handle = -1 };
	struct sched_param before, after;
	int pol_before = sched_getscheduler(0), pol_after;
	struct metric *m;
	struct stats st = { 0 };
	char err[160];
	long locked;

	sched_getparam(0, &before);
	if (hist_init(&r.h, 0, 1, (size_t)o->hist_max_us))
		ksft_exit_fail_msg("no memory for the histogram\n");
	if (cpu_pin_self(b->target))
		ksft_exit_fail_msg("cannot pin to cpu %d: %s\n", b->target, strerror(errno));
	if (o->mlock && mlock_enter(&ms, err, sizeof(err)))
		bench_note(b, "%s: running without locked memory", err);
	if (o->policy == POL_FIFO && sched_fifo_enter(&ss, o->priority, err, sizeof(err)))
		bench_note(b, "%s: the cyclic thread runs SCHED_OTHER", err);
	sched_describe(r.policy, sizeof(r.policy));
	cyclic_run(b, o, k, &r);
	sched_restore(&ss);
	mlock_restore(&ms);
	cpu_pin_self_mask(&b->opt.housekeeping);

	pol_after = sched_getscheduler(0);
	sched_getparam(0, &after);
	locked = mlock_locked_kb();
	m = bench_metric(b, "wakeup_latency_us", "us", BETTER_LOWER,
			 "one wakeup: wake time - programmed time");
	m->hist = &r.h;
	if (r.nlat)
		stats_compute(r.lat_us, r.nlat, &st);
	metric_extra(m, "wakeups", r.wakeups);
	metric_extra(m, "interval_us", o->interval_us);
	metric_extra(m, "min_us", st.min);
	metric_extra(m, "avg_us", st.mean);
	metric_extra(m, "p50_us", st.p50);
	metric_extra(m, "p90_us", st.p90);
	metric_extra(m, "p99_us", st.p99);
	metric_extra(m, "p99_9_us", st.p999);
	metric_extra(m, "max_us", r.h.max);
	metric_extra(m, "overruns", r.overruns);
	metric_extra(m, "timer_softirqs_per_wakeup", timer_softirqs(&r.w) / (double)r.wakeups);
	metric_extra(m, "hrtimer_softirqs_per_wakeup",
		     ev_or_nan(&r.w, EV_HRTIMER_RUN) / r.wakeups);
	metric_extra(m, "local_timer_irqs_per_wakeup", r.w.loc / (double)r.wakeups);
	metric_extra(m, "hrtimer_expiries_per_wakeup",
		     ev_or_nan(&r.w, EV_HRTIMER_EXPIRE) / r.wakeups);
	if (r.wakeups) {
		ksft_print_msg("cyclic: %s %s, %llu wakeups every %g us: min %.1f avg %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us (%llu overruns)\n",
			       cpu_desc, r.policy, (unsigned long long)r.wakeups,
			       o->interval_us, st.min, st.mean, st.p50, st.p90,
			       st.p99, st.p999, r.h.max, (unsigned long long)r.overruns);
		ksft_print_msg("cyclic per wakeup: TIMER softirqs %.3f, HRTIMER softirqs %.3f, local timer interrupts %.3f, hrtimer expiries %.3f\n",
			       timer_softirqs(&r.w) / (double)r.wakeups,
			       ev_or_nan(&r.w, EV_HRTIMER_RUN) / r.wakeups,
			       r.w.loc / (double)r.wakeups,
			       ev_or_nan(&r.w, EV_HRTIMER_EXPIRE) / r.wakeups);
		if (!b->opt.quiet)
			hist_print(&r.h, stdout, "us", 50);
	}
	free(r.lat_us);
	r.lat_us = NULL;
	*res = r;	/* the metric keeps pointing at the histogram */
	m->hist = &res->h;

	bench_verdict(b, r.wakeups && !r.early ? KSFT_PASS : KSFT_FAIL,
		      bench_stop ? "interrupted" : NULL,
		      "cyclic: %llu wakeups on cpu %d, none early (%llu early)",
		      (unsigned long long)r.wakeups, b->target,
		      (unsigned long long)r.early);
	if (r.w.ev[EV_HRTIMER_EXPIRE] == UINT64_MAX)
		bench_verdict(b, KSFT_SKIP, k->c[EV_HRTIMER_EXPIRE].error,
			      "cyclic: the wakeups were hrtimer expiries on cpu %d", b->target);
	else
		/* at least half: under emulation many sleeps are already past due */
		bench_verdict(b, r.wakeups && 2 * r.w.ev[EV_HRTIMER_EXPIRE] >= r.wakeups ?
			      KSFT_PASS : KSFT_FAIL, NULL,
			      "cyclic: the wakeups were hrtimer expiries on cpu %d (%llu expiries, %llu wakeups)",
			      b->target, (unsigned long long)r.w.ev[EV_HRTIMER_EXPIRE],
			      (unsigned long long)r.wakeups);
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
	struct counting k = { 0 };
	struct window quiet = { 0 }, ctl = { 0 };
	struct cyclic_result cyc = { 0 };
	struct spinner sp;
	bool run_quiet, run_control, run_cyclic, nohz;
	char cpu_desc[96], ctx[160];
	unsigned int plan;

	bench_init(&b, &spec, argc, argv);
	if (b.opt.quick) {
		if (!b.opt.duration_given)
			b.opt.duration_s = 1;
		o.warmup_s = o.warmup_s < 0.3 ? o.warmup_s : 0.3;
	}
	run_quiet = o.phase == PH_QUIET || o.phase == PH_ALL;
	run_control = o.phase == PH_CONTROL || o.phase == PH_ALL;
	run_cyclic = o.phase == PH_CYCLIC || o.phase == PH_ALL;
	if (run_cyclic && o.policy == POL_FIFO && o.interval_us < FIFO_MIN_INTERVAL_US &&
	    rt_throttling_off())
		bench_usage_error(&b, "-i %g with SCHED_FIFO needs RT throttling (%s is -1): use -i %d or more, or --policy other",
				  o.interval_us, RT_RUNTIME, FIFO_MIN_INTERVAL_US);
	nohz = CPU_ISSET(b.target, &b.sets.nohz_full);
	if (CPU_COUNT(&b.opt.cpus) > 1)
		bench_note(&b, "timer_softirq measures one CPU: using cpu %d of the list", b.target);
	if (!CPU_COUNT(&b.opt.housekeeping))
		bench_skip(&b, "needs a housekeeping CPU besides cpu %d to count from", b.target);
	plan = 3 * run_quiet + 2 * run_control + 3 * run_cyclic;
	bench_plan(&b, plan);
	snprintf(cpu_desc, sizeof(cpu_desc), "cpu %d (%s)", b.target,
		 cpu_isolation_name(&b.sets, b.target));

	/* the counting thread (this one) stays on the housekeeping CPUs */
	if (cpu_pin_self_mask(&b.opt.housekeeping))
		ksft_exit_fail_msg("cannot pin to the housekeeping cpus: %s\n", strerror(errno));
	counting_open(&k, b.target, &b);

	if (run_quiet || run_control) {
		uint64_t none;
		int ret = spin_window(&b, &k, false, o.warmup_s, &quiet, &sp, &none);

		if (ret && !bench_stop)
			ksft_exit_fail_msg("quiet window: %s\n", sp.error);
		if (ret)
			bench_skip(&b, "interrupted before the quiet window was counted");
		window_print("quiet", b.target, &quiet);
		snprintf(ctx, sizeof(ctx), "%s busy loop", cpu_desc);
		window_metric(&b, "quiet_timer_softirqs_per_s", "quiet TIMER softirqs", ctx, &quiet);
	}
	if (run_quiet) {
		int64_t n = timer_softirqs(&quiet);
		double ticks = quiet.loc / quiet.seconds;
		char why[160];

		bench_verdict(&b, quiet.loc >= 0 && n >= 0 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "quiet: counted %.1f s of busy loop on cpu %d (TIMER softirqs %lld, local timer interrupts %lld)",
			      quiet.seconds, b.target, (long long)n, (long long)quiet.loc);
		snprintf(why, sizeof(why), "cpu %d is not nohz_full", b.target);
		if (!nohz)
			bench_verdict(&b, KSFT_SKIP, why, "quiet: the tick stopped on cpu %d", b.target);
		else
			bench_verdict(&b, quiet.loc >= 0 && ticks <= o.max_ticks_per_s ?
				      KSFT_PASS : KSFT_FAIL, NULL,
				      "quiet: the tick stopped on cpu %d (%.1f local timer interrupts/s, max %g; tick_stop success %.0f)",
				      b.target, ticks, o.max_ticks_per_s,
				      ev_or_nan(&quiet, EV_TICK_STOPPED));
		if (!nohz)
			bench_verdict(&b, KSFT_SKIP, why, "quiet: TIMER softirqs on cpu %d within --max-softirqs", b.target);
		else
			bench_verdict(&b, n >= 0 && n <= (int64_t)o.max_softirqs ? KSFT_PASS : KSFT_FAIL,
				      NULL, "quiet: %lld TIMER softirqs on cpu %d in %.1f s (max %llu%s)",
				      (long long)n, b.target, quiet.seconds,
				      (unsigned long long)o.max_softirqs,
				      quiet.ev[EV_TIMER_RUN] == UINT64_MAX ? ", from /proc/softirqs" : "");
	}
	if (run_control && bench_stop) {
		for (int i = 0; i < 2; i++)
			bench_verdict(&b, KSFT_SKIP, "interrupted", "control phase");
	} else if (run_control) {
		struct knob migration;
		uint64_t tmo = 0;
		int64_t rise;

		timer_migration_off(&b, nohz, &migration);
		if (spin_window(&b, &k, true, o.warmup_s, &ctl, &sp, &tmo) && !bench_stop)
			ksft_exit_fail_msg("control window: %s\n", sp.error);
		knob_restore(&migration);
		window_print("control", b.target, &ctl);
		ksft_print_msg("control cpu %d: %llu recv() timeouts of 1 ms (SO_RCVTIMEO) next to the busy loop\n",
			       b.target, (unsigned long long)tmo);
		snprintf(ctx, sizeof(ctx), "%s busy loop, %llu recv() timeouts",
			 cpu_desc, (unsigned long long)tmo);
		window_metric(&b, "control_timer_softirqs_per_s", "control TIMER softirqs", ctx, &ctl);
		metric_extra(&b.metrics[b.nmetrics - 1], "recv_timeouts", tmo);
		rise = timer_softirqs(&ctl) - (int64_t)(timer_softirqs(&quiet) / quiet.seconds * ctl.seconds);
		if (ctl.ev[EV_SLEEP_EXPIRE] == UINT64_MAX)
			bench_verdict(&b, KSFT_SKIP, k.c[EV_SLEEP_EXPIRE].error,
				      "control: each recv() timeout was a timer-wheel expiry on cpu %d", b.target);
		else	/* +2: a timeout may straddle either edge of the window */
			bench_verdict(&b, tmo >= 10 && ctl.ev[EV_SLEEP_EXPIRE] + 2 >= tmo ?
				      KSFT_PASS : KSFT_FAIL, NULL,
				      "control: each recv() timeout was a timer-wheel expiry on cpu %d (%llu process_timeout expiries, %llu timeouts)",
				      b.target, (unsigned long long)ctl.ev[EV_SLEEP_EXPIRE],
				      (unsigned long long)tmo);
		/* a jiffy may already have had a softirq for another timer: 1 in 4 suffices */
		bench_verdict(&b, tmo >= 10 && rise >= (int64_t)tmo / 4 ? KSFT_PASS : KSFT_FAIL, NULL,
			      "control: TIMER softirqs on cpu %d rose from %.1f/s to %.1f/s (+%lld in %.1f s, %llu timeouts)",
			      b.target, timer_softirqs(&quiet) / quiet.seconds,
			      timer_softirqs(&ctl) / ctl.seconds, (long long)rise, ctl.seconds,
			      (unsigned long long)tmo);
	}
	if (run_cyclic && !bench_stop)
		cyclic_phase(&b, &o, &k, cpu_desc, &cyc);
	else if (run_cyclic)
		for (int i = 0; i < 3; i++)
			bench_verdict(&b, KSFT_SKIP, "interrupted", "cyclic phase");
	for (int i = 0; i < EV_N; i++)
		counter_close(&k.c[i]);
	bench_finish(&b);
}
