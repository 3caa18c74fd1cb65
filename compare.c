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
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cmp.h"
#include "lib/kcidb.h"
#include "lib/outfile.h"
#include "lib/plot.h"
#include "lib/result.h"
#include "lib/util.h"

#define MAX_SIDES	8
#define MAX_RESULTS	64	/* result files in one directory */
#define WIDTH		72	/* an email line */
#define EXIT_USAGE	2
#define LABEL_MAX	8	/* the table's first column */

struct compare_opts {
	bool markdown, plot, bisect;
	bool emulated_timings;		/* judge timings measured under TCG */
	const char *kcidb;		/* KCIDB output file */
	const char *kcidb_build;	/* the farm's build id */
	const char *metric;		/* --bisect: the metric to judge */
	const char *labels;		/* "base,patched" */
	double threshold_pct;
};

/* One kernel: a file or a directory of results. */
struct side {
	const char *path;
	char label[16];		/* at most LABEL_MAX characters */
	struct result res[MAX_RESULTS];
	size_t nres;
	char *names[MAX_RESULTS];	/* file paths, owned */
};

struct compare {
	struct compare_opts o;
	struct side sides[MAX_SIDES];
	size_t nsides;
	int error_exit;			/* 2, or 255 with --bisect */
	struct kcidb_cmp kc[MAX_RESULTS * 16];
	size_t nkc;
};

static noreturn void die(const struct compare *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static noreturn void die(const struct compare *c, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "compare: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(c->error_exit);
}

static const struct {
	struct option lo;
	const char *arg, *help;
} options[] = {
	{ { "markdown", no_argument, NULL, 'm' }, NULL,
	  "the table in Markdown instead of plain text" },
	{ { "plot", no_argument, NULL, 'p' }, NULL,
	  "also plot the distributions (ministat style)" },
	{ { "labels", required_argument, NULL, 'l' }, "A,B,...",
	  "names of the kernels (default: the file or directory names)" },
	{ { "bisect", no_argument, NULL, 'b' }, NULL,
	  "exit 0 good, 1 bad, 125 undecided: the second against the first" },
	{ { "metric", required_argument, NULL, 'M' }, "NAME",
	  "--bisect: the metric to judge (default: the first with better lower|higher)" },
	{ { "threshold", required_argument, NULL, 't' }, "PCT",
	  "--bisect: how much worse is still good, in % (default 5)" },
	{ { "emulated-timings", no_argument, NULL, 'E' }, NULL,
	  "judge timing metrics measured under emulation (TCG) too" },
	{ { "kcidb", required_argument, NULL, 'k' }, "FILE",
	  "write KCIDB test records of the non-base results to FILE" },
	{ { "kcidb-build", required_argument, NULL, 'B' }, "ID",
	  "KCIDB build_id of the records (default isolbench:<release>)" },
	{ { "help", no_argument, NULL, 'h' }, NULL, "this help" },
};

static void usage(void)
{
	printf("Usage: compare [options] BASE RESULT...\n"
	       "       compare --bisect [options] BASELINE RESULT\n"
	       "       compare --kcidb FILE RESULT\n"
	       "Compare isolbench results (files or run.sh -o directories), the first is the base.\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		char left[40];

		snprintf(left, sizeof(left), "--%s%s%s", options[i].lo.name,
			 options[i].arg ? " " : "",
			 options[i].arg ? options[i].arg : "");
		printf("  %-22s %s\n", left, options[i].help);
	}
	printf("\nExit status: 0 done, 2 bad input; with --bisect 0 good, 1 bad,\n"
	       "125 cannot decide, 255 bad input (git bisect run aborts).\n");
}

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

static void parse_args(struct compare *c, int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(options) + 1] = { 0 };
	int key;

	/* know the error exit code before any error can happen */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--bisect"))
			c->error_exit = BISECT_ERROR;
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		lo[i] = options[i].lo;
	opterr = 0;
	while ((key = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (key) {
		case 'm':
			c->o.markdown = true;
			break;
		case 'p':
			c->o.plot = true;
			break;
		case 'l':
			c->o.labels = optarg;
			break;
		case 'b':
			c->o.bisect = true;
			break;
		case 'E':
			c->o.emulated_timings = true;
			break;
		case 'M':
			c->o.metric = optarg;
			break;
		case 'k':
			c->o.kcidb = optarg;
			break;
		case 'B':
			c->o.kcidb_build = optarg;
			break;
		case 't':
			if (parse_pct(optarg, &c->o.threshold_pct))
				die(c, "--threshold: '%s' is not a percentage (0 to 999, e.g. 5 or 2.5%%)",
				    optarg);
			break;
		case 'h':
			usage();
			exit(0);
		case ':':
			die(c, "%s needs an argument", argv[optind - 1]);
		default:
			die(c, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	c->nsides = argc - optind;
	if (c->nsides > MAX_SIDES)
		die(c, "at most %d results to compare", MAX_SIDES);
	if (c->o.bisect && c->nsides != 2)
		die(c, "--bisect needs exactly two results: BASELINE RESULT");
	if (!c->nsides || (c->nsides == 1 && !c->o.kcidb))
		die(c, "need a base and at least one result to compare (see --help)");
	/* options that would do nothing are refused, not ignored */
	if (c->o.metric && !c->o.bisect)
		die(c, "--metric belongs to --bisect");
	if (c->o.plot && (c->o.bisect || c->nsides == 1))
		die(c, "--plot draws the side-by-side table's metrics: not with %s",
		    c->o.bisect ? "--bisect" : "a single result");
	for (size_t i = 0; i < c->nsides; i++)
		c->sides[i].path = argv[optind + i];
}

static void side_add_file(struct compare *c, struct side *s, const char *path)
{
	char err[512];

	if (s->nres == MAX_RESULTS)
		die(c, "%s: more than %d result files", s->path, MAX_RESULTS);
	s->names[s->nres] = strdup(path);
	if (!s->names[s->nres])
		die(c, "out of memory");
	if (result_load(s->names[s->nres], &s->res[s->nres], err, sizeof(err))) {
		free(s->names[s->nres]);
		die(c, "%s", err);
	}
	for (size_t i = 0; i < s->nres; i++)
		if (!strcmp(s->res[i].program, s->res[s->nres].program))
			die(c, "%s: two results of %s", s->path,
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
		die(c, "%s: %s", s->path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		side_add_file(c, s, s->path);
		return;
	}
	n = scandir(s->path, &list, is_json, alphasort);
	if (n < 0)
		die(c, "%s: %s", s->path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", s->path, list[i]->d_name);
		side_add_file(c, s, path);
		free(list[i]);
	}
	free(list);
	if (!s->nres)
		die(c, "%s: no result files (*.json) in this directory", s->path);
}

/* The labels: given, else file or directory names without ".json". */
static void side_labels(struct compare *c)
{
	const char *p = c->o.labels;
	bool dup = false;

	for (size_t i = 0; i < c->nsides; i++) {
		struct side *s = &c->sides[i];

		if (p) {
			size_t n = strcspn(p, ",");

			if (!n || n > LABEL_MAX)
				die(c, "--labels: '%.*s': a label has 1 to %d characters",
				    (int)n, p, LABEL_MAX);
			snprintf(s->label, sizeof(s->label), "%.*s", (int)n, p);
			p = p[n] ? p + n + 1 : NULL;
			if (!p && i + 1 < c->nsides)
				die(c, "--labels: %zu labels for %zu results", i + 1,
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
		die(c, "--labels: more labels than results");
	if (dup && c->o.labels)
		die(c, "--labels: two kernels with the same label");
	if (dup)
		for (size_t i = 0; i < c->nsides; i++)
			snprintf(c->sides[i].label, sizeof(c->sides[i].label),
				 i ? "new%zu" : "base", i);
}

static const struct result *side_find(const struct side *s, const char *prog)
{
	for (size_t i = 0; i < s->nres; i++)
		if (!strcmp(s->res[i].program, prog))
			return &s->res[i];
	return NULL;
}

/* Numbers that fit 9 columns with enough digits to compare. */
static const char *num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1e9 || (a > 0 && a < 1e-3))
		snprintf(buf, len, "%.3e", v);
	else if (a >= 1e5)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f", a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4, v);
	return buf;
}

/*
 * @lead, then @text wrapped at spaces, continuation lines indented by
 * @indent (the width of @lead when negative), at most @lines lines.
 */
static void print_wrapped(const char *lead, const char *text, int lines,
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

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "warning: ..." wrapped to the email width */
static void warn(const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	print_wrapped("warning: ", text, 4, -1);
}

static const char *isolation_of(const struct result *r)
{
	return r->cpus_isolation[0] ? r->cpus_isolation : "?";
}

/* Once above the tables: what ran where, and what differs. */
static void print_context(const struct compare *c)
{
	const struct result *b = &c->sides[0].res[0];
	const char *md = "  ";

	if (c->o.markdown)
		printf("```\n");
	printf("%s%zu kernels, the first is the base. Statistics: mean, median,\n"
	       "CoV (stddev/mean); change of the mean with its 95%% CI and Welch's\n"
	       "t-test (* = significant, p < %.2f).\n\n",
	       c->o.markdown ? "" : "compare: ", c->nsides, CMP_ALPHA);
	for (size_t i = 0; i < c->nsides; i++) {
		const struct side *s = &c->sides[i];
		const struct result *r = &s->res[0];
		char lead[48], text[4400];

		snprintf(lead, sizeof(lead), "%s%-8s  ", md, s->label);
		snprintf(text, sizeof(text), "%s%s (%s)", r->sys.kernel_release,
			 r->sys.emulated ? " [emulated]" : "", s->path);
		print_wrapped(lead, text, 3, -1);
		printf("%s          cpu %s (%s), %s\n", md,
		       r->cpus, isolation_of(r), r->sys.cpu_model);
		if (i && !strcmp(r->sys.cmdline, b->sys.cmdline)) {
			printf("%s          cmdline: same as %s\n", md, c->sides[0].label);
			continue;
		}
		snprintf(lead, sizeof(lead), "%s          cmdline: ", md);
		print_wrapped(lead, r->sys.cmdline[0] ? r->sys.cmdline : "?", 3, -1);
	}
	for (size_t i = 1; i < c->nsides; i++) {
		const struct result *r = &c->sides[i].res[0];
		const char *l = c->sides[i].label, *bl = c->sides[0].label;

		if (strcmp(r->sys.hostname, b->sys.hostname) ||
		    strcmp(r->sys.cpu_model, b->sys.cpu_model))
			warn("%s and %s ran on different machines or CPUs", bl, l);
		if (strcmp(r->cpus, b->cpus) ||
		    strcmp(isolation_of(r), isolation_of(b)))
			warn("%s measured cpu %s (%s), %s cpu %s (%s)", l,
			     r->cpus, isolation_of(r), bl, b->cpus, isolation_of(b));
		if (r->sys.emulated != b->sys.emulated)
			warn("%s ran emulated (TCG), %s did not: emulated timings mean little",
			     r->sys.emulated ? l : bl, r->sys.emulated ? bl : l);
	}
	printf("%s\n", c->o.markdown ? "```" : "");
}

static const char *better_words(enum better b)
{
	return b == BETTER_LOWER ? "lower is better" :
	       b == BETTER_HIGHER ? "higher is better" : "no better direction";
}

/*
 * A timing metric of a result measured under emulation (TCG) is left
 * undecided unless --emulated-timings: emulation stretches time, not
 * counts.
 */
static bool emulated_timing(const struct compare *c, const struct result *a,
			    const struct result *b, const struct result_metric *m)
{
	return !c->o.emulated_timings && m && m->timing &&
	       ((a && a->sys.emulated) || (b && b->sys.emulated));
}

#define EMULATED_WHY "a timing measured under emulation (TCG): undecided (--emulated-timings judges it)"

static void row_stats(const struct compare *c, const char *label,
		      const struct result_metric *m)
{
	char mean[32], med[32], cov[16];

	if (!m) {
		printf(c->o.markdown ? "|%s|-||||||not in this result|\n" :
		       "  %-8.8s    -   (not in this result)\n", label);
		return;
	}
	num(mean, sizeof(mean), m->n ? m->st.mean : NAN);
	num(med, sizeof(med), m->n ? m->st.median : NAN);
	if (m->n > 1 && m->st.mean)
		snprintf(cov, sizeof(cov), "%.1f%%", 100 * m->st.cov);
	else
		snprintf(cov, sizeof(cov), "-");
	if (c->o.markdown)
		printf("|%s|%zu|%s|%s|%s|", label, m->n, mean, med, cov);
	else
		printf("  %-8.8s %4zu %9s %9s %6s", label, m->n, mean, med, cov);
}

static void row_change(const struct compare *c, const struct cmp *x,
		       enum better better, bool emulated)
{
	char chg[24], ci[24];

	if (!x) {
		printf(c->o.markdown ? "||||\n" : "\n");
		return;
	}
	if (!x->tested) {
		printf(c->o.markdown ? "||no test: %s|\n" : " no test: %s\n",
		       x->why_not);
		return;
	}
	snprintf(chg, sizeof(chg), "%+.1f%%", x->change_pct);
	snprintf(ci, sizeof(ci), "+-%.1f%%", x->ci_pct);
	if (c->o.markdown)
		printf("%s|%s|%s%s|\n", chg, ci,
		       emulated ? "emulated" : cmp_judgement(x, better),
		       x->significant && !emulated ? " *" : "");
	else
		printf(" %7s %7s %s%s\n", chg, ci,
		       emulated ? "emulated" : cmp_judgement(x, better),
		       x->significant && !emulated ? " *" : "");
}

/* ministat-style plot of the samples of one metric (lib/plot.c) */
static void plot_metric(const struct compare *c, const struct result_metric **ms)
{
	struct plot_series ps[MAX_SIDES];

	for (size_t i = 0; i < c->nsides; i++)
		ps[i] = (struct plot_series){
			.label = c->sides[i].label,
			.samples = ms[i] ? ms[i]->samples : NULL,
			.n = ms[i] ? ms[i]->n : 0,
			.st = ms[i] ? &ms[i]->st : NULL,
		};
	if (c->o.markdown)
		printf("```\n");
	plot_ascii(stdout, ps, c->nsides, WIDTH);
	printf("%s\n", c->o.markdown ? "```" : "");
}

/* "getpid: base avg 770.0 ns, patched avg 1340.0 ns (74.0% increase, significant)" */
static void paste_line(const struct compare *c, const struct result_metric **ms,
		       const struct cmp *xs, const bool *emulated, char *buf,
		       size_t len)
{
	const struct result_metric *first = NULL;
	bool any = false;
	size_t n;

	for (size_t i = 0; i < c->nsides && !first; i++)
		first = ms[i];
	n = snprintf(buf, len, "%s:", first->label ? first->label : first->name);
	for (size_t i = 0; i < c->nsides && n < len; i++) {
		char v[32];

		if (!ms[i] || !ms[i]->n) {
			n += snprintf(buf + n, len - n, "%s %s %s", any ? "," : "",
				      c->sides[i].label, ms[i] ? "no samples" : "not measured");
			any = true;
			continue;
		}
		n += snprintf(buf + n, len - n, "%s %s avg %s %s", any ? "," : "",
			      c->sides[i].label, num(v, sizeof(v), ms[i]->st.mean),
			      ms[i]->unit);
		any = true;
		if (!i || n >= len)
			continue;
		if (!ms[0] || !ms[0]->n)
			n += snprintf(buf + n, len - n, " (not in %s)", c->sides[0].label);
		else if (!xs[i].tested)
			n += snprintf(buf + n, len - n, " (no test: %s)", xs[i].why_not);
		else
			n += snprintf(buf + n, len - n, " (%.1f%% %s, %s)",
				      fabs(xs[i].change_pct), cmp_direction(&xs[i]),
				      emulated[i] ? "emulated, undecided" :
				      xs[i].significant ? "significant" : "not significant");
	}
}

static void compare_program(struct compare *c, const char *prog, char (*paste)[512],
			    size_t *npaste)
{
	const struct result *rs[MAX_SIDES];

	for (size_t i = 0; i < c->nsides; i++)
		rs[i] = side_find(&c->sides[i], prog);
	for (size_t i = 0; i < c->nsides; i++) {
		if (!rs[i])
			printf("%s%s: not in %s\n", c->o.markdown ? "- " : "", prog,
			       c->sides[i].label);
		else if (rs[i]->exit_code == 4)
			printf("%s%s: skipped in %s\n", c->o.markdown ? "- " : "", prog,
			       c->sides[i].label);
	}
	/* every metric of any side, in the order of first appearance */
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; rs[i] && k < rs[i]->nmetrics; k++) {
			const char *name = rs[i]->metrics[k].name;
			const struct result_metric *ms[MAX_SIDES];
			struct cmp xs[MAX_SIDES] = { 0 };
			bool emu[MAX_SIDES] = { 0 };
			bool seen = false;
			enum better better = rs[i]->metrics[k].better;

			for (size_t j = 0; j < i; j++)
				seen |= rs[j] && result_metric_find(rs[j], name);
			if (seen)
				continue;
			for (size_t j = 0; j < c->nsides; j++)
				ms[j] = rs[j] ? result_metric_find(rs[j], name) : NULL;
			if (c->o.markdown)
				printf("\n#### %s: %s (%s, %s)\n\n|kernel|n|mean|median|CoV|change|95%% CI||\n|---|--:|--:|--:|--:|--:|--:|---|\n",
				       prog, name, rs[i]->metrics[k].unit, better_words(better));
			else
				printf("%s: %s (%s, %s)\n  %-8s %4s %9s %9s %6s %7s %7s\n",
				       prog, name, rs[i]->metrics[k].unit, better_words(better),
				       "kernel", "n", "mean", "median", "CoV", "change", "95% CI");
			for (size_t j = 0; j < c->nsides; j++) {
				row_stats(c, c->sides[j].label, ms[j]);
				if (!ms[j])
					continue;
				if (!j || !ms[0]) {
					row_change(c, NULL, better, false);
					continue;
				}
				cmp_metrics(&ms[0]->st, &ms[j]->st, &xs[j]);
				emu[j] = emulated_timing(c, rs[0], rs[j], ms[j]);
				row_change(c, &xs[j], better, emu[j]);
				if (c->nkc < ARRAY_SIZE(c->kc)) {
					struct kcidb_cmp *kc = &c->kc[c->nkc++];

					kc->res = rs[j];
					kc->metric = ms[j];
					kc->base_label = c->sides[0].label;
					kc->c = xs[j];
					kc->threshold_pct = c->o.threshold_pct;
					kc->verdict = cmp_bisect(&xs[j], better,
								 c->o.threshold_pct, &kc->why);
					if (emu[j]) {
						kc->verdict = BISECT_UNDECIDED;
						kc->why = EMULATED_WHY;
					}
				}
			}
			if (c->o.plot)
				plot_metric(c, ms);
			if (!c->o.markdown)
				printf("\n");
			if (*npaste < 64)
				paste_line(c, ms, xs, emu, paste[(*npaste)++],
					   sizeof(paste[0]));
		}
	}
}

/* Each result must share a program with the base: else nothing compares. */
static void check_common_program(const struct compare *c)
{
	for (size_t i = 1; i < c->nsides; i++) {
		const struct side *s = &c->sides[i];
		bool common = false;

		for (size_t k = 0; k < s->nres && !common; k++)
			common = side_find(&c->sides[0], s->res[k].program);
		if (!common)
			die(c, "%s (%s) and %s (%s) have no program in common: nothing to compare",
			    c->sides[0].path, c->sides[0].res[0].program, s->path,
			    s->res[0].program);
	}
}

static void compare_all(struct compare *c)
{
	char (*paste)[512];
	size_t npaste = 0;

	check_common_program(c);
	paste = calloc(64, sizeof(*paste));
	if (!paste)
		die(c, "out of memory");
	print_context(c);
	/* programs in the base's order, then those only elsewhere */
	for (size_t i = 0; i < c->nsides; i++) {
		for (size_t k = 0; k < c->sides[i].nres; k++) {
			const char *prog = c->sides[i].res[k].program;
			bool seen = false;

			for (size_t j = 0; j < i; j++)
				seen |= side_find(&c->sides[j], prog) != NULL;
			if (!seen)
				compare_program(c, prog, paste, &npaste);
		}
	}
	if (c->o.markdown)
		printf("\n");
	printf("%s(* significant: Welch's t-test p < %.2f; CI of the change: 95%%)\n\n",
	       c->o.markdown ? "" : "", CMP_ALPHA);
	if (c->o.markdown)
		printf("```\n");
	/* mail wraps at 72 columns: continuation lines are indented */
	for (size_t i = 0; i < npaste; i++)
		print_wrapped("", paste[i], 16, 2);
	if (c->o.markdown)
		printf("```\n");
	free(paste);
}

/* The metric to judge: --metric, else the first with a better direction. */
static const struct result_metric *bisect_metric(const struct compare *c,
						 const struct result *base)
{
	if (c->o.metric) {
		const struct result_metric *m = result_metric_find(base, c->o.metric);

		if (!m)
			return NULL;
		if (m->better == BETTER_NONE)
			die(c, "%s: metric %s has no better direction to bisect on",
			    base->path, m->name);
		return m;
	}
	for (size_t i = 0; i < base->nmetrics; i++)
		if (base->metrics[i].better != BETTER_NONE)
			return &base->metrics[i];
	return NULL;
}

static int bisect(struct compare *c)
{
	const struct side *bs = &c->sides[0], *ns = &c->sides[1];
	int verdict = BISECT_GOOD, judged = 0;

	printf("bisect: %s against baseline %s, threshold %g%% (Welch's t-test, 95%% CI)\n",
	       ns->path, bs->path, c->o.threshold_pct);
	for (size_t i = 0; i < ns->nres; i++) {
		const struct result *n = &ns->res[i], *b = side_find(bs, n->program);
		const struct result_metric *bm, *nm;
		enum bisect_verdict v;
		const char *why;
		struct cmp x;
		char bv[32], nv[32];

		if (!b) {
			if (c->o.metric)
				continue;	/* another program's metric */
			die(c, "baseline %s has no result of %s", bs->path, n->program);
		}
		bm = bisect_metric(c, b);
		if (!bm) {
			if (c->o.metric)
				continue;
			die(c, "baseline %s: %s has no metric with better lower|higher",
			    b->path, b->program);
		}
		judged++;
		nm = result_metric_find(n, bm->name);
		if (n->exit_code == 4 || !nm || !nm->n) {
			printf("bisect: %s %s: %s: undecided\n", n->program, bm->name,
			       n->exit_code == 4 ? "the test skipped" : "not measured");
			verdict = verdict == BISECT_BAD ? verdict : BISECT_UNDECIDED;
			continue;
		}
		cmp_metrics(&bm->st, &nm->st, &x);
		v = cmp_bisect(&x, bm->better, c->o.threshold_pct, &why);
		if (emulated_timing(c, b, n, nm)) {
			v = BISECT_UNDECIDED;
			why = EMULATED_WHY;
		}
		if (c->nkc < ARRAY_SIZE(c->kc))
			c->kc[c->nkc++] = (struct kcidb_cmp){
				.res = n, .metric = nm, .base_label = bs->label,
				.c = x, .verdict = v, .why = why,
				.threshold_pct = c->o.threshold_pct };
		if (x.tested)
			printf("bisect: %s %s: baseline %s %s, now %s %s, %+.1f%% +-%.1f%% (%s): %s\n",
			       n->program, bm->name, num(bv, sizeof(bv), bm->st.mean),
			       bm->unit, num(nv, sizeof(nv), nm->st.mean), nm->unit,
			       x.change_pct, x.ci_pct, cmp_judgement(&x, bm->better),
			       v == BISECT_GOOD ? "good" : v == BISECT_BAD ? "bad" : "undecided");
		else
			printf("bisect: %s %s: undecided\n", n->program, bm->name);
		printf("bisect:   %s\n", why);
		if (v == BISECT_BAD)
			verdict = BISECT_BAD;
		else if (v == BISECT_UNDECIDED && verdict == BISECT_GOOD)
			verdict = BISECT_UNDECIDED;
	}
	/* a program the baseline has and the new side lacks: not judged */
	for (size_t i = 0; i < bs->nres; i++) {
		const struct result *b = &bs->res[i];

		if (side_find(ns, b->program) ||
		    (c->o.metric && !result_metric_find(b, c->o.metric)))
			continue;
		printf("bisect: %s: no result in %s: undecided\n", b->program,
		       ns->path);
		judged++;
		if (verdict == BISECT_GOOD)
			verdict = BISECT_UNDECIDED;
	}
	if (!judged)
		die(c, "metric %s is in no result of the baseline %s", c->o.metric,
		    bs->path);
	printf("bisect: verdict %s (exit %d)\n", verdict == BISECT_GOOD ? "good" :
	       verdict == BISECT_BAD ? "bad" : "undecided, skip this commit", verdict);
	return verdict;
}

static void write_kcidb(struct compare *c)
{
	const struct result *rs[MAX_SIDES * MAX_RESULTS];
	char err[PATH_MAX + 128];
	struct outfile out;
	size_t n = 0;

	/* written beside the file and renamed into place when complete */
	if (outfile_open(&out, c->o.kcidb, err, sizeof(err)))
		die(c, "--kcidb %s", err);
	/* the base is the reference, not a result of this run */
	for (size_t i = c->nsides > 1; i < c->nsides; i++)
		for (size_t k = 0; k < c->sides[i].nres; k++)
			rs[n++] = &c->sides[i].res[k];
	if (kcidb_write(out.f, rs, n, c->kc, c->nkc, c->o.kcidb_build)) {
		outfile_abort(&out);
		die(c, "--kcidb %s: %s", c->o.kcidb, strerror(errno));
	}
	if (outfile_commit(&out, err, sizeof(err)))
		die(c, "--kcidb %s", err);
}

int main(int argc, char **argv)
{
	struct compare *c = calloc(1, sizeof(*c));
	int ret = 0;

	if (!c)
		return EXIT_USAGE;
	c->error_exit = EXIT_USAGE;
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
				die(c, "%s: %s", c->sides[i].path, strerror(errno));
			if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				die(c, "%s: not a regular file or a directory",
				    c->sides[i].path);
			c->error_exit = BISECT_UNDECIDED;
		}
		side_load(c, &c->sides[i]);
	}
	c->error_exit = c->o.bisect ? BISECT_ERROR : EXIT_USAGE;
	side_labels(c);
	if (c->o.bisect)
		ret = bisect(c);
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
