/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events read through one table: a row per event (system, name,
 * filter, handler), and records whose fields are read by name.
 *
 * Two sources give the same records:
 *  - text: a trace_pipe (or trace) line split once (trace_record.h), a
 *    field being its "name=value";
 *  - raw: the instance's per-CPU trace_pipe_raw, each record laid out by
 *    its event's format file (events/SYS/EVENT/format) through
 *    libtraceevent and libtracefs, when the build has them
 *    (TRACEEVENT=1, trace_event_raw.c).
 * A field the record has not (a format without it: an older kernel) is
 * reported in the table, never read as 0.
 *
 *	static const struct trace_event_row rows[] = {
 *		{ "irq", "softirq_raise", "vec == 1", false, softirq_raise },
 *	};
 *	struct trace_event_table tab = TRACE_EVENT_TABLE(rows);
 *	trace_event_dispatch_line(&tab, ctx, line);
 *	...in softirq_raise(ctx, rec): trace_event_u64(rec, "vec", &vec)
 */
#ifndef ISOLBENCH_TRACE_EVENT_H
#define ISOLBENCH_TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_event_record;

struct trace_event_row {
	const char *system;	/* "irq" */
	/*
	 * "softirq_raise"; a pattern ("*_entry", fnmatch) takes every
	 * event of the system it matches (from the text source, of any
	 * system: the rows before it take theirs first)
	 */
	const char *name;
	/*
	 * The filter written to the event when its owner enables it
	 * (trace_rows.h: a format of the watched CPUs' list, "%s");
	 * NULL: none, or one the owner builds itself.
	 */
	const char *filter;
	bool optional;		/* a kernel without it is no error (ipi: 6.3+) */
	/* NULL: recorded for another reader of the same records */
	void (*handle)(void *ctx, const struct trace_event_record *rec);
};

struct trace_event_table {
	const struct trace_event_row *rows;
	size_t nrows;
	/* NULL, or given each record before its row's handler (who ran when) */
	void (*each)(void *ctx, const struct trace_event_record *rec);
	/*
	 * NULL, or given each frame of a stack record (event "kernel_stack",
	 * the stacktrace trigger's; the text source's "<stack trace>" and
	 * its " => function" lines), innermost first, then NULL at its end
	 */
	void (*frame)(void *ctx, const char *func);
	bool in_stack;		/* the text source is reading a stack's frames */
	uint64_t records;	/* records dispatched */
	uint64_t unknown;	/* records of an event with no row */
	uint64_t missing;	/* fields asked for that a record has not */
	char missing_what[96];	/* the first: "timer:tick_stop dependency" */
};

#define TRACE_EVENT_TABLE(r) { .rows = (r), .nrows = sizeof(r) / sizeof((r)[0]) }

/* How a source reads a field of one of its records. */
struct trace_event_source {
	int (*u64)(const struct trace_event_record *rec, const char *field, uint64_t *v);
	const char *(*str)(const struct trace_event_record *rec, const char *field,
			   char *buf, size_t len);
	int (*mask_has)(const struct trace_event_record *rec, const char *field, int cpu);
	bool (*has)(const struct trace_event_record *rec, const char *field);
};

struct trace_event_record {
	const char *system;	/* NULL from the text source: names are unique there */
	const char *event;
	int cpu;		/* the CPU it was logged on */
	pid_t pid;		/* the task it was logged in, -1 if unknown */
	const char *comm;	/* its name, "<...>" when the kernel kept none */
	bool irq;		/* logged in hardirq or softirq context */
	uint64_t ts_ns;		/* its timestamp (the instance's trace_clock) */
	const struct trace_event_source *src;
	const void *data;	/* the source's own: the text fields, the raw record */
	struct trace_event_table *tab;	/* where a missing field is reported */
};

/*
 * A number: an integer field, a pointer's value, the number a symbolic
 * field holds. 0, or -1 when the record has no such field (reported).
 */
int trace_event_u64(const struct trace_event_record *rec, const char *field, uint64_t *v);
/*
 * A field as text into @buf: a string; the symbol a function pointer
 * points into ("process_timeout", "0x0" for none); the name a symbolic
 * field's value has in the format's __print_symbolic ("POSIX_TIMER").
 * NULL when the record has no such field (reported).
 */
const char *trace_event_str(const struct trace_event_record *rec, const char *field,
			    char *buf, size_t len);
/* Whether the CPU set @field holds @cpu (a cpumask field); false if absent. */
bool trace_event_mask_has(const struct trace_event_record *rec, const char *field, int cpu);
/* Whether the record has @field (nothing reported when not). */
bool trace_event_has(const struct trace_event_record *rec, const char *field);
/* Whether a function pointer @field points into @sym. */
bool trace_event_func_is(const struct trace_event_record *rec, const char *field,
			 const char *sym);

/*
 * Give @rec to its row's handler; an event with no row is counted in
 * @tab->unknown. Returns the row, or NULL.
 */
const struct trace_event_row *trace_event_dispatch(struct trace_event_table *tab, void *ctx,
						   struct trace_event_record *rec);
/*
 * One trace_pipe line through the text source. 0; 1 for a line that is
 * no record (a header, a stack frame); -1 for one that cannot be read
 * (one without a timestamp among them: every reader places records in
 * time).
 */
int trace_event_dispatch_line(struct trace_event_table *tab, void *ctx, const char *line);
/* The end of the lines: a stack being read ends (tab->frame gets NULL). */
void trace_event_dispatch_end(struct trace_event_table *tab, void *ctx);

/*
 * The raw source: the per-CPU trace_pipe_raw files of the instance
 * @instance_dir, read without blocking (a waiting reader is woken
 * through irq_work on the CPU that logged the event: an interrupt of
 * our own on a watched CPU).
 */
struct trace_event_raw;

/* One reader of the records: a table, and the context its handlers get. */
struct trace_event_reader {
	struct trace_event_table *tab;
	void *ctx;
};

/*
 * Open every CPU's trace_pipe_raw, and read the format files of the
 * systems of the rows of the @ntabs tables @tabs. NULL with the reason
 * in @err, e.g. a build without libtraceevent.
 */
struct trace_event_raw *trace_event_raw_open(const char *instance_dir,
					     const struct trace_event_table *const *tabs,
					     size_t ntabs, char *err, size_t errlen);
/*
 * Read what is buffered, every CPU's records in time order, each to
 * each of the @n @readers in turn (none: discarded); the frames of a
 * stack record (ftrace:kernel_stack) then go to a reader's tab->frame
 * as the text source gives them. Returns the records read, or -1 with
 * errno.
 */
ssize_t trace_event_raw_read(struct trace_event_raw *r, const struct trace_event_reader *readers,
			     size_t n);
void trace_event_raw_close(struct trace_event_raw *r);
/*
 * Which source an instance's records are read from, for a note: raw
 * with @r, else trace_pipe's text and @why_text (why not raw), in @buf.
 */
const char *trace_event_source_desc(const struct trace_event_raw *r, const char *why_text,
				    char *buf, size_t len);

#endif
