// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "phase.h"

static unsigned int phase_judged(const struct phase *p, const void *ctx)
{
	return p->judged ? p->judged(ctx) : 1;
}

static bool phase_runs(const struct phase *p, const void *ctx)
{
	return p->runs ? p->runs(ctx) : phase_judged(p, ctx) > 0;
}

const char *phase_check_name(const struct phase *p, const void *ctx, unsigned int run,
				    unsigned int i, char *buf, size_t len)
{
	if (p->check_name)
		p->check_name(ctx, run, i, buf, len);
	else
		snprintf(buf, len, "%s", p->checks[i]);
	return buf;
}

/* A phase printed other than it declared: a bug of the program. */
static void phase_bug(struct bench *b, const struct phase *p, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "%s: harness bug: phase %s %s\n", b->spec->name, p->name, what);
	ksft_exit_fail_msg("harness bug: phase %s %s\n", p->name, what);
}

void phases_plan(struct bench *b, const struct phase *const *table, const void *ctx)
{
	/* one entry more than the plan holds, so that bench_phases refuses it */
	struct plan_phase plan[PLAN_MAX_PHASES + 2] = { 0 };

	for (int i = 0; table[i] && i <= PLAN_MAX_PHASES; i++) {
		if (table[i]->nverdicts && !table[i]->checks && !table[i]->check_name)
			phase_bug(b, table[i], "declares results without their names");
		plan[i] = (struct plan_phase){ table[i]->name, table[i]->nverdicts,
					       phase_judged(table[i], ctx) };
	}
	bench_phases(b, plan);
}

/*
 * The results printed since result @first: as many as declared (when
 * the phase ran to its end), and each under its declared name.
 */
static void phase_printed_check(struct bench *b, const struct phase *p, const void *ctx,
				int first, unsigned int judged)
{
	unsigned int printed = b->nverdicts - first, declared = p->nverdicts * judged;
	char want[sizeof(b->verdicts[0].name)], what[512];

	if (!bench_stop && printed != declared) {
		snprintf(what, sizeof(what), "printed %u results, it declares %u x %u",
			 printed, p->nverdicts, judged);
		phase_bug(b, p, what);
	}
	for (unsigned int j = 0; j < printed && j < declared; j++) {
		const char *got = b->verdicts[first + j].name;

		phase_check_name(p, ctx, j / p->nverdicts, j % p->nverdicts, want, sizeof(want));
		if (strcmp(got, want)) {
			snprintf(what, sizeof(what), "printed \"%s\" where it declares \"%s\"",
				 got, want);
			phase_bug(b, p, what);
		}
	}
}

void phase_verdict(struct bench *b, const struct phase *p, const void *ctx, unsigned int run,
		   unsigned int i, int code, const char *reason)
{
	char name[sizeof(b->verdicts[0].name)];

	bench_verdict(b, code, reason, "%s", phase_check_name(p, ctx, run, i, name, sizeof(name)));
}

void phase_skip(struct bench *b, const struct phase *p, const void *ctx, const char *reason)
{
	unsigned int judged = phase_judged(p, ctx);

	for (unsigned int run = 0; run < judged; run++)
		for (unsigned int i = 0; i < p->nverdicts; i++)
			phase_verdict(b, p, ctx, run, i, KSFT_SKIP, reason);
}

/* Whether a phase after @table[@i] that runs shares @s. */
static bool shared_later(const struct phase *const *table, int i, const struct phase_shared *s,
			 const void *ctx)
{
	for (int j = i + 1; table[j]; j++)
		if (table[j]->shares == s && phase_runs(table[j], ctx))
			return true;
	return false;
}

void phases_run(struct bench *b, const struct phase *const *table, void *ctx)
{
	for (int i = 0; table[i]; i++) {
		const struct phase *p = table[i];
		unsigned int judged = phase_judged(p, ctx);
		int first = b->nverdicts;

		if (!phase_runs(p, ctx))
			continue;
		if (bench_stop) {
			phase_skip(b, p, ctx, "interrupted");
		} else {
			if (p->setup)
				p->setup(b, ctx);
			p->run(b, ctx);
			if (judged && p->verdicts)
				p->verdicts(b, ctx);
		}
		phase_printed_check(b, p, ctx, first, judged);
		if (p->teardown)
			p->teardown(b, ctx);
		if (p->shares && !shared_later(table, i, p->shares, ctx))
			p->shares->release(b, ctx);
	}
}
