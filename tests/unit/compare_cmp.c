// SPDX-License-Identifier: GPL-2.0
/* Unit tests of compare_cmp.c: change in %, its interval, words, verdicts. */
#include <math.h>
#include <string.h>

#include "compare_cmp.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"

static void stats_of(const double *x, size_t n, struct stats *s)
{
	stats_compute(x, n, s);
}

/* A base mean of 0: no change in % to give. */
static void test_zero_base(const struct stats *sb)
{
	static const double zero[] = { 0, 0, 0 };
	struct stats sz;
	struct cmp c;

	stats_of(zero, 3, &sz);
	compare_cmp_metrics(&sz, sb, &c);
	ksft_test_result(!c.tested, "a zero base mean: no percentage");
}

/* Changes past what a percentage or a double holds, and how they print. */
static void test_extremes(void)
{
	static const double tiny[] = { 1e-300, 1e-300, 2e-300 };
	static const double small[] = { 1e-80, 1e-80, 2e-80 };
	static const double big[] = { 1e10, 1e10, 2e10 };
	struct stats st, sm, sg;
	const char *why;
	struct cmp c;
	char buf[24];

	stats_of(tiny, 3, &st);
	stats_of(small, 3, &sm);
	stats_of(big, 3, &sg);
	compare_cmp_metrics(&st, &sg, &c);
	ksft_test_result(!c.tested && compare_cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
			 "a change past the largest double: no percentage, undecided");
	compare_cmp_metrics(&st, &sm, &c);
	ksft_test_result(!c.tested && !strcmp(c.why_not, "base mean too small"),
			 "a change of 1e220%% (past CMP_MAX_PCT): base mean too small");
	compare_cmp_metrics(&sm, &sg, &c);
	compare_cmp_pct(buf, sizeof(buf), c.change_pct, true);
	ksft_print_msg("a huge finite change prints as %s\n", buf);
	ksft_test_result(c.tested && strlen(buf) <= 10 && strchr(buf, 'e'),
			 "a huge finite change prints short");
	compare_cmp_pct(buf, sizeof(buf), -12.34, true);
	ksft_print_msg("-12.34 prints as %s\n", buf);
	ksft_test_result(!strcmp(buf, "-12.3%"), "-12.34 prints as -12.3%%");
	compare_cmp_pct(buf, sizeof(buf), -1.234e300, true);
	ksft_print_msg("-1.234e300 prints as %s\n", buf);
	ksft_test_result(strlen(buf) <= 10, "-1.234e300 prints in 10 characters");
}

/*
 * An absolute threshold (--threshold-abs) on TIMER softirqs per tick: a
 * quiet base near 0, one raise per tick.
 */
static void test_abs_threshold(void)
{
	static const double quiet[] = { 0.008, 0.004, 0.016 };
	static const double quiet2[] = { 0.02, 0.012, 0.004 };
	static const double every[] = { 1.0, 0.99, 1.0 };
	static const double zero[] = { 0, 0, 0 };
	struct stats sq, sq2, se, sz;
	const char *why;
	struct cmp c;

	stats_of(quiet, 3, &sq);
	stats_of(quiet2, 3, &sq2);
	stats_of(every, 3, &se);
	stats_of(zero, 3, &sz);
	compare_cmp_metrics(&sq, &sq2, &c);
	ksft_test_result(compare_cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_GOOD,
			 "abs threshold 0.1: two quiet kernels are good (%+.4f)", c.w.diff);
	compare_cmp_metrics(&sz, &se, &c);
	ksft_test_result(!c.tested &&
			 compare_cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_BAD,
			 "abs threshold 0.1: a base of exactly 0 against 1 per tick is bad");
	compare_cmp_metrics(&sq, &sq2, &c);
	ksft_test_result(compare_cmp_bisect_abs(&c, BETTER_LOWER, 0.005, &why) == BISECT_UNDECIDED,
			 "abs threshold inside the CI: undecided");
	compare_cmp_metrics(&se, &sz, &c);
	ksft_test_result(compare_cmp_bisect_abs(&c, BETTER_HIGHER, 0.1, &why) == BISECT_BAD &&
			 compare_cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_GOOD,
			 "abs threshold: the direction decides which way is worse");
}

int main(void)
{
	static const double base[] = { 100, 101, 99, 100, 100 };
	static const double same[] = { 100, 100, 101, 99, 100 };
	static const double worse[] = { 120, 121, 119, 120, 120 };
	static const double noisy[] = { 80, 140, 90, 135, 85 };
	static const double one[] = { 100 };
	struct stats sb, ss, sw, sn, so;
	const char *why;
	struct cmp c;

	ksft_print_header();
	ksft_set_plan(23);
	stats_of(base, ARRAY_SIZE(base), &sb);
	stats_of(same, ARRAY_SIZE(same), &ss);
	stats_of(worse, ARRAY_SIZE(worse), &sw);
	stats_of(noisy, ARRAY_SIZE(noisy), &sn);
	stats_of(one, 1, &so);

	compare_cmp_metrics(&sb, &sw, &c);
	ksft_test_result(c.tested && fabs(c.change_pct - 20) < 1e-9,
			 "+20%% change (%g)", c.change_pct);
	/* diff CI half width: t(0.975, df) * sqrt(s1^2/n1 + s2^2/n2), both s^2 = 0.5 */
	ksft_test_result(fabs(c.ci_pct - stats_t_quantile(0.975, 8) * sqrt(0.2)) < 1e-9,
			 "CI half width in %% of the base (%g)", c.ci_pct);
	ksft_test_result(c.significant, "a clear change is significant");
	ksft_test_result(!strcmp(compare_cmp_direction(&c), "increase") &&
			 !strcmp(compare_cmp_judgement(&c, BETTER_LOWER), "regression") &&
			 !strcmp(compare_cmp_judgement(&c, BETTER_HIGHER), "improvement") &&
			 !strcmp(compare_cmp_judgement(&c, BETTER_NONE), "increase"),
			 "words: increase, regression (lower is better), improvement (higher)");
	ksft_test_result(compare_cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_BAD,
			 "bisect: 20%% worse, threshold 5%%: bad");
	ksft_test_result(compare_cmp_bisect(&c, BETTER_HIGHER, 5, &why) == BISECT_GOOD,
			 "bisect: 20%% better (higher is better): good");
	ksft_test_result(compare_cmp_bisect(&c, BETTER_LOWER, 30, &why) == BISECT_GOOD,
			 "bisect: 20%% worse, threshold 30%%: good");
	ksft_test_result(compare_cmp_bisect(&c, BETTER_LOWER, 20, &why) == BISECT_UNDECIDED,
			 "bisect: threshold inside the CI: undecided");
	ksft_test_result(compare_cmp_bisect(&c, BETTER_NONE, 5, &why) == BISECT_UNDECIDED,
			 "bisect: no better direction: undecided");

	compare_cmp_metrics(&sb, &ss, &c);
	ksft_test_result(!c.significant && compare_cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_GOOD,
			 "bisect: equal: good, not significant");
	compare_cmp_metrics(&sb, &sn, &c);
	ksft_test_result(compare_cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
			 "bisect: too noisy: undecided (%+.1f%% +-%.1f%%)",
			 c.change_pct, c.ci_pct);
	compare_cmp_metrics(&sb, &so, &c);
	ksft_test_result(!c.tested && compare_cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
			 "n < 2: no test, undecided");
	compare_cmp_metrics(&sb, &sb, &c);
	ksft_test_result(c.tested && c.change_pct == 0 &&
			 !strcmp(compare_cmp_direction(&c), "no change"),
			 "the same result: no change");
	test_zero_base(&sb);
	test_extremes();
	test_abs_threshold();
	ksft_finished();
}
