// SPDX-License-Identifier: GPL-2.0
/* Periodic event matching and order quantiles: see cid_scan_periodic.h. */
#include <math.h>
#include <stdlib.h>

#include "cid_scan_periodic.h"

int cid_scan_periodic_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int cid_scan_periodic_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

bool cid_scan_periodic_neighbour(const uint64_t *t, size_t n, uint64_t x,
				 uint64_t lo, uint64_t hi, uint64_t shift, int multiples)
{
	for (size_t j = 0; j < n; j++) {
		uint64_t d = t[j] > x ? t[j] - x : x - t[j];

		for (uint64_t p = 1; p <= (uint64_t)multiples; p++)
			if (d >= p * lo + shift && d <= p * hi + shift)
				return true;
	}
	return false;
}

double cid_scan_quantile_lower(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cid_scan_periodic_cmp_double);
	return v[(size_t)(q * (n - 1))];
}

static int cmp_ev(const void *a, const void *b)
{
	const struct periodic_ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

size_t cid_scan_periodic_pick(struct periodic_ev *ev, size_t n, uint64_t window)
{
	size_t picked = 0, last = 0;
	bool have = false;

	qsort(ev, n, sizeof(*ev), cmp_ev);
	for (size_t i = 0; i < n; i++) {
		ev[i].picked = false;
		if (have && ev[i].t - ev[last].t < window) {
			if (ev[i].w > ev[last].w) {
				ev[last].picked = false;
				ev[i].picked = true;
				last = i;
			}
			continue;
		}
		ev[i].picked = true;
		last = i;
		have = true;
		picked++;
	}
	return picked;
}

double cid_scan_periodic_allowed(uint64_t span_ns, uint64_t period_ns, double per_period)
{
	return (floor((double)span_ns / period_ns) + 1) * per_period;
}
