/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The isolbench result format (schema "isolbench-result", schema_version
 * 1, docs/result-schema.md): its constants, shared with the writer
 * (lib/result/result_write.h), and the reader: the system context, the run,
 * the metrics with their raw samples (statistics recomputed from them),
 * the verdicts and the kernel's build record. Strict about what compare
 * relies on, lenient about the rest. All strings point into the parsed
 * document.
 */
#ifndef ISOLBENCH_RESULT_H
#define ISOLBENCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/json_read.h"
#include "../base/stats.h"

#define RESULT_SCHEMA		"isolbench-result"
#define RESULT_VERSION		1
#define RESULT_MAX_BYTES	(64u << 20)	/* a result file is far smaller */
#define RESULT_MAX_METRICS	1024		/* a program writes at most 128 */
#define RESULT_MAX_ARGS		256		/* arguments compared and rerun */

/* Which way a metric improves: the "better" member. */
enum better { BETTER_LOWER, BETTER_HIGHER, BETTER_NONE };

/*
 * The "kind" member: a timing (what a slower or emulated machine
 * stretches) or a count (events in a fixed window of the machine's own
 * time); unset: readers derive it from the unit and name.
 */
enum metric_kind { KIND_DERIVED, KIND_TIMING, KIND_COUNT };

/* "lower", "higher", "none" */
const char *better_str(enum better b);

struct result_metric {
	const char *name, *unit, *label, *aggregate;
	const char *family;	/* a family of counts (docs/result-schema.md), or NULL */
	bool filled;		/* absent from its result, counted 0 (result_fill_count) */
	enum better better;
	bool timing;		/* a time or a rate per time, not a count */
	double *samples;
	size_t n;
	size_t dropped;		/* null (non-finite) samples left out */
	struct stats st;	/* valid when n >= 1 */
};

/* "families": a family of counts complete in the result, its samples each */
struct result_family {
	const char *name;
	const char *pattern, *unit;	/* its members' names (a glob) and unit, or NULL */
	size_t samples;
};

struct result_verdict {
	const char *name, *result, *reason;	/* result: pass, fail, skip */
};

/* A file a kernel was built with (a patch, a config fragment). */
struct result_build_file {
	const char *file, *sha256;
};

/*
 * "kernel_build": how the kernel was built (vm/kbuild.sh's record), when
 * the result carries it; a string member missing is "".
 */
struct result_kernel_build {
	bool present;
	const char *source, *source_id, *key, *release, *compiler, *config_sha256;
	struct result_build_file *patches, *config_fragments;
	size_t npatches, nconfig_fragments;
};

struct result_system {
	const char *kernel_release, *kernel_version, *machine, *hostname;
	const char *cmdline, *cpu_model, *online, *isolated, *nohz_full;
	const char *hypervisor;
	bool emulated, virtualized;
};

struct result {
	const char *path;	/* as given */
	const char *program, *isolbench_version;
	const char *test;	/* run.sh's test; the program's name in older files */
	struct result_system sys;
	const char *finished, *cpus, *cpus_isolation;
	const struct jr_value *argv;	/* the command line, NULL when missing */
	double duration_s;
	int exit_code;		/* -1 when not recorded */
	bool interrupted;	/* a signal ended the run early */
	int signal;		/* ...which one, 0 when not recorded */
	size_t pooled;		/* results pooled into this one (result_pool) */
	struct result_metric *metrics;
	size_t nmetrics;
	struct result_verdict *verdicts;
	size_t nverdicts;
	struct result_family *families;
	size_t nfamilies;
	struct result_kernel_build build;
	struct jr_value *doc;
};

/* Parse a result held in memory. 0, or -1 with the reason in @err. */
int result_parse(const char *buf, size_t len, struct result *r,
		 char *err, size_t errlen);
/* Read and parse @path. 0, or -1 with the reason in @err. */
int result_load(const char *path, struct result *r, char *err, size_t errlen);
void result_free(struct result *r);

const struct result_metric *result_metric_find(const struct result *r,
					       const char *name);

/*
 * The run's arguments as one line, without the program (argv[0]) and
 * the result file (-o FILE, --output FILE, -oFILE, --output=FILE):
 * what must match for two results to be one experiment.
 */
void result_args(const struct result *r, char *buf, size_t len);
/* -o FILE, --output FILE: 2; -oFILE, --output=FILE: 1; anything else: 0 */
int result_output_words(const char *arg);
/*
 * The same arguments, each into @args (at most @max, pointing into the
 * document; a non-string one as "?"): how many.
 */
size_t result_arg_list(const struct result *r, const char **args, size_t max);

/*
 * Why @r cannot be judged as a whole run (interrupted by a signal,
 * skipped, ended by a signal), or NULL when it can.
 */
const char *result_incomplete(const struct result *r, char *buf, size_t len);

/*
 * Metric @like of another result of the same test, absent from @r: when
 * @r declares @like's family of counts complete, add it to @r as counted
 * 0 in each of the family's samples (docs/result-schema.md). 1 added, 0
 * not, -1 out of memory. @like must outlive @r.
 */
int result_fill_count(struct result *r, const struct result_metric *like);
/*
 * The same for a metric @name no result has: when @name matches the
 * pattern of a family @r declares complete, add it as counted 0, in the
 * family's unit, lower better. @name must outlive @r.
 */
int result_fill_count_named(struct result *r, const char *name);

/*
 * Add the samples of @more (another run of the same test on the same
 * kernel, with the same arguments) to @r, metric by metric, in order,
 * a member of a family complete in one run and absent from it as 0s;
 * @more must outlive @r. 0, or -1 with the reason in @err.
 */
int result_pool(struct result *r, const struct result *more, char *err, size_t errlen);

#endif
