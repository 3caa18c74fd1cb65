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
 *	tracefs_graph_read(each_call, arg, &info);	one callback per call
 *	tracefs_restore_all();			(also runs at exit by itself)
 */
#ifndef ISOLBENCH_TRACEFS_H
#define ISOLBENCH_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Write @value to tracefs file @file (relative to the mount), saving
 * the old content the first time this file is set. 0, or -1 with a
 * reason in @err.
 */
int tracefs_set(const char *file, const char *value, char *err, size_t errlen);
/*
 * Add the kprobe event @event ("GROUP/NAME") at @def, not enabled (an
 * instance enables it); one this process added already is kept.
 * tracefs_restore_all() removes it: its instances must be gone first
 * (call before creating them, whose removal then runs first at exit).
 * 0, or -1 with the reason in @err.
 */
int tracefs_kprobe_add(const char *event, const char *def, char *err, size_t errlen);
/*
 * Add and enable the kprobe event @event ("GROUP/NAME") at @def
 * ("SYMBOL FETCHARGS"); tracefs_restore_all() disables and removes it.
 * 0, or -1 with the reason in @err (no kprobe events, or the kernel
 * refused the probe: a function it cannot probe, a bad fetch argument).
 */
int tracefs_kprobe_event(const char *event, const char *def, char *err, size_t errlen);
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
 * times on the CLOCK_MONOTONIC trace clock where the kernel has it,
 * task names, the name on every closing brace, return values where the
 * kernel has CONFIG_FUNCTION_GRAPH_RETVAL), buffer cleared, tracing on.
 * Saves what it changes.
 */
int tracefs_graph_start(const char *func, char *err, size_t errlen);
/* Whether the last tracefs_graph_start() set trace_clock to mono. */
bool tracefs_graph_mono(void);
/* tracing_on 0 (the buffer is kept for reading). */
void tracefs_graph_stop(void);

struct graph_call {
	double ts_s;		/* funcgraph-abstime of the entry, seconds */
	double duration_us;
	int cpu;
	int pid;		/* the task it ran in (funcgraph-proc) */
	bool nonleaf;		/* printed as "func() {" ... "}" */
	bool has_ret;		/* funcgraph-retval printed "= VALUE" (an event: a field) */
	long ret;		/* that return value (an event: its first field's value) */
	uint64_t lost;		/* GRAPH_LOST: events lost (1 if not said) */
	char func[64];		/* "" for a bare "}" */
};

/* What one line of function_graph output is. */
enum graph_line {
	GRAPH_OTHER = -1,	/* headers, markers, other output */
	GRAPH_CALL = 0,		/* "func();" with its duration: a whole call */
	GRAPH_OPEN,		/* "func() {": an entry whose return comes later */
	GRAPH_CLOSE,		/* "}" with the duration (and the name, funcgraph-tail) */
	GRAPH_LOST,		/* "CPU:N [LOST M EVENTS]" */
	GRAPH_EVENT,		/* an event as a comment: func its name, ret its first field */
};

/*
 * Parse one line of the function_graph trace output ("trace" file or
 * trace_pipe). A GRAPH_CLOSE carries the time of the return in ts_s.
 */
enum graph_line graph_line_parse(const char *line, struct graph_call *c);

/* What reading a trace found besides the calls. */
struct graph_read_info {
	uint64_t lost_lines;	/* sum of the [LOST N EVENTS] markers */
	uint64_t overwritten;	/* entries-written minus entries-in-buffer */
	uint64_t overrun;	/* per_cpu/cpuN/stats overrun + dropped events */
	size_t nonleaf;		/* calls printed as "func() {" ... "}" */
	size_t unmatched;	/* "func() {" without its "}" (buffer ended) */
};

/*
 * Events lost, the largest of the three views of the same losses (the
 * markers, the header's difference, the per-CPU counters): non-zero
 * flags the trace. (Entries without their return, cut by the end of
 * tracing, are counted apart in unmatched.)
 */
static inline uint64_t graph_read_lost(const struct graph_read_info *i)
{
	uint64_t m = i->lost_lines > i->overwritten ? i->lost_lines : i->overwritten;

	return i->overrun > m ? i->overrun : m;
}

/*
 * Read the "trace" file and call @fn for each complete call, leaf or
 * not (a non-leaf call's ts_s is its entry, from the "{" line, else the
 * return minus the duration); returns the number of calls, -1 if it
 * cannot be read. @info gets the losses and the non-leaf count.
 */
long tracefs_graph_read(void (*fn)(const struct graph_call *c, void *arg),
			void *arg, struct graph_read_info *info);
/*
 * The same over any stream of trace lines (@f), without the per-CPU
 * statistics (info->overrun stays 0).
 */
long graph_stream_read(FILE *f, void (*fn)(const struct graph_call *c, void *arg),
		       void *arg, struct graph_read_info *info);

#endif
