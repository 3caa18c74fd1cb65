/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A busy thread on one CPU: it keeps the CPU running this process (so
 * an IPI that targets the process's CPUs really has somewhere to go).
 * It runs SCHED_OTHER, pinned, and is bounded in time: it stops by
 * itself after its deadline even if nobody stops it. spinner_stop()
 * joins it; at exit and on a second signal the stop flag is raised
 * through cleanup_push().
 */
#ifndef ISOLBENCH_SPINNER_H
#define ISOLBENCH_SPINNER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The gaps in a spinner's progress (osnoise's method): it reads
 * CLOCK_MONOTONIC on every turn and logs each step longer than
 * @threshold_ns, [start, end], into a ring the reader empties after
 * each window; nothing else is done in the loop.
 */
struct spinner_gaps {
	uint64_t threshold_ns;
	size_t cap;			/* entries, a power of two */
	uint64_t (*log)[2];		/* [n % cap] = { start, end } */
	atomic_size_t head;		/* gaps logged */
	size_t tail;			/* gaps read */
};

struct spinner {
	pthread_t thread;
	int cpu;
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC */
	volatile int stop;
	volatile int started;		/* set once running on @cpu */
	volatile int pinned_ok;
	volatile int tid;		/* for /proc/self/task/TID */
	volatile uint64_t loops;	/* thousands of spin iterations */
	int nice;			/* nice level asked (SCHED_OTHER) */
	volatile int nice_ok;
	struct spinner_gaps *gaps;	/* log its gaps there, or NULL */
	bool running;
	int cleanup_handle;
};

/*
 * Start spinning on @cpu for at most @max_s seconds at nice level @nice
 * (a negative one needs root; without it the spinner keeps nice 0 and
 * nice_ok says so). Waits until the thread runs there. Returns 0, or -1
 * with a reason in @err.
 */
int spinner_start(struct spinner *s, int cpu, int nice, double max_s,
		  char *err, size_t errlen);
/* Stop and join; safe to call twice. */
void spinner_stop(struct spinner *s);
/*
 * A gap log of @cap entries (a power of two) for gaps longer than
 * @threshold_ns: set s->gaps to it before spinner_start(). 0, or -1
 * (no memory).
 */
int spinner_gaps_init(struct spinner_gaps *g, size_t cap, uint64_t threshold_ns);
void spinner_gaps_free(struct spinner_gaps *g);
/*
 * The gaps logged since the last read that lie in [@from, @to], in
 * order, into *@out (malloc'ed, the caller frees it). Returns how many;
 * *lost gets those the ring overwrote before they were read (a ring
 * far larger than a window's gaps keeps that at 0).
 */
size_t spinner_gaps_read(struct spinner_gaps *g, uint64_t from, uint64_t to,
			 uint64_t (**out)[2], uint64_t *lost);
/* CPU time the spinner has had so far (schedstat), ns; 0 if unknown. */
unsigned long long spinner_runtime_ns(const struct spinner *s);

#endif
