// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the slots and tallies of names (lib/base/tally.h). */
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/base/tally.h"

static uint64_t value(const void *arg, int i)
{
	return ((const uint64_t *)arg)[i];
}

/* Names get their slots in the order first seen, the rest TALLY_OTHER. */
static void slots(void)
{
	struct tally_slots s;
	bool added[5];
	int i[5];

	tally_slots_init(&s, 2);
	i[0] = tally_slot(&s, "", "ipi_mb", &added[0]);
	i[1] = tally_slot(&s, "", "0x0", &added[1]);
	i[2] = tally_slot(&s, "", "ipi_mb", &added[2]);
	ksft_test_result(i[0] == 0 && i[1] == 1 && i[2] == 0 && added[0] && added[1] && !added[2],
			 "slots: a name's slot in the order first named, added once (%d %d %d)",
			 i[0], i[1], i[2]);
	i[3] = tally_slot(&s, "", "do_sync_core", &added[3]);
	i[4] = tally_slot(&s, "", "0x0", &added[4]);
	ksft_test_result(i[3] == TALLY_OTHER && !added[3] && i[4] == 1 && s.n == 2 &&
			 !strcmp(tally_slot_name(&s, i[3]), "other") &&
			 !strcmp(tally_slot_name(&s, i[4]), "0x0"),
			 "slots: a name beyond the table is other, a kept one keeps its slot (%d %d)",
			 i[3], i[4]);
}

/* The same name under two kinds is two slots; under one kind one. */
static void slots_by_kind(void)
{
	struct tally_slots s;
	int irq, thread, again;

	tally_slots_init(&s, TALLY_MAX);
	irq = tally_slot(&s, "irq", "kworker", NULL);
	thread = tally_slot(&s, "thread", "kworker", NULL);
	again = tally_slot(&s, "thread", "kworker", NULL);
	ksft_test_result(irq == 0 && thread == 1 && again == 1 && s.n == 2,
			 "slots: irq kworker and thread kworker told apart (%d %d %d)",
			 irq, thread, again);
}

/* A name longer than a slot holds is compared as kept: one slot. */
static void slots_long_name(void)
{
	char name[100];
	struct tally_slots s;
	int a, b;

	memset(name, 'f', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	tally_slots_init(&s, TALLY_MAX);
	a = tally_slot(&s, "", name, NULL);
	b = tally_slot(&s, "", name, NULL);
	ksft_test_result(a == 0 && b == 0 && s.n == 1 &&
			 strlen(tally_slot_name(&s, a)) == sizeof(s.key[0].name) - 1,
			 "slots: a name longer than kept is one slot, cut to what it holds (%d %d)",
			 a, b);
}

static void tallies(void)
{
	static const uint64_t counts[] = { 3, 9, 3, 0, 9, 5 };
	static const int want[] = { 1, 4, 5, 0, 2, 3 };
	struct tally t;
	int idx[TALLY_MAX], n, ok = 1;

	tally_init(&t, 3);
	tally_add(&t, "ipi_mb", 2);
	tally_add(&t, "0x0", 1);
	tally_add(&t, "ipi_mb", 5);
	tally_add(&t, "flush_tlb_func", 3);
	tally_add(&t, "do_sync_core", 4);	/* beyond the three kept */
	tally_add(&t, "0x0", 1);
	ksft_test_result(t.names.n == 3 && !strcmp(tally_slot_name(&t.names, 0), "ipi_mb") &&
			 t.n[0] == 7 && !strcmp(tally_slot_name(&t.names, 1), "0x0") && t.n[1] == 2,
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
	ksft_test_result(t.names.n == TALLY_MAX && t.other == 5, "at most TALLY_MAX names kept");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(9);
	slots();
	slots_by_kind();
	slots_long_name();
	tallies();
	ksft_finished();
}
