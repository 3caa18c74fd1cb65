// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/trace_rows.c in a real trace instance (root
 * and tracefs, else SKIPs): the rows' filters written for a CPU list, a
 * refused filter by the two policies, an optional row's missing event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/base/util.h"
#include "lib/kernel/trace_rows.h"

#define CHECKS	7

static void record(void *ctx, const struct trace_event_record *rec)
{
	(void)ctx;
	(void)rec;
}

/* The filter file of @event ("irq/softirq_entry") as the kernel shows it. */
static char *filter_of(const struct trace_instance *t, const char *event)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/events/%s/filter", t->dir, event);
	return read_file_all(path, NULL);
}

int main(void)
{
	static const struct trace_event_row rows[] = {
		{ "irq", "softirq_entry", "CPU & CPUS{%s}", false, record },
		{ "irq", "softirq_exit", NULL, false, record },
		{ "isolbench_none", "no_such_event", "CPU == %s", true, record },
	};
	static const struct trace_event_row refused_rows[] = {
		{ "irq", "softirq_raise", "no_such_field == %s", false, record },
	};
	struct trace_event_table tab = TRACE_EVENT_TABLE(rows);
	struct trace_event_table refused = TRACE_EVENT_TABLE(refused_rows);
	struct trace_instance t = { .pipe_fd = -1 };
	struct trace_rows_on on;
	char err[256], buf[64], *f;
	int ret;

	ksft_print_header();
	ksft_set_plan(CHECKS);
	ksft_test_result(!strcmp(trace_rows_filter(&tab, "softirq_entry", "0-1", buf, sizeof(buf)),
				 "CPU & CPUS{0-1}") &&
			 !*trace_rows_filter(&tab, "softirq_exit", "0-1", buf, sizeof(buf)),
			 "a row's filter is its format for the CPU list, none without one");
	if (trace_instance_create(&t, "isolbench-unit", err, sizeof(err))) {
		for (int i = 1; i < CHECKS; i++)
			ksft_test_result_skip("no trace instance: %s\n", err);
		ksft_finished();
	}

	ret = trace_rows_enable(&t, &tab, "0-1", false, &on, err, sizeof(err));
	f = filter_of(&t, "irq/softirq_entry");
	ksft_print_msg("softirq_entry's filter: %s", f ? f : "?\n");
	ksft_test_result(!ret && on.on[0] && f && strstr(f, "CPUS{0-1}"),
			 "a required row on, with its filter for the CPUs");
	free(f);
	f = filter_of(&t, "irq/softirq_exit");
	ksft_test_result(!on.on[1] && f && !strncmp(f, "none", 4),
			 "a row without a filter is left to its owner");
	free(f);
	ksft_print_msg("optional row: %s\n", on.why);
	ksft_test_result(!on.on[2] && strstr(on.why, "no_such_event") && !on.nnotes,
			 "an optional row's missing event: off, the reason kept, no error");
	ksft_test_result(trace_rows_on(&tab, &on, "softirq_entry") &&
			 !trace_rows_on(&tab, &on, "no_such_event") &&
			 !trace_rows_on(&tab, &on, "softirq_raise"),
			 "whether a row records, by its event's name");

	ret = trace_rows_enable(&t, &refused, "1", false, &on, err, sizeof(err));
	ksft_print_msg("refused, strict: %s\n", ret ? err : "enabled");
	ksft_test_result(ret && strstr(err, "softirq_raise"),
			 "a refused filter fails a required row when the owner filters nothing itself");
	ret = trace_rows_enable(&t, &refused, "1", true, &on, err, sizeof(err));
	ksft_print_msg("refused, unfiltered: %s\n", on.nnotes ? on.notes[0] : "no note");
	ksft_test_result(!ret && on.on[0] && on.nnotes == 1 &&
			 strstr(on.notes[0], "filtered in user space"),
			 "or leaves its event unfiltered, noted, when the owner filters each record");
	trace_instance_remove(&t);
	ksft_finished();
}
