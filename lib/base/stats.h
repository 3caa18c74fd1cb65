/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Descriptive statistics, confidence intervals, Student's t and Welch's
 * test, and fixed-memory histograms.
 */
#ifndef ISOLBENCH_STATS_H
#define ISOLBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stats {
	size_t n;
	double min, max, mean, median, stddev;
	double cov;			/* stddev / mean */
	double p50, p90, p99, p999;
	double ci95_mean_lo, ci95_mean_hi;	/* Student's t */
	/*
	 * Order statistics: the narrowest interval of at least 95%, or
	 * [min, max] when n < 6 cannot reach 95%; its exact confidence
	 * (0..1) is ci_median_confidence (n = 5: 0.9375).
	 */
	double ci95_median_lo, ci95_median_hi;
	double ci_median_confidence;
};

/* Summarise @n samples (n >= 1; sorts a copy, @x is left as it is). */
int stats_compute(const double *x, size_t n, struct stats *st);
/* Median of @n values; reorders @x. */
double stats_median(double *x, size_t n);
/* Linear-interpolated quantile 0..1 of sorted @x. */
double stats_quantile_sorted(const double *x, size_t n, double q);

/* Student's t: two-sided CDF helpers. */
double stats_t_cdf(double t, double df);
/* The t with P(T <= t) = p, for 0 < p < 1. */
double stats_t_quantile(double p, double df);

struct welch {
	double t, df, p;	/* two-sided p-value */
	double diff;		/* mean(b) - mean(a) */
	double diff_lo, diff_hi;	/* 95% CI of the difference */
};

/* Welch's unequal-variance t-test of b against a (each n >= 2). */
int stats_welch(const struct stats *a, const struct stats *b, struct welch *w);

/*
 * Histogram of fixed memory: @nbuckets buckets of @width starting at
 * @lo, plus under- and overflow counters and the exact extremes.
 * A NaN sample is counted as overflow (in count and over, so quantiles
 * treat it as worse than any value) and left out of min, max and sum.
 */
struct hist {
	double lo, width;
	size_t nbuckets;
	uint64_t *buckets;
	uint64_t under, over, count;
	double min, max, sum;
};

int hist_init(struct hist *h, double lo, double width, size_t nbuckets);
void hist_free(struct hist *h);
static inline void hist_add(struct hist *h, double v)
{
	double pos = (v - h->lo) / h->width;

	if (pos != pos) {	/* NaN: no bucket, no extreme, no sum */
		h->over++;
		h->count++;
		return;
	}
	if (pos < 0)
		h->under++;
	else if (pos >= h->nbuckets)
		h->over++;
	else
		h->buckets[(size_t)pos]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->sum += v;
	h->count++;
}
/* The quantile 0..1, to bucket resolution (bucket upper edge). */
double hist_quantile(const struct hist *h, double q);
/* ASCII bars of the non-empty range, @cols wide, lines prefixed "# ". */
void hist_print(const struct hist *h, FILE *f, const char *unit, int cols);

#endif
