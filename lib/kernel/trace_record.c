// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_record.h"

/* "SECONDS.FRACTION" ending at @end (the ':' after it) into ns. */
static bool timestamp_ns(const char *start, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	const char *p = start;

	if (p == end || !isdigit((unsigned char)*p))
		return false;
	for (; p < end && isdigit((unsigned char)*p); p++)
		sec = sec * 10 + (*p - '0');
	if (p < end && *p == '.')
		for (p++; p < end && isdigit((unsigned char)*p); p++) {
			scale /= 10;
			frac += (*p - '0') * scale;
		}
	if (p != end)
		return false;
	*ns = sec * 1000000000ULL + frac;
	return true;
}

int trace_record_parse(const char *line, struct trace_record *r)
{
	const char *b, *p, *ev, *colon, *ts;
	char *end = NULL;
	long cpu = -1;
	size_t len;

	memset(r, 0, sizeof(*r));
	r->pid = -1;
	for (b = strstr(line, " ["); b; b = strstr(b + 1, " [")) {
		cpu = strtol(b + 2, &end, 10);
		if (end > b + 2 && *end == ']' && cpu >= 0)
			break;
	}
	if (!b)
		return -1;
	r->cpu = (int)cpu;
	/* "comm-PID" before the blanks of the column */
	for (p = b; p > line && p[-1] == ' '; p--)
		;
	len = p - line;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	if (p > line && p[-1] == '-') {
		r->pid = (pid_t)strtol(p, NULL, 10);
		len = p - 1 - line;
	}
	while (len && *line == ' ') {
		line++;
		len--;
	}
	snprintf(r->comm, sizeof(r->comm), "%.*s", (int)len, line);
	/* flags: irqs-off, need-resched, then h/H/s in interrupt context */
	for (p = end + 1; *p == ' '; p++)
		;
	r->irq = p[0] && p[1] && strchr("hHs", p[2]);
	/* after the flags, the timestamp ends with ": ", then "event: " */
	colon = strstr(end, ": ");
	if (!colon)
		return -1;
	for (ts = colon; ts > end && ts[-1] != ' '; ts--)
		;
	r->has_ts = timestamp_ns(ts, colon, &r->ts_ns);
	ev = colon + 2;
	p = strstr(ev, ": ");
	len = p ? (size_t)(p - ev) : strcspn(ev, "\n");
	if (!len || len >= sizeof(r->event))
		return -1;
	memcpy(r->event, ev, len);
	r->event[len] = '\0';
	r->fields = p ? p + 2 : ev + len;
	return 0;
}

const char *trace_field(const char *s, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
		if ((p == s || p[-1] == ' ') && p[len] == '=')
			return p + len + 1;
	return NULL;
}

const char *trace_stack_frame(const char *line, char *buf, size_t len)
{
	const char *p = strstr(line, "=> ");

	if (!p)
		return NULL;
	for (const char *q = line; q < p; q++)
		if (*q != ' ')
			return NULL;
	p += 3;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "+ \n"), p);
	return buf[0] ? buf : NULL;
}
