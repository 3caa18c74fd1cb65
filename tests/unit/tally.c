// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the tally of named counts (lib/base/tally.h). */
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/base/tally.h"

static uint64_t value(const void *arg, int i)
{
	return ((const uint64_t *)arg)[i];
}

int main(void)
{
	static const uint64_t counts[] = { 3, 9, 3, 0, 9, 5 };
	static const int want[] = { 1, 4, 5, 0, 2, 3 };
	struct tally t;
	int idx[TALLY_MAX], n, ok = 1;

	ksft_print_header();
	ksft_set_plan(5);
	tally_init(&t, 3);
	tally_add(&t, "ipi_mb", 2);
	tally_add(&t, "0x0", 1);
	tally_add(&t, "ipi_mb", 5);
	tally_add(&t, "flush_tlb_func", 3);
	tally_add(&t, "do_sync_core", 4);	/* beyond the three kept */
	tally_add(&t, "0x0", 1);
	ksft_test_result(t.n == 3 && !strcmp(t.e[0].name, "ipi_mb") && t.e[0].n == 7 &&
			 !strcmp(t.e[1].name, "0x0") && t.e[1].n == 2,
			 "counts added under their names, in the order first named");
	ksft_test_result(t.other == 4, "a name beyond the kept ones counted as other");
	n = tally_sorted(&t, idx);
	ksft_test_result(n == 3 && idx[0] == 0 && idx[1] == 2 && idx[2] == 1,
			 "sorted most first: ipi_mb 7, flush_tlb_func 3, 0x0 2");
	tally_rank(6, idx, value, counts);
	for (int i = 0; i < 6; i++)
		ok &= idx[i] == want[i];
	ksft_test_result(ok, "a table ranked by its counts, ties in the order first named");
	tally_init(&t, TALLY_MAX + 10);
	for (int i = 0; i < TALLY_MAX + 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		tally_add(&t, name, 1);
	}
	ksft_test_result(t.n == TALLY_MAX && t.other == 5, "at most TALLY_MAX names kept");
	ksft_finished();
}
