/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark clock: the CPU's counter (lib/base/arch.h: the invariant
 * TSC on x86, CNTVCT_EL0 on arm64), its frequency as the CPU states it
 * (CNTFRQ_EL0), else from the kernel (perf's user-time page), else
 * calibrated against CLOCK_MONOTONIC_RAW; clock_gettime(CLOCK_MONOTONIC_RAW)
 * where there is no usable counter.
 * Call clock_init() once; then bench_clock_start()/end() stamp a region
 * and clock_to_ns() converts a difference.
 */
#ifndef ISOLBENCH_CLOCK_H
#define ISOLBENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "arch.h"

struct bench_clock {
	int use_counter;
	double counter_hz;	/* 0 when not using the counter */
	const char *source;	/* COUNTER_NAME, "clock_gettime" */
	const char *hz_source;	/* "CNTFRQ_EL0", "kernel (perf user time)", "calibrated ...", "" */
	double overhead_ns;	/* median cost of one start+end pair */
};

extern struct bench_clock bench_clock;

/* Choose and calibrate the clock, measure its overhead. */
void clock_init(void);

/* The kernel's own counter Hz from a perf event's user page, or 0. */
double clock_counter_hz_kernel(void);

/*
 * Counter Hz against CLOCK_MONOTONIC_RAW: @n windows of @window_ns, each
 * ended by bracketed pairs of reads (the narrowest of five brackets, its
 * midpoint), the median rate of the windows chosen (a disturbed window
 * may be too low or too high; neither end is trusted). @rates gets each
 * window's rate (reordered). clock_init() uses 5 windows of 20 ms.
 */
#define CLOCK_CAL_WINDOWS	5
#define CLOCK_CAL_WINDOW_NS	20000000ULL
double clock_counter_calibrate(double *rates, int n, uint64_t window_ns);
/* The choice among the windows' rates: their median (reorders @rates). */
double clock_counter_rate_choose(double *rates, int n);

static inline uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t bench_clock_start(void)
{
	return bench_clock.use_counter ? counter_read_start() : mono_raw_ns();
}

static inline uint64_t bench_clock_end(void)
{
	return bench_clock.use_counter ? counter_read_end() : mono_raw_ns();
}

static inline double clock_to_ns(uint64_t delta)
{
	return bench_clock.use_counter ? delta * 1e9 / bench_clock.counter_hz
				   : (double)delta;
}

#endif
