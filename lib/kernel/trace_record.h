/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One record of a tracefs trace_pipe, as text:
 *
 *	"  comm-PID  [CPU] flags  SECONDS.USECS: event: field=value ..."
 *
 * split once for the text source of trace_event.h, the one reader of
 * trace_pipe text. A stack trace entry of the stacktrace trigger is a
 * record of event "<stack trace>" followed by " => function" lines.
 */
#ifndef ISOLBENCH_TRACE_RECORD_H
#define ISOLBENCH_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_record {
	char comm[32];		/* the task the record was logged in */
	pid_t pid;		/* -1 when the line has none */
	int cpu;		/* the CPU it was logged on */
	bool irq;		/* logged in hardirq or softirq context */
	uint64_t ts_ns;		/* its timestamp (the instance's trace_clock) */
	bool has_ts;
	char event[48];		/* "ipi_send_cpu", "<stack trace>" */
	const char *fields;	/* "cpu=3 callsite=..." (points into the line) */
};

/* Parse @line into @r. 0, or -1 when it is not a record. */
int trace_record_parse(const char *line, struct trace_record *r);

/* The value of "key=" in @fields (at its start or after a blank), or NULL. */
const char *trace_field(const char *fields, const char *key);
/* A stack trace line " => function": the function into @buf, or NULL. */
const char *trace_stack_frame(const char *line, char *buf, size_t len);

#endif
