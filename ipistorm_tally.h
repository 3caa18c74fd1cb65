/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IPIs a watch saw, counted for the watched CPUs: per CPU and window
 * of the machine's own time, per kind, per minute, per callback, per
 * function queued and per source with its senders. ipistorm_watcher.c
 * fills a tally from a trace or from /proc/interrupts.
 */
#ifndef ISOLBENCH_IPISTORM_TALLY_H
#define ISOLBENCH_IPISTORM_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/cpu.h"
#include "lib/base/tally.h"
#include "lib/kernel/interference.h"
#include "lib/kernel/ipi_source.h"
#include "lib/kernel/trace_event.h"

#define IPI_TALLY_NAMES		32	/* callbacks and queued functions told apart */
#define IPI_TALLY_SOURCES	48	/* sources told apart; the rest is "other" */
#define IPI_TALLY_SENDERS	16	/* senders told apart per source */

_Static_assert(IPI_TALLY_SOURCES <= TALLY_MAX, "a slot table names every source");

struct ipi_sender {
	char comm[32];
	int cpu;
	uint64_t n;
};

/* The IPIs of one source: how many, in which windows, from whom. */
struct ipi_tally_source {
	char callback[64];	/* the callback of its first IPI */
	uint64_t n, stacks;	/* IPIs, and those named from the sender's stack */
	uint64_t *per_win;	/* per window */
	size_t nwin;
	struct ipi_sender senders[IPI_TALLY_SENDERS];
	int nsenders;
	uint64_t senders_other;	/* IPIs of senders beyond the table */
};

/* What the watched CPUs got. */
struct ipi_tally {
	uint64_t per_cpu[CPU_SETSIZE];
	uint64_t kind[INTF_KINDS], total;	/* per kind: the IPI kinds' */
	uint64_t *per_min;		/* per minute, nmin of them */
	size_t nmin;
	int ncpus;			/* the watched CPUs, in order */
	short cpu_index[CPU_SETSIZE];	/* a watched CPU's place, -1 others */
	uint64_t *per_win;		/* [window * ncpus + place] */
	size_t nwin;
	struct tally cb;		/* per callback, IPI_TALLY_NAMES of them */
	/*
	 * csd:csd_queue_cpu records: the functions queued for the watched
	 * CPUs (a single-target IPI only names the generic handler).
	 */
	struct tally func;
	uint64_t queued;
	struct tally_slots sources;	/* the sources' names, IPI_TALLY_SOURCES of them */
	struct ipi_tally_source src[IPI_TALLY_SOURCES];	/* per slot of sources */
	struct ipi_tally_source src_other;	/* TALLY_OTHER's */
	uint64_t no_callsite;		/* sends of a kernel without callsite */
};

/* The tally of the watched @cpus; ipistorm_tally_free() releases it. */
void ipistorm_tally_init(struct ipi_tally *t, const cpu_mask_t *cpus);
void ipistorm_tally_free(struct ipi_tally *t);
/* Add @n IPIs of @kind to @cpu in @window and @minute; -1 on no memory. */
int ipistorm_tally_add(struct ipi_tally *t, int cpu, enum intf_kind kind, uint64_t n,
		       size_t window, size_t minute);
/* One traced send (with its source) in @window and @minute; -1 on no memory. */
int ipistorm_tally_send(struct ipi_tally *t, const struct ipi_send *s, size_t window,
			size_t minute);
/*
 * The senders of @s as text: the @max with most IPIs, most first (ties
 * by name, then CPU), "comm on cpu N (IPIs)", and "and K more (M IPIs)"
 * for the rest ("at least K" when the table was full).
 */
void ipistorm_tally_senders(const struct ipi_tally_source *s, int max, char *buf,
			    size_t len);
/* The source in slot @slot of t->sources (src_other for TALLY_OTHER). */
const struct ipi_tally_source *ipistorm_tally_source(const struct ipi_tally *t, int slot);
/* One # line of the source in @slot, its rate over @seconds and its first senders. */
void ipistorm_tally_source_print(const struct ipi_tally *t, int slot, double seconds);
/* A csd:csd_queue_cpu record's function, for a watched CPU. */
void ipistorm_tally_queued(struct ipi_tally *t, const struct trace_event_record *r,
			   const cpu_mask_t *watched);
/* IPIs to the @place-th watched CPU in window @win. */
uint64_t ipistorm_tally_win(const struct ipi_tally *t, size_t win, int place);

#endif
