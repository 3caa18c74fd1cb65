/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One record of a tracefs trace_pipe, as text:
 *
 *	"  comm-PID  [CPU] flags  SECONDS.USECS: event: field=value ..."
 *
 * parsed once for every reader of the suite's trace instances (the
 * timer activity of a CPU, the IPIs sent to watched CPUs, the noise of a
 * busy loop). A stack trace entry of the stacktrace trigger is a record
 * of event "<stack trace>" followed by " => function" lines.
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
/* Whether "key=" has the value @val (up to a blank, '+' or the end). */
bool trace_field_is(const char *fields, const char *key, const char *val);
/* The number "key=" holds, or @dflt. */
long trace_field_long(const char *fields, const char *key, long dflt);
/*
 * The function a "%pS" value names ("ttwu_queue_wakelist+0x11d/0x150"
 * -> "ttwu_queue_wakelist"; "0x0" stays) into @buf; "" when @key is
 * missing.
 */
const char *trace_field_func(const char *fields, const char *key, char *buf, size_t len);
/* A stack trace line " => function": the function into @buf, or NULL. */
const char *trace_stack_frame(const char *line, char *buf, size_t len);

#endif
