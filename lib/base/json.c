// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "json.h"
#include "json_read.h"
#include "util.h"

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

/*
 * A JSON string is Unicode: bytes that are not UTF-8 (a file name given
 * as raw bytes) are written as U+FFFD, so that every reader takes the
 * document.
 */
static void json_escaped(FILE *f, const char *s)
{
	size_t left = strlen(s), n;

	fputc('"', f);
	for (; *s; s += n, left -= n) {
		unsigned char c = *s;

		n = 1;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else {
			/* a valid UTF-8 sequence as it is, else U+FFFD for a byte */
			n = utf8_len((const unsigned char *)s, left);
			if (n) {
				fwrite(s, 1, n, f);
			} else {
				fputs("\\ufffd", f);
				n = 1;
			}
		}
	}
	fputc('"', f);
}

static void json_key(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	if (j->depth)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	j->first[j->depth] = false;
	if (key) {
		json_escaped(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_object_start(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, '}');
}

void json_array_start(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, ']');
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_escaped(j->f, s);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.12g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}

void json_value(struct json *j, const char *key, const struct jr_value *v)
{
	const struct jr_value *c;

	switch (v->type) {
	case JR_NULL:
		json_null(j, key);
		break;
	case JR_BOOL:
		json_bool(j, key, v->boolean);
		break;
	case JR_NUMBER:
		json_double(j, key, v->number);
		break;
	case JR_STRING:
		json_string(j, key, v->string);
		break;
	case JR_ARRAY:
		json_array_start(j, key);
		for (c = v->child; c; c = c->next)
			json_value(j, NULL, c);
		json_array_end(j);
		break;
	case JR_OBJECT:
		json_object_start(j, key);
		for (c = v->child; c; c = c->next)
			json_value(j, c->key, c);
		json_object_end(j);
		break;
	}
}
