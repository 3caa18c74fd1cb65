// SPDX-License-Identifier: GPL-2.0
/* compare --bisect: one result against a baseline, as git bisect run's exit code. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_common.h"
#include "lib/base/util.h"

/* The metric to judge: --metric, else the first with a better direction. */
static const struct result_metric *bisect_metric(const struct compare *c,
						 const struct result *base)
{
	if (c->o.metric) {
		const struct result_metric *m = result_metric_find(base, c->o.metric);

		if (!m)
			return NULL;
		if (m->better == BETTER_NONE)
			compare_die(c, "%s: metric %s has no better direction to bisect on",
				    base->path, m->name);
		return m;
	}
	for (size_t i = 0; i < base->nmetrics; i++)
		if (base->metrics[i].better != BETTER_NONE)
			return &base->metrics[i];
	return NULL;
}

/* The worse of two verdicts: bad over undecided over good. */
static int verdict_worse(int a, int b)
{
	if (a == BISECT_BAD || b == BISECT_BAD)
		return BISECT_BAD;
	if (a == BISECT_UNDECIDED || b == BISECT_UNDECIDED)
		return BISECT_UNDECIDED;
	return BISECT_GOOD;
}

/*
 * "bisect: PROG METRIC: baseline B UNIT, now N UNIT, CHANGE +-CI
 * (regression): bad", the change in % of the base, or in the metric's
 * unit with --threshold-abs.
 */
static void bisect_line(const struct compare *c, const char *prog,
			const struct result_metric *bm, const struct result_metric *nm,
			const struct cmp *x, enum bisect_verdict v)
{
	char bv[32], nv[32], chg[32], ci[32];

	if (c->o.abs_threshold ? !x->welch : !x->tested) {
		printf("bisect: %s %s: undecided\n", prog, bm->name);
		return;
	}
	if (c->o.abs_threshold) {
		compare_num(chg + 1, sizeof(chg) - 1, fabs(x->w.diff));
		chg[0] = x->w.diff < 0 ? '-' : '+';
		snprintf(chg + strlen(chg), sizeof(chg) - strlen(chg), " %s", bm->unit);
		compare_num(ci, sizeof(ci), x->w.diff_hi - x->w.diff);
	} else {
		compare_cmp_pct(chg, sizeof(chg), x->change_pct, true);
		compare_cmp_pct(ci, sizeof(ci), x->ci_pct, false);
	}
	printf("bisect: %s %s: baseline %s %s, now %s %s, %s +-%s (%s): %s\n",
	       prog, bm->name, compare_num(bv, sizeof(bv), bm->st.mean), bm->unit,
	       compare_num(nv, sizeof(nv), nm->st.mean), nm->unit, chg, ci,
	       compare_cmp_judgement(x, bm->better),
	       v == BISECT_GOOD ? "good" : v == BISECT_BAD ? "bad" : "undecided");
}

/*
 * Judge the new result @n against its baseline: its verdict, or -1 when
 * --metric names another test's metric (not judged here).
 */
static int bisect_result(struct compare *c, const struct result *n)
{
	const struct side *bs = &c->sides[0];
	const struct result *b = compare_side_find(bs, n->test);
	const struct result_metric *bm, *nm;
	enum bisect_verdict v;
	const char *why;
	char part[192];
	struct cmp x;

	if (!b) {
		if (c->o.metric)
			return -1;	/* another test's metric */
		compare_die(c, "baseline %s has no result of %s", bs->path, n->test);
	}
	if (c->o.metric && !result_metric_find(b, c->o.metric))
		return -1;	/* another test's metric */
	/* a run cut short or skipped, on either side, measured only a part */
	why = compare_incomplete(b, n, part, sizeof(part));
	bm = bisect_metric(c, b);
	if (!bm && why) {
		printf("bisect: %s: %s: undecided\n", n->test, why);
		return BISECT_UNDECIDED;
	}
	if (!bm) {
		if (c->o.metric)
			return -1;
		compare_die(c, "baseline %s: %s has no metric with better lower|higher",
			    b->path, b->test);
	}
	nm = result_metric_find(n, bm->name);
	if (why || !nm || !nm->n) {
		printf("bisect: %s %s: %s: undecided\n", n->test, bm->name,
		       why ? why : "not measured");
		if (nm && nm->n) {
			compare_cmp_metrics(&bm->st, &nm->st, &x);
			compare_kcidb_record(c, n, nm, &x, BISECT_UNDECIDED, why);
		}
		return BISECT_UNDECIDED;
	}
	compare_cmp_metrics(&bm->st, &nm->st, &x);
	v = compare_judge(c, &x, bm->better, &why);
	if (compare_emulated_timing(c, b, n, nm)) {
		v = BISECT_UNDECIDED;
		why = COMPARE_EMULATED_WHY;
	}
	compare_kcidb_record(c, n, nm, &x, v, why);
	bisect_line(c, n->test, bm, nm, &x, v);
	printf("bisect:   %s\n", why);
	return v;
}

int compare_bisect(struct compare *c)
{
	const struct side *bs = &c->sides[0], *ns = &c->sides[1];
	int verdict = BISECT_GOOD, judged = 0;

	if (c->o.abs_threshold)
		printf("bisect: %s against baseline %s, threshold +%g in the metric's unit (Welch's t-test, 95%% CI)\n",
		       ns->path, bs->path, c->o.threshold_abs);
	else
		printf("bisect: %s against baseline %s, threshold %g%% (Welch's t-test, 95%% CI)\n",
		       ns->path, bs->path, c->o.threshold_pct);
	for (size_t i = 0; i < ns->nres; i++) {
		int v = bisect_result(c, &ns->res[i]);

		if (v < 0)
			continue;
		judged++;
		verdict = verdict_worse(verdict, v);
	}
	/* a test the baseline has and the new side lacks: not judged */
	for (size_t i = 0; i < bs->nres; i++) {
		const struct result *b = &bs->res[i];

		if (compare_side_find(ns, b->test) ||
		    (c->o.metric && !result_metric_find(b, c->o.metric)))
			continue;
		printf("bisect: %s: no result in %s: undecided\n", b->test,
		       ns->path);
		judged++;
		verdict = verdict_worse(verdict, BISECT_UNDECIDED);
	}
	if (!judged)
		compare_die(c, "metric %s is in no result of the baseline %s", c->o.metric,
			    bs->path);
	printf("bisect: verdict %s (exit %d)\n", verdict == BISECT_GOOD ? "good" :
	       verdict == BISECT_BAD ? "bad" : "undecided, skip this commit", verdict);
	return verdict;
}
