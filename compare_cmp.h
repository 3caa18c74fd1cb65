/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One metric of two results side by side: the change of the mean in
 * percent of the base with its 95% confidence interval (Welch), whether
 * it is significant, the words for it, and the bisect verdict against a
 * threshold. Used by compare and tested on its own
 * (tests/unit/compare_cmp.c).
 */
#ifndef ISOLBENCH_COMPARE_CMP_H
#define ISOLBENCH_COMPARE_CMP_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/result/result.h"
#include "lib/base/stats.h"

#define CMP_ALPHA	0.05	/* significant when Welch's p < this */

struct cmp {
	bool welch;		/* both sides n >= 2: the test and w are there */
	bool tested;		/* and a base mean that gives percentages */
	bool from_zero;		/* the test, on a base of 0 in every sample: a change in the unit */
	const char *why_not;	/* when not tested */
	struct welch w;
	double change_pct;	/* 100 * (mean_new - mean_base) / |mean_base| */
	double ci_pct;		/* half width of its 95% CI, in % of the base */
	bool significant;	/* p < CMP_ALPHA: the CI excludes 0 */
};

/* Exit codes of a bisect step, as `git bisect run` reads them. */
enum bisect_verdict {
	BISECT_GOOD = 0,
	BISECT_BAD = 1,
	BISECT_UNDECIDED = 125,
	BISECT_ERROR = 255,	/* usage or setup error: abort the bisect */
};

void compare_cmp_metrics(const struct stats *base, const struct stats *new_,
			 struct cmp *c);
/*
 * @pct as text in at most 10 characters ("+12.3%", "+1.2e+07%",
 * "-1.2e+300%"), with its sign when @sign; returns @buf.
 */
const char *compare_cmp_pct(char *buf, size_t len, double pct, bool sign);

/*
 * @v printed by @fmt (one printf conversion taking a precision, "%.*f"
 * or "%+.*e", then @suffix) in at most @width characters: the first
 * precision from @prec down to 0 that fits (an exponent shortened,
 * "1.2e5", where that makes it fit), else the shortest exponent form;
 * @buf holds the shortest try when nothing fits. For table columns of
 * a fixed width whatever the value.
 */
const char *compare_cmp_fit(char *buf, size_t len, size_t width, const char *fmt, int prec,
			    double v, const char *suffix);

/* Percentages of the base at or beyond this are "base mean too small". */
#define CMP_MAX_PCT	1e99
/* "increase"/"decrease"/"no change" */
const char *compare_cmp_direction(const struct cmp *c);
/* "regression"/"improvement" for better=lower|higher, else the direction. */
const char *compare_cmp_judgement(const struct cmp *c, enum better better);
/*
 * Good when the whole CI of "how much worse" is within @threshold_pct,
 * bad when the whole CI is beyond it, undecided otherwise (too noisy,
 * untested). @why gets a short reason.
 */
enum bisect_verdict compare_cmp_bisect(const struct cmp *c, enum better better,
				       double threshold_pct, const char **why);
/*
 * The same with the threshold in the metric's own unit, on the
 * difference of the means: for counts whose base is near 0, where a
 * percentage of the base is all noise (0.01 TIMER softirqs per tick).
 */
enum bisect_verdict compare_cmp_bisect_abs(const struct cmp *c, enum better better,
					   double threshold, const char **why);

#endif
