/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One declarative option table per program; this file turns it into
 * getopt_long, --help and range errors, and adds the common options of
 * the suite with one spelling everywhere.
 */
#ifndef ISOLBENCH_OPTS_H
#define ISOLBENCH_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/cpu.h"

struct bench;

enum opt_type {
	OPT_FLAG,	/* bool, no argument */
	OPT_UINT,	/* uint64_t in [min, max] */
	OPT_INT,	/* int64_t in [min, max] */
	OPT_DOUBLE,	/* double in [min, max] */
	OPT_STRING,	/* const char * */
	OPT_CPULIST,	/* cpu_mask_t, kernel cpulist syntax */
	OPT_CHOICE,	/* int index into choices[] */
	OPT_FILE,	/* const char *, an existing readable regular file */
};

struct opt {
	const char *name;	/* long name */
	int key;		/* short option character, or 0 */
	enum opt_type type;
	void *dest;
	bool *given;		/* set when the user gave it, may be NULL */
	const char *arg;	/* placeholder with unit: "N", "SECS", "US" */
	const char *help;
	double min, max;
	const char *const *choices;	/* NULL-terminated, for OPT_CHOICE */
};

/* The common options (design.md), chosen per program by these bits. */
enum {
	COMMON_CPU		= 1 << 0,	/* -c, --cpu */
	COMMON_HOUSEKEEPING	= 1 << 1,	/* --housekeeping */
	COMMON_LOOPS		= 1 << 2,	/* -n, --loops */
	COMMON_RUNS		= 1 << 3,	/* -r, --runs */
	COMMON_DURATION		= 1 << 4,	/* -D, --duration */
	COMMON_LOAD		= 1 << 5,	/* --load, --load-kind */
	/* always present: -o, --quick, -q, -v, --wait, -h, --version */
};

struct common_opts {
	cpu_mask_t cpus;
	cpu_mask_t housekeeping;
	uint64_t loops;
	uint64_t runs;
	double duration_s;
	bool load;
	int load_kind;		/* enum load_kind; default LOAD_RTEVAL */
	const char *output;
	bool quick;
	bool quiet;
	bool verbose;
	bool wait;		/* for target CPUs another run holds */
	bool cpus_given, housekeeping_given, loops_given, runs_given;
	bool duration_given, load_kind_given;
	/* the rules refuse --cpu with these options: no target CPU is used */
	bool cpus_unused;
	char **operands;	/* what follows the options (spec->operands) */
	int noperands;
};

/*
 * Options that do not go together, or that would do nothing without
 * another, declared once per program and checked after parsing (a usage
 * error, exit 1). A term is an option's long name, true when given
 * (with any value, the default's too); "name=value" is true when an
 * OPT_CHOICE option has that value (given or by default), "name!=value"
 * when it was given with another value; "a&b" holds when both do, "a|b"
 * when either does ('&' binds first: "a&b|c" is "(a&b)|c").
 *	{ "pairs", OPT_CONFLICTS, "pair" }	--pairs and --pair exclude each other
 *	{ "all", OPT_NEEDS, "mode=kmod" }	--all only with --mode kmod
 *	{ "housekeeping&pairs", OPT_NEEDS, "load" }
 *		"--housekeeping with --pairs needs --load"
 * --list-options leaves out an option that a rule would refuse because
 * it is given, with the options before it on the command line.
 */
enum opt_rule_kind { OPT_CONFLICTS, OPT_NEEDS };

struct opt_rule {
	const char *opt;
	enum opt_rule_kind kind;
	const char *other;
};

struct prog_spec {
	const char *name;
	const char *summary;	/* one line: what it measures */
	unsigned int common;	/* COMMON_* bits */
	/* defaults for the help text of the common numeric options */
	const struct opt *opts;	/* terminated by { .name = NULL } */
	const struct opt_rule *rules;	/* terminated by { NULL }, may be NULL */
	/*
	 * The --help text of a common option this program gives a narrower
	 * meaning ({ "loops", "cyclic: wakeups per run" }), may be NULL.
	 */
	const struct opt_help {
		const char *name, *help;
	} *common_help;		/* terminated by { NULL } */
	/*
	 * The program's CPUs. The common rule: the targets from --cpu or
	 * the default rule, housekeeping the others, the targets locked.
	 * @one_cpu: the program measures one CPU, the first target.
	 * @cpu_plan: its options decide more (pairs, a watched set, every
	 * allowed CPU): called by bench_init after the common rule, with
	 * @ctx (the program's option values), before the CPUs are printed,
	 * locked and recorded, once. It may change b->opt.cpus and
	 * b->opt.housekeeping and fill b->watched, b->pairs and b->locked;
	 * bad input: bench_usage_error(), no such CPUs: bench_skip().
	 */
	bool one_cpu;
	void (*cpu_plan)(struct bench *b, void *ctx);
	void *ctx;
	/*
	 * --quick: the sizes of a short smoke run, each used unless the
	 * user gave that option (0: the program's default stays).
	 */
	struct {
		uint64_t loops, runs;
		double duration_s;
	} quick;
	/*
	 * A tool, not a kselftest (compare): the operands it takes after
	 * the options ("BASE RESULT..."), none of the common options, the
	 * exit status of a usage error (0: 1, kselftest's) and the help's
	 * text about exit statuses.
	 */
	const char *operands;
	int usage_exit;
	const char *exit_help;
};

/*
 * Parse @argv into @co and the program's table. --help and --version
 * print and exit 0; any bad option or value prints one line on stderr
 * and exits 1 (kselftest: a usage error is a failure).
 */
void opts_parse(const struct prog_spec *spec, struct common_opts *co,
		int argc, char **argv);

#endif
