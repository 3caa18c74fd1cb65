// SPDX-License-Identifier: GPL-2.0
/*
 * compare: what the tables (compare_table.c) and the bisect judgement
 * (compare_bisect.c) share.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare_common.h"
#include "lib/base/util.h"

void compare_die(const struct compare *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	exit_usage_status(c->error_exit, "compare", fmt, ap);
}

const struct result *compare_side_find(const struct side *s, const char *test)
{
	for (size_t i = 0; i < s->nres; i++)
		if (!strcmp(s->res[i].test, test))
			return &s->res[i];
	return NULL;
}

const char *compare_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1e9 || (a > 0 && a < 1e-3))
		compare_cmp_fit(buf, len, NUM_COLS, "%.*e", 3, v, "");
	else
		compare_cmp_fit(buf, len, NUM_COLS, "%.*f",
			a >= 1e5 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4, v, "");
	return buf;
}

/*
 * A timing metric of a result measured under emulation (TCG) is left
 * undecided unless --emulated-timings: emulation stretches time, not
 * counts.
 */
bool compare_emulated_timing(const struct compare *c, const struct result *a,
			     const struct result *b, const struct result_metric *m)
{
	return !c->o.emulated_timings && m && m->timing &&
	       ((a && a->sys.emulated) || (b && b->sys.emulated));
}

enum bisect_verdict compare_judge(const struct compare *c, const struct cmp *x,
				  enum better better, const char **why)
{
	if (c->o.abs_threshold)
		return compare_cmp_bisect_abs(x, better, c->o.threshold_abs, why);
	return compare_cmp_bisect(x, better, c->o.threshold_pct, why);
}

void compare_kcidb_record(struct compare *c, const struct result *res,
			  const struct result_metric *m, const struct cmp *x,
			  enum bisect_verdict v, const char *why)
{
	struct kcidb_cmp *kc;

	if (c->nkc == ARRAY_SIZE(c->kc))
		return;
	kc = &c->kc[c->nkc++];
	*kc = (struct kcidb_cmp){ .res = res, .metric = m, .base_label = c->sides[0].label,
				  .c = *x, .verdict = v };
	snprintf(kc->why, sizeof(kc->why), "%s", why);
	kc->threshold = c->o.abs_threshold ? c->o.threshold_abs : c->o.threshold_pct;
	kc->threshold_unit = c->o.abs_threshold ? m->unit : NULL;
}

const char *compare_incomplete(const struct result *base, const struct result *res,
			       char *buf, size_t len)
{
	char part[160];

	if (result_incomplete(base, part, sizeof(part))) {
		snprintf(buf, len, "the baseline's %s", part);
		return buf;
	}
	return result_incomplete(res, buf, len);
}

/*
 * @lead, then @text wrapped at spaces, continuation lines indented by
 * @indent (the width of @lead when negative), at most @lines lines.
 */
void compare_wrapped(const char *lead, const char *text, int lines,
		     int indent)
{
	const char *p = text;

	if (indent < 0)
		indent = strlen(lead);
	for (int l = 0; *p; l++) {
		int avail = WIDTH - (l ? indent : (int)strlen(lead));
		int n = strlen(p);

		if (l == lines) {
			printf("%*s...\n", indent, "");
			return;
		}
		if (n > avail) {
			n = avail;
			while (n > 0 && p[n] != ' ')
				n--;
			if (!n)
				n = avail;
		}
		if (l)
			printf("%*s%.*s\n", indent, "", n, p);
		else
			printf("%s%.*s\n", lead, n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* "warning: ..." wrapped to the email width */
void compare_warn(const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	compare_wrapped("warning: ", text, 4, -1);
}
