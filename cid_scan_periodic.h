/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling periodic events from the rest: an event is periodic when
 * another one lies one, two or more periods away (a missed occurrence
 * leaves a hole), with the period known only within [lo, hi]. Shifting
 * the windows by half a period gives the control count (chance
 * matches). Plus the order-statistic quantile used on such samples.
 *
 *	qsort(t, n, sizeof(*t), cid_scan_periodic_cmp_u64);
 *	periodic = cid_scan_periodic_neighbour(t, n, t[i], lo, hi, 0, 3);
 *	control = cid_scan_periodic_neighbour(t, n, t[i], lo, hi, period / 2, 3);
 */
#ifndef ISOLBENCH_CID_SCAN_PERIODIC_H
#define ISOLBENCH_CID_SCAN_PERIODIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* qsort comparators, ascending. */
int cid_scan_periodic_cmp_u64(const void *a, const void *b);
int cid_scan_periodic_cmp_double(const void *a, const void *b);

/*
 * Whether a time in @t (n of them, any order) lies k periods (each in
 * [lo, hi]) plus @shift away from @x, before or after it, for some k in
 * 1..@multiples.
 */
bool cid_scan_periodic_neighbour(const uint64_t *t, size_t n, uint64_t x,
				 uint64_t lo, uint64_t hi, uint64_t shift, int multiples);

/* A candidate event: its time and how much it weighs (e.g. its gap). */
struct periodic_ev {
	uint64_t t;
	double w;
	int tag;		/* the caller's (e.g. which thread) */
	bool picked;
};

/*
 * At most one event per @window: sorts @ev by time and marks picked
 * the heaviest of each run of events closer than @window to the last
 * picked one (a heavier later one replaces it). Returns how many are
 * picked; picked events are at least @window apart.
 */
size_t cid_scan_periodic_pick(struct periodic_ev *ev, size_t n, uint64_t window);

/*
 * How many occurrences fit in @span_ns of something that recurs no
 * sooner than every @period_ns, @per_period at a time: more picked than
 * this means some picks are not that thing.
 */
double cid_scan_periodic_allowed(uint64_t span_ns, uint64_t period_ns, double per_period);

/*
 * The element at rank q * (n - 1) (rounded down) once @v is sorted: no
 * interpolation. Sorts @v in place; 0 for n == 0.
 */
double cid_scan_quantile_lower(double *v, size_t n, double q);

#endif
