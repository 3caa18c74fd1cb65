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
 * The kernel publishes its TSC-to-ns scaling in the first page of a perf
 * event mapping (cap_user_time): ns = tsc * time_mult >> time_shift.
 * That is the kernel's own TSC frequency, better than a calibration.
 */
static double tsc_hz_from_kernel(void)
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

/* TSC ticks over ~50 ms of CLOCK_MONOTONIC_RAW, best of three. */
static double tsc_hz_calibrate(void)
{
	double best = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = mono_raw_ns(), c0 = tsc_read_start(), t1, c1;

		do {
			t1 = mono_raw_ns();
		} while (t1 - t0 < 50000000ULL);
		c1 = tsc_read_end();
		double hz = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);

		/* the shortest disturbance-free window gives the lowest rate */
		if (!best || hz < best)
			best = hz;
	}
	return best;
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

void clock_init(void)
{
	memset(&bench_clock, 0, sizeof(bench_clock));
	bench_clock.source = "clock_gettime";
	bench_clock.hz_source = "";
	if (HAVE_TSC && tsc_invariant() && !getenv("ISOLBENCH_NO_TSC")) {
		bench_clock.tsc_hz = tsc_hz_from_kernel();
		bench_clock.hz_source = "kernel (perf user time)";
		if (!bench_clock.tsc_hz) {
			bench_clock.tsc_hz = tsc_hz_calibrate();
			bench_clock.hz_source = "calibrated against CLOCK_MONOTONIC_RAW";
		}
		if (bench_clock.tsc_hz > 0) {
			bench_clock.use_tsc = 1;
			bench_clock.source = "tsc";
		}
	}
	bench_clock.overhead_ns = clock_overhead_ns();
}
