// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/ktap.h"
#include "../load/load.h"
#include "../result/result_write.h"
#include "opts.h"
#include "../base/util.h"

#define OPTS_MAX		64
#define KEY_LONG_ONLY		256

/*
 * The common options (design.md): each with the fields of struct
 * common_opts it fills and its COMMON_* bit (0: every program has it).
 */
static const struct common_def {
	size_t dest;
	size_t given;
	bool has_given;
	unsigned int bit;
	struct opt opt;
} common_defs[] = {
	{ .dest = offsetof(struct common_opts, cpus),
	  .given = offsetof(struct common_opts, cpus_given), .has_given = true,
	  .bit = COMMON_CPU,
	  .opt = { .name = "cpu", .key = 'c', .type = OPT_CPULIST, .arg = "CPULIST",
		  .help = "target CPU(s), kernel cpulist syntax (default: first nohz_full, else first isolated, else highest online CPU)" } },
	{ .dest = offsetof(struct common_opts, housekeeping),
	  .given = offsetof(struct common_opts, housekeeping_given), .has_given = true,
	  .bit = COMMON_HOUSEKEEPING,
	  .opt = { .name = "housekeeping", .type = OPT_CPULIST, .arg = "CPULIST",
		  .help = "where load and helpers run (default: the other CPUs)" } },
	{ .dest = offsetof(struct common_opts, loops),
	  .given = offsetof(struct common_opts, loops_given), .has_given = true,
	  .bit = COMMON_LOOPS,
	  .opt = { .name = "loops", .key = 'n', .type = OPT_UINT, .arg = "N",
		  .help = "iterations per run", .min = 1, .max = 1e12 } },
	{ .dest = offsetof(struct common_opts, runs),
	  .given = offsetof(struct common_opts, runs_given), .has_given = true,
	  .bit = COMMON_RUNS,
	  .opt = { .name = "runs", .key = 'r', .type = OPT_UINT, .arg = "N",
		  .help = "repeated runs", .min = 1, .max = 10000 } },
	{ .dest = offsetof(struct common_opts, duration_s),
	  .given = offsetof(struct common_opts, duration_given), .has_given = true,
	  .bit = COMMON_DURATION,
	  .opt = { .name = "duration", .key = 'D', .type = OPT_DOUBLE, .arg = "SECS",
		  .help = "length of time-bounded phases", .min = 0.001,
		  .max = 7 * 24 * 3600 } },
	{ .dest = offsetof(struct common_opts, load), .bit = COMMON_LOAD,
	  .opt = { .name = "load", .type = OPT_FLAG,
		  .help = "run the built-in housekeeping load meanwhile" } },
	{ .dest = offsetof(struct common_opts, load_kind),
	  .given = offsetof(struct common_opts, load_kind_given), .has_given = true,
	  .bit = COMMON_LOAD,
	  .opt = { .name = "load-kind", .type = OPT_CHOICE, .arg = "KIND",
		  .help = "which load --load runs (implies --load): rteval = hackbench-style messaging and a compile-like stream of short-lived processes, as the IPI-deferral series' rteval (default); messaging = messaging and CPU burners; compile = the process stream only",
		  .choices = load_kind_names } },
	{ .dest = offsetof(struct common_opts, output), .bit = 0,
	  .opt = { .name = "output", .key = 'o', .type = OPT_STRING, .arg = "FILE",
		  .help = "write the JSON result to FILE" } },
	{ .dest = offsetof(struct common_opts, quick), .bit = 0,
	  .opt = { .name = "quick", .type = OPT_FLAG, .help = "short smoke run" } },
	{ .dest = offsetof(struct common_opts, quiet), .bit = 0,
	  .opt = { .name = "quiet", .key = 'q', .type = OPT_FLAG, .help = "less output" } },
	{ .dest = offsetof(struct common_opts, verbose), .bit = 0,
	  .opt = { .name = "verbose", .key = 'v', .type = OPT_FLAG, .help = "more output" } },
	{ .dest = offsetof(struct common_opts, wait), .bit = 0,
	  .opt = { .name = "wait", .type = OPT_FLAG,
		  .help = "when another isolbench run holds a target CPU, wait for it (default: skip)" } },
};

/* The common options bound to one struct common_opts (opts_parse). */
static struct opt common_table[ARRAY_SIZE(common_defs)];

static void common_bind(struct common_opts *co)
{
	for (size_t i = 0; i < ARRAY_SIZE(common_defs); i++) {
		const struct common_def *d = &common_defs[i];

		common_table[i] = d->opt;
		common_table[i].dest = (char *)co + d->dest;
		common_table[i].given = d->has_given ? (bool *)((char *)co + d->given) : NULL;
	}
}

static bool common_wanted(const struct prog_spec *spec, size_t i)
{
	if (spec->operands)	/* a tool takes none of them */
		return false;
	return !common_defs[i].bit || (spec->common & common_defs[i].bit);
}

/* A usage error: one line on stderr, the program's usage exit status. */
static noreturn void opts_usage(const struct prog_spec *spec, const char *fmt, ...)
	__ktap_printf(2, 3);

static noreturn void opts_usage(const struct prog_spec *spec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	exit_usage_status(spec->usage_exit ? spec->usage_exit : KSFT_FAIL,
			  spec->name, fmt, ap);
}

static void opt_default_str(const struct opt *o, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (o->type) {
	case OPT_UINT:
		snprintf(buf, len, " (default %llu)",
			 (unsigned long long)*(uint64_t *)o->dest);
		break;
	case OPT_INT:
		snprintf(buf, len, " (default %lld)",
			 (long long)*(int64_t *)o->dest);
		break;
	case OPT_DOUBLE:
		snprintf(buf, len, " (default %g)", *(double *)o->dest);
		break;
	case OPT_STRING:
	case OPT_FILE:
		if (*(const char **)o->dest)
			snprintf(buf, len, " (default %s)",
				 *(const char **)o->dest);
		break;
	case OPT_CHOICE:
		snprintf(buf, len, " (default %s)",
			 o->choices[*(int *)o->dest]);
		break;
	default:
		break;
	}
}

static bool opt_is_common(const struct opt *o)
{
	return o >= common_table && o < common_table + ARRAY_SIZE(common_table);
}

/* One line of --help; @help, when not NULL, in place of the table's. */
static void opt_help_line(const struct opt *o, const char *help)
{
	char left[64], def[96] = "", choices[256] = "";

	if (!help)
		help = o->help;
	if (o->key)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	/*
	 * A help text that names its own default keeps it; a common option
	 * left at 0 means "the program decides" and says nothing.
	 */
	if (!strstr(help, "default"))
		opt_default_str(o, def, sizeof(def));
	if (opt_is_common(o) && strstr(def, "(default 0)"))
		def[0] = '\0';
	if (o->type == OPT_CHOICE) {
		size_t off = snprintf(choices, sizeof(choices), "; one of");

		for (int i = 0; o->choices[i]; i++)
			off += snprintf(choices + off, sizeof(choices) - off,
					" %s", o->choices[i]);
	}
	printf("  %-30s %s%s%s\n", left, help, choices, def);
}

static void opts_help(const struct prog_spec *spec)
{
	printf("Usage: %s [OPTION]...%s%s\n%s\n\nOptions:\n", spec->name,
	       spec->operands ? " " : "", spec->operands ? spec->operands : "",
	       spec->summary);
	for (const struct opt *o = spec->opts; o && o->name; o++)
		opt_help_line(o, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(common_table); i++) {
		const char *help = NULL;

		if (!common_wanted(spec, i))
			continue;
		for (const struct opt_help *h = spec->common_help; h && h->name; h++)
			if (!strcmp(h->name, common_table[i].name))
				help = h->help;
		opt_help_line(&common_table[i], help);
	}
	printf("  %-30s %s\n  %-30s %s\n  %-30s %s\n", "-h, --help", "this help",
	       "    --version", "print the version", "    --list-options",
	       "the options, one per line (for run.sh)");
	if (spec->exit_help) {
		printf("\n%s\n", spec->exit_help);
		return;
	}
	printf("\nExit status: 0 pass, 1 fail or usage error, 4 skip (kselftest);\n"
	       "interrupted by SIGINT/SIGTERM/SIGHUP: reports and saves what it measured,\n"
	       "then ends by that signal (status 128 + signal). stdout's reader gone\n"
	       "(| head): measures and saves to the end, then exits 141 (SIGPIPE).\n");
}

static void opt_store(const struct prog_spec *spec, const struct opt *o,
		      const char *val)
{
	char err[160];
	struct stat st;
	int64_t i;
	double d;
	int ret;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->dest = true;
		break;
	case OPT_UINT:
	case OPT_INT:
		/* the number syntax of every option: 1e3 is 1000 */
		ret = parse_whole(val, &i);
		if (ret == NUM_SYNTAX)
			opts_usage(spec, "--%s: '%s' is not a number", o->name, val);
		if (ret == NUM_FRACTION)
			opts_usage(spec, "--%s: '%s' is not a whole number",
				   o->name, val);
		if (ret || i < o->min || i > o->max)
			opts_usage(spec, "--%s: %s is out of range (%.0f..%.0f)",
				   o->name, val, o->min, o->max);
		if (o->type == OPT_UINT)
			*(uint64_t *)o->dest = i;
		else
			*(int64_t *)o->dest = i;
		break;
	case OPT_DOUBLE:
		if (parse_double(val, &d))
			opts_usage(spec, "--%s: '%s' is not a number",
				   o->name, val);
		if (d < o->min || d > o->max)
			opts_usage(spec, "--%s: %s is out of range (%g..%g)",
				   o->name, val, o->min, o->max);
		*(double *)o->dest = d;
		break;
	case OPT_STRING:
		if (!*val)
			opts_usage(spec, "--%s: empty value", o->name);
		*(const char **)o->dest = val;
		break;
	case OPT_FILE:
		if (!*val)
			opts_usage(spec, "--%s: empty value", o->name);
		if (stat(val, &st))
			opts_usage(spec, "--%s %s: %s", o->name, val,
				   strerror(errno));
		if (!S_ISREG(st.st_mode))
			opts_usage(spec, "--%s %s: not a regular file",
				   o->name, val);
		if (access(val, R_OK))
			opts_usage(spec, "--%s %s: %s", o->name, val,
				   strerror(errno));
		*(const char **)o->dest = val;
		break;
	case OPT_CPULIST:
		if (cpu_mask_parse(val, o->dest, err, sizeof(err)))
			opts_usage(spec, "--%s: %s", o->name, err);
		break;
	case OPT_CHOICE:
		for (int k = 0; o->choices[k]; k++) {
			if (!strcmp(val, o->choices[k])) {
				*(int *)o->dest = k;
				goto stored;
			}
		}
		opts_usage(spec, "--%s: unknown value '%s'", o->name,
			   val);
	}
stored:
	if (o->given)
		*o->given = true;
}

/* Options of every program that exclude each other. */
static const struct opt_rule common_rules[] = {
	{ "quiet", OPT_CONFLICTS, "verbose" },
	{ NULL }
};

struct parsed {
	const struct opt *table[OPTS_MAX];
	bool given[OPTS_MAX];
	int n;
};

static int parsed_find(const struct parsed *ps, const char *name, size_t len)
{
	for (int i = 0; i < ps->n; i++)
		if (strlen(ps->table[i]->name) == len &&
		    !strncmp(ps->table[i]->name, name, len))
			return i;
	return -1;
}

/*
 * Whether the one term @term (up to @tlen) holds; "--name VALUE" as
 * the user wrote it in @text. A term naming an option this program
 * lacks is a programming error.
 */
static bool rule_term1(const struct parsed *ps, const char *term, size_t tlen,
		       char *text, size_t len)
{
	size_t nlen = strcspn(term, "!=|&");
	const char *val, *cur;
	const struct opt *o;
	size_t vlen;
	bool same;
	int i;

	if (nlen > tlen)
		nlen = tlen;
	val = nlen == tlen ? NULL : term[nlen] == '!' ? term + nlen + 2 :
	      term[nlen] == '=' ? term + nlen + 1 : NULL;
	i = parsed_find(ps, term, nlen);
	if (i < 0)
		abort();
	o = ps->table[i];
	if (!val) {
		snprintf(text, len, "--%s", o->name);
		return ps->given[i];
	}
	if (o->type != OPT_CHOICE)
		abort();
	cur = o->choices[*(int *)o->dest];
	vlen = term + tlen - val;
	same = strlen(cur) == vlen && !strncmp(cur, val, vlen);
	snprintf(text, len, "--%s %.*s", o->name,
		 term[nlen] == '!' ? (int)strlen(cur) : (int)vlen,
		 term[nlen] == '!' ? cur : val);
	if (term[nlen] == '!')
		return ps->given[i] && !same;
	return same;	/* given or by default */
}

/*
 * Whether the terms "a&b" (up to @tlen) all hold; @text names them:
 * "--a with --b", "--a with --b and --c".
 */
static bool rule_conj(const struct parsed *ps, const char *conj, size_t tlen,
		      char *text, size_t len)
{
	const char *end = conj + tlen;
	bool all = true;
	size_t used = 0;
	int k = 0;

	text[0] = '\0';
	for (const char *t = conj; t < end; k++) {
		size_t n = strcspn(t, "&|");
		char one[96];

		if (n > (size_t)(end - t))
			n = end - t;
		all &= rule_term1(ps, t, n, one, sizeof(one));
		if (used < len)
			used += snprintf(text + used, len - used, "%s%s",
					 !k ? "" : k == 1 ? " with " : " and ", one);
		t += n + (t + n < end);
	}
	return all;
}

/*
 * Whether @term holds: one term, a conjunction "a&b", or alternatives
 * "a|b" of those ('&' binds first; true when one holds, which @text
 * then names; else @text names them all).
 */
static bool rule_term(const struct parsed *ps, const char *term, char *text,
		      size_t len)
{
	size_t used = 0;

	for (const char *t = term; *t; t += *t == '|') {
		size_t tlen = strcspn(t, "|");
		char one[192];

		if (rule_conj(ps, t, tlen, one, sizeof(one))) {
			snprintf(text, len, "%s", one);
			return true;
		}
		if (used < len)
			used += snprintf(text + used, len - used, "%s%s",
					 t == term ? "" : " or ", one);
		t += tlen;
	}
	return false;
}

static void rules_check(const struct prog_spec *spec, const struct parsed *ps,
			const struct opt_rule *r)
{
	char a[256], b[256];

	for (; r && r->opt; r++) {
		if (!rule_term(ps, r->opt, a, sizeof(a)))
			continue;
		if (r->kind == OPT_CONFLICTS && rule_term(ps, r->other, b, sizeof(b)))
			opts_usage(spec, "%s and %s do not go together",
				   a, b);
		if (r->kind == OPT_NEEDS && !rule_term(ps, r->other, b, sizeof(b)))
			opts_usage(spec, "%s needs %s", a, b);
	}
}

/* Whether rule @r refuses the options of @ps. */
static bool rule_refuses(const struct parsed *ps, const struct opt_rule *r)
{
	char t[256];

	if (!rule_term(ps, r->opt, t, sizeof(t)))
		return false;
	return rule_term(ps, r->other, t, sizeof(t)) == (r->kind == OPT_CONFLICTS);
}

/* Whether @name is one of the plain option names of @term ("a&b|c"). */
static bool term_names(const char *term, const char *name)
{
	size_t n = strlen(name);

	for (const char *t = term; *t; t += *t == '|' || *t == '&') {
		size_t tlen = strcspn(t, "|&");

		if (tlen == n && !strncmp(t, name, n))
			return true;
		t += tlen;
	}
	return false;
}

/*
 * Whether a rule that names option @i refuses the options given so far
 * because @i is among them: it conflicts with one that holds (either
 * side of the rule), or needs one that does not. What it refuses
 * anyway is not @i's doing.
 */
static bool rules_exclude(const struct parsed *ps, const struct opt_rule *r, int i)
{
	const char *name = ps->table[i]->name;
	struct parsed with = *ps, without = *ps;

	with.given[i] = true;
	without.given[i] = false;
	for (; r && r->opt; r++)
		if ((term_names(r->opt, name) || term_names(r->other, name)) &&
		    rule_refuses(&with, r) && !rule_refuses(&without, r))
			return true;
	return false;
}

/*
 * --list-options, for run.sh: one line per option, "--NAME -K ARG" (K
 * the short key or "-" alone, ARG 1 when it takes a value, else 0).
 * The options before it count: "ipistorm --mode watch --list-options"
 * leaves out those the watch refuses.
 */
static void opts_list(const struct prog_spec *spec, const struct parsed *ps)
{
	for (int i = 0; i < ps->n; i++) {
		const struct opt *o = ps->table[i];

		if (rules_exclude(ps, spec->rules, i) ||
		    (!spec->operands && rules_exclude(ps, common_rules, i)))
			continue;
		printf("--%s %s%c %d\n", o->name, o->key ? "-" : "",
		       o->key ? o->key : '-', o->type != OPT_FLAG);
	}
	printf("--help -h 0\n--version - 0\n--list-options - 0\n");
}

/* --quick: the program's smoke-run sizes where the user gave none. */
static void quick_sizes(const struct prog_spec *spec, struct common_opts *co)
{
	if (spec->quick.loops && !co->loops_given)
		co->loops = spec->quick.loops;
	if (spec->quick.runs && !co->runs_given)
		co->runs = spec->quick.runs;
	if (spec->quick.duration_s && !co->duration_given)
		co->duration_s = spec->quick.duration_s;
}

/*
 * The program's table and the common options it takes, as getopt_long's
 * long options and short option string (the short keys, ':' after those
 * that take a value); help, version and list-options last.
 */
static void getopt_tables(const struct prog_spec *spec, struct parsed *ps,
			  struct option *lopts, char *sopts)
{
	int n;

	for (const struct opt *o = spec->opts; o && o->name; o++)
		ps->table[ps->n++] = o;
	for (size_t i = 0; i < ARRAY_SIZE(common_table); i++)
		if (common_wanted(spec, i))
			ps->table[ps->n++] = &common_table[i];
	n = ps->n;
	for (int i = 0; i < n; i++) {
		const struct opt *o = ps->table[i];
		int has_arg = o->type == OPT_FLAG ? no_argument : required_argument;

		lopts[i] = (struct option){ o->name, has_arg, NULL,
					    o->key ? o->key : KEY_LONG_ONLY + i };
		if (o->key) {
			size_t l = strlen(sopts);

			sopts[l++] = o->key;
			if (has_arg)
				sopts[l++] = ':';
			sopts[l] = '\0';
		}
	}
	lopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n++] = (struct option){ "version", no_argument, NULL, KEY_LONG_ONLY + OPTS_MAX };
	lopts[n++] = (struct option){ "list-options", no_argument, NULL,
				      KEY_LONG_ONLY + OPTS_MAX + 1 };
	lopts[n] = (struct option){ 0 };
}

/* getopt_long returned '?' or ':': name the option as the user wrote it. */
static noreturn void bad_option(const struct prog_spec *spec, int c, char **argv)
{
	const char *what = c == '?' ? "unknown option" : "missing value for";
	const char *arg = argv[optind - 1];

	/* a long option: name it as written, not by its key */
	if (!strncmp(arg, "--", 2) && c == '?' && optopt)
		opts_usage(spec, "option '%.*s' takes no value ('%s')",
			   (int)strcspn(arg, "="), arg, arg);
	if (!strncmp(arg, "--", 2))
		opts_usage(spec, "%s '%s' (see --help)", what, arg);
	if (optopt && optopt < KEY_LONG_ONLY)
		opts_usage(spec, "%s '-%c' (see --help)", what, optopt);
	opts_usage(spec, "%s '%s' (see --help)", what, arg);
}

void opts_parse(const struct prog_spec *spec, struct common_opts *co,
		int argc, char **argv)
{
	struct option lopts[OPTS_MAX + 4];
	struct parsed ps = { .n = 0 };
	char sopts[3 * OPTS_MAX + 8] = ":h";
	bool list = false;
	int c;

	common_bind(co);
	getopt_tables(spec, &ps, lopts, sopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == 'h') {
			opts_help(spec);
			exit(KSFT_PASS);
		}
		if (c == KEY_LONG_ONLY + OPTS_MAX) {
			printf("%s (isolbench) %s\n", spec->name, isolbench_version());
			exit(KSFT_PASS);
		}
		if (c == KEY_LONG_ONLY + OPTS_MAX + 1) {
			list = true;	/* after the options that follow it too */
			continue;
		}
		if (c == '?' || c == ':')
			bad_option(spec, c, argv);
		for (int i = 0; i < ps.n; i++) {
			if (lopts[i].val == c) {
				opt_store(spec, ps.table[i], optarg);
				ps.given[i] = true;
				break;
			}
		}
	}
	if (list) {
		opts_list(spec, &ps);
		exit(KSFT_PASS);
	}
	if (optind < argc && !spec->operands)
		opts_usage(spec, "unexpected argument '%s' (see --help)",
			   argv[optind]);
	co->operands = argv + optind;
	co->noperands = argc - optind;
	if (co->load_kind_given)
		co->load = true;
	if (co->quick)
		quick_sizes(spec, co);
	if (!spec->operands)
		rules_check(spec, &ps, common_rules);
	rules_check(spec, &ps, spec->rules);
	for (int i = 0; i < ps.n; i++)
		if (ps.table[i]->dest == &co->cpus)
			co->cpus_unused = rules_exclude(&ps, spec->rules, i);
}
