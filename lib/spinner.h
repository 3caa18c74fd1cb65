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
#include <stdbool.h>
#include <stdint.h>

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
/* CPU time the spinner has had so far (schedstat), ns; 0 if unknown. */
unsigned long long spinner_runtime_ns(const struct spinner *s);

#endif
