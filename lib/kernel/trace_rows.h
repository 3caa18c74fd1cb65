/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table's events (trace_event.h) switched on in a trace instance, each
 * with its row's filter: the owner of a table says once which event it
 * reads, how it is filtered and what handles it.
 *
 * A row's filter is a format of the watched CPUs as a list, "%s" ("2",
 * "2-3"): "cpu & CPUS{%s}", or "CPU == %s" where one CPU is watched. A
 * row without a filter is left to its owner (an event enabled by hand,
 * a stack trigger's records).
 */
#ifndef ISOLBENCH_KERNEL_TRACE_ROWS_H
#define ISOLBENCH_KERNEL_TRACE_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "trace_event.h"
#include "trace_instance.h"

#define TRACE_ROWS_MAX	32	/* rows of a table enabled at most */

/* What switching a table's rows on did. */
struct trace_rows_on {
	bool on[TRACE_ROWS_MAX];	/* row i's event records */
	char why[160];			/* why the first optional row records nothing */
	char notes[2][192];		/* a refused filter done in user space instead */
	int nnotes;
};

/*
 * Enable @event with @filter; a kernel that refuses the filter (an older
 * syntax: CPUS{} before 6.6) gets the event unfiltered, and @note says
 * so (else it is left empty): its reader then filters each record the
 * same way. 0, or -1 with the reason in @err.
 */
int trace_rows_enable_event(struct trace_instance *t, const char *event, const char *filter,
			    char *note, size_t notelen, char *err, size_t errlen);
/*
 * The rows of @tab that have a filter, each filtered to @cpus, a
 * pattern row ("*_entry") by its whole system, into @on. A filter the
 * kernel refuses leaves its event unfiltered, noted, when @unfiltered;
 * else it fails the row. An optional row that fails (its event missing:
 * the IPI events before 6.3) records nothing, the first reason in
 * @on->why; a required one is an error: -1 with the reason in @err.
 */
int trace_rows_enable(struct trace_instance *t, const struct trace_event_table *tab,
		      const char *cpus, bool unfiltered, struct trace_rows_on *on,
		      char *err, size_t errlen);
/* Whether the event @name of @tab's rows records. */
bool trace_rows_on(const struct trace_event_table *tab, const struct trace_rows_on *on,
		   const char *name);
/* The filter of @tab's row of @name for @cpus into @buf, "" when it has none. */
const char *trace_rows_filter(const struct trace_event_table *tab, const char *name,
			      const char *cpus, char *buf, size_t len);

#endif
