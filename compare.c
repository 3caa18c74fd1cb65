// SPDX-License-Identifier: GPL-2.0
/*
 * compare: isolbench results of two or more kernels side by side, for a
 * patch cover letter, a bisect step or a test farm.
 *
 * Input: result files (-o of any program) or run.sh result directories,
 * the first one the base. Per metric and kernel: n, mean, median, CoV;
 * against the base: the change of the mean in % with its 95% confidence
 * interval and Welch's t-test. Then one paste-ready line per metric in
 * the IPI-deferral series' style ("base avg 770 ns, patched avg 1340 ns
 * (74.0% increase, significant)"). --bisect turns the comparison of two results
 * into a `git bisect run` exit code. Not a kselftest: exit 2 on bad input
 * (255 with --bisect, so that git bisect aborts).
 *
 * This file: the options (lib/opts) and the kernels compared, their
 * operands and labels; the result files are read by compare_load.c,
 * the tables are compare_table.c, the bisect judgement compare_bisect.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_common.h"
#include "lib/harness/opts.h"
#include "lib/base/outfile.h"
#include "lib/base/util.h"

/* "5", "5%", "2.5%": a percentage in [0, 1000). */
static int parse_pct(const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (parse_double(buf, out) || !isfinite(*out) || *out < 0 || *out >= 1000)
		return -1;
	return 0;
}

/* Whether @argv asks for --bisect: it decides the status of a usage error. */
static bool wants_bisect(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--bisect"))
			return true;
	return false;
}

/* Whether the comma-separated list @list names something twice. */
static bool names_repeat(const char *list)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		for (const char *q = p + n; *q;) {
			size_t m = strcspn(++q, ",");

			if (m == n && !strncmp(p, q, n))
				return true;
			q += m;
		}
		p += n + !!p[n];
	}
	return false;
}

/* What the option table cannot check: the operands and combinations. */
static void args_check(struct compare *c, const char *threshold,
		       const char *threshold_abs, const struct common_opts *co)
{
	if (threshold && parse_pct(threshold, &c->o.threshold_pct))
		compare_die(c, "--threshold: '%s' is not a percentage (0 to 999, e.g. 5 or 2.5%%)",
			    threshold);
	if (threshold_abs && (parse_double(threshold_abs, &c->o.threshold_abs) ||
			      c->o.threshold_abs < 0))
		compare_die(c, "--threshold-abs: '%s' is not a number from 0 (in the metric's unit)",
			    threshold_abs);
	c->o.abs_threshold = threshold_abs != NULL;
	c->noperands = co->noperands;
	if (c->o.args && c->noperands != 1)
		compare_die(c, "--args reads one result file");
	if (c->noperands > MAX_OPERANDS)
		compare_die(c, "at most %d results to compare", MAX_OPERANDS);
	if (c->o.bisect && c->noperands < 2)
		compare_die(c, "--bisect needs exactly two kernels: BASELINE RESULT");
	if (!c->noperands || (c->noperands == 1 && !c->o.kcidb && !c->o.args))
		compare_die(c, "need a base and at least one result to compare (see --help)");
	/* options that would do nothing are refused, not ignored */
	if (c->o.plot && (c->o.bisect || c->noperands == 1))
		compare_die(c, "--plot draws the side-by-side table's metrics: not with %s",
			    c->o.bisect ? "--bisect" : "a single result");
	/* a single result is only exported: no table, no comparison */
	if (c->noperands == 1 && !c->o.args) {
		const char *what = c->o.markdown ? "--markdown" :
				   c->o.labels ? "--labels" :
				   c->o.emulated_timings ? "--emulated-timings" :
				   threshold ? "--threshold" :
				   threshold_abs ? "--threshold-abs" : NULL;

		if (what)
			compare_die(c, "%s needs two results or more: a single one is only exported (--kcidb)",
				    what);
	}
	for (size_t i = 0; i < c->noperands; i++)
		c->operands[i] = co->operands[i];
}

static void parse_args(struct compare *c, int argc, char **argv)
{
	const char *threshold = NULL, *threshold_abs = NULL;
	struct common_opts co = { 0 };
	const struct opt opts[] = {
		{ .name = "markdown", .type = OPT_FLAG, .dest = &c->o.markdown,
		  .help = "the table in Markdown instead of plain text" },
		{ .name = "plot", .type = OPT_FLAG, .dest = &c->o.plot,
		  .help = "also plot the distributions (ministat style)" },
		{ .name = "labels", .type = OPT_STRING, .dest = &c->o.labels,
		  .arg = "A,B,...",
		  .help = "names of the kernels (default: the file or directory names)" },
		{ .name = "bisect", .type = OPT_FLAG, .dest = &c->o.bisect,
		  .help = "exit 0 good, 1 bad, 125 undecided: the second against the first" },
		{ .name = "metric", .type = OPT_STRING, .dest = &c->o.metric,
		  .arg = "NAME",
		  .help = "--bisect: the metric to judge (default: the first with better lower|higher)" },
		{ .name = "threshold", .type = OPT_STRING, .dest = &threshold,
		  .arg = "PCT",
		  .help = "--bisect: how much worse is still good, in % (default 5)" },
		{ .name = "threshold-abs", .type = OPT_STRING, .dest = &threshold_abs,
		  .arg = "VALUE",
		  .help = "--bisect, --kcidb: how much worse is still good, in the metric's unit (for counts near 0)" },
		{ .name = "emulated-timings", .type = OPT_FLAG,
		  .dest = &c->o.emulated_timings,
		  .help = "judge timing metrics measured under emulation (TCG) too" },
		{ .name = "kcidb", .type = OPT_STRING, .dest = &c->o.kcidb,
		  .arg = "FILE",
		  .help = "write KCIDB test records of the non-base results to FILE" },
		{ .name = "kcidb-build", .type = OPT_STRING, .dest = &c->o.kcidb_build,
		  .arg = "ID",
		  .help = "KCIDB build_id of the records (default isolbench:<release>)" },
		{ .name = "args", .type = OPT_FLAG, .dest = &c->o.args,
		  .help = "print RESULT's test, exit status and arguments (but -o FILE), one per line: for run.sh --bisect" },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "compare",
		.summary = "Compare isolbench results (files or run.sh -o directories), the first is the base.\n"
			   "       compare --bisect [OPTION]... BASELINE RESULT\n"
			   "       compare --kcidb FILE RESULT",
		.opts = opts,
		/* options that would do nothing are refused, not ignored */
		.rules = (const struct opt_rule[]){
			{ "metric", OPT_NEEDS, "bisect" },
			{ "threshold", OPT_NEEDS, "bisect|kcidb" },
			{ "threshold-abs", OPT_NEEDS, "bisect|kcidb" },
			{ "threshold-abs", OPT_CONFLICTS, "threshold" },
			{ "markdown", OPT_CONFLICTS, "bisect" },
			{ "kcidb-build", OPT_NEEDS, "kcidb" },
			{ "args", OPT_CONFLICTS, "bisect|kcidb|markdown|plot|labels|emulated-timings" },

			{ NULL }
		},
		.operands = "BASE RESULT...",
		.usage_exit = c->error_exit,
		.exit_help = "Exit status: 0 done, 2 bad input; with --bisect 0 good, 1 bad,\n"
			     "125 cannot decide, 255 bad input (git bisect run aborts).",
	};

	opts_parse(&spec, &co, argc, argv);
	args_check(c, threshold, threshold_abs, &co);
}

/* The file or directory name of @path without ".json", as a label. */
static void default_label(const char *path, char *label, size_t len)
{
	char tmp[4096], *b;
	size_t n;

	snprintf(tmp, sizeof(tmp), "%s", path);
	n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	b = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".json"))
		b[n - 5] = '\0';
	snprintf(label, len, "%.*s", LABEL_MAX, b);
}

/*
 * The kernels: one per operand, named after it; with --labels one per
 * label, the operands of one label pooled (vm/ab.sh's rounds).
 */
static void sides_make(struct compare *c)
{
	const char *p = c->o.labels;
	bool dup = false;

	if (p && (*p == ',' || p[strlen(p) - 1] == ',' || strstr(p, ",,")))
		compare_die(c, "--labels: '%s': an empty label (a leading, trailing or doubled ',')",
			    p);
	/* a bisect names its kernels only in KCIDB records: else --labels only pools */
	if (p && c->o.bisect && !c->o.kcidb && !names_repeat(p))
		compare_die(c, "--labels with --bisect names the kernels only for --kcidb; without it, give a name twice to pool runs");
	for (size_t i = 0; i < c->noperands; i++) {
		char label[16];
		struct side *s = NULL;

		if (p) {
			size_t n = strcspn(p, ",");

			if (!n || n > LABEL_MAX)
				compare_die(c, "--labels: '%.*s': a label has 1 to %d characters",
					    (int)n, p, LABEL_MAX);
			snprintf(label, sizeof(label), "%.*s", (int)n, p);
			p = p[n] ? p + n + 1 : NULL;
			if (!p && i + 1 < c->noperands)
				compare_die(c, "--labels: %zu labels for %zu results", i + 1,
					    c->noperands);
			for (size_t k = 0; k < c->nsides && !s; k++)
				if (!strcmp(c->sides[k].label, label))
					s = &c->sides[k];
		} else {
			default_label(c->operands[i], label, sizeof(label));
			for (size_t k = 0; k < c->nsides; k++)
				dup |= !strcmp(c->sides[k].label, label);
		}
		if (!s) {
			if (c->nsides == MAX_SIDES)
				compare_die(c, "at most %d kernels to compare", MAX_SIDES);
			s = &c->sides[c->nsides++];
			s->path = c->operands[i];
			snprintf(s->label, sizeof(s->label), "%s", label);
		}
		s->noperands++;
		/*
		 * --bisect: a new result that is there but cannot be read is
		 * the new kernel's run going wrong, not a bad baseline or
		 * argument: undecided. A path that is not there, or not a
		 * file or directory, stays an argument error.
		 */
		if (c->o.bisect && s != c->sides) {
			struct stat st;

			if (stat(c->operands[i], &st))
				compare_die(c, "%s: %s", c->operands[i], strerror(errno));
			if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				compare_die(c, "%s: not a regular file or a directory",
					    c->operands[i]);
			c->error_exit = BISECT_UNDECIDED;
		}
		compare_side_load(c, s, c->operands[i]);
		c->error_exit = c->o.bisect ? BISECT_ERROR : EXIT_USAGE;
	}
	if (p)
		compare_die(c, "--labels: more labels than results");
	/* two operands named alike, no --labels: numbered, never pooled */
	if (dup)
		for (size_t i = 0; i < c->nsides; i++)
			snprintf(c->sides[i].label, sizeof(c->sides[i].label),
				 i ? "new%zu" : "base", i);
	if (c->o.bisect && c->nsides != 2)
		compare_die(c, "--bisect needs exactly two kernels: BASELINE RESULT");

	if (c->nsides == 1 && !c->o.kcidb && !c->o.args)
		compare_die(c, "need a base and at least one result to compare (see --help)");
}

/*
 * A count of a family (one metric per source, written for the sources
 * that counted something) seen on one kernel is a count on every kernel
 * whose result of the test declares the family complete: 0 there, in
 * each of its samples (docs/result-schema.md "Families of counts"); so is
 * the --metric of a bisect whose name the family's pattern matches.
 */
static void sides_fill_counts(struct compare *c)
{
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; k < c->sides[i].nres; k++) {
			struct result *r = &c->sides[i].res[k];

			for (size_t j = 0; j < c->nsides; j++) {
				const struct result *o = j == i ? NULL :
							 compare_side_find(&c->sides[j], r->test);

				for (size_t m = 0; o && m < o->nmetrics; m++)
					if (result_fill_count(r, &o->metrics[m]) < 0)
						compare_die(c, "out of memory");
			}
		}
	}
	/* --metric a source no kernel saw, a member by its family's pattern */
	for (size_t i = 0; c->o.metric && i < c->nsides; i++)
		for (size_t k = 0; k < c->sides[i].nres; k++)
			if (result_fill_count_named(&c->sides[i].res[k], c->o.metric) < 0)
				compare_die(c, "out of memory");
}

/*
 * --args: "test NAME", "exit STATUS", then "arg ARG" for each argument
 * of its run but the program and -o FILE, for run.sh to run the test
 * again as it was.
 */
static void print_args(const struct compare *c, const struct result *r)
{
	const char *args[RESULT_MAX_ARGS];
	size_t n = result_arg_list(r, args, RESULT_MAX_ARGS);

	if (!r->argv)
		compare_die(c, "%s: no run.argv: its arguments are not known", r->path);
	if (n == RESULT_MAX_ARGS)
		compare_die(c, "%s: more than %d arguments", r->path, RESULT_MAX_ARGS - 1);
	printf("test %s\nexit %d\n", r->test, r->exit_code);
	for (size_t i = 0; i < n; i++) {
		if (strchr(args[i], '\n'))
			compare_die(c, "%s: an argument of more than one line", r->path);
		printf("arg %s\n", args[i]);
	}
}

/*
 * No output is an input: the --kcidb file is none of the files read
 * (by device and inode, whatever the path), nor, when it is new, a
 * result file it would add to a directory read (by that directory's
 * device and inode). Checked before anything is written.
 */
static void outputs_check(const struct compare *c, const char *opt, const char *path)
{
	char dir[PATH_MAX], *slash, *name;
	struct stat st;

	if (!stat(path, &st)) {
		for (size_t i = 0; i < c->ninputs; i++)
			if (c->inputs[i].dev == st.st_dev && c->inputs[i].ino == st.st_ino)
				compare_die(c, "%s %s is the input %s: an output never replaces an input",
					    opt, path, c->inputs[i].path);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	name = slash ? slash + 1 : dir;
	if (!compare_is_result_name(name))
		return;
	if (slash)
		*slash = '\0';
	if (stat(slash ? (dir[0] ? dir : "/") : ".", &st))
		return;
	for (size_t i = 0; i < c->ninputs; i++)
		if (c->inputs[i].dir && c->inputs[i].dev == st.st_dev &&
		    c->inputs[i].ino == st.st_ino)
			compare_die(c, "%s %s would be a result file of the input directory %s",
				    opt, path, c->inputs[i].path);
}

static void write_kcidb(struct compare *c)
{
	const struct result *rs[MAX_SIDES * MAX_RESULTS];
	char err[PATH_MAX + 128];
	struct outfile out;
	size_t n = 0;

	/* written beside the file and renamed into place when complete */
	if (outfile_open(&out, c->o.kcidb, err, sizeof(err)))
		compare_die(c, "--kcidb %s", err);
	/* the base is the reference, not a result of this run */
	for (size_t i = c->nsides > 1; i < c->nsides; i++)
		for (size_t k = 0; k < c->sides[i].nres; k++)
			rs[n++] = &c->sides[i].res[k];
	if (compare_kcidb_write(out.f, rs, n, c->kc, c->nkc, c->o.kcidb_build)) {
		outfile_abort(&out);
		compare_die(c, "--kcidb %s: %s", c->o.kcidb, strerror(errno));
	}
	if (outfile_commit(&out, err, sizeof(err)))
		compare_die(c, "--kcidb %s", err);
}

int main(int argc, char **argv)
{
	struct compare *c = calloc(1, sizeof(*c));
	int ret = 0;

	if (!c)
		return EXIT_USAGE;
	c->error_exit = wants_bisect(argc, argv) ? BISECT_ERROR : EXIT_USAGE;
	c->o.threshold_pct = 5;
	parse_args(c, argc, argv);
	sides_make(c);
	sides_fill_counts(c);
	if (c->o.kcidb)
		outputs_check(c, "--kcidb", c->o.kcidb);
	if (c->o.args)
		print_args(c, &c->sides[0].res[0]);
	else if (c->o.bisect)
		ret = compare_bisect(c);
	else if (c->nsides > 1)
		compare_all(c);
	if (c->o.kcidb)
		write_kcidb(c);
	compare_sides_free(c);
	free(c);
	return ret;
}
