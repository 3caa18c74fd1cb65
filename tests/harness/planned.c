// SPDX-License-Identifier: GPL-2.0
/*
 * The plan check's own test (tests/plan.t): a program that declares two
 * phases, "once" with one result and "per pair" with one result for each
 * of --pairs pairs, and prints --print results, right or wrong.
 */
#include "lib/bench.h"

int main(int argc, char **argv)
{
	uint64_t print = 3, pairs = 2;
	const struct opt opts[] = {
		{ .name = "print", .type = OPT_UINT, .dest = &print, .arg = "N",
		  .help = "results to print", .min = 0, .max = 20 },
		{ .name = "pairs", .type = OPT_UINT, .dest = &pairs, .arg = "N",
		  .help = "times the per-pair phase runs", .min = 0, .max = 10 },
		{ NULL }
	};
	const struct prog_spec spec = {
		.name = "planned",
		.summary = "Declares a plan of 1 + --pairs results and prints --print.",
		.common = COMMON_CPU,
		.opts = opts,
	};
	struct bench b = { 0 };

	bench_init(&b, &spec, argc, argv);
	bench_phases(&b, (const struct plan_phase[]){
		{ "once", 1, 1 },
		{ "per pair", 1, (unsigned int)pairs },
		{ NULL }
	});
	for (uint64_t i = 0; i < print; i++)
		bench_verdict(&b, KSFT_PASS, NULL, "result %llu", (unsigned long long)i + 1);
	bench_finish(&b);
}
