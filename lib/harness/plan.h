/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's KTAP plan, derived from its declared phases instead of
 * counted by hand: each phase says how many results one run of it
 * prints and how often it runs this time (0: not at all, 1, or once per
 * pair of CPUs). The plan is the sum; at the end the harness compares it
 * with the results printed, and a difference is a bug of the program.
 *
 *	const struct plan_phase phases[] = {
 *		{ "quiet", 5, r->quiet },	quiet_verdicts()
 *		{ "cyclic", 3, r->cyclic },	cyclic_verdicts()
 *		{ NULL }
 *	};
 *	bench_phases(b, phases);
 */
#ifndef ISOLBENCH_PLAN_H
#define ISOLBENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#define PLAN_MAX_PHASES	8

struct plan_phase {
	const char *name;	/* what the phase checks: "quiet", "compaction" */
	unsigned int verdicts;	/* KTAP results one run of it prints */
	unsigned int times;	/* runs this time: 0 (off), 1, one per pair */
};

struct plan {
	bool declared;		/* a plan was printed */
	unsigned int total;	/* the plan: sum of verdicts * times */
	int nphases;		/* 0: a bare count (bench_plan) */
	struct plan_phase phases[PLAN_MAX_PHASES];
};

/*
 * Copy the { NULL }-terminated @table into @p and return the plan.
 * -1 when the table has more than PLAN_MAX_PHASES entries.
 */
long plan_declare(struct plan *p, const struct plan_phase *table);

/* A plan of @n results without phases. */
void plan_count(struct plan *p, unsigned int n);

/*
 * Whether @printed results match the plan: 0, or -1 with the mismatch
 * and the phases that make up the plan described in @buf.
 */
int plan_check(const struct plan *p, unsigned int printed, char *buf,
	       size_t len);

#endif
