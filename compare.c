// SPDX-License-Identifier: GPL-2.0
/*
 * compare: isolbench results of two or more kernels side by side, for a
 * patch cover letter, a bisect step or a test farm.
 *
 * Input: result files (-o of any program) or run.sh result directories,
 * the first one the base. Per metric and kernel: n, mean, median, CoV;
 * against the base: the change of the mean in % with its 95% confidence
 * interval and Welch's t-test. Then one paste-ready line per metric in
 * the seeds' style ("base avg 770 ns, patched avg 1340 ns (74.0%
 * increase, significant)"). --bisect turns the comparison of two results
 * into a `git bisect run` exit code. Not a kselftest: exit 2 on bad input
 * (255 with --bisect, so that git bisect aborts).
 *
 * This file: the options (lib/opts) and the loading of the results; the
 * tables are lib/compare_table.c, the bisect judgement lib/compare_bisect.c.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/compare.h"
#include "lib/opts.h"
#include "lib/outfile.h"
#include "lib/util.h"

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
	c->nsides = co->noperands;
	if (c->nsides > MAX_SIDES)
		compare_die(c, "at most %d results to compare", MAX_SIDES);
	if (c->o.bisect && c->nsides != 2)
		compare_die(c, "--bisect needs exactly two results: BASELINE RESULT");
	if (!c->nsides || (c->nsides == 1 && !c->o.kcidb))
		compare_die(c, "need a base and at least one result to compare (see --help)");
	/* options that would do nothing are refused, not ignored */
	if (c->o.plot && (c->o.bisect || c->nsides == 1))
		compare_die(c, "--plot draws the side-by-side table's metrics: not with %s",
			    c->o.bisect ? "--bisect" : "a single result");
	/* a single result is only exported: no table, no comparison */
	if (c->nsides == 1) {
		const char *what = c->o.markdown ? "--markdown" :
				   c->o.labels ? "--labels" :
				   c->o.emulated_timings ? "--emulated-timings" :
				   threshold ? "--threshold" :
				   threshold_abs ? "--threshold-abs" : NULL;

		if (what)
			compare_die(c, "%s needs two results or more: a single one is only exported (--kcidb)",
				    what);
	}
	for (size_t i = 0; i < c->nsides; i++)
		c->sides[i].path = co->operands[i];
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
			/* a bisect names no kernel but in KCIDB records */
			{ "labels&bisect", OPT_NEEDS, "kcidb" },
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

static void side_add_file(struct compare *c, struct side *s, const char *path)
{
	char err[512];

	if (s->nres == MAX_RESULTS)
		compare_die(c, "%s: more than %d result files", s->path, MAX_RESULTS);
	s->names[s->nres] = strdup(path);
	if (!s->names[s->nres])
		compare_die(c, "out of memory");
	if (result_load(s->names[s->nres], &s->res[s->nres], err, sizeof(err))) {
		free(s->names[s->nres]);
		compare_die(c, "%s", err);
	}
	for (size_t i = 0; i < s->nres; i++)
		if (!strcmp(s->res[i].program, s->res[s->nres].program))
			compare_die(c, "%s: two results of %s", s->path,
			    s->res[i].program);
	s->nres++;
}

static int is_json(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".json") && e->d_name[0] != '.';
}

/* A run.sh -o directory: every NAME.json in it, in name order. */
static void side_load(struct compare *c, struct side *s)
{
	struct dirent **list;
	struct stat st;
	int n;

	if (stat(s->path, &st))
		compare_die(c, "%s: %s", s->path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		side_add_file(c, s, s->path);
		return;
	}
	n = scandir(s->path, &list, is_json, alphasort);
	if (n < 0)
		compare_die(c, "%s: %s", s->path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", s->path, list[i]->d_name);
		side_add_file(c, s, path);
		free(list[i]);
	}
	free(list);
	if (!s->nres)
		compare_die(c, "%s: no result files (*.json) in this directory", s->path);
}

/* The labels: given, else file or directory names without ".json". */
static void side_labels(struct compare *c)
{
	const char *p = c->o.labels;
	bool dup = false;

	if (p && (*p == ',' || p[strlen(p) - 1] == ',' || strstr(p, ",,")))
		compare_die(c, "--labels: '%s': an empty label (a leading, trailing or doubled ',')",
		    p);
	for (size_t i = 0; i < c->nsides; i++) {
		struct side *s = &c->sides[i];

		if (p) {
			size_t n = strcspn(p, ",");

			if (!n || n > LABEL_MAX)
				compare_die(c, "--labels: '%.*s': a label has 1 to %d characters",
				    (int)n, p, LABEL_MAX);
			snprintf(s->label, sizeof(s->label), "%.*s", (int)n, p);
			p = p[n] ? p + n + 1 : NULL;
			if (!p && i + 1 < c->nsides)
				compare_die(c, "--labels: %zu labels for %zu results", i + 1,
				    c->nsides);
		} else {
			char tmp[4096], *b;
			size_t n;

			snprintf(tmp, sizeof(tmp), "%s", s->path);
			n = strlen(tmp);
			while (n > 1 && tmp[n - 1] == '/')
				tmp[--n] = '\0';
			b = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
			n = strlen(b);
			if (n > 5 && !strcmp(b + n - 5, ".json"))
				b[n - 5] = '\0';
			snprintf(s->label, sizeof(s->label), "%.*s", LABEL_MAX, b);
		}
		for (size_t k = 0; k < i; k++)
			dup |= !strcmp(c->sides[k].label, s->label);
	}
	if (p)
		compare_die(c, "--labels: more labels than results");
	if (dup && c->o.labels)
		compare_die(c, "--labels: two kernels with the same label");
	if (dup)
		for (size_t i = 0; i < c->nsides; i++)
			snprintf(c->sides[i].label, sizeof(c->sides[i].label),
				 i ? "new%zu" : "base", i);
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
	if (kcidb_write(out.f, rs, n, c->kc, c->nkc, c->o.kcidb_build)) {
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
	for (size_t i = 0; i < c->nsides; i++) {
		/*
		 * --bisect: a new result that is there but cannot be read
		 * is the new kernel's run going wrong, not a bad baseline
		 * or argument: undecided. A path that is not there, or not
		 * a file or directory, stays an argument error.
		 */
		if (c->o.bisect && i == 1) {
			struct stat st;

			if (stat(c->sides[i].path, &st))
				compare_die(c, "%s: %s", c->sides[i].path, strerror(errno));
			if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				compare_die(c, "%s: not a regular file or a directory",
				    c->sides[i].path);
			c->error_exit = BISECT_UNDECIDED;
		}
		side_load(c, &c->sides[i]);
	}
	c->error_exit = c->o.bisect ? BISECT_ERROR : EXIT_USAGE;
	side_labels(c);
	if (c->o.bisect)
		ret = compare_bisect(c);
	else if (c->nsides > 1)
		compare_all(c);
	if (c->o.kcidb)
		write_kcidb(c);
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; k < c->sides[i].nres; k++) {
			result_free(&c->sides[i].res[k]);
			free(c->sides[i].names[k]);
		}
	}
	free(c);
	return ret;
}
