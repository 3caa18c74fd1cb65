// SPDX-License-Identifier: GPL-2.0
/* A table's events switched on with their rows' filters: see trace_rows.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "trace_rows.h"

int trace_rows_enable_event(struct trace_instance *t, const char *event, const char *filter,
			    char *note, size_t notelen, char *err, size_t errlen)
{
	note[0] = '\0';
	if (!trace_instance_enable(t, event, filter, err, errlen))
		return 0;
	if (!filter || strstr(err, "no such tracepoint") ||
	    trace_instance_enable(t, event, NULL, err, errlen))
		return -1;
	snprintf(note, notelen, "%s: filter '%s' refused by the kernel: filtered in user space",
		 event, filter);
	return 0;
}

/*
 * Every event of @system with @filter (a pattern row's: irq_vectors, the
 * x86 system vectors); a refused filter leaves them unfiltered, in
 * @note, when @unfiltered, else fails.
 */
static int enable_system(struct trace_instance *t, const char *system, const char *filter,
			 bool unfiltered, char *note, size_t notelen, char *err, size_t errlen)
{
	char path[400];

	note[0] = '\0';
	snprintf(path, sizeof(path), "%s/events/%s", t->dir, system);
	if (access(path, F_OK)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%s/filter", t->dir, system);
	if (write_file(path, filter)) {
		if (!unfiltered) {
			snprintf(err, errlen, "%s: filter '%s' refused", system, filter);
			return -1;
		}
		snprintf(note, notelen, "%s: filter '%.100s' refused: every CPU's recorded",
			 system, filter);
	}
	snprintf(path, sizeof(path), "%s/events/%s/enable", t->dir, system);
	if (write_file(path, "1")) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Row @row on, with its filter for @cpus: 0, or -1 with the reason in @err. */
static int enable_row(struct trace_instance *t, const struct trace_event_row *row,
		      const char *cpus, bool unfiltered, struct trace_rows_on *on,
		      char *err, size_t errlen)
{
	char event[96], filter[600], note[192] = "";
	int ret;

	snprintf(filter, sizeof(filter), row->filter, cpus);
	if (strchr(row->name, '*')) {
		ret = enable_system(t, row->system, filter, unfiltered, note, sizeof(note),
				    err, errlen);
	} else {
		snprintf(event, sizeof(event), "%s:%s", row->system, row->name);
		if (unfiltered)
			ret = trace_rows_enable_event(t, event, filter, note, sizeof(note),
						      err, errlen);
		else
			ret = trace_instance_enable(t, event, filter, err, errlen);
	}
	if (!ret && note[0] && on->nnotes < (int)ARRAY_SIZE(on->notes))
		snprintf(on->notes[on->nnotes++], sizeof(on->notes[0]), "%s", note);
	return ret;
}

int trace_rows_enable(struct trace_instance *t, const struct trace_event_table *tab,
		      const char *cpus, bool unfiltered, struct trace_rows_on *on,
		      char *err, size_t errlen)
{
	memset(on, 0, sizeof(*on));
	if (tab->nrows > TRACE_ROWS_MAX) {
		snprintf(err, errlen, "a table of %zu trace events: at most %d", tab->nrows,
			 TRACE_ROWS_MAX);
		return -1;
	}
	for (size_t i = 0; i < tab->nrows; i++) {
		const struct trace_event_row *row = &tab->rows[i];
		char e[256];

		if (!row->filter)
			continue;
		if (!row->optional) {
			if (enable_row(t, row, cpus, unfiltered, on, err, errlen))
				return -1;
		} else if (enable_row(t, row, cpus, unfiltered, on, e, sizeof(e))) {
			if (!on->why[0])
				snprintf(on->why, sizeof(on->why), "%.159s", e);
			continue;
		}
		on->on[i] = true;
	}
	return 0;
}

bool trace_rows_on(const struct trace_event_table *tab, const struct trace_rows_on *on,
		   const char *name)
{
	for (size_t i = 0; i < tab->nrows && i < TRACE_ROWS_MAX; i++)
		if (!strcmp(tab->rows[i].name, name))
			return on->on[i];
	return false;
}

const char *trace_rows_filter(const struct trace_event_table *tab, const char *name,
			      const char *cpus, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < tab->nrows; i++)
		if (!strcmp(tab->rows[i].name, name) && tab->rows[i].filter)
			snprintf(buf, len, tab->rows[i].filter, cpus);
	return buf;
}
