// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "counters.h"
#include "../base/ktap.h"
#include "trace_instance.h"
#include "../base/util.h"

static void trace_instance_cleanup(void *arg)
{
	struct trace_instance *t = arg;

	/* async-signal-safe: close and rmdir; rmdir disables the events */
	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	t->pipe_fd = -1;
	if (t->created && !rmdir(t->dir))
		t->created = false;
}

int trace_instance_create(struct trace_instance *t, const char *name,
			  char *err, size_t errlen)
{
	const char *tfs = tracefs_path();

	t->pipe_fd = -1;
	t->created = false;
	if (!tfs) {
		snprintf(err, errlen, "tracefs is not available");
		return -1;
	}
	snprintf(t->dir, sizeof(t->dir), "%s/instances", tfs);
	trace_instances_reap(t->dir);
	snprintf(t->dir, sizeof(t->dir), "%s/instances/%s-%d", tfs, name,
		 (int)getpid());
	if (mkdir(t->dir, 0700)) {
		snprintf(err, errlen, "cannot create trace instance %s: %s",
			 t->dir, strerror(errno));
		return -1;
	}
	t->created = true;
	t->cleanup_handle = cleanup_push(trace_instance_cleanup, t);
	return 0;
}

/* @t's directory of "system:event" into @path; -1 with a reason in @err. */
static int event_dir(struct trace_instance *t, const char *event, char *path,
		     size_t len, char *err, size_t errlen)
{
	char sys[64];
	const char *colon = strchr(event, ':');

	if (!colon || colon - event >= (long)sizeof(sys)) {
		snprintf(err, errlen, "bad event name '%s'", event);
		return -1;
	}
	memcpy(sys, event, colon - event);
	sys[colon - event] = '\0';
	snprintf(path, len, "%s/events/%s/%s", t->dir, sys, colon + 1);
	if (access(path, F_OK)) {
		snprintf(err, errlen, "%s: %s", event, errno == ENOENT ?
			 "no such tracepoint on this kernel" : strerror(errno));
		return -1;
	}
	return 0;
}

int trace_instance_filter(struct trace_instance *t, const char *event,
			  const char *filter, char *err, size_t errlen)
{
	char dir[320], path[352];

	if (event_dir(t, event, dir, sizeof(dir), err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/filter", dir);
	if (write_file(path, filter)) {
		snprintf(err, errlen, "%s: filter '%s' refused: %s",
			 event, filter, strerror(errno));
		return -1;
	}
	return 0;
}

int trace_instance_clock(struct trace_instance *t, const char *clock)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/trace_clock", t->dir);
	return write_file(path, clock);
}

int trace_instance_enable(struct trace_instance *t, const char *event,
			  const char *filter, char *err, size_t errlen)
{
	char dir[320], path[352];

	if (event_dir(t, event, dir, sizeof(dir), err, errlen))
		return -1;
	if (filter && trace_instance_filter(t, event, filter, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/enable", dir);
	if (write_file(path, "1")) {
		snprintf(err, errlen, "%s: cannot enable: %s", event,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int trace_instance_start(struct trace_instance *t, char *err, size_t errlen)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/trace_pipe", t->dir);
	t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe_fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/tracing_on", t->dir);
	if (write_file(path, "1")) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int trace_instance_stop(struct trace_instance *t)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/tracing_on", t->dir);
	return write_file(path, "0");
}

ssize_t trace_instance_read(struct trace_instance *t, char *buf, size_t len,
			    int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	ssize_t n;

	/*
	 * Non-blocking reads and a sleep, never poll(): a waiting reader
	 * makes the ring buffer wake it through irq_work, an IPI of its
	 * own on the CPU that logged the event.
	 */
	n = read(t->pipe_fd, buf, len);
	if (n > 0)
		return n;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -1;
	if (timeout_ms)
		nanosleep(&ts, NULL);
	n = read(t->pipe_fd, buf, len);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	return n;
}

int trace_instance_read_lines(struct trace_instance *t, void (*line)(void *ctx, char *line),
			      void *ctx)
{
	const size_t size = 65536;
	char *buf = malloc(size);
	size_t have = 0;
	ssize_t n;

	if (!buf)
		return -1;
	while ((n = trace_instance_read(t, buf + have, size - 1 - have, 0)) > 0) {
		char *l = buf, *nl;

		have += n;
		buf[have] = '\0';
		while ((nl = strchr(l, '\n'))) {
			*nl = '\0';
			line(ctx, l);
			l = nl + 1;
		}
		have -= l - buf;
		memmove(buf, l, have);
		if (have == size - 1)
			have = 0;	/* a line longer than the buffer: dropped */
	}
	if (have) {
		buf[have] = '\0';
		line(ctx, buf);
	}
	free(buf);
	return n < 0 ? -1 : 0;
}

/* The value of the line starting with @key in a per_cpu stats file. */
static long long stats_value(const char *txt, const char *key)
{
	size_t len = strlen(key);
	const char *l = txt;

	while (l) {
		if (!strncmp(l, key, len))
			return strtoll(l + len, NULL, 10);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return 0;
}

long long trace_instance_overruns(struct trace_instance *t)
{
	char path[512];
	long long total = 0;
	struct dirent *de;
	DIR *d;

	/* every per_cpu/cpuN there is: CPU numbers may have gaps */
	snprintf(path, sizeof(path), "%s/per_cpu", t->dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *txt;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", t->dir, de->d_name);
		txt = read_file_all(path, NULL);
		if (!txt)
			continue;
		/* overwritten (overwrite mode) and refused (buffer full) */
		total += stats_value(txt, "overrun:") + stats_value(txt, "dropped events:");
		free(txt);
	}
	closedir(d);
	return total;
}

void trace_instance_remove(struct trace_instance *t)
{
	if (t->created || t->pipe_fd >= 0)
		cleanup_run_one(t->cleanup_handle);
}

/* The PID of an "isolbench-NAME-PID" entry, or 0 for any other name. */
static long stale_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	char *end;
	long pid;

	if (strncmp(name, "isolbench-", 10) || !dash || dash < name + 10 ||
	    !isdigit((unsigned char)dash[1]))
		return 0;
	pid = strtol(dash + 1, &end, 10);
	return *end || pid <= 0 ? 0 : pid;
}

void trace_instances_reap_mounted(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/instances", "/sys/kernel/debug/tracing/instances",
	};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (!access(dirs[i], W_OK)) {
			trace_instances_reap(dirs[i]);
			return;
		}
	}
}

int trace_instances_reap(const char *instances_dir)
{
	struct dirent *e;
	int removed = 0;
	DIR *d = opendir(instances_dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = stale_pid(e->d_name);
		char path[512];

		/* EPERM: it exists, someone else's; only ESRCH means gone */
		if (!pid || pid == getpid() || !pid_gone(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", instances_dir, e->d_name);
		if (rmdir(path)) {
			ksft_print_msg("stale trace instance %s (pid %ld is gone): cannot remove: %s\n",
				       path, pid, strerror(errno));
			continue;
		}
		ksft_print_msg("removed stale trace instance %s (pid %ld is gone)\n",
			       path, pid);
		removed++;
	}
	closedir(d);
	return removed;
}
