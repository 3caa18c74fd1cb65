/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinned workloads for a bounded time: busy loops that record every
 * kernel entry they notice (a gap in back-to-back clock reads) with the
 * thread's rseq state at the return (mm_cid, whether the notify-resume
 * path ran, whether the thread was switched out), cyclictest-like
 * periodic sleepers, and hackbench-like message passing between threads
 * or processes. Processes die with the parent and are killed and reaped
 * by cid_scan_workload_join() or at exit (cleanup_push).
 *
 *	struct wl_run r = { .kind = WL_SPIN, .gap_min_ns = 1000,
 *			    .end_ns = mono_ns() + 2e9 };
 *	cid_scan_workload_start(&r, &cpus, nprobe, nthreads, false);
 *	cid_scan_workload_wait_until(r.end_ns);
 *	cid_scan_workload_join(&r);	...r.w[i].ev[0..nev)...
 *	cid_scan_workload_free(&r);
 */
#ifndef ISOLBENCH_CID_SCAN_WORKLOAD_H
#define ISOLBENCH_CID_SCAN_WORKLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/base/cpu.h"

enum workload { WL_SPIN, WL_CYCLIC, WL_HACKBENCH };
/* "spin", "cyclic", "hackbench", NULL: an OPT_CHOICE table */
extern const char *const cid_scan_workload_names[];

#define WL_MAX_EVENTS_PER_THREAD	(1 << 18)

/* One recorded return to user space in a busy loop. */
struct wl_event {
	uint64_t t_ns;		/* bench clock (in ns) just after it */
	uint32_t gap_ns;	/* time the loop lost */
	uint32_t cid : 30;
	uint32_t marked : 1;	/* went through notify-resume */
	uint32_t switched : 1;	/* marked, and the thread was switched out */
	uint32_t resume_ns;	/* after t_ns, when the loop went on (the
				 * getrusage of a marked return); cid is
				 * the one read then */
};

/* One busy-loop or workload thread; all of them share struct wl_run. */
struct wl_worker {
	struct wl_run *run;
	pthread_t th;
	int cpu, tid, idx;
	bool started;
	struct wl_event *ev;
	size_t nev;
	uint32_t last_cid;
	long switches;
};

struct wl_run {
	/* set by the caller before cid_scan_workload_start() */
	int kind;			/* enum workload */
	uint64_t period_us;		/* cyclic */
	bool hackbench_threads;		/* hackbench as threads, not processes */
	uint64_t gap_min_ns;		/* busy loops record longer gaps */
	uint64_t end_ns;		/* every loop ends by then (mono_ns) */
	/* state */
	uint64_t gap_min;		/* in bench clock units */
	uint64_t clk0_ns, mono0_ns;	/* t_ns and mono_ns() read together, */
	uint64_t clk1_ns, mono1_ns;	/* at the start and at the join */
	int cleanup;
	volatile int stop, phase;	/* compaction: 1 = the workers exit */
	int nworkers;
	struct wl_worker *w;
	pid_t *children;
	int nchildren;
	int sock[2];
};

/*
 * Start @nprobe recording busy loops (pinned round robin over @cpus) and,
 * when @with_wl, @nwl threads or processes of r->kind. 0 or exits on
 * failure to create threads.
 */
int cid_scan_workload_start(struct wl_run *r, const cpu_mask_t *cpus, int nprobe,
			    int nwl, bool with_wl);
/* Stop everything, join the threads, kill and reap the processes. */
void cid_scan_workload_join(struct wl_run *r);
void cid_scan_workload_free(struct wl_run *r);
/*
 * An event's t_ns on CLOCK_MONOTONIC (e.g. a trace clock set to mono):
 * linear between the pairs read at the start and at the join.
 */
uint64_t cid_scan_workload_mono_ns(const struct wl_run *r, uint64_t t_ns);
/* Sleep until @end_ns (mono_ns) or bench_stop. */
void cid_scan_workload_wait_until(uint64_t end_ns);

#endif
