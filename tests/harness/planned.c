// SPDX-License-Identifier: GPL-2.0
/*
 * The plan check's own test (tests/plan.t): a program that declares two
 * phases, "once" with one result and "per pair" with one result for each
 * of --pairs pairs, and prints --print results, right or wrong; --many
 * declares one phase too many,
 * --hold waits (up to 10 s) for a signal after the results.
 */
#include <unistd.h>

#include "lib/harness/bench.h"

int main(int argc, char **argv)
{
	uint64_t print = 3, pairs = 2;
	bool many = false, hold = false;
	struct plan_phase too_many[PLAN_MAX_PHASES + 2] = { 0 };
	const struct opt opts[] = {
		{ .name = "print", .type = OPT_UINT, .dest = &print, .arg = "N",
		  .help = "results to print", .min = 0, .max = 20 },
		{ .name = "pairs", .type = OPT_UINT, .dest = &pairs, .arg = "N",
		  .help = "times the per-pair phase runs", .min = 0, .max = 10 },
		{ .name = "many", .type = OPT_FLAG, .dest = &many,
		  .help = "declare one phase more than the harness holds" },
		{ .name = "hold", .type = OPT_FLAG, .dest = &hold,
		  .help = "after the results, wait up to 10 s for a signal" },
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
	for (int i = 0; many && i <= PLAN_MAX_PHASES; i++)
		too_many[i] = (struct plan_phase){ "one of many", 1, 1 };
	if (many)
		bench_phases(&b, too_many);
	bench_phases(&b, (const struct plan_phase[]){
		{ "once", 1, 1 },
		{ "per pair", 1, (unsigned int)pairs },
		{ NULL }
	});
	for (uint64_t i = 0; i < print; i++)
		bench_verdict(&b, KSFT_PASS, NULL, "result %llu", (unsigned long long)i + 1);
	for (int i = 0; hold && !bench_stop && i < 1000; i++)
		usleep(10000);
	bench_finish(&b);
}
