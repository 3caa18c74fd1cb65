// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/cleanup.h"
#include "lib/base/clock.h"
#include "lib/load/cyclic.h"
#include "lib/base/ktap.h"
#include "lib/kernel/rseq.h"
#include "cid_scan_workload.h"

const char *const cid_scan_workload_names[] = { "spin", "cyclic", "hackbench", NULL };

/* Voluntary plus involuntary context switches of this thread so far. */
static long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * Record one return. A marked one also asks whether the thread was
 * switched out meanwhile (getrusage, a syscall the loop then leaves out
 * of its timing): a switch marks on its own and is not the scan.
 */
static uint64_t record(struct wl_worker *w, volatile struct rseq_abi *rs,
		       uint64_t t, uint64_t gap, bool marked)
{
	struct wl_event *e;
	uint64_t gap_ns, now;
	long sw;

	if (w->nev >= WL_MAX_EVENTS_PER_THREAD)
		return t;
	e = &w->ev[w->nev];
	gap_ns = clock_to_ns(gap);
	*e = (struct wl_event){ clock_to_ns(t), gap_ns > UINT32_MAX ? UINT32_MAX : gap_ns,
			     rseq_mm_cid(rs), marked, 0, 0 };
	if (marked) {
		sw = thread_switches();
		e->switched = sw != w->switches;
		w->switches = sw;
		/* a switch inside getrusage changes the CID: read it again */
		e->cid = rseq_mm_cid(rs);
		now = bench_clock_start();
		e->resume_ns = clock_to_ns(now - t);
		t = now;
	}
	__atomic_store_n(&w->nev, w->nev + 1, __ATOMIC_RELEASE);
	return t;
}

/*
 * The busy loop: timestamps back to back; a gap over gap_min, or the
 * notify-resume marker firing, is a kernel entry worth recording. A
 * marker seen in an iteration without a gap belongs to the next gap
 * (the entry fell between the clock read and the marker check).
 */
static void spin_loop(struct wl_worker *w, volatile struct rseq_abi *rs)
{
	struct wl_run *r = w->run;
	uint64_t desc = rseq_marker_desc(), prev, now, gap_min = r->gap_min;
	bool pending = false;
	unsigned int i = 0;

	rseq_marker_arm(rs);
	w->switches = thread_switches();
	prev = bench_clock_start();
	while (!r->stop) {
		bool m;

		now = bench_clock_start();
		m = rseq_marker_fired(rs, desc);
		if (now - prev > gap_min) {
			now = record(w, rs, now, now - prev, m || pending);
			pending = false;
		} else if (pending) {
			now = record(w, rs, now, now - prev, true);
			pending = m;
		} else {
			pending = m;
		}
		prev = now;
		if (!(++i & 0x3ff) && mono_ns() > r->end_ns)
			break;
		if (r->phase)
			break;
	}
}

/* Periodic wakeups until the end or the stop: lib/load/cyclic.h's loop. */
static void cyclic_wakeups(struct wl_worker *w)
{
	uint64_t now = mono_ns();
	struct cyclic c = {
		.interval_ns = w->run->period_us * 1000,
		.duration_ns = w->run->end_ns > now ? w->run->end_ns - now : 0,
		.stop = &w->run->stop,
	};

	if (c.duration_ns)
		cyclic_loop(&c);
}

/* hackbench-like: even workers send 100-byte messages, odd ones read. */
static void hackbench_loop(struct wl_run *r, int idx, uint64_t end_ns)
{
	char msg[100] = { 0 };
	int fd = r->sock[idx & 1];

	while (!r->stop && mono_ns() < end_ns) {
		/*
		 * MSG_NOSIGNAL: cid_scan_workload_join() shuts the sockets down under
		 * a writer that may be blocked; that must be EPIPE, not a
		 * SIGPIPE that kills the whole program (threads).
		 */
		ssize_t n = idx & 1 ? read(fd, msg, sizeof(msg))
				    : send(fd, msg, sizeof(msg), MSG_NOSIGNAL);
		if (n <= 0 && errno != EINTR && errno != EAGAIN)
			break;
	}
}

static void *worker_main(void *arg)
{
	struct wl_worker *w = arg;
	volatile struct rseq_abi *rs;

	w->tid = gettid();
	if (cpu_pin_self(w->cpu) || rseq_thread_init())
		return NULL;
	rs = rseq_area();
	if (!rs)
		return NULL;
	w->started = true;
	if (w->run->kind == WL_CYCLIC && w->idx >= 0)
		cyclic_wakeups(w);
	else if (w->run->kind == WL_HACKBENCH && w->idx >= 0)
		hackbench_loop(w->run, w->idx, w->run->end_ns);
	else
		spin_loop(w, rs);
	w->last_cid = rseq_mm_cid(rs);
	return NULL;
}

static void children_kill(void *arg)
{
	struct wl_run *r = arg;

	for (int i = 0; i < r->nchildren; i++)
		if (r->children[i] > 0) {
			kill(r->children[i], SIGKILL);
			waitpid(r->children[i], NULL, 0);
			r->children[i] = -r->children[i];	/* reaped, pid kept */
		}
}

/*
 * Start @nprobe pinned busy loops (idx -1) on @cpus round robin, plus
 * the workload's @nwl threads or processes. Returns the cleanup handle.
 */
/*
 * The busy loops' clock and CLOCK_MONOTONIC read as one pair: of five
 * tries, the one whose two bench clock reads around mono_ns() were
 * closest (a pair read across a preemption or, under TCG, a vCPU left
 * waiting put the two clocks 2131 ppm apart over a 10 s run once).
 */
static void clock_pair(uint64_t *clk_ns, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = clock_to_ns(bench_clock_start());
		uint64_t m = mono_ns();
		uint64_t z = clock_to_ns(bench_clock_start());

		if (z - a < best) {
			best = z - a;
			*clk_ns = a + (z - a) / 2;
			*mono = m;
		}
	}
}

int cid_scan_workload_start(struct wl_run *r, const cpu_mask_t *cpus, int nprobe,
			    int nwl, bool with_workload)
{
	int ncpu = CPU_COUNT(cpus), cpu = cpu_mask_first(cpus);
	bool procs = with_workload && r->kind == WL_HACKBENCH &&
		     !r->hackbench_threads;
	sigset_t stop, old;

	clock_pair(&r->clk0_ns, &r->mono0_ns);
	r->nworkers = nprobe + (with_workload && !procs ? nwl : 0);
	r->w = calloc(r->nworkers, sizeof(*r->w));
	r->children = calloc(nwl + 1, sizeof(pid_t));
	if (!r->w || !r->children)
		ksft_exit_fail_msg("out of memory\n");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, r->sock))
		ksft_exit_fail_msg("socketpair: %s\n", strerror(errno));
	r->cleanup = cleanup_push(children_kill, r);
	r->gap_min = bench_clock.use_counter ? r->gap_min_ns * bench_clock.counter_hz / 1e9
					 : r->gap_min_ns;
	/*
	 * The threads block the stop signals, so that they reach this one,
	 * which sleeps through the run in cid_scan_workload_wait_until() (no wakeup
	 * that would preempt a busy loop) and wakes on them.
	 */
	cleanup_stop_signals(&stop);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	for (int i = 0; i < r->nworkers; i++) {
		struct wl_worker *w = &r->w[i];

		w->run = r;
		w->cpu = cpu;
		w->idx = i < nprobe ? -1 : i - nprobe;
		w->ev = i < nprobe ? malloc(WL_MAX_EVENTS_PER_THREAD * sizeof(*w->ev)) : NULL;
		if (i < nprobe && !w->ev)
			ksft_exit_fail_msg("out of memory\n");
		errno = pthread_create(&w->th, NULL, worker_main, w);
		if (errno)	/* returned, not set */
			ksft_exit_fail_msg("pthread_create: %s\n", strerror(errno));
		cpu = cpu_mask_next(cpu, cpus) >= 0 ? cpu_mask_next(cpu, cpus)
						      : cpu_mask_first(cpus);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; procs && i < nwl; i++) {
		pid_t pid;

		/* the (i % ncpu)-th CPU of the set, which need not be contiguous */
		cpu = cpu_mask_first(cpus);
		for (int k = 0; k < i % ncpu; k++)
			cpu = cpu_mask_next(cpu, cpus);
		pid = fork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			cpu_pin_self(cpu);
			hackbench_loop(r, i, r->end_ns);
			_exit(0);
		}
		r->children[r->nchildren++] = pid;
	}
	return 0;
}

void cid_scan_workload_join(struct wl_run *r)
{
	clock_pair(&r->clk1_ns, &r->mono1_ns);
	r->stop = 1;
	shutdown(r->sock[0], SHUT_RDWR);
	shutdown(r->sock[1], SHUT_RDWR);
	for (int i = 0; i < r->nworkers; i++)
		pthread_join(r->w[i].th, NULL);
	cleanup_run_one(r->cleanup);
	close(r->sock[0]);
	close(r->sock[1]);
}

uint64_t cid_scan_workload_mono_ns(const struct wl_run *r, uint64_t t_ns)
{
	double rate = 1;

	if (r->clk1_ns > r->clk0_ns && r->mono1_ns > r->mono0_ns)
		rate = (double)(r->mono1_ns - r->mono0_ns) / (r->clk1_ns - r->clk0_ns);
	return r->mono0_ns + (int64_t)(((double)t_ns - r->clk0_ns) * rate);
}

void cid_scan_workload_free(struct wl_run *r)
{
	for (int i = 0; i < r->nworkers; i++)
		free(r->w[i].ev);
	free(r->w);
	free(r->children);
}

/*
 * One sleep to the end: a thread that woke every few ms would preempt a
 * busy loop each time, and those switches hid the scan's returns from
 * the estimate (in the 6.12 guest under TCG a third to a half of them
 * with a wakeup every 20 ms). A stop signal ends the sleep (EINTR).
 */
void cid_scan_workload_wait_until(uint64_t end_ns)
{
	struct timespec ts = { .tv_sec = end_ns / 1000000000ULL,
			       .tv_nsec = end_ns % 1000000000ULL };

	while (!bench_stop && mono_ns() < end_ns)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}
