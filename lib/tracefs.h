/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs settings that are saved before they are changed and restored
 * on every exit path (cleanup_push: normal exit, failure, signals), and
 * the function_graph tracer set up to time one kernel function:
 *
 *	if (tracefs_graph_probe("task_mm_cid_work", why, len)) -> not here
 *	tracefs_graph_start("task_mm_cid_work", err, len);
 *	...workload...
 *	tracefs_graph_stop();
 *	tracefs_graph_read(each_call, arg);	one callback per traced call
 *	tracefs_restore_all();			(also runs at exit by itself)
 */
#ifndef ISOLBENCH_TRACEFS_H
#define ISOLBENCH_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Write @value to tracefs file @file (relative to the mount), saving
 * the old content the first time this file is set. 0, or -1 with a
 * reason in @err.
 */
int tracefs_set(const char *file, const char *value, char *err, size_t errlen);
/* Write without saving (e.g. "trace" to clear the buffer). */
int tracefs_write(const char *file, const char *value);
/* Put back every saved setting, last changed first; safe to call twice. */
void tracefs_restore_all(void);
/* How many settings are saved and not yet restored. */
int tracefs_saved_count(void);

/* Whether @tracer is in available_tracers. */
int tracefs_tracer_available(const char *tracer);
/* Whether @func can be traced (available_filter_functions). */
int tracefs_function_traceable(const char *func);

/*
 * Whether function_graph can time @func here: root, tracefs, the
 * tracer and the function. 0, or -1 with the reason in @why.
 */
int tracefs_graph_probe(const char *func, char *why, size_t whylen);
/*
 * function_graph on @func only (set_ftrace_filter, depth 1, absolute
 * times, task names, return values where the kernel has
 * CONFIG_FUNCTION_GRAPH_RETVAL), buffer cleared, tracing on. Saves what
 * it changes.
 */
int tracefs_graph_start(const char *func, char *err, size_t errlen);
/* tracing_on 0 (the buffer is kept for reading). */
void tracefs_graph_stop(void);

struct graph_call {
	double ts_s;		/* funcgraph-abstime of the entry, seconds */
	double duration_us;
	int cpu;
	int pid;		/* the task it ran in (funcgraph-proc) */
	bool has_ret;		/* funcgraph-retval printed "= VALUE" */
	long ret;		/* that return value */
	char func[64];
};

/*
 * Parse one line of the function_graph trace output ("trace" file or
 * trace_pipe) holding a complete call with its duration. 0, or -1 for
 * other lines (headers, nested entries, markers).
 */
int graph_line_parse(const char *line, struct graph_call *c);
/*
 * Read the "trace" file and call @fn for each complete call; returns
 * the number of calls, -1 if it cannot be read. @lost gets the number
 * of lost events the trace reports (buffer overruns).
 */
long tracefs_graph_read(void (*fn)(const struct graph_call *c, void *arg),
			void *arg, uint64_t *lost);

#endif
