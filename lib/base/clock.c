// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "stats.h"
#include "util.h"

struct bench_clock bench_clock;

/*
 * The kernel publishes its counter-to-ns scaling in the first page of a
 * perf event mapping (cap_user_time): ns = tsc * time_mult >> time_shift.
 * That is the kernel's own rate for the counter, better than a calibration.
 */
double clock_counter_hz_kernel(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	double hz = 0;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	pg = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		if (pg->cap_user_time && pg->time_mult)
			hz = 1e9 * (double)(1ULL << pg->time_shift) / pg->time_mult;
		munmap(pg, psz);
	}
	close(fd);
	return hz;
}

/*
 * One (counter, CLOCK_MONOTONIC_RAW) pair: the clock read bracketed by
 * two counter reads, the narrowest bracket of a few tries kept, its
 * midpoint taken as the counter at the clock read. An interrupt between the reads
 * widens only that try's bracket, so it is not the one kept.
 */
static void counter_mono_pair(uint64_t *counter, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = counter_read_start(), t = mono_raw_ns(), b = counter_read_end();

		if (b - a < best) {
			best = b - a;
			*counter = a + (b - a) / 2;
			*ns = t;
		}
	}
}

double clock_counter_rate_choose(double *rates, int n)
{
	return stats_median(rates, n);
}

double clock_counter_calibrate(double *rates, int n, uint64_t window_ns)
{
	for (int i = 0; i < n; i++) {
		uint64_t c0, t0, c1, t1;

		counter_mono_pair(&c0, &t0);
		while (mono_raw_ns() - t0 < window_ns)
			;
		counter_mono_pair(&c1, &t1);
		rates[i] = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
	}
	return clock_counter_rate_choose(rates, n);
}

#define OVERHEAD_SAMPLES 10001

static double clock_overhead_ns(void)
{
	double *d = malloc(OVERHEAD_SAMPLES * sizeof(*d));
	double med;

	if (!d)
		return 0;
	for (int i = 0; i < OVERHEAD_SAMPLES; i++) {
		uint64_t a = bench_clock_start();
		uint64_t b = bench_clock_end();

		d[i] = clock_to_ns(b - a);
	}
	med = stats_median(d, OVERHEAD_SAMPLES);
	free(d);
	return med;
}

/* The counter's rate: as the CPU states it, else as the kernel does, else calibrated. */
static void clock_counter_hz(void)
{
	double rates[CLOCK_CAL_WINDOWS];

	bench_clock.counter_hz = counter_hz_arch();
	bench_clock.hz_source = "CNTFRQ_EL0";
	if (bench_clock.counter_hz)
		return;
	bench_clock.counter_hz = clock_counter_hz_kernel();
	bench_clock.hz_source = "kernel (perf user time)";
	if (bench_clock.counter_hz)
		return;
	bench_clock.counter_hz = clock_counter_calibrate(rates, CLOCK_CAL_WINDOWS,
							 CLOCK_CAL_WINDOW_NS);
	bench_clock.hz_source = "calibrated against CLOCK_MONOTONIC_RAW";
}

void clock_init(void)
{
	memset(&bench_clock, 0, sizeof(bench_clock));
	bench_clock.source = "clock_gettime";
	bench_clock.hz_source = "";
	if (HAVE_COUNTER && counter_usable() && !getenv("ISOLBENCH_NO_COUNTER")) {
		clock_counter_hz();
		if (bench_clock.counter_hz > 0) {
			bench_clock.use_counter = 1;
			bench_clock.source = COUNTER_NAME;
		} else {
			bench_clock.hz_source = "";
		}
	}
	bench_clock.overhead_ns = clock_overhead_ns();
}
