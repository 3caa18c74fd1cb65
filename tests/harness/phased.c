// SPDX-License-Identifier: GPL-2.0
/*
 * The phase driver's own test (tests/plan.t): a table of three phases
 * (lib/harness/phase.h), each saying which of its hooks ran:
 * "first", two results, judged unless --off; "baseline", run for the
 * next phase's sake and never judged; "per pair", one result for each
 * of --pairs pairs. "first" and "baseline" share "counting", which the
 * driver releases after the last of them that runs. --wrong makes "first" print one result of its two,
 * --misnamed its second under another name than it declares,
 * --interrupt raises SIGINT in its run.
 */
#include <signal.h>
#include <stdio.h>

#include "lib/harness/phase.h"

struct phased {
	bool off, wrong, misnamed, interrupt;
	uint64_t pairs;
};

static void said(const char *phase, const char *hook)
{
	ksft_print_msg("%s: %s\n", phase, hook);
}

static unsigned int first_judged(const void *ctx)
{
	return !((const struct phased *)ctx)->off;
}

static void first_setup(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("first", "setup");
}

static void first_run(struct bench *b, void *ctx)
{
	(void)b;
	said("first", "run");
	if (((struct phased *)ctx)->interrupt)
		raise(SIGINT);
}

static void first_verdicts(struct bench *b, void *ctx)
{
	bench_verdict(b, KSFT_PASS, NULL, "first: one");
	if (!((struct phased *)ctx)->wrong)
		bench_verdict(b, KSFT_PASS, NULL, "first: %s",
			      ((struct phased *)ctx)->misnamed ? "three" : "two");
}

static void first_teardown(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("first", "teardown");
}

static unsigned int baseline_judged(const void *ctx)
{
	(void)ctx;
	return 0;
}

static bool baseline_runs(const void *ctx)
{
	return ((const struct phased *)ctx)->pairs > 0;
}

static void baseline_run(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("baseline", "run");
}

static unsigned int pair_judged(const void *ctx)
{
	return ((const struct phased *)ctx)->pairs;
}

static void pair_run(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("per pair", "run");
}

static void pair_verdicts(struct bench *b, void *ctx)
{
	for (uint64_t i = 0; i < ((struct phased *)ctx)->pairs; i++)
		bench_verdict(b, KSFT_PASS, NULL, "per pair: pair %llu", (unsigned long long)i);
}

static void pair_check_name(const void *ctx, unsigned int run, unsigned int i,
			    char *buf, size_t len)
{
	(void)ctx;
	(void)i;
	snprintf(buf, len, "per pair: pair %u", run);
}

static void pair_teardown(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("per pair", "teardown");
}

static void counting_release(struct bench *b, void *ctx)
{
	(void)b;
	(void)ctx;
	said("counting", "release");
}

static const struct phase_shared counting = { "counting", counting_release };

static const char *const first_checks[] = { "first: one", "first: two" };
static const char *const baseline_checks[] = { "baseline: never judged" };

static const struct phase first = {
	.name = "first", .nverdicts = 2, .checks = first_checks, .judged = first_judged, .setup = first_setup,
	.run = first_run, .verdicts = first_verdicts, .teardown = first_teardown, .shares = &counting,
};
static const struct phase baseline = {
	.name = "baseline", .nverdicts = 1, .checks = baseline_checks, .judged = baseline_judged, .runs = baseline_runs,
	.run = baseline_run, .shares = &counting,
};
static const struct phase per_pair = {
	.name = "per pair", .nverdicts = 1, .check_name = pair_check_name, .judged = pair_judged, .run = pair_run,
	.verdicts = pair_verdicts, .teardown = pair_teardown,
};
static const struct phase *const phases[] = { &first, &baseline, &per_pair, NULL };

int main(int argc, char **argv)
{
	struct phased p = { .pairs = 2 };
	const struct opt opts[] = {
		{ .name = "off", .type = OPT_FLAG, .dest = &p.off,
		  .help = "the first phase neither runs nor is judged" },
		{ .name = "wrong", .type = OPT_FLAG, .dest = &p.wrong,
		  .help = "the first phase prints one result of its two" },
		{ .name = "misnamed", .type = OPT_FLAG, .dest = &p.misnamed,
		  .help = "the first phase prints its second result under another name" },
		{ .name = "interrupt", .type = OPT_FLAG, .dest = &p.interrupt,
		  .help = "SIGINT in the first phase's run" },
		{ .name = "pairs", .type = OPT_UINT, .dest = &p.pairs, .arg = "N",
		  .help = "judged runs of the per-pair phase", .min = 0, .max = 10 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "phased",
		.summary = "Runs a table of three phases, saying which hooks ran.",
		.common = COMMON_CPU,
		.opts = opts,
	};
	struct bench b = { 0 };

	bench_init(&b, &spec, argc, argv);
	phases_plan(&b, phases, &p);
	phases_run(&b, phases, &p);
	bench_finish(&b);
}
