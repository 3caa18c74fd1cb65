// SPDX-License-Identifier: GPL-2.0
/*
 * The raw source of trace_event.h: the instance's per-CPU
 * trace_pipe_raw pages, split into records by libtraceevent's kbuffer,
 * each laid out by its event's format file (read by libtracefs), its
 * function pointers named from /proc/kallsyms (lib/kernel/ksym.h).
 * Built with TRACEEVENT=1; trace_event_raw_none.c otherwise.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "../base/cleanup.h"
#include "../base/util.h"
#include "ksym.h"
#include "trace_event.h"

#define RAW_CPUS 1024

/* A record of a window: where it is in the pages read, and when. */
struct raw_rec {
	uint64_t ts;
	size_t off;
	int size, cpu;
	size_t seq;		/* the order it was read in, for equal times */
};

struct trace_event_raw {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	size_t page_size;
	int nfd, fd[RAW_CPUS], cpu[RAW_CPUS];
	int cleanup_handle;
	char *pages;		/* a window's pages, one after the other */
	size_t npages, cap_pages;
	struct raw_rec *recs;
	size_t nrecs, cap_recs;
};

/* What a record of this source carries for the accessors. */
struct raw_data {
	struct trace_event_raw *raw;
	struct tep_record *rec;
	struct tep_event *event;
};

static struct tep_format_field *raw_field(const struct trace_event_record *rec,
					  const char *name, const void **data)
{
	const struct raw_data *d = rec->data;

	*data = d->rec->data;
	return tep_find_field(d->event, name);
}

static int raw_u64(const struct trace_event_record *rec, const char *name, uint64_t *v)
{
	const void *data;
	struct tep_format_field *f = raw_field(rec, name, &data);
	unsigned long long val;

	if (!f || tep_read_number_field(f, data, &val))
		return -1;
	*v = val;
	return 0;
}

/* The __print_symbolic() of @name in @arg's list, or NULL. */
static struct tep_print_flag_sym *symbols_of(struct tep_print_arg *arg, const char *name)
{
	struct tep_print_flag_sym *s = NULL;

	for (; arg && !s; arg = arg->next) {
		if (arg->type == TEP_PRINT_SYMBOL && arg->symbol.field &&
		    arg->symbol.field->type == TEP_PRINT_FIELD &&
		    !strcmp(arg->symbol.field->field.name, name))
			return arg->symbol.symbols;
		if (arg->type == TEP_PRINT_OP)
			s = symbols_of(arg->op.left, name) ?: symbols_of(arg->op.right, name);
		else if (arg->type == TEP_PRINT_TYPE)
			s = symbols_of(arg->typecast.item, name);
	}
	return s;
}

/* The bytes of a __data_loc field: offset and length in one u32. */
static const char *dynamic_bytes(struct tep_format_field *f, const void *data, int *len)
{
	unsigned long long loc;
	unsigned int off;

	if (tep_read_number_field(f, data, &loc))
		return NULL;
	off = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	*len = (int)(loc >> 16);
	return (const char *)data + off;
}

/*
 * /proc/kallsyms, read at the first open and kept for the process: in
 * a TCG guest whose target CPU spins, reading and sorting it takes
 * seconds, so never in a window, and once however often a source opens.
 */
static struct ksym_table *raw_ksyms;

/* The function @addr lies in, or NULL. */
static const char *raw_ksym(unsigned long long addr)
{
	return raw_ksyms ? ksym_table_name(raw_ksyms, addr) : NULL;
}

/* A number as text: its symbolic name, the symbol it points into, or digits. */
static const char *raw_number_str(const struct trace_event_record *rec, struct tep_format_field *f,
				  const void *data, char *buf, size_t len)
{
	const struct raw_data *d = rec->data;
	unsigned long long val;
	const char *sym;

	if (tep_read_number_field(f, data, &val))
		return NULL;
	for (struct tep_print_flag_sym *s = symbols_of(d->event->print_fmt.args, f->name); s;
	     s = s->next)
		if (strtoull(s->value, NULL, 0) == val) {
			snprintf(buf, len, "%s", s->str);
			return buf;
		}
	if (f->size == sizeof(long) && !(f->flags & TEP_FIELD_IS_SIGNED)) {
		sym = val ? raw_ksym(val) : NULL;
		if (sym)
			snprintf(buf, len, "%s", sym);
		else
			snprintf(buf, len, "0x%llx", val);
		return buf;
	}
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8) {
		int shift = 64 - 8 * f->size;

		snprintf(buf, len, "%lld", (long long)(val << shift) >> shift);
		return buf;
	}
	snprintf(buf, len, "%llu", val);
	return buf;
}

static const char *raw_str(const struct trace_event_record *rec, const char *name,
			   char *buf, size_t len)
{
	const void *data;
	struct tep_format_field *f = raw_field(rec, name, &data);
	const char *s;
	int n;

	if (!f)
		return NULL;
	if (!(f->flags & TEP_FIELD_IS_STRING))
		return raw_number_str(rec, f, data, buf, len);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		s = dynamic_bytes(f, data, &n);
		if (!s)
			return NULL;
	} else {
		s = (const char *)data + f->offset;
		n = f->size;
	}
	snprintf(buf, len, "%.*s", (int)strnlen(s, n), s);
	return buf;
}

/* A cpumask field: a __data_loc array of longs, bit N for CPU N. */
static int raw_mask_has(const struct trace_event_record *rec, const char *name, int cpu)
{
	const struct raw_data *d = rec->data;
	const void *data;
	struct tep_format_field *f = raw_field(rec, name, &data);
	int word = tep_get_long_size(d->raw->tep), len;
	const char *bits;

	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC))
		return -1;
	bits = dynamic_bytes(f, data, &len);
	if (!bits)
		return -1;
	/* the kernel's longs, in its byte order */
	if (cpu < 0 || word <= 0 || (cpu / (8 * word) + 1) * word > len)
		return 0;
	return (tep_read_number(d->raw->tep, bits + cpu / (8 * word) * word, word) >>
		(cpu % (8 * word))) & 1;
}

static bool raw_has(const struct trace_event_record *rec, const char *name)
{
	const void *data;

	return raw_field(rec, name, &data);
}

static const struct trace_event_source raw_source = {
	.u64 = raw_u64, .str = raw_str, .mask_has = raw_mask_has, .has = raw_has,
};

/* Async-signal-safe: the instance cannot be removed while they are open. */
static void raw_cleanup(void *arg)
{
	struct trace_event_raw *r = arg;

	for (int i = 0; i < r->nfd; i++)
		close(r->fd[i]);
	r->nfd = 0;
}

/* Open per_cpu/cpuN/trace_pipe_raw for every N, without blocking. */
static int open_cpus(struct trace_event_raw *r, const char *dir, char *err, size_t errlen)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	d = opendir(path);
	if (!d) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) && r->nfd < RAW_CPUS) {
		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw", dir, de->d_name);
		r->fd[r->nfd] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fd[r->nfd] < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			closedir(d);
			return -1;
		}
		r->cpu[r->nfd++] = (int)strtol(de->d_name + 3, NULL, 10);
	}
	closedir(d);
	return 0;
}

/* The ring buffer's page: buffer_subbuf_size_kb (6.8+), else the page size. */
static size_t subbuf_size(const char *dir)
{
	char path[512], *txt;
	long kb = 0;

	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", dir);
	txt = read_file_all(path, NULL);
	if (txt)
		kb = strtol(txt, NULL, 10);
	free(txt);
	return kb > 0 ? (size_t)kb * 1024 : (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * The ring buffer's page header and the formats of every event of
 * @systems, the same in every instance: the top level's. Not
 * tracefs_local_events_system(), which also reads kallsyms into a
 * growing buffer and a name per symbol: seconds under ASan, where the
 * one sorted table of raw_ksym() serves every source.
 */
static struct tep_handle *raw_formats(const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	enum tep_endian endian = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
	char *buf, **events;
	int size, bad = 0;

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, endian);
	tep_set_local_bigendian(tep, endian);
	tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, size, sizeof(long)))
		bad = 1;
	else	/* the kernel's long, as the page header's commit field has it */
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(buf);
	for (size_t i = 0; !bad && systems[i]; i++) {
		events = tracefs_system_events(NULL, systems[i]);
		/* an event whose format does not parse is only never named */
		for (size_t j = 0; events && events[j]; j++) {
			buf = tracefs_event_file_read(NULL, systems[i], events[j], "format", &size);
			if (buf)
				tep_parse_event(tep, buf, size, systems[i]);
			free(buf);
		}
		tracefs_list_free(events);
	}
	if (bad) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/* The systems of @tab's rows into @systems (@n so far, room for @max), each once. */
static size_t table_systems(const struct trace_event_table *tab, const char **systems,
			    size_t n, size_t max)
{
	for (size_t i = 0; i < tab->nrows && n < max; i++) {
		size_t j;

		for (j = 0; j < n && strcmp(systems[j], tab->rows[i].system); j++)
			;
		if (j == n)
			systems[n++] = tab->rows[i].system;
	}
	return n;
}

struct trace_event_raw *trace_event_raw_open(const char *instance_dir,
					     const struct trace_event_table *const *tabs,
					     size_t ntabs, char *err, size_t errlen)
{
	struct trace_event_raw *r = calloc(1, sizeof(*r));
	const char *systems[16];
	size_t n = 0;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->cleanup_handle = -1;
	for (size_t i = 0; i < ntabs; i++)
		n = table_systems(tabs[i], systems, n, ARRAY_SIZE(systems) - 1);
	systems[n] = NULL;
	r->tep = raw_formats(systems);
	r->kbuf = r->tep ? tep_kbuffer(r->tep) : NULL;
	if (!r->kbuf) {
		snprintf(err, errlen, "libtracefs could not read the event formats of %s",
			 tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs");
		trace_event_raw_close(r);
		return NULL;
	}
	r->page_size = subbuf_size(instance_dir);
	r->cleanup_handle = cleanup_push(raw_cleanup, r);
	if (open_cpus(r, instance_dir, err, errlen)) {
		trace_event_raw_close(r);
		return NULL;
	}
	if (!raw_ksyms)
		raw_ksyms = ksym_table_load("/proc/kallsyms");
	return r;
}

/* Room for @n more of @size bytes in *@buf, which holds @have of @cap. */
static int grow(void *buf, size_t *cap, size_t have, size_t n, size_t size)
{
	size_t want = *cap ? *cap : 64;
	void *p;

	while (want < have + n)
		want *= 2;
	if (want == *cap)
		return 0;
	p = realloc(*(void **)buf, want * size);
	if (!p)
		return -1;
	*(void **)buf = p;
	*cap = want;
	return 0;
}

/* Each record of the page just read, into r->recs. */
static int page_records(struct trace_event_raw *r, int cpu)
{
	char *page = r->pages + r->npages * r->page_size;
	unsigned long long ts;
	void *ev;

	if (kbuffer_load_subbuffer(r->kbuf, page))
		return -1;
	for (ev = kbuffer_read_event(r->kbuf, &ts); ev; ev = kbuffer_next_event(r->kbuf, &ts)) {
		if (grow(&r->recs, &r->cap_recs, r->nrecs, 1, sizeof(*r->recs)))
			return -1;
		r->recs[r->nrecs] = (struct raw_rec){
			.ts = ts, .off = (char *)ev - r->pages, .cpu = cpu,
			.size = kbuffer_event_size(r->kbuf), .seq = r->nrecs,
		};
		r->nrecs++;
	}
	r->npages++;
	return 0;
}

/* Every page one CPU has buffered: read until there is none (EAGAIN). */
static int read_cpu(struct trace_event_raw *r, int i)
{
	for (;;) {
		ssize_t n;

		if (grow(&r->pages, &r->cap_pages, r->npages, 1, r->page_size))
			return -1;
		n = read(r->fd[i], r->pages + r->npages * r->page_size, r->page_size);
		/* ENODEV: a possible CPU never online has no buffer, so no records */
		if (n < 0 && (errno == EAGAIN || errno == EINTR || errno == ENODEV))
			return 0;
		if (n <= 0)
			return n ? -1 : 0;
		if (page_records(r, r->cpu[i]))
			return -1;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct raw_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The frames of a stack record (the stacktrace trigger's), innermost
 * first, to @tab->frame, then NULL: as many as its size field says,
 * within the record (its caller array runs to the record's end, not to
 * the 8 entries its format states), to the first ULONG_MAX. An address
 * no symbol holds is given as the text source prints it.
 */
static void raw_stack_frames(const struct raw_data *d, struct trace_event_table *tab, void *ctx)
{
	struct tep_format_field *f = tep_find_field(d->event, "caller");
	int word = tep_get_long_size(d->raw->tep), size = d->rec->size;
	unsigned long long ip, end = word == 8 ? ~0ULL : 0xffffffffULL, left;
	const char *data = d->rec->data, *func;
	char hex[24];

	if (tep_read_number_field(tep_find_field(d->event, "size"), data, &left))
		left = ~0ULL;
	for (int off = f ? f->offset : size; left && off + word <= size; off += word, left--) {
		ip = tep_read_number(d->raw->tep, data + off, word);
		if (ip == end)
			break;
		func = raw_ksym(ip);
		if (!func) {
			snprintf(hex, sizeof(hex), "0x%llx", ip);
			func = hex;
		}
		tab->frame(ctx, func);
	}
	tab->frame(ctx, NULL);
}

static void raw_dispatch(struct trace_event_raw *r, const struct trace_event_reader *readers,
			 size_t nreaders, const struct raw_rec *q)
{
	struct tep_record tr = {
		.ts = q->ts, .data = r->pages + q->off, .size = q->size, .cpu = q->cpu,
	};
	struct raw_data d = {
		.raw = r, .rec = &tr, .event = tep_find_event_by_record(r->tep, &tr),
	};
	struct trace_event_record rec = { .src = &raw_source, .data = &d };
	bool stack;

	if (!d.event) {
		for (size_t i = 0; i < nreaders; i++) {
			readers[i].tab->records++;
			readers[i].tab->unknown++;
		}
		return;
	}
	rec.system = d.event->system;
	rec.event = d.event->name;
	rec.cpu = q->cpu;
	rec.pid = tep_data_pid(r->tep, &tr);
	rec.comm = tep_data_comm_from_pid(r->tep, rec.pid);
	rec.irq = tep_data_flags(r->tep, &tr) & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ);
	rec.ts_ns = q->ts;
	stack = !strcmp(rec.system, "ftrace") && !strcmp(rec.event, "kernel_stack");
	for (size_t i = 0; i < nreaders; i++) {
		trace_event_dispatch(readers[i].tab, readers[i].ctx, &rec);
		if (stack && readers[i].tab->frame)
			raw_stack_frames(&d, readers[i].tab, readers[i].ctx);
	}
}

ssize_t trace_event_raw_read(struct trace_event_raw *r, const struct trace_event_reader *readers,
			     size_t n)
{
	int ret = 0, err = 0;

	r->npages = r->nrecs = 0;
	/* every CPU read even after one fails: the others' records still count */
	for (int i = 0; i < r->nfd; i++)
		if (read_cpu(r, i) && !ret) {
			ret = -1;
			err = errno;
		}
	/* the CPUs' records merged by time, as trace_pipe gives them */
	if (r->nrecs)
		qsort(r->recs, r->nrecs, sizeof(*r->recs), by_time);
	/* the tasks' names as the kernel saved them by now (else "<...>") */
	if (n && r->nrecs)
		tracefs_load_cmdlines(NULL, r->tep);
	for (size_t i = 0; n && i < r->nrecs; i++)
		raw_dispatch(r, readers, n, &r->recs[i]);
	errno = err;
	return ret ? ret : (ssize_t)r->nrecs;
}

void trace_event_raw_close(struct trace_event_raw *r)
{
	if (!r)
		return;
	if (r->cleanup_handle >= 0)
		cleanup_run_one(r->cleanup_handle);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	if (r->tep)
		tep_free(r->tep);
	free(r->pages);
	free(r->recs);
	free(r);
}
