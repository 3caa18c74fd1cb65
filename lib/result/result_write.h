/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing isolbench result files: the metrics a program collects, its
 * verdicts, the paste-ready summary line of a metric and the document
 * itself (schema "isolbench-result", docs/result-schema.md), with the
 * constants of lib/result/result.h, which reads the files back. The harness
 * (lib/harness/bench.c) supplies the "system" and "run" objects.
 */
#ifndef ISOLBENCH_RESULT_WRITE_H
#define ISOLBENCH_RESULT_WRITE_H

#include <stdio.h>

#include "../base/json.h"
#include "../base/ktap.h"
#include "result.h"
#include "../base/stats.h"

#define METRIC_MAX_EXTRAS	32

/*
 * The path of the running kernel's build record (a JSON object, written
 * by vm/kbuild.sh; set by vm/guest-init.sh), which every result carries
 * as "kernel_build" (docs/result-schema.md).
 */
#define KERNEL_BUILD_ENV	"ISOLBENCH_KERNEL_BUILD"
#define KERNEL_BUILD_MAX_BYTES	(64u << 10)

struct metric_extra {
	const char *key;	/* with its unit: "user_s", "ipis_delivered" */
	double value;
};

struct metric {
	char name[64];		/* JSON name with unit: "getpid_ns" */
	const char *unit;	/* "ns", "us", "s", "count" */
	enum better better;
	enum metric_kind kind;	/* written when not KIND_DERIVED */
	const char *family;	/* a family of counts, or NULL (metric_family) */
	char aggregate[256];	/* what one sample is: "average of one run of N calls" */
	char summary_label[32];	/* the summary line's lead: "getpid" */
	char summary_context[160];	/* "cpu 3 (nohz_full) 10000000 calls" */
	const char *noun, *nouns;	/* what one sample is: "run", "runs" */
	double *samples;
	size_t n, cap;
	struct stats st;
	struct metric_extra extras[METRIC_MAX_EXTRAS];
	int nextras;
	struct hist *hist;	/* optional distribution, not owned */
};

struct verdict {
	int code;		/* KSFT_PASS, KSFT_FAIL, KSFT_SKIP */
	char name[192];
	char reason[256];
};

void metric_init(struct metric *m, const char *name, const char *unit,
		 enum better better, const char *aggregate);
void metric_add(struct metric *m, double v);
/*
 * One sample per window @i < @n: the count @count gives for it over the
 * span it puts in *@span (seconds, ticks); NAN for a window of no span.
 */
void metric_add_rates(struct metric *m, size_t n, const void *arg,
		      double (*count)(const void *arg, size_t i, double *span));
void metric_extra(struct metric *m, const char *key, double value);
/*
 * Say what the samples are when the unit and name would say otherwise:
 * events per second of a window of the machine's own time are a count
 * (docs/result-schema.md "Timings and counts").
 */
void metric_kind(struct metric *m, enum metric_kind kind);
/*
 * @m is a member of the family of counts @family (one metric per source,
 * written for the sources that counted something): docs/result-schema.md
 * "Families of counts". @family must outlive @m.
 */
void metric_family(struct metric *m, const char *family);
/*
 * A part of a metric's name made from a kernel's name (a symbol, an IRQ,
 * a comm): [a-z0-9_], upper case lowered, anything else '_', at most @max
 * characters and what @len holds.
 */
void metric_name_part(char *dst, size_t len, const char *name, size_t max);
/* The summary line: "<label>: <context>, avg X unit (median ...)". */
void metric_summary(struct metric *m, const char *label,
		    const char *context_fmt, ...) __ktap_printf(3, 4);
/* What one sample is, for the summary line (default "run", "runs"). */
void metric_sample_noun(struct metric *m, const char *one, const char *many);
/* Compute the statistics of the samples and print the summary line. */
void metric_report(struct metric *m);

/*
 * A family of counts whose every source that counted anything has its
 * metric in the result: a member absent from it counted 0 in each of
 * @samples samples. Every member's name matches the glob @pattern
 * (fnmatch), and its unit is @unit: a reader knows a source's name as a
 * member even when no result it reads has that source.
 */
struct count_family {
	const char *name;
	const char *pattern;	/* "ipis_from_*_per_s" */
	const char *unit;	/* "IPIs/s" */
	size_t samples;
};

/* One result document; @context writes the "system" and "run" objects. */
struct result_doc {
	const char *program;
	const char *test;	/* run.sh's test name (ipistorm_watch) */
	const struct metric *metrics;
	int nmetrics;
	const struct verdict *verdicts;
	int nverdicts;
	const struct count_family *families;	/* complete ones */
	int nfamilies;
	void (*context)(struct json *j, void *arg);
	void *arg;
};

/* The document, and "kernel_build" when KERNEL_BUILD_ENV names a record. */
void result_write(FILE *f, const struct result_doc *d);

/* The suite's version, as results and --version give it. */
const char *isolbench_version(void);

#endif
