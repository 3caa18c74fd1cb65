/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's phases as one table run in one order, after rtla's
 * run_tool() and its tool_ops: a phase is a struct with its name, the
 * results one judged run of it prints, when it runs and is judged (from
 * the program's context, which the options decided), and its hooks.
 * The KTAP plan is derived from the table (plan.h), never counted by
 * hand, and one driver runs every phase the same way:
 *
 *	static const struct phase *const phases[] = {
 *		&prog_quiet_phase, &prog_cyclic_phase, NULL
 *	};
 *	bench_init(&b, &spec, argc, argv);
 *	...the options checked, the context decided...
 *	phases_plan(&b, phases, &ctx);		the plan, before any result
 *	phases_run(&b, phases, &ctx);		setup, run, verdicts, teardown
 *	bench_finish(&b);
 */
#ifndef ISOLBENCH_PHASE_H
#define ISOLBENCH_PHASE_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

/*
 * What several phases use in turn and only they (timer_softirq's counted
 * windows: quiet, control, tick), released by the driver after the last
 * of them that runs (on every path), before any later phase runs. The
 * phases take it as they need it; @release must do nothing when none
 * did.
 */
struct phase_shared {
	const char *name;
	void (*release)(struct bench *b, void *ctx);
};

struct phase {
	const char *name;		/* its name in the plan: "quiet", "cyclic" */
	unsigned int nverdicts;		/* results one judged run of it prints */
	/*
	 * Their names, the same on every run of the same command on this
	 * machine (the farms key a test on its name): an interrupted run
	 * skips the phase under them, and a complete run that printed
	 * others is a bug of the program (Bail out). @checks when they are
	 * fixed; else @check_name gives result @i of judged run @run (a
	 * pair of CPUs, a method the kernel decided).
	 */
	const char *const *checks;
	void (*check_name)(const void *ctx, unsigned int run, unsigned int i,
			   char *buf, size_t len);
	/*
	 * Its judged runs this time: 0 when the options leave its
	 * verdicts out, 1, or one per pair of CPUs. NULL: 1.
	 */
	unsigned int (*judged)(const void *ctx);
	/*
	 * Whether it runs this time. NULL: when it is judged; a phase may
	 * also run unjudged, as the baseline of a later one.
	 */
	bool (*runs)(const void *ctx);
	/* Every hook but run may be NULL. */
	void (*setup)(struct bench *b, void *ctx);
	void (*run)(struct bench *b, void *ctx);
	/* When judged: nverdicts x judged results, on every path. */
	void (*verdicts)(struct bench *b, void *ctx);
	/*
	 * Last, also when an interruption skipped the phase: releases what
	 * it holds of its own.
	 */
	void (*teardown)(struct bench *b, void *ctx);
	const struct phase_shared *shares;	/* NULL: nothing */
};

/*
 * The plan of the NULL-terminated @table in the context @ctx: each
 * phase's results times its judged runs (bench_phases).
 */
void phases_plan(struct bench *b, const struct phase *const *table, const void *ctx);

/*
 * Each phase of @table that runs, in the table's order: setup, run,
 * verdicts when judged, teardown, and the release of what it shares when
 * no later phase that runs shares it. A phase that would start after an
 * interruption prints its results as SKIPs under their names instead;
 * one that prints other results than it declared is a bug of the
 * program (Bail out, naming the phase).
 */
void phases_run(struct bench *b, const struct phase *const *table, void *ctx);
/* The declared name of result @i of judged run @run of @p, in @buf. */
const char *phase_check_name(const struct phase *p, const void *ctx, unsigned int run,
			     unsigned int i, char *buf, size_t len);
/* Result @i of judged run @run of @p, under its declared name. */
void phase_verdict(struct bench *b, const struct phase *p, const void *ctx, unsigned int run,
		   unsigned int i, int code, const char *reason);
/* Every result of @p, each judged run's, as a SKIP for @reason. */
void phase_skip(struct bench *b, const struct phase *p, const void *ctx, const char *reason);

#endif
