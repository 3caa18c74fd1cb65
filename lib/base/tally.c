// SPDX-License-Identifier: GPL-2.0
/* Counts under names: see tally.h. */
#include <stdio.h>
#include <string.h>

#include "tally.h"

void tally_init(struct tally *t, int max)
{
	memset(t, 0, sizeof(*t));
	t->max = max < TALLY_MAX ? max : TALLY_MAX;
}

void tally_add(struct tally *t, const char *name, uint64_t n)
{
	int i;

	for (i = 0; i < t->n && strcmp(t->e[i].name, name); i++)
		;
	if (i == t->n && t->n < t->max)
		snprintf(t->e[t->n++].name, sizeof(t->e[0].name), "%s", name);
	if (i < t->n)
		t->e[i].n += n;
	else
		t->other += n;
}

void tally_rank(int n, int *idx, uint64_t (*count)(const void *arg, int i), const void *arg)
{
	for (int i = 0; i < n; i++) {
		uint64_t c = count(arg, i);
		int j = i;

		/* insertion: a later entry passes only larger counts */
		while (j > 0 && count(arg, idx[j - 1]) < c) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
}

static uint64_t entry_count(const void *arg, int i)
{
	return ((const struct tally *)arg)->e[i].n;
}

int tally_sorted(const struct tally *t, int *idx)
{
	tally_rank(t->n, idx, entry_count, t);
	return t->n;
}
