/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare (the tool): the results of two or more kernels side by side
 * (compare_table.c) and the bisect judgement of two (compare_bisect.c),
 * with what both use (compare_common.c). compare.c parses the options
 * and makes the kernels, whose result files compare_load.c reads; the
 * statistics are compare_cmp.c's, the reading lib/result/result.c's.
 */
#ifndef ISOLBENCH_COMPARE_COMMON_H
#define ISOLBENCH_COMPARE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "compare_cmp.h"
#include "compare_kcidb.h"
#include "lib/base/ktap.h"
#include "lib/result/result.h"

#define MAX_SIDES	8
#define MAX_OPERANDS	128	/* result files and directories on the line */
#define MAX_RESULTS	64	/* tests of one kernel */
#define WIDTH		72	/* an email line */
#define EXIT_USAGE	2
#define LABEL_MAX	8	/* the table's first column */

struct compare_opts {
	bool markdown, plot, bisect;
	bool args;			/* print a result's test and arguments */
	bool emulated_timings;		/* judge timings measured under TCG */
	const char *kcidb;		/* KCIDB output file */
	const char *kcidb_build;	/* the farm's build id */
	const char *metric;		/* --bisect: the metric to judge */
	const char *labels;		/* "base,patched" */
	double threshold_pct;		/* --threshold, in % of the base */
	double threshold_abs;		/* --threshold-abs, the metric's unit */
	bool abs_threshold;		/* --threshold-abs given: it judges */
};

/*
 * One kernel: a file or a directory of results, or several of them that
 * --labels gives one name (their results of one test pooled).
 */
struct side {
	const char *path;	/* the first operand */
	size_t noperands;
	char label[16];		/* at most LABEL_MAX characters */
	struct result res[MAX_RESULTS];	/* one per test */
	size_t nres;
	struct result *more;	/* the results pooled into res[] */
	size_t nmore;
	char **names;		/* every file path read, owned */
	size_t nnames;
};

/* A file or directory compare read: no output may be one. */
struct compare_input {
	const char *path;
	dev_t dev;
	ino_t ino;
	bool dir;
};

struct compare {
	struct compare_opts o;
	const char *operands[MAX_OPERANDS];
	size_t noperands;
	struct side sides[MAX_SIDES];
	size_t nsides;
	int error_exit;			/* 2, or 255 with --bisect */
	struct kcidb_cmp kc[MAX_RESULTS * 16];
	size_t nkc;
	struct compare_input *inputs;
	size_t ninputs;
};

/*
 * The text table's columns: "  label n mean median CoV change CI
 * judgement": 2 + 8 + 5 + 10 + 10 + 7 + 8 + 8, then " improvement *",
 * the longest judgement, ends at column 72.
 */
#define NUM_COLS	9
#define COV_COLS	6
#define CHANGE_COLS	7

#define COMPARE_EMULATED_WHY "a timing measured under emulation (TCG): undecided (--emulated-timings judges it)"

/* One line on stderr, exit c->error_exit (2; 255 or 125 under --bisect). */
noreturn void compare_die(const struct compare *c, const char *fmt, ...)
	__ktap_printf(2, 3);

/* The result of test @test on side @s, or NULL. */
const struct result *compare_side_find(const struct side *s, const char *test);
/* Numbers that fit 9 columns with enough digits to compare. */
const char *compare_num(char *buf, size_t len, double v);
void compare_wrapped(const char *lead, const char *text, int lines, int indent);
/* "warning: ..." wrapped to the email width */
void compare_warn(const char *fmt, ...) __ktap_printf(1, 2);
/* Once above the tables (compare_context.c): what ran where, what differs. */
void compare_context_print(const struct compare *c);
/*
 * The bisect verdict on @x against the threshold of --threshold or
 * --threshold-abs, with @why; the record of it for KCIDB in @kc.
 */
enum bisect_verdict compare_judge(const struct compare *c, const struct cmp *x,
				  enum better better, const char **why);
/*
 * Keep the verdict @v on metric @m of result @res against the base (the
 * change @x, the reason @why) for the vs_base records of --kcidb.
 */
void compare_kcidb_record(struct compare *c, const struct result *res,
			  const struct result_metric *m, const struct cmp *x,
			  enum bisect_verdict v, const char *why);
/*
 * Why @base against @res cannot be judged as whole runs ("the
 * baseline's ... was interrupted ...", "... was skipped"), or NULL.
 */
const char *compare_incomplete(const struct result *base, const struct result *res,
			       char *buf, size_t len);
bool compare_emulated_timing(const struct compare *c, const struct result *a,
			     const struct result *b, const struct result_metric *m);

/*
 * Operand @path of side @s: a result file, or every NAME.json of a
 * run.sh -o directory; each kept among the inputs.
 */
void compare_side_load(struct compare *c, struct side *s, const char *path);
/* NAME.json, not hidden: a result file of a run.sh -o directory. */
bool compare_is_result_name(const char *name);
/* What compare_side_load() read, and the inputs kept. */
void compare_sides_free(struct compare *c);

/* The side-by-side tables and the paste-ready lines. */
void compare_all(struct compare *c);
/* --bisect: BISECT_GOOD, BISECT_BAD or BISECT_UNDECIDED. */
int compare_bisect(struct compare *c);

#endif
