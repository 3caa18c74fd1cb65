/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A private tracefs instance (instances/NAME): enable a few events with
 * filters in it and read their text records from its trace_pipe,
 * without touching the global trace buffer other tools may be using.
 * The instance is removed at the end, at exit and on a second signal.
 */
#ifndef ISOLBENCH_TRACE_INSTANCE_H
#define ISOLBENCH_TRACE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct trace_instance {
	char dir[192];
	int pipe_fd;
	bool created;
	int cleanup_handle;
};

/* mkdir instances/@name-PID; 0 or -1 with a reason in @err. */
int trace_instance_create(struct trace_instance *t, const char *name,
			  char *err, size_t errlen);
/*
 * Enable "system:event" with @filter (NULL for none); a tracepoint this
 * kernel lacks says so in @err.
 */
int trace_instance_enable(struct trace_instance *t, const char *event,
			  const char *filter, char *err, size_t errlen);
/* Set the filter of "system:event" only; 0, or -1 with a reason. */
int trace_instance_filter(struct trace_instance *t, const char *event,
			  const char *filter, char *err, size_t errlen);
/* Set the instance's trace_clock ("mono": CLOCK_MONOTONIC); 0 or -1. */
int trace_instance_clock(struct trace_instance *t, const char *clock);
/* Open trace_pipe (non-blocking) and switch tracing on. */
int trace_instance_start(struct trace_instance *t, char *err, size_t errlen);
/*
 * Switch the instance's tracing off (what is buffered stays readable);
 * 0 or -1 with errno. Removing the instance undoes it.
 */
int trace_instance_stop(struct trace_instance *t);
/*
 * Read what is there into @buf; if nothing, sleep @timeout_ms and try
 * once more.
 * Returns bytes read, 0 when none came, -1 on error.
 */
ssize_t trace_instance_read(struct trace_instance *t, char *buf, size_t len,
			    int timeout_ms);
/*
 * Read what is buffered, line by line, each (its newline cut) to
 * @line(@ctx, line), the last one even without its newline; a line
 * longer than 64 KiB is dropped. 0, or -1 with errno.
 */
int trace_instance_read_lines(struct trace_instance *t, void (*line)(void *ctx, char *line),
			      void *ctx);
/*
 * Events the instance's ring buffer lost: the sum over every
 * per_cpu/cpuN/stats of "overrun:" and "dropped events:".
 */
long long trace_instance_overruns(struct trace_instance *t);
void trace_instance_remove(struct trace_instance *t);

/*
 * Remove the instances in @instances_dir (tracefs/instances) that an
 * isolbench process left when it was killed with SIGKILL: named
 * "isolbench-NAME-PID" with no process PID any more. A live process's
 * instance is never touched. Says "# removed ..." for each; returns how
 * many were removed. trace_instance_create() calls it first.
 */
int trace_instances_reap(const char *instances_dir);
/*
 * The same in the mounted tracefs, if any (nothing is mounted for it):
 * every program's start, so that any next run cleans up after a killed
 * one, whichever program that was.
 */
void trace_instances_reap_mounted(void);

#endif
