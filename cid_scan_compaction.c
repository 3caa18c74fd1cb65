// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan's compaction by the scan, in a fresh child process, and the
 * CID invariants over pinned busy loops.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/util.h"
#include "cid_scan_common.h"

struct segment {
	uint64_t t0, t1;
	uint32_t cid;
	int worker;
};

static int cmp_segment(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

struct invariants {
	size_t segments, out_of_range, duplicates;
	uint32_t max_cid;
	char first_dup[160];
};

/*
 * Between two recorded returns of a busy loop the thread ran without a
 * break and held the CID it read after the first: a segment. Segments
 * of two threads with the same CID must not overlap in time (2 us of
 * slack for the clocks of two CPUs); every CID is below the number of
 * possible CPUs.
 */
static void check_invariants(struct wl_run *r, int possible, struct invariants *inv)
{
	struct segment *seg;
	size_t n = 0, cap = 0;
	uint64_t *last_end, slack = 2000;
	int *last_worker;

	for (int i = 0; i < r->nworkers; i++)
		cap += r->w[i].nev;
	seg = calloc(cap + 1, sizeof(*seg));
	last_end = calloc(possible, sizeof(*last_end));
	last_worker = calloc(possible, sizeof(*last_worker));
	if (!seg || !last_end || !last_worker)
		ksft_exit_fail_msg("out of memory\n");
	memset(inv, 0, sizeof(*inv));
	for (int i = 0; i < r->nworkers; i++)
		for (size_t k = 0; k + 1 < r->w[i].nev; k++) {
			struct wl_event *a = &r->w[i].ev[k], *b = &r->w[i].ev[k + 1];

			if (a->cid > inv->max_cid)
				inv->max_cid = a->cid;
			if (a->cid >= (uint32_t)possible) {
				inv->out_of_range++;
				continue;
			}
			if (b->t_ns - b->gap_ns > a->t_ns + a->resume_ns)
				seg[n++] = (struct segment){ a->t_ns + a->resume_ns,
							     b->t_ns - b->gap_ns, a->cid, i };
		}
	qsort(seg, n, sizeof(*seg), cmp_segment);
	for (size_t k = 0; k < n; k++) {
		struct segment *s = &seg[k];

		if (last_end[s->cid] && last_worker[s->cid] != s->worker &&
		    s->t0 + slack < last_end[s->cid]) {
			if (!inv->duplicates++)
				snprintf(inv->first_dup, sizeof(inv->first_dup),
					 "cid %u held by threads %d and %d at once for %.1f us",
					 s->cid, last_worker[s->cid], s->worker,
					 (last_end[s->cid] - s->t0) / 1e3);
		}
		if (s->t1 > last_end[s->cid]) {
			last_end[s->cid] = s->t1;
			last_worker[s->cid] = s->worker;
		}
	}
	inv->segments = n;
	free(seg);
	free(last_end);
	free(last_worker);
}

/*
 * Compaction that only the scan can do. A CID belongs to a (process,
 * CPU) pair and stays with the CPU while threads come and go; it is
 * given back when a thread exits or execs on that CPU, when a migrating
 * thread takes it along (only while nothing else of the process runs
 * on the source CPU), and by the scan: CIDs unused for 100 ms, and those
 * at or above the number still allocated. So, in a fresh process (a
 * child: its CIDs start unallocated):
 *
 *  1. the main thread keeps off cpu A and starts one holder thread per
 *     other CPU, pinned and spinning there: those CPUs take the low CIDs;
 *  2. the holder on the main thread's CPU moves the main thread to A
 *     (sched_setaffinity, then a wakeup, while that holder itself runs
 *     on the source CPU, so the CID is not taken along): A gets the next
 *     free CID, at least 1. Nothing else of the process ever runs on A;
 *  3. the holders exit on their own CPUs, freeing every lower CID;
 *  4. the survivor sleeps 3 scan periods in one nanosleep: the scan runs
 *     only in the process's own threads, queued by a tick that finds one
 *     of them running, so none can run. Its CID must still be the high
 *     one: the exits did not compact it. (A scan that came due just as
 *     the holders exited may have run before the sleep: then the whole
 *     thing is tried again in a new process, up to 3 times.)
 *  5. then it runs (1 ms spin, 1 ms sleep) until its CID reads 0: the
 *     scan's second walk marks A's CID (at or above the weight, 1), the
 *     next switch gives it back, the next allocation takes 0.
 * On a kernel whose scan is off, step 5 never ends: FAIL at the bound.
 * The negative control sleeps through the bound in step 4 instead.
 */
#define COMPACT_SLEEP_PERIODS	3
#define COMPACT_ATTEMPTS	3

struct compact_shared {
	int cpu_a, cpu_after;
	uint32_t held, after_sleep;
	uint32_t holder_cid[64];
	int nholders;
	double sleep_s, reach_s;	/* reach_s -1: not within the bound */
	char why[160];			/* why the setup failed, "" if it did not */
	int done;
};

struct holder {
	pthread_t th;
	int cpu, cpu_a, wake_fd;
	pid_t main_tid;
	bool mover;			/* on the main thread's CPU */
	volatile uint32_t cid;
	volatile int running, go, stop;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;
	volatile struct rseq_abi *rs;

	if (cpu_pin_self(h->cpu) || rseq_thread_init()) {
		h->running = -1;
		return NULL;
	}
	rs = rseq_area();
	if (!rs) {
		h->running = -1;
		return NULL;
	}
	while (!h->stop) {
		h->cid = rseq_mm_cid(rs);
		h->running = rseq_cpu(rs) == (uint32_t)h->cpu;
		if (h->mover && h->go) {
			cpu_mask_t a;
			char c = 1;

			CPU_ZERO(&a);
			CPU_SET(h->cpu_a, &a);
			h->go = sched_setaffinity(h->main_tid, sizeof(a), &a) ? -errno : 0;
			if (write(h->wake_fd, &c, 1) != 1)
				h->go = -EIO;
			h->mover = false;
		}
	}
	return NULL;
}

/* Cleanup: kill and reap the child unless it was reaped (*pid 0). */
static void child_kill(void *arg)
{
	pid_t *pid = arg;

	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
}

/* Seconds until the calling thread's CID reads 0 while it runs, or -1. */
static double survivor_wait(volatile struct rseq_abi *rs, double timeout_s)
{
	uint64_t t0 = mono_ns(), end = t0 + timeout_s * 1e9, now;

	while ((now = mono_ns()) < end) {
		if (rseq_mm_cid(rs) == 0)
			return (now - t0) / 1e9;
		while (mono_ns() < now + 1000000)
			;
		usleep(1000);
	}
	return -1;
}

static void compact_child(struct compact_shared *cs, const cpu_mask_t *cpus,
			  double timeout_s, bool control)
{
	volatile struct rseq_abi *rs = rseq_area();
	struct holder h[64] = { 0 };
	cpu_mask_t others = *cpus;
	int wake[2], q, n = 0, cpu;
	uint64_t t;
	char c;

	CPU_CLR(cs->cpu_a, &others);
	q = cpu_mask_first(&others);
	if (pipe(wake) || cpu_pin_self(q)) {
		snprintf(cs->why, sizeof(cs->why), "pipe or pinning to cpu %d: %s", q, strerror(errno));
		return;
	}
	cpu_mask_for_each(cpu, &others) {
		if (n == (int)ARRAY_SIZE(h))
			break;
		h[n] = (struct holder){ .cpu = cpu, .cpu_a = cs->cpu_a, .wake_fd = wake[1],
					.main_tid = gettid(), .mover = cpu == q };
		errno = pthread_create(&h[n].th, NULL, holder_main, &h[n]);
		if (errno) {
			snprintf(cs->why, sizeof(cs->why), "pthread_create: %s", strerror(errno));
			break;
		}
		n++;
	}
	/* every holder spinning on its CPU with a CID (bounded: 5 s) */
	for (t = mono_ns(); !cs->why[0] && mono_ns() < t + 5000000000ULL; usleep(2000)) {
		int ready = 0;

		for (int i = 0; i < n; i++)
			ready += h[i].running == 1;
		if (ready == n)
			break;
	}
	usleep(20000);
	for (int i = 0; i < n; i++)
		if (h[i].mover)
			h[i].go = 1;
	if (!cs->why[0] && read(wake[0], &c, 1) != 1)
		snprintf(cs->why, sizeof(cs->why), "wake pipe: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		if (h[i].go < 0 && !cs->why[0])
			snprintf(cs->why, sizeof(cs->why), "sched_setaffinity to cpu %d: %s",
				 cs->cpu_a, strerror(-h[i].go));
		cs->holder_cid[i] = h[i].cid;
	}
	cs->nholders = n;
	/* let the other CPUs' last switches settle, then read */
	for (t = mono_ns(); mono_ns() < t + 10000000;)
		;
	cs->held = rseq_mm_cid(rs);
	cs->cpu_after = rseq_cpu(rs);
	for (int i = 0; i < n; i++)
		h[i].stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(h[i].th, NULL);
	if (cs->why[0] || cs->cpu_after != cs->cpu_a || !cs->held)
		return;
	/*
	 * Off CPU for whole scan periods: no scan can run meanwhile. The
	 * control sleeps through the bound too, in the same nanosleep: a
	 * wakeup between two sleeps could let the tick queue a scan.
	 */
	t = mono_ns();
	usleep(COMPACT_SLEEP_PERIODS * SCAN_PERIOD_NS / 1000 + (control ? timeout_s * 1e6 : 0));
	cs->after_sleep = rseq_mm_cid(rs);
	cs->sleep_s = (mono_ns() - t) / 1e9;
	if (!control && cs->after_sleep == cs->held)
		cs->reach_s = survivor_wait(rs, timeout_s);
}

/*
 * The survivor's CPU: one whose tick runs. On a nohz_full CPU a lone
 * task stops the tick, and the scan is queued only from the tick (the
 * remote 1 Hz tick does not): there it never runs.
 */
static int survivor_cpu(struct bench *b)
{
	cpu_mask_t ticking;
	int a;

	CPU_XOR(&ticking, &b->opt.cpus, &b->sets.nohz_full);
	CPU_AND(&ticking, &ticking, &b->opt.cpus);
	if (!CPU_COUNT(&ticking))
		ticking = b->opt.cpus;
	a = CPU_ISSET(b->target, &ticking) ? b->target : cpu_mask_last(&ticking);
	if (CPU_ISSET(a, &b->sets.nohz_full))
		ksft_print_msg("compaction: every CPU of --cpu is nohz_full: the survivor's tick may stop and with it the scan\n");
	return a;
}

/* The fresh process: forked, bounded, killed on every exit path. */
static void compact_fork(struct bench *b, const struct cid_opts *o,
			 struct compact_shared *cs)
{
	uint64_t end;
	pid_t pid;
	int st, handle;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0) {
		cleanup_child_signals();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		compact_child(cs, &b->opt.cpus, o->compaction_timeout_s,
			      o->compaction_control);
		cs->done = 1;
		_exit(0);
	}
	handle = cleanup_push(child_kill, &pid);
	end = mono_ns() + (o->compaction_timeout_s + 15) * 1e9;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (bench_stop || mono_ns() > end)
			kill(pid, SIGKILL);
		usleep(10000);
	}
	pid = 0;
	cleanup_run_one(handle);
}

/*
 * The survivor's CID went down by the end of the sleep. A scan that came
 * due while the siblings exited can run in one of them (the survivor
 * then sleeps in pthread_join) or in the survivor before its sleep: a
 * race, another fresh process decides. A kernel that compacts without
 * the scan does it every time; a CID that went up is no such race.
 */
static bool compact_moved_asleep(const struct compact_shared *cs)
{
	return cs->done && !cs->why[0] && cs->cpu_after == cs->cpu_a && cs->held &&
	       cs->after_sleep < cs->held;
}

/* What the child saw, the metric and the verdict line. */
static void compact_verdict(struct bench *b, const struct cid_opts *o,
			    const struct compact_shared *cs, int attempts)
{
	int a = cs->cpu_a;
	char hold[256] = "", why[512] = "";
	struct metric *m;

	for (int i = 0; i < cs->nholders; i++)
		snprintf(hold + strlen(hold), sizeof(hold) - strlen(hold), "%s%u",
			 i ? "," : "", cs->holder_cid[i]);
	ksft_print_msg("compaction: a fresh process; holders on the other cpus had cids %s; the survivor on cpu %d (read cpu %d) held cid %u; after its siblings exited it slept %.3f s (%.0f scan periods, no scan possible) and then held %u; %s\n",
		       hold, a, cs->cpu_after, cs->held, cs->sleep_s,
		       cs->sleep_s * 1e9 / SCAN_PERIOD_NS, cs->after_sleep,
		       o->compaction_control ? "it stayed asleep through the bound (control)" :
		       cs->reach_s >= 0 ? "running, its cid reached 0" : "running, its cid did not reach 0");
	m = bench_metric(b, "compaction_s", "s", BETTER_LOWER,
			 "survivor running after its siblings exited and a scan-free sleep: until its mm_cid reads 0 (only the scan can do it)");
	if (cs->reach_s >= 0)
		metric_add(m, cs->reach_s);
	metric_extra(m, "attempts", attempts);
	if (bench_stop && (!cs->done || compact_moved_asleep(cs))) {
		bench_verdict(b, KSFT_SKIP, "interrupted", CID_SCAN_COMPACTION_CHECK);
		return;
	}
	if (!cs->done)
		snprintf(why, sizeof(why), "the child did not finish");
	else if (cs->why[0] || cs->cpu_after != a || !cs->held)
		snprintf(why, sizeof(why), "setup failed, cid %u on cpu %d (wanted >0 on cpu %d)%s%s",
			 cs->held, cs->cpu_after, a, cs->why[0] ? ": " : "", cs->why);
	else if (cs->after_sleep != cs->held)
		snprintf(why, sizeof(why),
			 "cid %u became %u asleep, with no scan (%s%d fresh process%s): something else compacts",
			 cs->held, cs->after_sleep, attempts > 1 ? "in each of " : "in ",
			 attempts, attempts > 1 ? "es" : "");
	else if (o->compaction_control)
		snprintf(why, sizeof(why), "cid %u kept %.2f s asleep, through the %.1f s bound (control)",
			 cs->held, cs->sleep_s, o->compaction_timeout_s);
	else if (cs->reach_s < 0)
		snprintf(why, sizeof(why), "cid %u kept %.2f s asleep, not 0 within %.1f s running",
			 cs->held, cs->sleep_s, o->compaction_timeout_s);
	else
		ksft_print_msg("compaction: cid %u kept %.2f s asleep, 0 after %.3f s running (bound %.1f s)\n",
			       cs->held, cs->sleep_s, cs->reach_s, o->compaction_timeout_s);
	bench_verdict(b, why[0] ? KSFT_FAIL : KSFT_PASS, why[0] ? why : NULL, CID_SCAN_COMPACTION_CHECK);
}

/* The verdict line of the scan-only compaction; a child does the work. */
void cid_scan_compaction(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm)
{
	struct compact_shared *cs;
	int a = survivor_cpu(b), attempt;

	if (!sm->periodic) {
		bench_verdict(b, KSFT_SKIP, "no periodic scan on this kernel", CID_SCAN_COMPACTION_CHECK);
		return;
	}
	if (CPU_COUNT(&b->opt.cpus) < 2) {
		bench_verdict(b, KSFT_SKIP, "needs 2 CPUs in --cpu (holders and the survivor)",
			      CID_SCAN_COMPACTION_CHECK);
		return;
	}
	cs = mmap(NULL, sizeof(*cs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cs == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	for (attempt = 1; ; attempt++) {
		memset(cs, 0, sizeof(*cs));
		cs->cpu_a = a;
		cs->reach_s = -1;
		compact_fork(b, o, cs);
		if (!compact_moved_asleep(cs) || attempt == COMPACT_ATTEMPTS || bench_stop)
			break;
		ksft_print_msg("compaction: attempt %d: cid %u was %u after the sleep (a scan that came due as the siblings exited can run before it); again in a fresh process\n",
			       attempt, cs->held, cs->after_sleep);
	}
	compact_verdict(b, o, cs, attempt);
	munmap(cs, sizeof(*cs));
}

/*
 * The CID invariants over pinned busy loops (2 per CPU by default):
 * every CID below the possible CPUs, none held by two threads at once.
 */
void cid_scan_invariants(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm)
{
	struct wl_run r = { .kind = WL_SPIN, .gap_min_ns = o->gap_min_ns };
	struct invariants inv;
	int n = o->compaction_threads ? (int)o->compaction_threads
				      : 2 * CPU_COUNT(&b->opt.cpus);
	uint64_t t0;

	/* at least 0.3 s (0.6), more on a busy machine: 20 returns per loop */
	t0 = mono_ns();
	r.end_ns = t0 + 5e9;
	cid_scan_workload_start(&r, &b->opt.cpus, n, 0, false);
	cid_scan_workload_wait_until(t0 + (b->opt.quick ? 0.3 : 0.6) * 1e9);
	while (!bench_stop && mono_ns() < r.end_ns) {
		int short_of = 0;

		for (int i = 0; i < n; i++)
			short_of += __atomic_load_n(&r.w[i].nev, __ATOMIC_ACQUIRE) < 20;
		if (!short_of)
			break;
		usleep(20000);
	}
	cid_scan_workload_join(&r);
	check_invariants(&r, sm->possible, &inv);
	ksft_print_msg("mm_cid invariants over %zu running stretches of %d threads: max cid %u < %d possible CPUs (%zu above), %zu duplicates at the same moment%s%s\n",
		       inv.segments, n, inv.max_cid, sm->possible, inv.out_of_range,
		       inv.duplicates, inv.duplicates ? ": " : "", inv.first_dup);
	bench_verdict(b, !inv.out_of_range && !inv.duplicates && inv.segments ? KSFT_PASS : KSFT_FAIL,
		      NULL, CID_SCAN_INVARIANTS_CHECK);
	cid_scan_workload_free(&r);
}
