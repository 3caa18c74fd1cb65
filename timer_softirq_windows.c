// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/kernel/ksym.h"
#include "lib/load/spinner.h"
#include "lib/kernel/tick.h"
#include "timer_softirq_windows.h"

/*
 * The control's sleeping thread on the target CPU, next to the busy
 * loop (lib/load/spinner.h).
 */
struct sleeper {
	int cpu;
	uint64_t deadline_ns;
	atomic_int ready, failed, stop;
	atomic_int tid;			/* its thread, for the noise's attribution */
	atomic_ullong timeouts;		/* recv() calls that timed out */
	char error[160];
};

void timer_softirq_windows_open(struct bench *b, struct ts_run *r)
{
	struct ts_windows *w = calloc(1, sizeof(*w));
	unsigned long long addr;
	char err[192];
	int notes;

	if (!w)
		ksft_exit_fail_msg("out of memory\n");
	w->tick_quiet_s = NAN;
	r->win = w;
	timer_softirq_common_rows_open(&w->rows, b->target);
	/* the counting thread (this one) stays on the housekeeping CPUs */
	if (cpu_pin_self_mask(&b->opt.housekeeping))
		ksft_exit_fail_msg("cannot pin to the housekeeping cpus: %s\n", strerror(errno));
	/* first: its kprobes are removed at exit after the instances that use them */
	timer_softirq_deps_init(&w->deps, b->target);
	if ((r->nohz || r->o->assert_nohz) &&
	    timer_softirq_deps_open(&w->deps, b->target, err, sizeof(err)))
		bench_note(b, "who set the tick's dependencies is not traced: %s", err);
	if (timer_softirq_trace_open(&w->tr, b->target, err, sizeof(err)))
		bench_skip(b, "cannot count on cpu %d with a trace instance: %s", b->target, err);
	for (int i = 0; i < w->tr.nnotes; i++)
		bench_note(b, "%s", w->tr.notes[i]);
	if (!w->tr.have_ipi_cpu || !w->tr.have_ipi_mask)
		bench_note(b, "IPIs to cpu %d not fully traced: %s", b->target, w->tr.ipi_error);
	/* what ran on the CPU, for the busy loop's noise */
	timer_softirq_gaps_sources_init(&w->quiet.ns);
	timer_softirq_gaps_sources_init(&w->control.ns);
	for (int i = 0; i < TS_KEEPS; i++)
		timer_softirq_gaps_sources_init(&w->keep[i].ns);
	notes = w->tr.nnotes;
	if (timer_softirq_trace_noise(&w->tr, err, sizeof(err)))
		bench_note(b, "noise not attributed: %s", err);
	for (int i = notes; i < w->tr.nnotes; i++)
		bench_note(b, "%s", w->tr.notes[i]);
	bench_note(b, "trace records read from %s",
		   trace_event_source_desc(w->tr.raw, w->tr.raw_error, err, sizeof(err)));
	if (w->deps.open)
		bench_note(b, "tick dependency sets read from %s",
			   trace_event_source_desc(w->deps.raw, w->deps.raw_error, err, sizeof(err)));
	w->tick_fn = !ksym_addr("tick_nohz_handler", &addr) ||
		     !ksym_addr("tick_sched_timer", &addr);
	if (!w->tick_fn)
		bench_note(b, "no tick_nohz_handler or tick_sched_timer in /proc/kallsyms: ticks are the window's jiffies");
	if (r->o->perf_counters) {
		timer_softirq_common_counters_open(&w->k, b->target);
		bench_note(b, "--perf-counters: per-cpu perf counters on cpu %d are enabled, disabled and read inside each window (each by an IPI to it)",
			   b->target);
	}
}

static void windows_close(struct bench *b, void *ctx)
{
	struct ts_run *r = ctx;
	struct ts_windows *w = r->win;

	(void)b;
	if (!w)
		return;
	timer_softirq_trace_close(&w->tr);
	timer_softirq_deps_close(&w->deps);
	timer_softirq_events_close(&w->k);
	free(w->quiet.w);
	free(w->control.w);
	for (int i = 0; i < TS_KEEPS; i++)
		free(w->keep[i].w);
	free(w);
	r->win = NULL;
}

const struct phase_shared timer_softirq_windows = { "counted windows", windows_close };

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

	atomic_store(&s->tid, gettid());
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
 * The window's gaps of the busy loop, attributed to what ran in them
 * (timer_softirq_gaps.h), with the hypervisor's steal since @steal0 and,
 * for the control, the sleeper's runs found in them.
 */
static void window_noise(struct ts_windows *win, struct spinner_gaps *g, pid_t sleeper,
			 uint64_t steal0, struct ts_window *w)
{
	struct noise_sources *ns = win->tr.ns;
	struct ts_noise *n = &w->noise;
	uint64_t (*log)[2], steal1;
	struct noise_gap *gaps;
	size_t cnt;

	cnt = spinner_gaps_read(g, win->tr.on_ns, win->tr.off_ns, &log, &n->lost);
	gaps = malloc((cnt ? cnt : 1) * sizeof(*gaps));
	if (!gaps)
		ksft_exit_fail_msg("out of memory\n");
	for (size_t i = 0; i < cnt; i++)
		gaps[i] = (struct noise_gap){ log[i][0], log[i][1] };
	free(log);
	timer_softirq_gaps_attribute(&win->tr.tl, ns, gaps, cnt);
	ns->lost += n->lost;
	for (size_t i = 0; i < cnt; i++)
		n->gap_ns += gaps[i].end - gaps[i].start;
	n->gaps = cnt;
	n->unexplained = ns->win_unexplained;
	for (int i = 0; i < ns->names.n; i++)
		n->src_gaps[i] = ns->src[i].win_gaps;
	n->src_gaps[NOISE_SOURCES] = ns->other.win_gaps;
	if (sleeper > 0)
		timer_softirq_gaps_thread_recall(&win->tr.tl, sleeper, gaps, cnt, &n->sleeper_runs,
						 &n->sleeper_in_gaps);
	if (!cpu_steal_ns(win->tr.cpu, &steal1) && steal1 >= steal0)
		n->steal_ns = steal1 - steal0;
	free(gaps);
}

/*
 * One counted window: tracing on, -D seconds, tracing off, the /proc
 * rows, the records read. The /proc rows are read just outside the
 * traced window: reading them sends nothing, but the tables are
 * allocated and freed, and memory this process unmaps is flushed from
 * the TLB of the target (the spinner runs there in the same mm) by an
 * IPI. With --perf-counters the perf counters are enabled, disabled
 * and read inside it.
 */
static int count_window(struct bench *b, const struct ts_run *r, const char *what,
			struct sleeper *sl, struct spinner_gaps *g, struct ts_window *w,
			char *err, size_t errlen)
{
	struct ts_windows *win = r->win;
	uint64_t t0, on_ns, off_ns, steal0 = 0;
	int ret;

	cpu_steal_ns(b->target, &steal0);
	timer_softirq_events_begin(&win->rows);
	if (timer_softirq_trace_begin(&win->tr)) {
		snprintf(err, errlen, "%s", win->tr.error);
		return -1;
	}
	on_ns = mono_ns();
	if (b->opt.verbose)	/* bench/timer_softirq.sh enables perf stat here */
		ksft_print_msg("%s window: counting on cpu %d for %.1f s\n",
			       what, b->target, b->opt.duration_s);
	if (r->o->perf_counters)
		timer_softirq_events_begin(&win->k);
	t0 = atomic_load(&sl->timeouts);
	for (uint64_t end = mono_ns() + b->opt.duration_s * 1e9; mono_ns() < end && !bench_stop;)
		usleep(20000);
	w->timeouts = atomic_load(&sl->timeouts) - t0;
	if (r->o->perf_counters)
		timer_softirq_events_end(&win->k, &w->w);
	if (b->opt.verbose)
		ksft_print_msg("%s window: done\n", what);
	off_ns = mono_ns();
	ret = timer_softirq_trace_stop(&win->tr);
	/*
	 * The /proc rows before the records are read: they are divided by
	 * the window's length, and reading the records can take longer than
	 * the window itself (seconds in a guest under TCG).
	 */
	if (r->o->perf_counters) {
		struct cpu_window rows;

		timer_softirq_events_end(&win->rows, &rows);
		memcpy(w->w.row, rows.row, sizeof(rows.row));
		w->w.jiffies = rows.jiffies;
		w->w.hz = rows.hz;
		w->rows_s = rows.seconds;
	} else {
		timer_softirq_events_end(&win->rows, &w->w);
		w->rows_s = w->w.seconds;
	}
	w->w.seconds = (off_ns - on_ns) / 1e9;	/* the trace window's length */
	if (!ret)
		ret = timer_softirq_trace_read(&win->tr, &w->t);
	if (ret) {
		snprintf(err, errlen, "%s", win->tr.error);
		return -1;
	}
	if (timer_softirq_deps_read(&win->deps, win->tr.on_ns, win->tr.off_ns,
				    &w->deps, &w->deps_before)) {
		snprintf(err, errlen, "%s/trace_pipe: %s", win->deps.ti.dir, strerror(errno));
		return -1;
	}
	w->ticks = win->tick_fn ? w->t.ticks : w->w.jiffies;
	if (win->tr.noise)
		window_noise(win, g, atomic_load(&sl->tid), steal0, w);
	return 0;
}

/*
 * A nohz_full CPU's tick stops some time after the busy loop starts (RCU
 * or a pending timer can keep it a while; in a TCG guest once longer
 * than the 0.3 s warmup of --quick): a quiet window opened before then
 * counts those ticks. Wait for 0.2 s without a local timer interrupt on
 * the target, at most 3 s, and say when the last one came.
 */
#define TICK_QUIET_S		0.2
#define TICK_QUIET_MAX_S	3.0

static double quiet_settle(int cpu)
{
	double s = tick_wait_quiet(cpu, TICK_QUIET_S, TICK_QUIET_MAX_S, &bench_stop);

	if (s == -1 && !bench_stop)
		ksft_print_msg("quiet cpu %d: local timer interrupts still came %.0f s after the warmup\n",
			       cpu, TICK_QUIET_MAX_S);
	else if (s >= 0)
		ksft_print_msg("quiet cpu %d: the last local timer interrupt %.2f s after the warmup, then none for %.1f s\n",
			       cpu, s, TICK_QUIET_S);
	return s == -2 || bench_stop ? NAN : s;
}

/* @sum = the @n windows of @w added up (counts, rows, seconds, jiffies). */
static void windows_sum(const struct ts_window *w, uint64_t n, struct ts_window *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < CPU_EVENTS_MAX; i++)
		sum->w.ev[i] = n ? 0 : UINT64_MAX;
	for (uint64_t i = 0; i < n; i++) {
		timer_softirq_trace_add(&sum->t, &w[i].t);
		sum->w.seconds += w[i].w.seconds;
		sum->rows_s += w[i].rows_s;
		sum->w.jiffies += w[i].w.jiffies;
		sum->w.hz = w[i].w.hz ? w[i].w.hz : sum->w.hz;
		for (int j = 0; j < CPU_EVENTS_MAX_ROWS; j++)
			sum->w.row[j] += w[i].w.row[j] < 0 ? 0 : w[i].w.row[j];
		for (int j = 0; j < CPU_EVENTS_MAX; j++)
			sum->w.ev[j] = w[i].w.ev[j] == UINT64_MAX || sum->w.ev[j] == UINT64_MAX ?
				       UINT64_MAX : sum->w.ev[j] + w[i].w.ev[j];
		sum->timeouts += w[i].timeouts;
		sum->ticks += w[i].ticks;
		timer_softirq_deps_add(&sum->deps, &w[i].deps);
		timer_softirq_deps_add(&sum->deps_before, &w[i].deps_before);
	}
}

/* The sleeper on the target, ready to time out: 0, or -1 with why in @err. */
static int sleeper_start(struct sleeper *sl, pthread_t *th, char *err, size_t errlen)
{
	if (pthread_create(th, NULL, timeout_main, sl)) {
		snprintf(err, errlen, "pthread_create failed");
		return -1;
	}
	while (!atomic_load(&sl->ready) && !atomic_load(&sl->failed) && !bench_stop)
		usleep(1000);
	if (atomic_load(&sl->failed))
		snprintf(err, errlen, "%s", sl->error);
	return 0;
}

uint64_t timer_softirq_windows_spin(struct bench *b, struct ts_run *r, const struct ts_spin *how,
				    char *err, size_t errlen)
{
	const struct ts_opts *o = r->o;
	struct ts_windows *win = r->win;
	struct ts_window_set *set = how->set;
	uint64_t runs = how->runs, done = 0;
	bool planted = false;
	double max_s = o->warmup_s + runs * (b->opt.duration_s + 2) + 10;
	struct sleeper sl = { .cpu = b->target };
	struct spinner_gaps gaps = { 0 };
	struct spinner sp = { 0 };
	bool sleeping = false;
	pthread_t th;

	*err = '\0';
	set->w = calloc(runs, sizeof(*set->w));
	if (!set->w)
		ksft_exit_fail_msg("out of memory\n");
	/* the loop's gaps, for the noise: a ring far larger than a window's gaps */
	if (win->tr.noise) {
		if (spinner_gaps_init(&gaps, 1 << 18, (uint64_t)(o->noise_threshold_us * 1e3)))
			ksft_exit_fail_msg("out of memory\n");
		sp.gaps = &gaps;
		win->tr.ns = &set->ns;
	}
	if (spinner_start(&sp, b->target, 0, max_s, err, errlen)) {
		spinner_gaps_free(&gaps);
		return 0;
	}
	win->tr.loop_tid = sp.tid;
	sl.deadline_ns = mono_ns() + (uint64_t)(max_s * 1e9);
	if (how->sleeper)
		sleeping = !sleeper_start(&sl, &th, err, errlen);
	if (!*err && how->plant)
		planted = !how->plant->start(how->plant, b->target, sp.tid, err, errlen);
	if (!*err && !bench_stop)
		usleep(o->warmup_s * 1e6);
	if (!*err && !bench_stop && how->settle && (r->nohz || o->assert_nohz))
		win->tick_quiet_s = quiet_settle(b->target);
	while (!*err && !bench_stop && done < runs) {
		char why[400];

		if (count_window(b, r, how->what, &sl, &gaps, &set->w[done], why, sizeof(why))) {
			snprintf(err, errlen, "window %llu could not be counted: %s",
				 (unsigned long long)done + 1, why);
			break;
		}
		done++;
	}
	if (planted)
		how->plant->stop(how->plant);
	atomic_store(&sl.stop, 1);
	if (sleeping)
		pthread_join(th, NULL);
	spinner_stop(&sp);
	spinner_gaps_free(&gaps);
	set->n = done;
	windows_sum(set->w, done, &set->sum);
	return done;
}

#define EXPIRIES_SHOWN	6	/* functions of a kind in the # line */

/* What the timers that expired on the CPU ran, the most frequent first. */
static void expiries_print(const char *what, int cpu, const struct cpu_trace_counts *t)
{
	char list[600] = "";
	size_t off = 0;

	for (int k = 0; k < CPU_TRACE_EXPIRY_KINDS; k++) {
		const struct tally *x = &t->expired[k];
		int idx[TALLY_MAX], n = tally_sorted(x, idx);

		for (int i = 0; i < n && i < EXPIRIES_SHOWN && off < sizeof(list); i++)
			off += snprintf(list + off, sizeof(list) - off, "%s%s %s %llu",
					off ? ", " : "", timer_softirq_trace_expiry_names[k],
					tally_slot_name(&x->names, idx[i]),
					(unsigned long long)x->n[idx[i]]);
		if ((n > EXPIRIES_SHOWN || x->other) && off < sizeof(list))
			off += snprintf(list + off, sizeof(list) - off, ", %s ...",
					timer_softirq_trace_expiry_names[k]);
	}
	ksft_print_msg("%s cpu %d: expiries by function: %s\n", what, cpu, off ? list : "none");
}

void timer_softirq_windows_print(const char *what, int cpu, const struct ts_window *s)
{
	const struct cpu_trace_counts *t = &s->t;
	const struct cpu_window *w = &s->w;
	char deps[160] = "";
	size_t off = 0;

	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		if (t->tick_kept[i])
			off += snprintf(deps + off, sizeof(deps) - off, " %s=%llu",
					timer_softirq_trace_dep_names[i],
					(unsigned long long)t->tick_kept[i]);
	if (t->tick_kept_unknown)
		off += snprintf(deps + off, sizeof(deps) - off, " unknown=%llu",
				(unsigned long long)t->tick_kept_unknown);
	ksft_print_msg("%s cpu %d: %d x %.2f s, %llu ticks, %llu jiffies (HZ %d): TIMER softirqs raised %llu run %llu (%.2f/s, %.4f/tick), HRTIMER run %llu, timer expiries %llu (process_timeout %llu, and %llu of timers armed here expired elsewhere), hrtimer expiries %llu\n",
		       what, cpu, t->windows, w->seconds / (t->windows ? t->windows : 1),
		       (unsigned long long)s->ticks, (unsigned long long)w->jiffies, w->hz,
		       (unsigned long long)t->timer_raised, (unsigned long long)t->timer_runs,
		       per(t->timer_runs, w->seconds), per(t->timer_raised, s->ticks),
		       (unsigned long long)t->hrtimer_runs, (unsigned long long)t->timer_expiries,
		       (unsigned long long)t->sleep_expiries,
		       (unsigned long long)t->sleep_expiries_elsewhere,
		       (unsigned long long)t->hrtimer_expiries);
	ksft_print_msg("%s cpu %d: raised %llu: %llu without a due timer (%.4f/tick), %llu runs expired timers, %llu ran after the window\n",
		       what, cpu, (unsigned long long)t->timer_raised,
		       (unsigned long long)t->raised_without_expiry,
		       per(t->raised_without_expiry, s->ticks),
		       (unsigned long long)t->runs_with_expiry,
		       (unsigned long long)t->raised_unrun);
	ksft_print_msg("%s cpu %d: local timer interrupts %lld (%.1f/s), /proc/softirqs TIMER %lld HRTIMER %lld, tick_stop stopped %llu kept%s\n",
		       what, cpu, (long long)w->row[ROW_LOC], per(w->row[ROW_LOC], s->rows_s),
		       (long long)w->row[ROW_TIMER], (long long)w->row[ROW_HRTIMER],
		       (unsigned long long)t->tick_stopped, deps[0] ? deps : " 0");
	expiries_print(what, cpu, t);
	if (w->ev[EV_TIMER_RUN] != UINT64_MAX)
		ksft_print_msg("%s cpu %d: perf counters: TIMER softirqs raised %.0f run %.0f, timer expiries %.0f, hrtimer expiries %.0f\n",
			       what, cpu, timer_softirq_window_ev(w, EV_TIMER_RAISE),
			       timer_softirq_window_ev(w, EV_TIMER_RUN), timer_softirq_window_ev(w, EV_TIMER_EXPIRE),
			       timer_softirq_window_ev(w, EV_HRTIMER_EXPIRE));
}

static double timer_runs(const void *arg, size_t i, double *span)
{
	const struct ts_window *w = arg;

	*span = w[i].w.seconds;
	return w[i].t.timer_runs;
}

struct metric *timer_softirq_windows_metric(struct bench *b, const char *name, const char *label,
					    const char *ctx, const struct ts_window_set *set)
{
	const struct ts_window *w = set->w, *s = &set->sum;
	uint64_t n = set->n;
	struct metric *m = bench_metric(b, name, "softirqs/s", BETTER_LOWER,
					"TIMER softirqs run on the target per second of one window");
	const struct cpu_trace_counts *t = &s->t;
	uint64_t kept = 0;

	metric_add_rates(m, n, w, timer_runs);
	/* softirqs in a window of the machine's own time: a count */
	metric_kind(m, KIND_COUNT);
	metric_sample_noun(m, "window", "windows");
	metric_summary(m, label, "%s, %llu x %.1f s", ctx, (unsigned long long)n,
		       s->w.seconds / (n ? n : 1));
	kept = t->tick_kept_unknown;
	for (int i = 0; i < CPU_TRACE_DEPS; i++)
		kept += t->tick_kept[i];
	metric_extra(m, "window_s", s->w.seconds);
	metric_extra(m, "timer_softirqs_raised", t->timer_raised);
	metric_extra(m, "timer_softirqs_run", t->timer_runs);
	metric_extra(m, "hrtimer_softirqs_run", t->hrtimer_runs);
	metric_extra(m, "timer_expiries", t->timer_expiries);
	metric_extra(m, "process_timeout_expiries", t->sleep_expiries);
	metric_extra(m, "process_timeout_expiries_elsewhere", t->sleep_expiries_elsewhere);
	metric_extra(m, "timer_softirq_runs_of_own_timers", t->own_sleep_runs);
	metric_extra(m, "hrtimer_expiries", t->hrtimer_expiries);
	metric_extra(m, "tick_stop_success", t->tick_stopped);
	metric_extra(m, "tick_stop_kept", kept);
	metric_extra(m, "ticks", s->ticks);
	metric_extra(m, "local_timer_irqs", s->w.row[ROW_LOC]);
	metric_extra(m, "proc_softirqs_timer", s->w.row[ROW_TIMER]);
	metric_extra(m, "jiffies", s->w.jiffies);
	metric_extra(m, "hz", s->w.hz);
	metric_extra(m, "timer_softirqs_per_tick", per(t->timer_runs, s->ticks));
	return m;
}

void timer_softirq_windows_deps_print(const char *what, int cpu, const struct ts_windows *win,
				      const struct ts_window_set *set)
{
	char inside[400], before[400];

	if (!win->deps.open)
		return;		/* a note said why, once */
	timer_softirq_deps_list(&set->sum.deps, inside, sizeof(inside));
	timer_softirq_deps_list(&set->sum.deps_before, before, sizeof(before));
	ksft_print_msg("%s cpu %d: tick dependencies set inside the windows: %s; before them: %s\n",
		       what, cpu, inside, before);
}
