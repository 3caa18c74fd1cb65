// SPDX-License-Identifier: GPL-2.0
/*
 * A build without libtraceevent and libtracefs (TRACEEVENT=0): no raw
 * source; the readers fall back to the text one (trace_event.h).
 */
#include <stdio.h>

#include "trace_event.h"

struct trace_event_raw *trace_event_raw_open(const char *instance_dir,
					     const struct trace_event_table *const *tabs,
					     size_t ntabs, char *err, size_t errlen)
{
	(void)instance_dir;
	(void)tabs;
	(void)ntabs;
	snprintf(err, errlen, "built without libtraceevent and libtracefs (TRACEEVENT=0)");
	return NULL;
}

ssize_t trace_event_raw_read(struct trace_event_raw *r, const struct trace_event_reader *readers,
			     size_t n)
{
	(void)r;
	(void)readers;
	(void)n;
	return -1;
}

void trace_event_raw_close(struct trace_event_raw *r)
{
	(void)r;
}
