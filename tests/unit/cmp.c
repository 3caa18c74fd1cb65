// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/compare/cmp.c: change in %, its interval, words, verdicts. */
#include <math.h>
#include <string.h>

#include "lib/compare/cmp.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"

static void stats_of(const double *x, size_t n, struct stats *s)
{
	stats_compute(x, n, s);
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

	cmp_metrics(&sb, &sw, &c);
	ksft_test_result(c.tested && fabs(c.change_pct - 20) < 1e-9,
			 "+20%% change (%g)", c.change_pct);
	/* diff CI half width: t(0.975, df) * sqrt(s1^2/n1 + s2^2/n2), both s^2 = 0.5 */
	ksft_test_result(fabs(c.ci_pct - stats_t_quantile(0.975, 8) * sqrt(0.2)) < 1e-9,
			 "CI half width in %% of the base (%g)", c.ci_pct);
	ksft_test_result(c.significant, "a clear change is significant");
	ksft_test_result(!strcmp(cmp_direction(&c), "increase") &&
			 !strcmp(cmp_judgement(&c, BETTER_LOWER), "regression") &&
			 !strcmp(cmp_judgement(&c, BETTER_HIGHER), "improvement") &&
			 !strcmp(cmp_judgement(&c, BETTER_NONE), "increase"),
			 "words: increase, regression (lower is better), improvement (higher)");
	ksft_test_result(cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_BAD,
			 "bisect: 20%% worse, threshold 5%%: bad");
	ksft_test_result(cmp_bisect(&c, BETTER_HIGHER, 5, &why) == BISECT_GOOD,
			 "bisect: 20%% better (higher is better): good");
	ksft_test_result(cmp_bisect(&c, BETTER_LOWER, 30, &why) == BISECT_GOOD,
			 "bisect: 20%% worse, threshold 30%%: good");
	ksft_test_result(cmp_bisect(&c, BETTER_LOWER, 20, &why) == BISECT_UNDECIDED,
			 "bisect: threshold inside the CI: undecided");
	ksft_test_result(cmp_bisect(&c, BETTER_NONE, 5, &why) == BISECT_UNDECIDED,
			 "bisect: no better direction: undecided");

	cmp_metrics(&sb, &ss, &c);
	ksft_test_result(!c.significant && cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_GOOD,
			 "bisect: equal: good, not significant");
	cmp_metrics(&sb, &sn, &c);
	ksft_test_result(cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
			 "bisect: too noisy: undecided (%+.1f%% +-%.1f%%)",
			 c.change_pct, c.ci_pct);
	cmp_metrics(&sb, &so, &c);
	ksft_test_result(!c.tested && cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
			 "n < 2: no test, undecided");
	cmp_metrics(&sb, &sb, &c);
	ksft_test_result(c.tested && c.change_pct == 0 &&
			 !strcmp(cmp_direction(&c), "no change"),
			 "the same result: no change");
	{
		static const double zero[] = { 0, 0, 0 };
		struct stats sz;

		stats_of(zero, 3, &sz);
		cmp_metrics(&sz, &sb, &c);
		ksft_test_result(!c.tested, "a zero base mean: no percentage");
	}
	{
		static const double tiny[] = { 1e-300, 1e-300, 2e-300 };
		static const double small[] = { 1e-80, 1e-80, 2e-80 };
		static const double big[] = { 1e10, 1e10, 2e10 };
		struct stats st, sm, sg;
		char buf[24];

		stats_of(tiny, 3, &st);
		stats_of(small, 3, &sm);
		stats_of(big, 3, &sg);
		cmp_metrics(&st, &sg, &c);
		ksft_test_result(!c.tested && cmp_bisect(&c, BETTER_LOWER, 5, &why) == BISECT_UNDECIDED,
				 "a change past the largest double: no percentage, undecided");
		cmp_metrics(&st, &sm, &c);
		ksft_test_result(!c.tested && !strcmp(c.why_not, "base mean too small"),
				 "a change of 1e220%% (past CMP_MAX_PCT): base mean too small");
		cmp_metrics(&sm, &sg, &c);
		cmp_pct(buf, sizeof(buf), c.change_pct, true);
		ksft_test_result(c.tested && strlen(buf) <= 10 && strchr(buf, 'e'),
				 "a huge finite change prints short: %s", buf);
		cmp_pct(buf, sizeof(buf), -12.34, true);
		ksft_test_result(!strcmp(buf, "-12.3%"), "-12.34 prints as %s", buf);
		cmp_pct(buf, sizeof(buf), -1.234e300, true);
		ksft_test_result(strlen(buf) <= 10, "-1.234e300 prints in 10 characters: %s", buf);
	}
	{
		/* TIMER softirqs per tick: a quiet base near 0, one raise per tick */
		static const double quiet[] = { 0.008, 0.004, 0.016 };
		static const double quiet2[] = { 0.02, 0.012, 0.004 };
		static const double every[] = { 1.0, 0.99, 1.0 };
		static const double zero[] = { 0, 0, 0 };
		struct stats sq, sq2, se, sz;

		stats_of(quiet, 3, &sq);
		stats_of(quiet2, 3, &sq2);
		stats_of(every, 3, &se);
		stats_of(zero, 3, &sz);
		cmp_metrics(&sq, &sq2, &c);
		ksft_test_result(cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_GOOD,
				 "abs threshold 0.1: two quiet kernels are good (%+.4f)", c.w.diff);
		cmp_metrics(&sz, &se, &c);
		ksft_test_result(!c.tested &&
				 cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_BAD,
				 "abs threshold 0.1: a base of exactly 0 against 1 per tick is bad");
		cmp_metrics(&sq, &sq2, &c);
		ksft_test_result(cmp_bisect_abs(&c, BETTER_LOWER, 0.005, &why) == BISECT_UNDECIDED,
				 "abs threshold inside the CI: undecided");
		cmp_metrics(&se, &sz, &c);
		ksft_test_result(cmp_bisect_abs(&c, BETTER_HIGHER, 0.1, &why) == BISECT_BAD &&
				 cmp_bisect_abs(&c, BETTER_LOWER, 0.1, &why) == BISECT_GOOD,
				 "abs threshold: the direction decides which way is worse");
	}
	ksft_finished();
}
