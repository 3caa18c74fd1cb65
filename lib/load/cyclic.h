/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cyclictest loop: sleep to an absolute CLOCK_MONOTONIC time every
 * interval and take the lateness of each wakeup (wake time - programmed
 * time). Periods missed are skipped and counted as overruns, as
 * cyclictest does. Used as a measurement (histogram and latencies
 * given) or as a load of periodic wakeups (neither given).
 *
 *	struct cyclic c = { .interval_ns = 1000000, .duration_ns = 5e9,
 *			    .h = &hist, .lat_us = buf, .cap = n };
 *	cyclic_loop(&c);	...c.wakeups, c.overruns, c.early, c.nlat...
 */
#ifndef ISOLBENCH_CYCLIC_H
#define ISOLBENCH_CYCLIC_H

#include <stddef.h>
#include <stdint.h>

#include "../base/stats.h"

struct cyclic {
	/* set by the caller */
	uint64_t interval_ns;
	uint64_t duration_ns;		/* no wakeup programmed after it; 0: none */
	uint64_t max_wakeups;		/* 0: none (give one bound at least) */
	volatile int *stop;		/* NULL, or ends the loop when set */
	struct hist *h;			/* NULL, or gets each lateness in us */
	double *lat_us;			/* NULL, or the first @cap latenesses */
	uint64_t *wake_ns;		/* NULL, or their wake times (with lat_us) */
	size_t cap;
	/* results */
	uint64_t wakeups, overruns;
	uint64_t early;			/* woken before the programmed time */
	size_t nlat;
};

/* Run for duration_ns or max_wakeups, until *stop, bench_stop or a failed sleep. */
void cyclic_loop(struct cyclic *c);

/*
 * What cyclictest does unless given --laptop: hold /dev/cpu_dma_latency
 * open with a latency limit written to it (0 us: no deep C-states, no
 * slow exit from idle on any CPU) for as long as it measures. The
 * kernel drops the limit when the file is closed: by
 * cpu_dma_latency_release(), at exit, on a second signal (cleanup_push)
 * and, since the kernel closes the files of a killed process, on
 * SIGKILL too.
 */
struct cpu_dma_latency {
	int fd;			/* -1: not held */
	int handle;		/* cleanup handle */
	int32_t us;		/* the limit held */
};

/* Hold the limit at @us. 0, or -1 with the reason in @err. */
int cpu_dma_latency_hold(struct cpu_dma_latency *d, int32_t us,
			 char *err, size_t errlen);
/* Drop it now (once; a no-op when not held). */
void cpu_dma_latency_release(struct cpu_dma_latency *d);

#endif
