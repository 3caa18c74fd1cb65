// SPDX-License-Identifier: GPL-2.0
/* compare: the side-by-side tables and the paste lines (compare_context.c prints what is above them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_common.h"
#include "compare_plot.h"
#include "lib/base/util.h"

/* A sample count in 4 columns: 9999, then 10k .. 999k, 1M .. 999M, 1G ... */
static const char *count_fit(char *buf, size_t len, size_t n)
{
	static const char units[] = "kMGTPE";
	int u = -1;

	while (n > 9999 && units[u + 1]) {
		n /= 1000;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%zu", n);
	else
		snprintf(buf, len, "%zu%c", n, units[u]);
	return buf;
}

static const char *better_words(enum better b)
{
	return b == BETTER_LOWER ? "lower is better" :
	       b == BETTER_HIGHER ? "higher is better" : "no better direction";
}

static void row_stats(const struct compare *c, const char *label,
		      const struct result_metric *m)
{
	char n[32], mean[32], med[32], cov[32];

	if (!m) {
		printf(c->o.markdown ? "|%s|-||||||not in this result|\n" :
		       "  %-8.8s    -   (not in this result)\n", label);
		return;
	}
	compare_num(mean, sizeof(mean), m->n ? m->st.mean : NAN);
	compare_num(med, sizeof(med), m->n ? m->st.median : NAN);
	if (m->n > 1 && m->st.mean)
		compare_cmp_fit(cov, sizeof(cov), COV_COLS, "%.*f", 1, 100 * m->st.cov, "%");
	else
		snprintf(cov, sizeof(cov), "-");
	count_fit(n, sizeof(n), m->n);
	if (c->o.markdown)
		printf("|%s|%s|%s|%s|%s|", label, n, mean, med, cov);
	else
		printf("  %-8.8s %4s %9s %9s %6s", label, n, mean, med, cov);
}

static void row_change(const struct compare *c, const struct cmp *x,
		       enum better better, bool emulated)
{
	char chg[32], ci[40], pct[32];

	if (!x) {
		printf(c->o.markdown ? "||||\n" : "\n");
		return;
	}
	if (!x->tested && !(x->from_zero && x->w.diff > 0)) {
		printf(c->o.markdown ? "||no test: %s|\n" : " no test: %s\n",
		       x->why_not);
		return;
	}
	/* whatever the values, the row fits WIDTH (tests/compare.t) */
	if (x->tested) {
		compare_cmp_fit(chg, sizeof(chg), CHANGE_COLS, "%+.*f", 1, x->change_pct, "%");
		compare_cmp_fit(pct, sizeof(pct), CHANGE_COLS - 2, "%.*f", 1, x->ci_pct, "%");
	} else {	/* from 0: the change and its interval in the metric's unit */
		compare_cmp_fit(chg, sizeof(chg), CHANGE_COLS, "%+.*f", 2, x->w.diff, "");
		compare_cmp_fit(pct, sizeof(pct), CHANGE_COLS - 2, "%.*f", 2,
				x->w.diff_hi - x->w.diff, "");
	}
	snprintf(ci, sizeof(ci), "+-%s", pct);
	if (c->o.markdown)
		printf("%s|%s|%s%s|\n", chg, ci,
		       emulated ? "emulated" : compare_cmp_judgement(x, better),
		       x->significant && !emulated ? " *" : "");
	else
		printf(" %7s %7s %s%s\n", chg, ci,
		       emulated ? "emulated" : compare_cmp_judgement(x, better),
		       x->significant && !emulated ? " *" : "");
}

/* ministat-style plot of the samples of one metric (compare_plot.c) */
static void plot_metric(const struct compare *c, const struct result_metric **ms)
{
	struct plot_series ps[MAX_SIDES];

	for (size_t i = 0; i < c->nsides; i++)
		ps[i] = (struct plot_series){
			.label = c->sides[i].label,
			.samples = ms[i] ? ms[i]->samples : NULL,
			.n = ms[i] ? ms[i]->n : 0,
			.st = ms[i] ? &ms[i]->st : NULL,
		};
	if (c->o.markdown)
		printf("```\n");
	compare_plot_ascii(stdout, ps, c->nsides, WIDTH);
	printf("%s\n", c->o.markdown ? "```" : "");
}

/*
 * The paste lines, printed after the tables: a lead (the metric's label
 * or name) that names its test too where two tests share it.
 */
struct paste {
	const char *test;
	char lead[96];
	char text[512];
};

struct pastes {
	struct paste *p;
	size_t n;
};

/* "getpid: base avg 770.0 ns, patched avg 1340.0 ns (74.0% increase, significant)" */
static void paste_line(const struct compare *c, const struct result_metric **ms,
		       const struct cmp *xs, const bool *emulated, struct paste *p)
{
	const struct result_metric *first = NULL;
	char *buf = p->text;
	size_t n = 0, len = sizeof(p->text);
	bool any = false;

	for (size_t i = 0; i < c->nsides && !first; i++)
		first = ms[i];
	snprintf(p->lead, sizeof(p->lead), "%s", first->label ? first->label : first->name);
	buf[0] = '\0';
	for (size_t i = 0; i < c->nsides && n < len; i++) {
		char v[32], pct[24];

		if (!ms[i] || !ms[i]->n) {
			n += snprintf(buf + n, len - n, "%s %s %s", any ? "," : "",
				      c->sides[i].label, ms[i] ? "no samples" : "not measured");
			any = true;
			continue;
		}
		n += snprintf(buf + n, len - n, "%s %s avg %s %s", any ? "," : "",
			      c->sides[i].label, compare_num(v, sizeof(v), ms[i]->st.mean),
			      ms[i]->unit);
		any = true;
		if (!i || n >= len)
			continue;
		if (!ms[0] || !ms[0]->n)
			n += snprintf(buf + n, len - n, " (not in %s)", c->sides[0].label);
		else if (xs[i].from_zero && xs[i].w.diff > 0)
			n += snprintf(buf + n, len - n, " (appeared from 0, %s)",
				      emulated[i] ? "emulated, undecided" :
				      xs[i].significant ? "significant" : "not significant");
		else if (!xs[i].tested)
			n += snprintf(buf + n, len - n, " (no test: %s)", xs[i].why_not);
		else
			n += snprintf(buf + n, len - n, " (%s %s, %s)",
				      compare_cmp_pct(pct, sizeof(pct), fabs(xs[i].change_pct), false),
				      compare_cmp_direction(&xs[i]),
				      emulated[i] ? "emulated, undecided" :
				      xs[i].significant ? "significant" : "not significant");
	}
}

/*
 * The base against side @j in metric @ms: the change, and a KCIDB record
 * by the bisect rule (a timing under emulation, a run cut short or
 * skipped on either side: undecided).
 */
static void metric_change(struct compare *c, const struct result **rs,
			  const struct result_metric **ms, size_t j,
			  enum better better, struct cmp *x, bool *emu)
{
	enum bisect_verdict v;
	const char *why;
	char part[192];

	compare_cmp_metrics(&ms[0]->st, &ms[j]->st, x);
	*emu = compare_emulated_timing(c, rs[0], rs[j], ms[j]);
	row_change(c, x, better, *emu);
	v = compare_judge(c, x, better, &why);
	if (*emu) {
		v = BISECT_UNDECIDED;
		why = COMPARE_EMULATED_WHY;
	}
	if (compare_incomplete(rs[0], rs[j], part, sizeof(part))) {
		v = BISECT_UNDECIDED;
		why = part;
	}
	compare_kcidb_record(c, rs[j], ms[j], x, v, why);
}

/* One metric's table (and plot), its paste line kept for the end. */
/*
 * "prog: metric (unit, lower is better)", the unit and direction on a
 * line of their own when the whole would pass the email width (a
 * Markdown heading cannot be wrapped).
 */
static void metric_heading(const struct compare *c, const char *prog,
			   const struct result_metric *m)
{
	const char *lead = c->o.markdown ? "\n#### " : "";
	const char *words = better_words(m->better);
	/* the lead's newline is not a column */
	int head = (int)(strlen(lead) - (*lead == '\n') + strlen(prog) + strlen(m->name)) + 2;
	int len = head + (int)(strlen(m->unit) + strlen(words)) + 5;
	const char *sep = len > WIDTH ? (c->o.markdown ? "\n\n" : "\n  ") : " ";
	/* a name too long for the test's line (at most 63 characters) */
	const char *psep = head > WIDTH ? (c->o.markdown ? "\n\n#### " : "\n  ") : " ";

	printf("%s%s:%s%s%s(%s, %s)\n%s", lead, prog, psep, m->name, sep, m->unit,
	       words, c->o.markdown ? "\n" : "");
}

static void compare_metric(struct compare *c, const char *prog,
			   const struct result **rs, const struct result_metric *m,
			   struct pastes *pl)
{
	struct paste *p;
	const struct result_metric *ms[MAX_SIDES];
	struct cmp xs[MAX_SIDES] = { 0 };
	bool emu[MAX_SIDES] = { 0 };

	for (size_t j = 0; j < c->nsides; j++)
		ms[j] = rs[j] ? result_metric_find(rs[j], m->name) : NULL;
	metric_heading(c, prog, m);
	if (c->o.markdown)
		printf("|kernel|n|mean|median|CoV|change|95%% CI||\n|---|--:|--:|--:|--:|--:|--:|---|\n");
	else
		printf("  %-8s %4s %9s %9s %6s %7s %7s\n",
		       "kernel", "n", "mean", "median", "CoV", "change", "95% CI");
	for (size_t j = 0; j < c->nsides; j++) {
		row_stats(c, c->sides[j].label, ms[j]);
		if (!ms[j])
			continue;
		if (!j || !ms[0])
			row_change(c, NULL, m->better, false);
		else
			metric_change(c, rs, ms, j, m->better, &xs[j], &emu[j]);
	}
	if (c->o.plot)
		plot_metric(c, ms);
	if (!c->o.markdown)
		printf("\n");
	p = realloc(pl->p, (pl->n + 1) * sizeof(*p));
	if (!p)
		compare_die(c, "out of memory");
	pl->p = p;
	p = &pl->p[pl->n++];
	p->test = prog;
	paste_line(c, ms, xs, emu, p);
}

/* What a reader of @test's table must know of each kernel's runs. */
static void test_notes(const struct compare *c, const char *test,
		       const struct result **rs)
{
	const char *li = c->o.markdown ? "- " : "";
	char base_args[1024], args[1024], why[160];

	if (rs[0])
		result_args(rs[0], base_args, sizeof(base_args));
	for (size_t i = 0; i < c->nsides; i++) {
		const char *l = c->sides[i].label;

		if (!rs[i]) {
			printf("%s%s: not in %s\n", li, test, l);
			continue;
		}
		if (rs[i]->exit_code == 4)
			printf("%s%s: skipped in %s\n", li, test, l);
		else if (result_incomplete(rs[i], why, sizeof(why)))
			compare_warn("%s: %s", l, why);
		if (rs[i]->pooled)
			printf("%s%s: %s pools %zu runs\n", li, test, l, rs[i]->pooled + 1);
		for (size_t k = 0; k < rs[i]->nmetrics; k++) {
			const struct result_metric *m = &rs[i]->metrics[k];
			char text[256];

			if (!m->filled)
				continue;
			snprintf(text, sizeof(text), "%s: %s: %s absent, counted 0 in each of its %zu samples (family %s)",
				 test, l, m->name, m->n, m->family);
			compare_wrapped(li, text, 4, 2);
		}
		result_args(rs[i], args, sizeof(args));
		if (i && rs[0] && strcmp(args, base_args))
			compare_warn("%s ran %s with '%s', %s with '%s'", l, test, args,
			     c->sides[0].label, base_args);
	}
}

static void compare_test(struct compare *c, const char *test, struct pastes *pl)
{
	const struct result *rs[MAX_SIDES];

	for (size_t i = 0; i < c->nsides; i++)
		rs[i] = compare_side_find(&c->sides[i], test);
	test_notes(c, test, rs);
	/* every metric of any side, in the order of first appearance */
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; rs[i] && k < rs[i]->nmetrics; k++) {
			const struct result_metric *m = &rs[i]->metrics[k];
			bool seen = false;

			for (size_t j = 0; j < i; j++)
				seen |= rs[j] && result_metric_find(rs[j], m->name);
			if (seen)
				continue;
			compare_metric(c, test, rs, m, pl);
		}
	}
}

/* Each kernel must share a test with the base: else nothing compares. */
static void check_common_test(const struct compare *c)
{
	for (size_t i = 1; i < c->nsides; i++) {
		const struct side *s = &c->sides[i];
		bool common = false;

		for (size_t k = 0; k < s->nres && !common; k++)
			common = compare_side_find(&c->sides[0], s->res[k].test);
		if (!common)
			compare_die(c, "%s (%s) and %s (%s) have no test in common: nothing to compare",
				    c->sides[0].path, c->sides[0].res[0].test, s->path,
			    s->res[0].test);
	}
}

/* The paste lines, a lead that two tests share named with its test. */
static void pastes_print(const struct pastes *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct paste *p = &pl->p[i];
		char line[700];
		bool shared = false;

		for (size_t j = 0; j < pl->n; j++)
			shared |= j != i && !strcmp(pl->p[j].lead, p->lead) &&
				  strcmp(pl->p[j].test, p->test);
		if (shared)
			snprintf(line, sizeof(line), "%s (%s):%s", p->lead, p->test, p->text);
		else
			snprintf(line, sizeof(line), "%s:%s", p->lead, p->text);
		/* mail wraps at 72 columns: continuation lines are indented */
		compare_wrapped("", line, 16, 2);
	}
}

void compare_all(struct compare *c)
{
	struct pastes pl = { 0 };

	check_common_test(c);
	compare_context_print(c);
	/* tests in the base's order, then those only elsewhere */
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; k < c->sides[i].nres; k++) {
			const char *test = c->sides[i].res[k].test;
			bool seen = false;

			for (size_t j = 0; j < i; j++)
				seen |= compare_side_find(&c->sides[j], test) != NULL;
			if (!seen)
				compare_test(c, test, &pl);
		}
	}
	if (c->o.markdown)
		printf("\n");
	printf("%s(* significant: Welch's t-test p < %.2f; CI of the change: 95%%)\n\n",
	       c->o.markdown ? "" : "", CMP_ALPHA);
	if (c->o.markdown)
		printf("```\n");
	pastes_print(&pl);
	if (c->o.markdown)
		printf("```\n");
	free(pl.p);
}
