/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Things told apart by name, the first names kept and the rest taken
 * together as "other".
 *
 * A slot table gives each name its slot, 0, 1, ... in the order first
 * seen, while it has room; a name beyond them gets TALLY_OTHER. The
 * table holds only the names: what is kept per name is the caller's,
 * in an array indexed by slot and one more entry for TALLY_OTHER (the
 * watch's IPI sources, the quiet phase's noise sources):
 *
 *	struct tally_slots names;	struct thing per[MAX], other;
 *	tally_slots_init(&names, MAX);
 *	int i = tally_slot(&names, kind, name, &added);
 *	struct thing *t = i == TALLY_OTHER ? &other : &per[i];
 *
 * A name is kept within a kind, a string the caller classes its names
 * by ("" for none): the same name under two kinds is two slots.
 *
 * A tally is a slot table with a count per name (the callbacks and
 * functions of the IPIs a watch saw); tally_rank() orders any table by
 * a count, most first.
 */
#ifndef ISOLBENCH_BASE_TALLY_H
#define ISOLBENCH_BASE_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#define TALLY_MAX	64	/* names a table keeps at most */
#define TALLY_OTHER	(-1)	/* the slot of the names beyond them */

struct tally_slots {
	struct {
		char kind[16];
		char name[64];
	} key[TALLY_MAX];
	int n, max;		/* names kept, and at most (up to TALLY_MAX) */
};

/* An empty table of at most @max names. */
void tally_slots_init(struct tally_slots *s, int max);
/*
 * The slot of @name under @kind: its own, a new one while there is room
 * (*@added true then, if @added is given), else TALLY_OTHER. The key is
 * compared as kept: a kind or name longer than the table holds is cut
 * to what it holds.
 */
int tally_slot(struct tally_slots *s, const char *kind, const char *name, bool *added);
/* The name of @slot: "other" for TALLY_OTHER. */
const char *tally_slot_name(const struct tally_slots *s, int slot);

/* Counts under names. */
struct tally {
	struct tally_slots names;
	uint64_t n[TALLY_MAX];	/* per slot */
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
/* The tally's names most first into @idx (t->names.n of them); returns their number. */
int tally_sorted(const struct tally *t, int *idx);

#endif
