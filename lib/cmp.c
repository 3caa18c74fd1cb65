// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "cmp.h"

void cmp_metrics(const struct stats *base, const struct stats *new_,
		 struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	if (base->n < 2 || new_->n < 2) {
		c->why_not = "fewer than 2 samples";
		return;
	}
	if (base->mean == 0 || !isfinite(base->mean)) {
		c->why_not = "base mean is 0";
		return;
	}
	if (stats_welch(base, new_, &c->w)) {
		c->why_not = "no test";
		return;
	}
	/*
	 * The interval of the difference scaled by the base mean, as
	 * ministat prints it; the base mean's own uncertainty is in the
	 * Welch interval of the difference, not in the denominator.
	 */
	c->tested = true;
	c->change_pct = 100 * c->w.diff / fabs(base->mean);
	c->ci_pct = 100 * (c->w.diff_hi - c->w.diff) / fabs(base->mean);
	c->significant = c->w.p < CMP_ALPHA;
}

const char *cmp_direction(const struct cmp *c)
{
	if (c->w.diff > 0)
		return "increase";
	if (c->w.diff < 0)
		return "decrease";
	return "no change";
}

const char *cmp_judgement(const struct cmp *c, enum better better)
{
	if (better == BETTER_NONE || c->w.diff == 0)
		return cmp_direction(c);
	if ((c->w.diff > 0) == (better == BETTER_LOWER))
		return "regression";
	return "improvement";
}

enum bisect_verdict cmp_bisect(const struct cmp *c, enum better better,
			       double threshold_pct, const char **why)
{
	double worse, lo, hi;

	if (!c->tested) {
		*why = c->why_not;
		return BISECT_UNDECIDED;
	}
	if (better == BETTER_NONE) {
		*why = "the metric has no better direction";
		return BISECT_UNDECIDED;
	}
	/* how much worse than the base, in %, and its 95% interval */
	worse = better == BETTER_LOWER ? c->change_pct : -c->change_pct;
	lo = worse - c->ci_pct;
	hi = worse + c->ci_pct;
	if (hi <= threshold_pct) {
		*why = "not worse than the threshold (whole 95% CI within it)";
		return BISECT_GOOD;
	}
	if (lo > threshold_pct && c->significant) {
		*why = "significantly worse beyond the threshold (whole 95% CI beyond it)";
		return BISECT_BAD;
	}
	*why = "the 95% CI straddles the threshold: too noisy to decide";
	return BISECT_UNDECIDED;
}
