/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One metric of two results side by side: the change of the mean in
 * percent of the base with its 95% confidence interval (Welch), whether
 * it is significant, the words for it, and the bisect verdict against a
 * threshold. Used by compare and tested on its own (tests/unit/cmp.c).
 */
#ifndef ISOLBENCH_CMP_H
#define ISOLBENCH_CMP_H

#include <stdbool.h>

#include "result.h"
#include "stats.h"

#define CMP_ALPHA	0.05	/* significant when Welch's p < this */

struct cmp {
	bool tested;		/* both sides n >= 2 and a non-zero base mean */
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

void cmp_metrics(const struct stats *base, const struct stats *new_,
		 struct cmp *c);
/* "increase"/"decrease"/"no change" */
const char *cmp_direction(const struct cmp *c);
/* "regression"/"improvement" for better=lower|higher, else the direction. */
const char *cmp_judgement(const struct cmp *c, enum better better);
/*
 * Good when the whole CI of "how much worse" is within @threshold_pct,
 * bad when the whole CI is beyond it, undecided otherwise (too noisy,
 * untested). @why gets a short reason.
 */
enum bisect_verdict cmp_bisect(const struct cmp *c, enum better better,
			       double threshold_pct, const char **why);

#endif
