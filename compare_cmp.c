// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "compare_cmp.h"

void compare_cmp_metrics(const struct stats *base, const struct stats *new_,
			 struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	if (base->n < 2 || new_->n < 2) {
		c->why_not = "fewer than 2 samples";
		return;
	}
	if (!isfinite(base->mean) || !isfinite(new_->mean) ||
	    stats_welch(base, new_, &c->w)) {
		c->why_not = "no test";
		return;
	}
	c->welch = true;
	c->significant = c->w.p < CMP_ALPHA;
	if (base->mean == 0) {
		/* what appeared (0 in every base sample) is told in its unit */
		c->from_zero = base->min == 0 && base->max == 0;
		c->why_not = "base mean is 0";
		return;
	}
	/*
	 * The interval of the difference scaled by the base mean, as
	 * ministat prints it; the base mean's own uncertainty is in the
	 * Welch interval of the difference, not in the denominator.
	 */
	c->change_pct = 100 * c->w.diff / fabs(base->mean);
	c->ci_pct = 100 * (c->w.diff_hi - c->w.diff) / fabs(base->mean);
	/* a base mean of 1e-300 against 1e10: no percentage to print */
	if (!(fabs(c->change_pct) < CMP_MAX_PCT) || !(c->ci_pct < CMP_MAX_PCT)) {
		c->why_not = "base mean too small";
		return;
	}
	c->tested = true;
}

const char *compare_cmp_pct(char *buf, size_t len, double pct, bool sign)
{
	/* one decimal up to 99999.9%, then two digits and an exponent */
	if (fabs(pct) < 1e5)
		snprintf(buf, len, sign ? "%+.1f%%" : "%.1f%%", pct);
	else
		snprintf(buf, len, sign ? "%+.2g%%" : "%.2g%%", pct);
	return buf;
}

/* "1.2e+05" -> "1.2e5", "1e-07" -> "1e-7": the exponent without padding */
static void exp_short(char *s)
{
	char *e = strchr(s, 'e');
	char *d;

	if (!e)
		return;
	d = e + 1;
	if (*d == '-')
		d++;
	else if (*d == '+')
		memmove(d, d + 1, strlen(d));
	while (d[0] == '0' && isdigit((unsigned char)d[1]))
		memmove(d, d + 1, strlen(d));
}

const char *compare_cmp_fit(char *buf, size_t len, size_t width, const char *fmt, int prec,
			    double v, const char *suffix)
{
	bool sign = strchr(fmt, '+') != NULL, exp = strchr(fmt, 'e') != NULL;

	for (int p = prec; p >= 0; p--) {
		snprintf(buf, len, fmt, p, v);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", suffix);
		if (strlen(buf) <= width)
			return buf;
		if (!exp)
			continue;
		exp_short(buf);
		if (strlen(buf) <= width)
			return buf;
	}
	for (int p = 2; p >= 0; p--) {
		snprintf(buf, len, sign ? "%+.*e" : "%.*e", p, v);
		exp_short(buf);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", suffix);
		if (strlen(buf) <= width)
			break;
	}
	return buf;
}

const char *compare_cmp_direction(const struct cmp *c)
{
	if (c->w.diff > 0)
		return "increase";
	if (c->w.diff < 0)
		return "decrease";
	return "no change";
}

const char *compare_cmp_judgement(const struct cmp *c, enum better better)
{
	if (better == BETTER_NONE || c->w.diff == 0)
		return compare_cmp_direction(c);
	if ((c->w.diff > 0) == (better == BETTER_LOWER))
		return "regression";
	return "improvement";
}

/* The verdict on how much worse, its 95% interval [@lo, @hi]. */
static enum bisect_verdict worse_judge(const struct cmp *c, double lo, double hi,
				       double threshold, const char **why)
{
	if (hi <= threshold) {
		*why = "not worse than the threshold (whole 95% CI within it)";
		return BISECT_GOOD;
	}
	if (lo > threshold && c->significant) {
		*why = "significantly worse beyond the threshold (whole 95% CI beyond it)";
		return BISECT_BAD;
	}
	*why = "the 95% CI straddles the threshold: too noisy to decide";
	return BISECT_UNDECIDED;
}

enum bisect_verdict compare_cmp_bisect(const struct cmp *c, enum better better,
				       double threshold_pct, const char **why)
{
	double worse;

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
	return worse_judge(c, worse - c->ci_pct, worse + c->ci_pct, threshold_pct, why);
}

enum bisect_verdict compare_cmp_bisect_abs(const struct cmp *c, enum better better,
					   double threshold, const char **why)
{
	if (!c->welch) {
		*why = c->why_not;
		return BISECT_UNDECIDED;
	}
	if (better == BETTER_NONE) {
		*why = "the metric has no better direction";
		return BISECT_UNDECIDED;
	}
	/* how much worse than the base in the metric's unit: the difference */
	if (better == BETTER_LOWER)
		return worse_judge(c, c->w.diff_lo, c->w.diff_hi, threshold, why);
	return worse_judge(c, -c->w.diff_hi, -c->w.diff_lo, threshold, why);
}
