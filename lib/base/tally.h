/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counts under names, the first names kept and the rest counted as
 * "other", reported most first: the callbacks and functions of the IPIs
 * a watch saw, and the order in which the watch and the quiet phase's
 * noise report their sources (whose entries carry more than a count:
 * tally_rank() orders any table by a count).
 */
#ifndef ISOLBENCH_BASE_TALLY_H
#define ISOLBENCH_BASE_TALLY_H

#include <stdint.h>

#define TALLY_MAX	64	/* names a tally keeps at most */

struct tally_entry {
	char name[64];
	uint64_t n;
};

struct tally {
	struct tally_entry e[TALLY_MAX];
	int n, max;		/* names kept, and at most (up to TALLY_MAX) */
	uint64_t other;		/* the counts of names beyond the kept ones */
};

/* An empty tally of at most @max names. */
void tally_init(struct tally *t, int max);
/* @n more under @name (added while there is room, else to other). */
void tally_add(struct tally *t, const char *name, uint64_t n);
/*
 * Indices 0..@n-1 of a table into @idx by @count(@arg, i), most first;
 * of equal counts the lower index (the first named) first.
 */
void tally_rank(int n, int *idx, uint64_t (*count)(const void *arg, int i), const void *arg);
/* The tally's entries most first into @idx (t->n of them); returns t->n. */
int tally_sorted(const struct tally *t, int *idx);

#endif
