// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/cpu.h"
#include "trace_event.h"
#include "trace_record.h"

/* A field the record has not: counted, and the first one named. */
static void field_missing(const struct trace_event_record *rec, const char *field)
{
	struct trace_event_table *tab = rec->tab;

	if (!tab)
		return;
	if (!tab->missing++)
		snprintf(tab->missing_what, sizeof(tab->missing_what), "%s%s%s %s",
			 rec->system ? rec->system : "", rec->system ? ":" : "",
			 rec->event, field);
}

int trace_event_u64(const struct trace_event_record *rec, const char *field, uint64_t *v)
{
	if (!rec->src->u64(rec, field, v))
		return 0;
	field_missing(rec, field);
	return -1;
}

const char *trace_event_str(const struct trace_event_record *rec, const char *field,
			    char *buf, size_t len)
{
	const char *s = rec->src->str(rec, field, buf, len);

	if (!s)
		field_missing(rec, field);
	return s;
}

bool trace_event_mask_has(const struct trace_event_record *rec, const char *field, int cpu)
{
	int has = rec->src->mask_has(rec, field, cpu);

	if (has < 0)
		field_missing(rec, field);
	return has > 0;
}

bool trace_event_has(const struct trace_event_record *rec, const char *field)
{
	return rec->src->has(rec, field);
}

bool trace_event_func_is(const struct trace_event_record *rec, const char *field,
			 const char *sym)
{
	char buf[128];
	const char *s = trace_event_str(rec, field, buf, sizeof(buf));

	return s && !strcmp(s, sym);
}

const struct trace_event_row *trace_event_dispatch(struct trace_event_table *tab, void *ctx,
						   struct trace_event_record *rec)
{
	rec->tab = tab;
	tab->records++;
	for (size_t i = 0; i < tab->nrows; i++) {
		const struct trace_event_row *row = &tab->rows[i];

		if ((strchr(row->name, '*') ? fnmatch(row->name, rec->event, 0) :
		     strcmp(row->name, rec->event)) ||
		    (rec->system && strcmp(row->system, rec->system)))
			continue;
		if (tab->each)
			tab->each(ctx, rec);
		if (row->handle)
			row->handle(ctx, rec);
		return row;
	}
	if (tab->each)
		tab->each(ctx, rec);
	tab->unknown++;
	return NULL;
}

/* The text source: "name=value" in the line's fields. */

/* The token "key=" holds, its length in @len; NULL when there is none. */
static const char *text_value(const struct trace_event_record *rec, const char *field,
			      size_t *len)
{
	const char *v = trace_field(rec->data, field);

	if (v)
		*len = strcspn(v, "\n ");
	return v;
}

/*
 * A record printed as "(%s)" alone (ipi_entry, ipi_exit: "(Rescheduling
 * interrupts)") names no field: its one field is in the brackets, its
 * length in @len; NULL for any other record. Any string field asked
 * of it is that one (trace_event_has() still finds none).
 */
static const char *text_bracketed(const struct trace_event_record *rec, size_t *len)
{
	const char *d = rec->data;
	size_t n = strcspn(d, "\n");

	/* to the last ')': "(CPU stop (for crash dump) interrupts)" */
	if (n < 2 || d[0] != '(' || d[n - 1] != ')')
		return NULL;
	*len = n - 2;
	return d + 1;
}

/* Decimal, else hex (a pointer as trace_pipe prints it, hashed or not). */
static int text_u64(const struct trace_event_record *rec, const char *field, uint64_t *v)
{
	size_t len;
	const char *s = text_value(rec, field, &len);
	char *end;

	if (!s || !len)
		return -1;
	*v = strtoull(s, &end, 10);
	if ((size_t)(end - s) == len)
		return 0;
	*v = strtoull(s, &end, 16);
	return (size_t)(end - s) == len ? 0 : -1;
}

/*
 * The value up to a blank; a "%pS" one up to its '+' ("f+0x1/0x2" ->
 * "f"); a number followed by its name in brackets, the name
 * ("vec=1 [action=TIMER]" -> "TIMER"), as the raw source names a
 * __print_symbolic field (a number there is no name: "expires=5
 * [timeout=1]" stays 5).
 */
static const char *text_str(const struct trace_event_record *rec, const char *field,
			    char *buf, size_t len)
{
	size_t n;
	const char *s = text_value(rec, field, &n), *name = NULL;

	if (!s) {
		s = text_bracketed(rec, &n);
		if (s)
			snprintf(buf, len, "%.*s", (int)n, s);
		return s ? buf : NULL;
	}
	if (s[n] == ' ' && s[n + 1] == '[')
		name = strchr(s + n + 2, '=');
	if (name && name < s + n + 2 + strcspn(s + n + 2, " ]") &&
	    !isdigit((unsigned char)name[1])) {
		snprintf(buf, len, "%.*s", (int)strcspn(name + 1, "]\n"), name + 1);
		return buf;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(s, "\n +"), s);
	return buf;
}

/* A cpumask as the trace prints it: a hex bitmask ("%*pb"), not a cpulist. */
static int text_mask_has(const struct trace_event_record *rec, const char *field, int cpu)
{
	cpu_mask_t m;
	size_t n;
	const char *s = text_value(rec, field, &n);

	if (!s)
		return -1;
	return !cpu_mask_parse_hex(s, n, &m) && cpu >= 0 && cpu < CPU_SETSIZE &&
	       CPU_ISSET(cpu, &m);
}

static bool text_has(const struct trace_event_record *rec, const char *field)
{
	return trace_field(rec->data, field);
}

static const struct trace_event_source text_source = {
	.u64 = text_u64, .str = text_str, .mask_has = text_mask_has, .has = text_has,
};

void trace_event_dispatch_end(struct trace_event_table *tab, void *ctx)
{
	if (tab->in_stack && tab->frame)
		tab->frame(ctx, NULL);
	tab->in_stack = false;
}

int trace_event_dispatch_line(struct trace_event_table *tab, void *ctx, const char *line)
{
	struct trace_event_record rec = { .src = &text_source };
	struct trace_record r;
	char func[128];

	if (trace_stack_frame(line, func, sizeof(func))) {
		if (tab->in_stack && tab->frame)
			tab->frame(ctx, func);
		return 1;
	}
	trace_event_dispatch_end(tab, ctx);
	if (!*line || *line == '#' || *line == '\n')
		return 1;
	if (trace_record_parse(line, &r) || !r.has_ts)
		return -1;
	/* the stacktrace trigger's record, by its name in the raw source */
	tab->in_stack = !strcmp(r.event, "<stack trace>");
	rec.event = tab->in_stack ? "kernel_stack" : r.event;
	rec.cpu = r.cpu;
	rec.pid = r.pid;
	rec.comm = r.comm;
	rec.irq = r.irq;
	rec.ts_ns = r.ts_ns;
	rec.data = r.fields;
	trace_event_dispatch(tab, ctx, &rec);
	return 0;
}

const char *trace_event_source_desc(const struct trace_event_raw *r, const char *why_text,
				    char *buf, size_t len)
{
	if (r)
		snprintf(buf, len, "trace_pipe_raw, each record laid out by its event's format file");
	else
		snprintf(buf, len, "trace_pipe text (%s)", why_text);
	return buf;
}
