// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "counters.h"
#include "journal.h"
#include "trace_instance.h"
#include "tracefs.h"
#include "../base/util.h"

#define TRACEFS_MAX_SAVED	16

/*
 * Saved settings, filled before the first change of a file. The
 * restore path only uses open/write/close on these fixed buffers, so
 * it can run from the cleanup of a second signal.
 */
static struct saved {
	char path[192];
	char old[1024];
	int truncate;		/* open with O_TRUNC (filters) */
	volatile sig_atomic_t pending;
} saved[TRACEFS_MAX_SAVED];
static volatile sig_atomic_t nsaved;
static int cleanup_registered;
static bool graph_mono;

static void restore_one(struct saved *s)
{
	int fd = open(s->path, O_WRONLY | O_CLOEXEC | (s->truncate ? O_TRUNC : 0));

	if (fd < 0)
		return;
	if (s->old[0] && write(fd, s->old, strlen(s->old)) < 0) {
		/* nothing more to do on an exit path */
	} else {
		journal_restored(s->path);
	}
	close(fd);
}

void tracefs_restore_all(void)
{
	for (int i = nsaved - 1; i >= 0; i--) {
		if (!saved[i].pending)
			continue;
		saved[i].pending = 0;
		restore_one(&saved[i]);
	}
}

int tracefs_saved_count(void)
{
	int n = 0;

	for (int i = 0; i < nsaved; i++)
		n += !!saved[i].pending;
	return n;
}

static void restore_cleanup(void *arg)
{
	(void)arg;
	tracefs_restore_all();
}

static int tracefs_file(const char *file, char *path, size_t len)
{
	const char *tfs = tracefs_path();

	if (!tfs)
		return -1;
	snprintf(path, len, "%s/%s", tfs, file);
	return 0;
}

/*
 * What writing back restores @file: comment lines ("#### all functions
 * enabled ####") dropped, the rest joined by blanks; for a @choice file
 * (trace_clock: "[local] global mono") the selected word alone.
 */
static void saved_value(const char *content, bool choice, char *out, size_t len)
{
	const char *p = content;
	size_t off = 0;

	out[0] = '\0';
	/* buffer_size_kb before first use: "7 (expanded: 1408)" */
	if (strstr(content, "(expanded: ")) {
		snprintf(out, len, "%lu", strtoul(strstr(content, "(expanded: ") + 11, NULL, 10));
		return;
	}
	/* a choice list ("[local] global mono"): the selected word */
	if (choice && strchr(content, '[') && strchr(content, ']')) {
		const char *b = strchr(content, '[') + 1;

		snprintf(out, len, "%.*s", (int)(strchr(b, ']') - b), b);
		return;
	}
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		if (*p != '#' && nl > p && off + (nl - p) + 2 < len) {
			memcpy(out + off, p, nl - p);
			off += nl - p;
			out[off++] = ' ';
			out[off] = '\0';
		}
		p = *nl ? nl + 1 : nl;
	}
	while (off && isspace((unsigned char)out[off - 1]))
		out[--off] = '\0';
}

/*
 * Save @old as what puts @path back (with O_TRUNC when @truncate): the
 * entry, or NULL with the reason in @err.
 */
static struct saved *save_setting(const char *path, const char *old, int truncate,
				  char *err, size_t errlen)
{
	struct saved *s;

	if (nsaved >= TRACEFS_MAX_SAVED) {
		snprintf(err, errlen, "too many tracefs settings to save");
		return NULL;
	}
	s = &saved[nsaved];
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->old, sizeof(s->old), "%s", old);
	s->truncate = truncate;
	/* for the run after a SIGKILL; before the cleanup that undoes it */
	journal_save(s->path, s->old, s->truncate);
	if (!cleanup_registered) {
		cleanup_push(restore_cleanup, NULL);
		cleanup_registered = 1;
	}
	s->pending = 1;
	nsaved = nsaved + 1;
	return s;
}

/* Whether a change of @path is saved and not yet put back. */
static bool setting_saved(const char *path)
{
	for (int i = 0; i < nsaved; i++)
		if (!strcmp(saved[i].path, path) && saved[i].pending)
			return true;
	return false;
}

int tracefs_set(const char *file, const char *value, char *err, size_t errlen)
{
	char path[192], value_old[sizeof(saved[0].old)];
	char *old;

	if (tracefs_file(file, path, sizeof(path))) {
		snprintf(err, errlen, "tracefs is not available");
		return -1;
	}
	if (!setting_saved(path)) {
		old = read_file_all(path, NULL);
		if (!old) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		/* current_tracer and options read back as one word */
		saved_value(old, !strcmp(file, "trace_clock"), value_old, sizeof(value_old));
		free(old);
		if (!save_setting(path, value_old,
				  strstr(file, "filter") || strstr(file, "graph_function"),
				  err, errlen))
			return -1;
	}
	if (write_file(path, value)) {
		snprintf(err, errlen, "write '%s' to %s: %s", value, path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int tracefs_kprobe_add(const char *event, const char *def, char *err, size_t errlen)
{
	char path[192], add[256], remove[96];
	struct saved *s;

	if (tracefs_file("kprobe_events", path, sizeof(path))) {
		snprintf(err, errlen, "tracefs is not available");
		return -1;
	}
	if (access(path, W_OK)) {
		snprintf(err, errlen, "%s: %s (CONFIG_KPROBE_EVENTS)", path, strerror(errno));
		return -1;
	}
	/* removed, never truncated: O_TRUNC would remove every kprobe event */
	snprintf(remove, sizeof(remove), "-:%s", event);
	for (int i = 0; i < nsaved; i++)
		if (saved[i].pending && !strcmp(saved[i].path, path) &&
		    !strcmp(saved[i].old, remove))
			return 0;
	s = save_setting(path, remove, 0, err, errlen);
	if (!s)
		return -1;
	snprintf(add, sizeof(add), "p:%s %s", event, def);
	if (write_file(path, add)) {
		snprintf(err, errlen, "the kernel refused the kprobe event '%s': %s",
			 add, strerror(errno));
		/* nothing was added: nothing to remove, now or after a SIGKILL */
		s->pending = 0;
		journal_restored(path);
		return -1;
	}
	return 0;
}

int tracefs_kprobe_event(const char *event, const char *def, char *err, size_t errlen)
{
	char enable[160];

	if (tracefs_kprobe_add(event, def, err, errlen))
		return -1;
	snprintf(enable, sizeof(enable), "events/%s/enable", event);
	return tracefs_set(enable, "1", err, errlen);
}

int tracefs_write(const char *file, const char *value)
{
	char path[192];

	if (tracefs_file(file, path, sizeof(path)))
		return -1;
	return write_file(path, value);
}

/* Whether @word is a whole word of tracefs file @file. */
static int tracefs_file_has_word(const char *file, const char *word)
{
	char path[192];
	char *all, *p;
	size_t n = strlen(word);
	int found = 0;

	if (tracefs_file(file, path, sizeof(path)))
		return 0;
	all = read_file_all(path, NULL);
	if (!all)
		return 0;
	for (p = all; (p = strstr(p, word)); p += n) {
		int left = p == all || isspace((unsigned char)p[-1]);
		int right = !p[n] || isspace((unsigned char)p[n]);

		if (left && right) {
			found = 1;
			break;
		}
	}
	free(all);
	return found;
}

int tracefs_tracer_available(const char *tracer)
{
	return tracefs_file_has_word("available_tracers", tracer);
}

int tracefs_function_traceable(const char *func)
{
	return tracefs_file_has_word("available_filter_functions", func);
}

int tracefs_graph_probe(const char *func, char *why, size_t whylen)
{
	if (geteuid()) {
		snprintf(why, whylen, "function_graph needs root");
		return -1;
	}
	if (!tracefs_path()) {
		snprintf(why, whylen, "tracefs is not mounted and cannot be mounted");
		return -1;
	}
	if (!tracefs_tracer_available("function_graph")) {
		snprintf(why, whylen,
			 "function_graph is not in available_tracers (CONFIG_FUNCTION_GRAPH_TRACER)");
		return -1;
	}
	if (!tracefs_function_traceable(func)) {
		snprintf(why, whylen, "%s is not in available_filter_functions",
			 func);
		return -1;
	}
	return 0;
}

int tracefs_graph_start(const char *func, char *err, size_t errlen)
{
	static const char *const options[][2] = {
		{ "options/funcgraph-abstime", "1" },
		{ "options/funcgraph-proc", "1" },
		{ "options/funcgraph-cpu", "1" },
		{ "options/funcgraph-duration", "1" },
		{ "options/funcgraph-overhead", "1" },
		{ "options/funcgraph-retval", "1" },
		/* the name on every "}", so a non-leaf call is never anonymous */
		{ "options/funcgraph-tail", "1" },
	};

	if (tracefs_set("tracing_on", "0", err, errlen) ||
	    tracefs_set("current_tracer", "nop", err, errlen) ||
	    tracefs_set("set_ftrace_filter", func, err, errlen) ||
	    tracefs_set("set_graph_function", func, err, errlen))
		return -1;
	/* depth 1: the function alone, not its callees (absent before 3.15) */
	tracefs_set("max_graph_depth", "1", err, errlen);
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		tracefs_set(options[i][0], options[i][1], err, errlen);
	/* CLOCK_MONOTONIC timestamps, comparable with user space (3.10+) */
	graph_mono = !tracefs_set("trace_clock", "mono", err, errlen);
	if (tracefs_set("current_tracer", "function_graph", err, errlen))
		return -1;
	tracefs_write("trace", "");
	return tracefs_set("tracing_on", "1", err, errlen);
}

bool tracefs_graph_mono(void)
{
	return graph_mono;
}

void tracefs_graph_stop(void)
{
	tracefs_write("tracing_on", "0");
}

/* "  1)  bash-389    " -> cpu 1, pid 389 */
static void parse_cpu_task(const char *f, const char *end, struct graph_call *c)
{
	const char *paren = memchr(f, ')', end - f);
	const char *dash = NULL;

	if (!paren)
		return;
	c->cpu = (int)strtol(f, NULL, 10);
	for (const char *p = paren; p < end; p++)
		if (*p == '-')
			dash = p;
	if (dash)
		c->pid = (int)strtol(dash + 1, NULL, 10);
}

/* "CPU:3 [LOST 12 EVENTS]" or "CPU:3 [LOST EVENTS]" (count unknown: 1) */
static int parse_lost(const char *line, struct graph_call *c)
{
	const char *p = strstr(line, "[LOST ");
	char *end;

	if (!p)
		return -1;
	memset(c, 0, sizeof(*c));
	c->cpu = -1;
	if (!strncmp(line, "CPU:", 4))
		c->cpu = (int)strtol(line + 4, NULL, 10);
	c->lost = strtoull(p + 6, &end, 10);
	if (end == p + 6)
		c->lost = 1;
	return 0;
}

/* funcgraph-retval: "func(); /" "* = 0x8 *" "/", "} /" "* func = -16 *" "/" */
static void parse_retval(const char *fn, struct graph_call *c)
{
	const char *p = strstr(fn, "/* ");
	const char *v;
	char *e;

	p = p ? strstr(p, "= ") : NULL;
	if (!p)
		return;
	v = p + 2;
	errno = 0;
	if (v[0] == '0' && v[1] == 'x')
		c->ret = (long)strtoul(v, &e, 16);
	else
		c->ret = strtol(v, &e, 10);
	c->has_ret = e != v && !errno;
}

/* The function's name, its first @n bytes at @name, cut to what c->func holds. */
static void parse_name(const char *name, size_t n, struct graph_call *c)
{
	if (n >= sizeof(c->func))
		n = sizeof(c->func) - 1;
	memcpy(c->func, name, n);
	c->func[n] = '\0';
}

/* An event: "/" "* name: (sym+0x0/0x80) field=16 ... *" "/" */
static enum graph_line parse_event(const char *fn, struct graph_call *c)
{
	const char *v = strchr(fn, ')');
	char *e;

	parse_name(fn + 3, strcspn(fn + 3, ": "), c);
	v = strchr(v ? v : fn, '=');
	if (v) {
		errno = 0;
		c->ret = strtol(v + 1, &e, 0);
		c->has_ret = e != v + 1 && !errno;
	}
	return GRAPH_EVENT;
}

/* A return: "}" [ "/" "* func *" "/" ] */
static enum graph_line parse_close(const char *fn, struct graph_call *c)
{
	const char *name = strstr(fn, "/* ");

	c->nonleaf = true;
	if (name) {
		name += 3;
		parse_name(name, strcspn(name, " *\n"), c);
	}
	return GRAPH_CLOSE;
}

/* An entry: "func();" (a whole call) or "func() {" */
static enum graph_line parse_entry(const char *fn, struct graph_call *c)
{
	const char *open = strstr(fn, "()");
	enum graph_line kind;

	if (!open || open == fn)
		return GRAPH_OTHER;
	if (open[2] == ';')
		kind = GRAPH_CALL;
	else if (!strncmp(open + 2, " {", 2))
		kind = GRAPH_OPEN;
	else
		return GRAPH_OTHER;
	c->nonleaf = kind == GRAPH_OPEN;
	parse_name(fn, open - fn, c);
	return kind;
}

/* What stands after the last bar, with the return value funcgraph-retval adds. */
static enum graph_line parse_func(const char *fn, struct graph_call *c)
{
	enum graph_line kind;

	if (!strncmp(fn, "/* ", 3) && strchr(fn, ':'))
		return parse_event(fn, c);
	kind = *fn == '}' ? parse_close(fn, c) : parse_entry(fn, c);
	if (kind != GRAPH_OTHER)
		parse_retval(fn, c);
	return kind;
}

/* Before the duration, optional "TIME |" and "CPU) TASK-PID |" fields. */
static void parse_fields(const char *line, const char *const *bars, int nbars,
			 struct graph_call *c)
{
	for (int i = 0; i < nbars - 1; i++) {
		const char *start = i ? bars[i - 1] + 1 : line;
		const char *end = bars[i];

		if (memchr(start, ')', end - start))
			parse_cpu_task(start, end, c);
		else if (memchr(start, '.', end - start))
			c->ts_s = strtod(start, NULL);
	}
}

enum graph_line graph_line_parse(const char *line, struct graph_call *c)
{
	const char *bars[8], *p, *fn, *dur;
	enum graph_line kind;
	int nbars = 0;

	if (line[0] == '#')
		return GRAPH_OTHER;
	if (!parse_lost(line, c))
		return GRAPH_LOST;
	for (p = line; *p && nbars < 8; p++)
		if (*p == '|')
			bars[nbars++] = p;
	if (nbars < 2)
		return GRAPH_OTHER;
	memset(c, 0, sizeof(*c));
	c->cpu = -1;
	/* after the last bar: "func();", "func() {" or "}" [ "/" "* func *" "/" ] */
	fn = bars[nbars - 1] + 1;
	while (*fn == ' ')
		fn++;
	kind = parse_func(fn, c);
	if (kind == GRAPH_OTHER)
		return GRAPH_OTHER;
	/* the duration: "  + 12.345 us   " between the last two bars */
	dur = bars[nbars - 2] + 1;
	while (*dur == ' ' || strchr("+!#*@$", *dur))
		dur++;
	if (isdigit((unsigned char)*dur))
		c->duration_us = strtod(dur, NULL);
	else if (kind != GRAPH_OPEN && kind != GRAPH_EVENT)
		return GRAPH_OTHER;
	parse_fields(line, bars, nbars, c);
	return kind;
}

/* Entries waiting for their closing brace, by task (one per task). */
#define GRAPH_OPEN_MAX	256

struct graph_open {
	struct graph_call c[GRAPH_OPEN_MAX];
	int n;
};

static void open_push(struct graph_open *o, const struct graph_call *c)
{
	for (int i = 0; i < o->n; i++)
		if (o->c[i].pid == c->pid) {
			o->c[i] = *c;	/* an entry without its return: replaced */
			return;
		}
	if (o->n < GRAPH_OPEN_MAX)
		o->c[o->n++] = *c;
}

static bool open_pop(struct graph_open *o, int pid, struct graph_call *c)
{
	for (int i = 0; i < o->n; i++)
		if (o->c[i].pid == pid) {
			*c = o->c[i];
			o->c[i] = o->c[--o->n];
			return true;
		}
	return false;
}

long graph_stream_read(FILE *f, void (*fn)(const struct graph_call *c, void *arg),
		       void *arg, struct graph_read_info *info)
{
	struct graph_open *open = calloc(1, sizeof(*open));
	struct graph_call c, entry;
	char line[512];
	long n = 0;

	memset(info, 0, sizeof(*info));
	if (!open)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *e = strstr(line, "entries-in-buffer/entries-written:");

		if (e) {
			unsigned long long in, written;

			if (sscanf(e, "entries-in-buffer/entries-written: %llu/%llu",
				   &in, &written) == 2 && written > in)
				info->overwritten += written - in;
			continue;
		}
		switch (graph_line_parse(line, &c)) {
		case GRAPH_LOST:
			info->lost_lines += c.lost;
			continue;
		case GRAPH_OPEN:
			open_push(open, &c);
			continue;
		case GRAPH_CLOSE:
			if (open_pop(open, c.pid, &entry)) {
				c.ts_s = entry.ts_s;
				if (!c.func[0])
					memcpy(c.func, entry.func, sizeof(c.func));
			} else {
				c.ts_s -= c.duration_us / 1e6;
			}
			info->nonleaf++;
			break;
		case GRAPH_CALL:
			break;
		case GRAPH_EVENT:
			fn(&c, arg);	/* not a call */
			continue;
		default:
			continue;
		}
		fn(&c, arg);
		n++;
	}
	info->unmatched = open->n;
	free(open);
	return n;
}

long tracefs_graph_read(void (*fn)(const struct graph_call *c, void *arg),
			void *arg, struct graph_read_info *info)
{
	struct trace_instance top = { .pipe_fd = -1 };
	char path[192];
	long n;
	FILE *f;

	memset(info, 0, sizeof(*info));
	if (tracefs_file("trace", path, sizeof(path)))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = graph_stream_read(f, fn, arg, info);
	fclose(f);
	/* the buffer was reset by tracefs_graph_start(): all of these are ours */
	snprintf(top.dir, sizeof(top.dir), "%s", tracefs_path());
	info->overrun = trace_instance_overruns(&top);
	return n;
}
