// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the descriptive statistics and the histogram. */
#include <math.h>

#include "lib/base/ktap.h"
#include "lib/base/stats.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

int main(void)
{
	/* values checked by hand: mean 5, sample stddev sqrt(32/7) */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const double one[] = { 42 };
	struct stats st;
	struct hist h;
	double big[1001];

	ksft_print_header();
	ksft_set_plan(13);

	stats_compute(x, 8, &st);
	ksft_test_result(st.n == 8 && st.min == 2 && st.max == 9, "n, min, max");
	ksft_test_result(near(st.mean, 5, 1e-12), "mean 5 (got %g)", st.mean);
	ksft_test_result(near(st.stddev, sqrt(32.0 / 7), 1e-12),
			 "sample stddev sqrt(32/7) (got %g)", st.stddev);
	ksft_test_result(near(st.median, 4.5, 1e-12), "median 4.5 (got %g)", st.median);
	ksft_test_result(near(st.cov, sqrt(32.0 / 7) / 5, 1e-12), "cov");
	/* t(0.975, 7) = 2.364624 */
	ksft_test_result(near(st.ci95_mean_hi - st.mean,
			      2.364624 * sqrt(32.0 / 7) / sqrt(8), 1e-5),
			 "95%% CI of the mean uses t(0.975, 7) (half width %g)",
			 st.ci95_mean_hi - st.mean);
	ksft_test_result(st.ci95_median_lo <= st.median &&
			 st.median <= st.ci95_median_hi, "median CI contains the median");

	stats_compute(one, 1, &st);
	ksft_test_result(st.n == 1 && st.mean == 42 && st.stddev == 0 &&
			 st.ci95_mean_lo == 42, "one sample: no spread, no crash");

	for (int i = 0; i <= 1000; i++)
		big[i] = i;
	stats_compute(big, 1001, &st);
	ksft_test_result(near(st.p90, 900, 1e-9) && near(st.p99, 990, 1e-9) &&
			 near(st.p999, 999, 1e-9), "percentiles of 0..1000");

	hist_init(&h, 0, 10, 100);
	for (int i = 0; i < 1000; i++)
		hist_add(&h, i);	/* 0..999: 10 per bucket */
	hist_add(&h, 5000);	/* overflow */
	hist_add(&h, -1);	/* underflow */
	ksft_test_result(h.count == 1002 && h.over == 1 && h.under == 1 &&
			 h.buckets[0] == 10 && h.buckets[99] == 10,
			 "histogram counts, under- and overflow");
	ksft_test_result(near(hist_quantile(&h, 0.5), 500, 10),
			 "histogram median near 500 (got %g)", hist_quantile(&h, 0.5));
	ksft_test_result(h.max == 5000 && h.min == -1, "exact extremes kept");
	hist_add(&h, NAN);	/* counted as overflow, no extreme, no sum */
	ksft_test_result(h.count == 1003 && h.over == 2 && h.max == 5000 &&
			 h.min == -1 && !isnan(h.sum), "NaN counted as overflow");
	hist_free(&h);
	ksft_finished();
}
