// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/base/stats.c against values computed independently
 * (python3: Simpson integration of the t density, and the textbook
 * t table): Student's t CDF and quantiles, descriptive statistics,
 * intervals, Welch's test.
 */
#include <math.h>
#include <stdio.h>

#include "lib/base/ktap.h"
#include "lib/base/stats.h"
#include "lib/base/util.h"

static int near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

#define CHECK_NEAR(got, want, tol, what) \
	ksft_test_result(near((got), (want), (tol)), "%s: %.8g (want %.8g +- %g)", \
			 (what), (double)(got), (double)(want), (double)(tol))

/* The median's interval of 1..n: its ranks and exact confidence. */
static const struct { size_t n, lo, hi; double conf; } mci[] = {
	{ 1, 1, 1, 0 }, { 2, 1, 2, 0.5 }, { 5, 1, 5, 0.9375 },
	{ 6, 1, 6, 0.96875 }, { 9, 2, 8, 0.9609375 },
	{ 10, 2, 9, 0.978515625 }, { 20, 6, 15, 0.9586105346679688 },
};

/* Student's t: quantiles against the table, the CDF against integration. */
static void test_t_distribution(void)
{
	/* two-sided 97.5% points of the t table */
	static const struct { double df, q; } table[] = {
		{ 1, 12.706 }, { 4, 2.776 }, { 10, 2.228 }, { 30, 2.042 },
		{ 2.5, 3.574655 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char what[64];

		snprintf(what, sizeof(what), "t quantile 0.975, df %g", table[i].df);
		CHECK_NEAR(stats_t_quantile(0.975, table[i].df), table[i].q, 1e-3, what);
	}
	CHECK_NEAR(stats_t_quantile(0.025, 10), -2.228, 1e-3, "t quantile 0.025 is symmetric");
	CHECK_NEAR(stats_t_cdf(1.5, 7), 0.9113507565, 1e-8, "t cdf(1.5, df 7)");
	CHECK_NEAR(stats_t_cdf(-2, 3), 0.0696629843, 1e-8, "t cdf(-2, df 3)");
	CHECK_NEAR(stats_t_cdf(0, 5), 0.5, 1e-12, "t cdf(0) is 1/2");
	CHECK_NEAR(stats_t_cdf(1.96, 1e6), 0.9750021, 1e-6, "t cdf tends to the normal");
}

/* Mean, median, deviation, p90 and intervals of 1..10 and 1..100. */
static void test_descriptive(void)
{
	struct stats s;
	double x[100];

	for (int i = 0; i < 10; i++)
		x[i] = 10 - i;	/* unsorted on purpose */
	stats_compute(x, 10, &s);
	CHECK_NEAR(s.mean, 5.5, 1e-12, "mean of 1..10");
	CHECK_NEAR(s.median, 5.5, 1e-12, "median of 1..10");
	CHECK_NEAR(s.stddev, 3.0276503541, 1e-9, "sample stddev of 1..10");
	CHECK_NEAR(s.ci95_mean_hi - s.mean, 2.262157 * 3.0276503541 / sqrt(10), 1e-5,
		   "95% CI of the mean: t(0.975, 9) s / sqrt(n)");
	ksft_test_result(x[0] == 10, "stats_compute leaves the input as it is");

	for (int i = 0; i < 100; i++)
		x[i] = i + 1;
	stats_compute(x, 100, &s);
	ksft_test_result(s.ci95_median_lo == 40 && s.ci95_median_hi == 61,
			 "95%% CI of the median of 1..100: ranks 40 and 61 (%g, %g)",
			 s.ci95_median_lo, s.ci95_median_hi);
	CHECK_NEAR(s.ci_median_confidence, 0.9647997997822952, 1e-12,
		   "its real confidence: 1 - 2 P(Bin(100, 1/2) <= 39)");
	CHECK_NEAR(s.p90, 90.1, 1e-9, "p90 of 1..100 (linear interpolation)");
}

/*
 * Exact binomial confidences (python3: math.comb) of the median's
 * order-statistic interval: below n = 6 it is [min, max] at less
 * than 95%, and says so.
 */
static void test_median_intervals(void)
{
	struct stats s;
	double x[100];

	for (size_t i = 0; i < ARRAY_SIZE(mci); i++) {
		char what[96];

		for (size_t k = 0; k < mci[i].n; k++)
			x[k] = mci[i].n - k;	/* 1..n, unsorted */
		stats_compute(x, mci[i].n, &s);
		snprintf(what, sizeof(what),
			 "n %zu: median interval ranks [%zu, %zu] at confidence",
			 mci[i].n, mci[i].lo, mci[i].hi);
		CHECK_NEAR(s.ci_median_confidence, mci[i].conf, 1e-12, what);
		ksft_test_result(s.ci95_median_lo == mci[i].lo &&
				 s.ci95_median_hi == mci[i].hi,
				 "n %zu: interval [%g, %g], want [%zu, %zu]",
				 mci[i].n, s.ci95_median_lo, s.ci95_median_hi,
				 mci[i].lo, mci[i].hi);
	}
}

/* Welch's test against computed values, on constant samples, and n < 2. */
static void test_welch(void)
{
	static const double a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3,
				    18.9, 19.5, 22.0 };
	static const double b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7,
				    27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0,
				    23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	double c[] = { 5, 5, 5, 5 }, d[] = { 6, 6, 6 };
	struct stats sa, sb, sc, sd;
	struct welch w;

	stats_compute(a, ARRAY_SIZE(a), &sa);
	stats_compute(b, ARRAY_SIZE(b), &sb);
	ksft_test_result(!stats_welch(&sa, &sb, &w), "Welch's test runs");
	CHECK_NEAR(w.t, 2.2255120400, 1e-8, "Welch t");
	CHECK_NEAR(w.df, 24.5246349443, 1e-8, "Welch-Satterthwaite df");
	CHECK_NEAR(w.p, 0.0354845308, 1e-7, "Welch two-sided p");
	CHECK_NEAR(w.diff_lo, 0.16354135, 1e-6, "Welch 95% CI of the difference, low");
	CHECK_NEAR(w.diff_hi, 4.27645865, 1e-6, "Welch 95% CI of the difference, high");

	stats_compute(c, ARRAY_SIZE(c), &sc);
	stats_compute(d, ARRAY_SIZE(d), &sd);
	ksft_test_result(!stats_welch(&sc, &sd, &w) && w.p == 0 && w.diff == 1,
			 "constant samples that differ: p 0");
	ksft_test_result(!stats_welch(&sc, &sc, &w) && w.p == 1 && w.diff == 0,
			 "identical constant samples: p 1");
	stats_compute(c, 1, &sc);
	ksft_test_result(stats_welch(&sc, &sd, &w) == -1, "Welch needs n >= 2");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(27 + 2 * ARRAY_SIZE(mci));
	test_t_distribution();
	test_descriptive();
	test_median_intervals();
	test_welch();
	ksft_finished();
}
