// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *x, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	pos = q * (n - 1);
	i = (size_t)pos;
	frac = pos - i;
	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + frac * (x[i + 1] - x[i]);
}

double stats_median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return stats_quantile_sorted(x, n, 0.5);
}

/*
 * Regularised incomplete beta I_x(a, b) by its continued fraction,
 * evaluated with the modified Lentz method.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, delta;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 1e-14)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	double lnfront;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lnfront = lgamma(a + b) - lgamma(a) - lgamma(b) +
		  a * log(x) + b * log1p(-x);
	/* the fraction converges fast on this side of the mean */
	if (x < (a + 1) / (a + b + 2))
		return exp(lnfront) * beta_cf(a, b, x) / a;
	return 1 - exp(lnfront) * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Distribution-free interval of the median: [x(j), x(n+1-j)] of the
 * sorted sample covers the true median unless fewer than j samples fall
 * on one side, so its confidence is exactly 1 - 2 P(B <= j-1) with B
 * binomial(n, 1/2). The largest j whose confidence is still at least 95%
 * is taken; below n = 6 even [min, max] does not reach 95% (n = 5:
 * 1 - 2/32 = 93.75%), and the interval is [min, max] at the confidence
 * it has. Returns that confidence.
 */
static double median_ci(const double *sorted, size_t n, double *lo, double *hi)
{
	double lfront = lgamma(n + 1.0) - n * log(2.0);
	double cdf_prev = exp(-(double)n * log(2.0));	/* P(B <= 0) */
	size_t j = 1;

	while (j + 1 <= (n + 1) / 2) {
		/* P(B <= j) = P(B <= j-1) + P(B = j) */
		double cdf = cdf_prev + exp(lfront - lgamma(j + 1.0) -
					    lgamma((double)(n - j) + 1));

		if (cdf > 0.025 * (1 + 1e-12))
			break;
		cdf_prev = cdf;
		j++;
	}
	*lo = sorted[j - 1];
	*hi = sorted[n - j];
	return 1 - 2 * cdf_prev;
}

int stats_compute(const double *x, size_t n, struct stats *st)
{
	double *s, sum = 0, ss = 0;

	memset(st, 0, sizeof(*st));
	if (!n)
		return -1;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	st->n = n;
	st->mean = sum / n;
	for (size_t i = 0; i < n; i++)
		ss += (s[i] - st->mean) * (s[i] - st->mean);
	st->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	st->cov = st->mean ? st->stddev / fabs(st->mean) : 0;
	st->min = s[0];
	st->max = s[n - 1];
	st->median = st->p50 = stats_quantile_sorted(s, n, 0.5);
	st->p90 = stats_quantile_sorted(s, n, 0.90);
	st->p99 = stats_quantile_sorted(s, n, 0.99);
	st->p999 = stats_quantile_sorted(s, n, 0.999);
	if (n > 1) {
		double h = stats_t_quantile(0.975, n - 1) * st->stddev / sqrt(n);

		st->ci95_mean_lo = st->mean - h;
		st->ci95_mean_hi = st->mean + h;
	} else {
		st->ci95_mean_lo = st->ci95_mean_hi = st->mean;
	}
	st->ci_median_confidence = median_ci(s, n, &st->ci95_median_lo,
					     &st->ci95_median_hi);
	free(s);
	return 0;
}

int stats_welch(const struct stats *a, const struct stats *b, struct welch *w)
{
	double va, vb, se2, h;

	if (a->n < 2 || b->n < 2)
		return -1;
	va = a->stddev * a->stddev / a->n;
	vb = b->stddev * b->stddev / b->n;
	se2 = va + vb;
	w->diff = b->mean - a->mean;
	if (se2 == 0) {
		/* identical constant samples: no evidence either way, or total */
		w->t = w->diff ? INFINITY : 0;
		w->df = a->n + b->n - 2;
		w->p = w->diff ? 0 : 1;
		w->diff_lo = w->diff_hi = w->diff;
		return 0;
	}
	w->t = w->diff / sqrt(se2);
	/* Welch-Satterthwaite, in shares of se2: no overflow at 1e150 */
	w->df = 1 / ((va / se2) * (va / se2) / (a->n - 1) +
		     (vb / se2) * (vb / se2) / (b->n - 1));
	w->p = 2 * stats_t_cdf(-fabs(w->t), w->df);
	h = stats_t_quantile(0.975, w->df) * sqrt(se2);
	w->diff_lo = w->diff - h;
	w->diff_hi = w->diff + h;
	return 0;
}

int hist_init(struct hist *h, double lo, double width, size_t nbuckets)
{
	memset(h, 0, sizeof(*h));
	if (width <= 0 || !nbuckets)
		return -1;
	h->buckets = calloc(nbuckets, sizeof(*h->buckets));
	if (!h->buckets)
		return -1;
	h->lo = lo;
	h->width = width;
	h->nbuckets = nbuckets;
	return 0;
}

void hist_free(struct hist *h)
{
	free(h->buckets);
	h->buckets = NULL;
}

double hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen;

	if (!h->count)
		return NAN;
	rank = (uint64_t)ceil(q * h->count);
	if (rank < 1)
		rank = 1;
	seen = h->under;
	if (seen >= rank)
		return h->min;
	for (size_t i = 0; i < h->nbuckets; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			double edge = h->lo + (i + 1) * h->width;

			return edge < h->max ? edge : h->max;
		}
	}
	return h->max;
}

#define HIST_ROWS	24

/* At most HIST_ROWS rows: neighbouring buckets are merged to fit. */
void hist_print(const struct hist *h, FILE *f, const char *unit, int cols)
{
	static const char bars[] = "################################################################";
	size_t first = h->nbuckets, last = 0, group;
	uint64_t peak = 1;

	if (cols > (int)sizeof(bars) - 1)
		cols = sizeof(bars) - 1;
	for (size_t i = 0; i < h->nbuckets; i++) {
		if (!h->buckets[i])
			continue;
		if (first == h->nbuckets)
			first = i;
		last = i;
	}
	if (first == h->nbuckets)
		first = last + 1;	/* all samples outside the range */
	group = (last + 1 - first + HIST_ROWS - 1) / HIST_ROWS;
	if (!group)
		group = 1;
	for (size_t i = first; i <= last; i += group) {
		uint64_t c = 0;

		for (size_t j = i; j < i + group && j <= last; j++)
			c += h->buckets[j];
		if (c > peak)
			peak = c;
	}
	if (h->under)
		fprintf(f, "# %12s < %-10g %10llu\n", "", h->lo,
			(unsigned long long)h->under);
	for (size_t i = first; i <= last; i += group) {
		uint64_t c = 0;

		for (size_t j = i; j < i + group && j <= last; j++)
			c += h->buckets[j];
		fprintf(f, "# %12g - %-10g %10llu |%.*s\n",
			h->lo + i * h->width, h->lo + (i + group) * h->width,
			(unsigned long long)c, (int)(c * cols / peak), bars);
	}
	if (h->over)
		fprintf(f, "# %12s >= %-9g %10llu (max %g %s)\n", "",
			h->lo + h->nbuckets * h->width,
			(unsigned long long)h->over, h->max, unit);
}
