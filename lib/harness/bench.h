/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness a program is written against: parse the options, choose
 * and check the CPUs, start and stop the housekeeping load, collect
 * metrics and verdicts, and report them once as KTAP, the paste-ready
 * summary lines and the JSON result file (docs/result-schema.md).
 *
 *	bench_init(&b, &spec, argc, argv);	parse, check, KTAP header
 *	bench_phases(&b, phases);		the plan, from the phases (plan.h)
 *	...measure, metric_add()...
 *	bench_verdict(&b, KSFT_PASS, NULL, "what was checked");
 *	bench_finish(&b);			summary, JSON, exit code
 */
#ifndef ISOLBENCH_BENCH_H
#define ISOLBENCH_BENCH_H

#include <stdio.h>

#include "../base/cleanup.h"
#include "../base/clock.h"
#include "../kernel/counters.h"
#include "../base/cpu.h"
#include "../base/ktap.h"
#include "../load/load.h"
#include "opts.h"
#include "../base/outfile.h"
#include "plan.h"
#include "../result/result_write.h"
#include "../base/stats.h"

#define BENCH_MAX_PAIRS		64
#define BENCH_MAX_METRICS	128
#define BENCH_MAX_VERDICTS	32
#define BENCH_MAX_FAMILIES	4
#define BENCH_MAX_EXTRAS	METRIC_MAX_EXTRAS

struct bench {
	const struct prog_spec *spec;
	/*
	 * The test of run.sh's table this run is (default: the program's
	 * name): what compare, run.sh --bisect and KCIDB pair results by.
	 */
	const char *test;
	struct common_opts opt;
	struct cpu_sets sets;
	/*
	 * The CPUs, decided once by bench_init (prog_spec.cpu_plan):
	 * opt.cpus the targets, opt.housekeeping, and these.
	 */
	int target;			/* first CPU of opt.cpus */
	const char *target_reason;	/* why these CPUs */
	bool narrowed;			/* prog_spec.one_cpu took the first of --cpu */
	cpu_mask_t watched;		/* observed, not run on */
	struct bench_pair { int src, dst; } pairs[BENCH_MAX_PAIRS];
	int npairs;			/* a storm's CPUs, source to destination */
	cpu_mask_t locked;		/* held against other runs (lib/harness/cpulock.h) */
	struct load load;
	bool load_running;
	struct load_report load_report;
	struct outfile out;		/* the -o file, created early, renamed at the end */
	uint64_t start_ns;
	int argc;
	char **argv;
	struct metric metrics[BENCH_MAX_METRICS];
	int nmetrics;
	struct verdict verdicts[BENCH_MAX_VERDICTS];
	int nverdicts;
	struct count_family families[BENCH_MAX_FAMILIES];	/* complete ones */
	int nfamilies;
	char notes[24][320];		/* context remarks stored in the JSON */
	int nnotes;
	struct { const char *key, *value; } params[8];	/* run.params */
	int nparams;
	struct plan plan;		/* declared results, checked at the end */
};

/*
 * Parse the options, read the CPU sets, decide the program's CPUs (the
 * common rule, then its spec's cpu_plan; exit 1 on bad input), open the
 * output file, print the KTAP header and the CPUs, lock them (another
 * isolbench run on one of them: SKIP naming it, or wait with --wait),
 * calibrate the clock. opt.cpus holds the targets afterwards.
 */
void bench_init(struct bench *b, const struct prog_spec *spec,
		int argc, char **argv);

/*
 * Print the plan derived from the { NULL }-terminated table of the
 * program's phases (lib/harness/plan.h). bench_finish checks that as many
 * results were printed: a difference is a bug of the program, reported
 * as one (Bail out, exit 1), not as a result of the kernel.
 */
void bench_phases(struct bench *b, const struct plan_phase *phases);
/* A plan of @n results counted by the program; prefer bench_phases. */
void bench_plan(struct bench *b, unsigned int n);


/* A bad combination of options found after parsing: exit 1. */
noreturn void bench_usage_error(struct bench *b, const char *fmt, ...)
	__ktap_printf(2, 3);

/* Start/stop the housekeeping load on opt.housekeeping; skip if empty. */
void bench_load_start(struct bench *b);
void bench_load_stop(struct bench *b);

struct metric *bench_metric(struct bench *b, const char *name,
			    const char *unit, enum better better,
			    const char *aggregate);
/*
 * The family of counts @name (metric_family) is complete in this result:
 * every source that counted anything has its metric, so a member absent
 * from the result counted 0 in each of its @samples samples. Its members
 * are named as the glob @pattern says, in @unit. Declare it only when no
 * source was left out (a table full, events lost).
 */
void bench_count_family(struct bench *b, const char *name, const char *pattern,
			const char *unit, size_t samples);
/* A context remark for the JSON and a "# " line. */
void bench_note(struct bench *b, const char *fmt, ...) __ktap_printf(2, 3);

/*
 * A choice of the program that changes what is measured ("entry":
 * "libc"), stored in the JSON's run.params; @key and @value must outlive
 * the run (string literals, option tables).
 */
void bench_param(struct bench *b, const char *key, const char *value);

/* Record and print one KTAP result. */
void bench_verdict(struct bench *b, int code, const char *reason,
		   const char *fmt, ...) __ktap_printf(4, 5);

/*
 * End of the program: print the summaries, write the JSON, stop the
 * load, exit with the kselftest code. A whole-program skip: exit 4.
 */
noreturn void bench_finish(struct bench *b);
noreturn void bench_skip(struct bench *b, const char *fmt, ...)
	__ktap_printf(2, 3);

/* Whether to show progress: stderr is a terminal and not --quiet. */
bool bench_progress_wanted(const struct bench *b);
/*
 * The progress line, when wanted: "\rNAME: run DONE/RUNS done" after each
 * run, and the end of the line once the runs are over.
 */
void bench_progress_run(const struct bench *b, uint64_t done, uint64_t runs);
void bench_progress_end(const struct bench *b);

#endif
