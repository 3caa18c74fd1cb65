// SPDX-License-Identifier: GPL-2.0
/* Things told apart by name, and counts under names: see tally.h. */
#include <stdio.h>
#include <string.h>

#include "tally.h"

void tally_slots_init(struct tally_slots *s, int max)
{
	memset(s, 0, sizeof(*s));
	s->max = max < TALLY_MAX ? max : TALLY_MAX;
}

int tally_slot(struct tally_slots *s, const char *kind, const char *name, bool *added)
{
	const size_t kind_len = sizeof(s->key[0].kind) - 1, name_len = sizeof(s->key[0].name) - 1;

	if (added)
		*added = false;
	for (int i = 0; i < s->n; i++)
		if (!strncmp(s->key[i].kind, kind, kind_len) &&
		    !strncmp(s->key[i].name, name, name_len))
			return i;
	if (s->n == s->max)
		return TALLY_OTHER;
	snprintf(s->key[s->n].kind, sizeof(s->key[0].kind), "%s", kind);
	snprintf(s->key[s->n].name, sizeof(s->key[0].name), "%s", name);
	if (added)
		*added = true;
	return s->n++;
}

const char *tally_slot_name(const struct tally_slots *s, int slot)
{
	return slot == TALLY_OTHER ? "other" : s->key[slot].name;
}

void tally_init(struct tally *t, int max)
{
	memset(t, 0, sizeof(*t));
	tally_slots_init(&t->names, max);
}

void tally_add(struct tally *t, const char *name, uint64_t n)
{
	int i = tally_slot(&t->names, "", name, NULL);

	if (i == TALLY_OTHER)
		t->other += n;
	else
		t->n[i] += n;
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

static uint64_t name_count(const void *arg, int i)
{
	return ((const struct tally *)arg)->n[i];
}

int tally_sorted(const struct tally *t, int *idx)
{
	tally_rank(t->names.n, idx, name_count, t);
	return t->names.n;
}
