// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "util.h"

#define JR_MAX_NUMBER	128	/* characters of one number */

struct jr_parser {
	const char *buf;
	size_t len, pos;
	size_t nodes;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

static void jr_error(struct jr_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jr_error(struct jr_parser *p, const char *fmt, ...)
{
	size_t line = 1, col = 1, n;
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	if (!p->err || !p->errlen)
		return;
	for (size_t i = 0; i < p->pos && i < p->len; i++) {
		if (p->buf[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	n = snprintf(p->err, p->errlen, "line %zu col %zu: ", line, col);
	if (n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
}

static void jr_skip_ws(struct jr_parser *p)
{
	while (p->pos < p->len) {
		char c = p->buf[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int jr_peek(const struct jr_parser *p)
{
	return p->pos < p->len ? (unsigned char)p->buf[p->pos] : -1;
}

static struct jr_value *jr_node(struct jr_parser *p, enum jr_type t)
{
	struct jr_value *v;

	if (p->nodes >= JR_MAX_NODES) {
		jr_error(p, "more than %u values", JR_MAX_NODES);
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		jr_error(p, "out of memory");
		return NULL;
	}
	p->nodes++;
	v->type = t;
	return v;
}

static bool jr_literal(struct jr_parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->buf + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

static int jr_hex4(struct jr_parser *p, unsigned int *out)
{
	unsigned int v = 0;

	if (p->len - p->pos < 4) {
		jr_error(p, "short \\u escape");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char c = p->buf[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else {
			jr_error(p, "bad hex digit in \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static size_t utf8_put(char *dst, unsigned int cp)
{
	if (cp < 0x80) {
		dst[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = 0xc0 | (cp >> 6);
		dst[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = 0xe0 | (cp >> 12);
		dst[1] = 0x80 | ((cp >> 6) & 0x3f);
		dst[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	dst[0] = 0xf0 | (cp >> 18);
	dst[1] = 0x80 | ((cp >> 12) & 0x3f);
	dst[2] = 0x80 | ((cp >> 6) & 0x3f);
	dst[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* One \uXXXX escape (the backslash and u consumed), pairs joined. */
static int jr_unicode(struct jr_parser *p, unsigned int *cp)
{
	unsigned int hi, lo;

	if (jr_hex4(p, &hi))
		return -1;
	if (hi >= 0xdc00 && hi <= 0xdfff) {
		jr_error(p, "lone low surrogate in \\u escape");
		return -1;
	}
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (p->len - p->pos < 2 || p->buf[p->pos] != '\\' ||
		    p->buf[p->pos + 1] != 'u') {
			jr_error(p, "high surrogate without its low half");
			return -1;
		}
		p->pos += 2;
		if (jr_hex4(p, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff) {
			jr_error(p, "high surrogate without its low half");
			return -1;
		}
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!hi) {
		jr_error(p, "\\u0000 in a string is not supported");
		return -1;
	}
	*cp = hi;
	return 0;
}

/* A string at p->pos (the opening quote); malloc'ed, decoded. */
/* The escape after a backslash at p->pos, decoded into *d; -1 on error. */
static int jr_escape(struct jr_parser *p, size_t end, char **d)
{
	unsigned char c = p->buf[p->pos++];
	unsigned int cp;

	switch (c) {
	case '"': case '\\': case '/':
		*(*d)++ = c;
		return 0;
	case 'b':
		*(*d)++ = '\b';
		return 0;
	case 'f':
		*(*d)++ = '\f';
		return 0;
	case 'n':
		*(*d)++ = '\n';
		return 0;
	case 'r':
		*(*d)++ = '\r';
		return 0;
	case 't':
		*(*d)++ = '\t';
		return 0;
	case 'u':
		/* the escape may run past the scanned end */
		if (jr_unicode(p, &cp) || p->pos > end) {
			if (!p->failed)
				jr_error(p, "bad \\u escape");
			return -1;
		}
		*d += utf8_put(*d, cp);
		return 0;
	default:
		p->pos--;
		jr_error(p, "bad escape \\%c", c >= 0x20 && c < 0x7f ? c : '?');
		return -1;
	}
}

static char *jr_string(struct jr_parser *p)
{
	size_t start = ++p->pos, end = start;
	char *s, *d;

	/* the decoded string is never longer than the raw one */
	while (end < p->len && p->buf[end] != '"') {
		if (p->buf[end] == '\\')
			end++;
		end++;
	}
	if (end >= p->len) {
		jr_error(p, "unterminated string");
		return NULL;
	}
	s = malloc(end - start + 1);
	if (!s) {
		jr_error(p, "out of memory");
		return NULL;
	}
	d = s;
	while (p->pos < end) {
		unsigned char c = p->buf[p->pos++];

		if (c < 0x20) {
			p->pos--;
			jr_error(p, "control character 0x%02x in a string", c);
			goto bad;
		}
		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)p->buf + p->pos - 1,
					      end - p->pos + 1);

			if (!n) {
				p->pos--;
				jr_error(p, "invalid UTF-8 in a string");
				goto bad;
			}
			memcpy(d, p->buf + p->pos - 1, n);
			d += n;
			p->pos += n - 1;
			continue;
		}
		if (c != '\\') {
			*d++ = c;
			continue;
		}
		if (jr_escape(p, end, &d))
			goto bad;
	}
	*d = '\0';
	p->pos = end + 1;
	return s;
bad:
	free(s);
	return NULL;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int jr_number(struct jr_parser *p, double *out)
{
	size_t start = p->pos;
	char tmp[JR_MAX_NUMBER + 1], *end;

	if (jr_peek(p) == '-')
		p->pos++;
	if (jr_peek(p) == '0') {
		p->pos++;
		if (is_digit(jr_peek(p))) {
			jr_error(p, "leading zero in a number");
			return -1;
		}
	} else if (is_digit(jr_peek(p))) {
		while (is_digit(jr_peek(p)))
			p->pos++;
	} else {
		jr_error(p, "bad number");
		return -1;
	}
	if (jr_peek(p) == '.') {
		p->pos++;
		if (!is_digit(jr_peek(p))) {
			jr_error(p, "no digit after the decimal point");
			return -1;
		}
		while (is_digit(jr_peek(p)))
			p->pos++;
	}
	if (jr_peek(p) == 'e' || jr_peek(p) == 'E') {
		p->pos++;
		if (jr_peek(p) == '+' || jr_peek(p) == '-')
			p->pos++;
		if (!is_digit(jr_peek(p))) {
			jr_error(p, "no digit in the exponent");
			return -1;
		}
		while (is_digit(jr_peek(p)))
			p->pos++;
	}
	if (p->pos - start > JR_MAX_NUMBER) {
		jr_error(p, "number longer than %d characters", JR_MAX_NUMBER);
		return -1;
	}
	memcpy(tmp, p->buf + start, p->pos - start);
	tmp[p->pos - start] = '\0';
	*out = strtod(tmp, &end);
	if (!isfinite(*out)) {
		jr_error(p, "number out of range");
		return -1;
	}
	return 0;
}

static struct jr_value *jr_value(struct jr_parser *p);

/* Link @v as the last child of @parent; @tail tracks the last one. */
static void jr_append(struct jr_value *parent, struct jr_value **tail,
		      struct jr_value *v)
{
	if (*tail)
		(*tail)->next = v;
	else
		parent->child = v;
	*tail = v;
	parent->count++;
}

/* Member names in order, the same name by where it was written. */
static int jr_key_cmp(const void *a, const void *b)
{
	const struct jr_value *x = *(const struct jr_value *const *)a;
	const struct jr_value *y = *(const struct jr_value *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * No member name twice in @obj (RFC 8259 leaves the meaning of a
 * repeated name open: a reader keeps the first, another the last). The
 * names sorted, so that a hostile object of millions of members costs
 * n log n; the error names the earliest repetition.
 */
static int jr_keys_unique(struct jr_parser *p, const struct jr_value *obj)
{
	const struct jr_value **v, *dup = NULL;
	size_t i = 0, n;
	char name[48];

	if (obj->count < 2)
		return 0;
	v = malloc(obj->count * sizeof(*v));
	if (!v) {
		jr_error(p, "out of memory");
		return -1;
	}
	for (const struct jr_value *c = obj->child; c; c = c->next)
		v[i++] = c;
	qsort(v, obj->count, sizeof(*v), jr_key_cmp);
	for (i = 0; i + 1 < obj->count; i++)
		if (!strcmp(v[i]->key, v[i + 1]->key) &&
		    (!dup || v[i + 1]->pos < dup->pos))
			dup = v[i + 1];
	free(v);
	if (!dup)
		return 0;
	/* one line: control characters shown as '?', a long name cut */
	n = strlen(dup->key);
	if (n >= sizeof(name)) {
		n = sizeof(name) - 4;
		while (n && ((unsigned char)dup->key[n] & 0xc0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++)
		name[i] = (unsigned char)dup->key[i] < 0x20 ||
			  dup->key[i] == 0x7f ? '?' : dup->key[i];
	snprintf(name + n, sizeof(name) - n, "%s", n < strlen(dup->key) ? "..." : "");
	p->pos = dup->pos;
	jr_error(p, "duplicate key '%s' in an object", name);
	return -1;
}

static struct jr_value *jr_container(struct jr_parser *p, bool object)
{
	struct jr_value *c = jr_node(p, object ? JR_OBJECT : JR_ARRAY);
	struct jr_value *tail = NULL;
	char close = object ? '}' : ']';

	if (!c)
		return NULL;
	if (++p->depth > JR_MAX_DEPTH) {
		jr_error(p, "nested deeper than %d", JR_MAX_DEPTH);
		goto bad;
	}
	p->pos++;	/* the opening bracket */
	jr_skip_ws(p);
	if (jr_peek(p) == close) {
		p->pos++;
		p->depth--;
		return c;
	}
	for (;;) {
		struct jr_value *v;
		char *key = NULL;
		size_t at;

		jr_skip_ws(p);
		at = p->pos;
		if (object) {
			if (jr_peek(p) != '"') {
				jr_error(p, "expected a member name");
				goto bad;
			}
			key = jr_string(p);
			if (!key)
				goto bad;
			jr_skip_ws(p);
			if (jr_peek(p) != ':') {
				free(key);
				jr_error(p, "expected ':'");
				goto bad;
			}
			p->pos++;
		}
		v = jr_value(p);
		if (!v) {
			free(key);
			goto bad;
		}
		v->key = key;
		v->pos = at;
		jr_append(c, &tail, v);
		jr_skip_ws(p);
		if (jr_peek(p) == ',') {
			p->pos++;
			continue;
		}
		if (jr_peek(p) == close) {
			p->pos++;
			break;
		}
		jr_error(p, "expected ',' or '%c'", close);
		goto bad;
	}
	if (object && jr_keys_unique(p, c))
		goto bad;
	p->depth--;
	return c;
bad:
	jr_free(c);
	return NULL;
}

static struct jr_value *jr_value(struct jr_parser *p)
{
	struct jr_value *v;
	int c;

	jr_skip_ws(p);
	c = jr_peek(p);
	switch (c) {
	case '{':
	case '[':
		return jr_container(p, c == '{');
	case '"':
		v = jr_node(p, JR_STRING);
		if (!v)
			return NULL;
		v->string = jr_string(p);
		if (!v->string) {
			free(v);
			return NULL;
		}
		return v;
	case 't':
	case 'f':
	case 'n':
		if (jr_literal(p, "true") || jr_literal(p, "false")) {
			v = jr_node(p, JR_BOOL);
			if (v)
				v->boolean = c == 't';
			return v;
		}
		if (jr_literal(p, "null"))
			return jr_node(p, JR_NULL);
		jr_error(p, "unknown literal");
		return NULL;
	case -1:
		jr_error(p, "unexpected end of input");
		return NULL;
	default:
		if (c == '-' || is_digit(c)) {
			double d;

			if (jr_number(p, &d))
				return NULL;
			v = jr_node(p, JR_NUMBER);
			if (v)
				v->number = d;
			return v;
		}
		jr_error(p, "unexpected character '%c'",
			 c >= 0x20 && c < 0x7f ? c : '?');
		return NULL;
	}
}

struct jr_value *jr_parse(const char *buf, size_t len, char *err,
			  size_t errlen)
{
	struct jr_parser p = { .buf = buf, .len = len, .err = err,
			       .errlen = errlen };
	struct jr_value *root;

	if (err && errlen)
		err[0] = '\0';
	if (memchr(buf, '\0', len)) {
		p.pos = (const char *)memchr(buf, '\0', len) - buf;
		jr_error(&p, "NUL byte in the input");
		return NULL;
	}
	root = jr_value(&p);
	if (!root)
		return NULL;
	jr_skip_ws(&p);
	if (p.pos != p.len) {
		jr_error(&p, "trailing characters after the document");
		jr_free(root);
		return NULL;
	}
	return root;
}

/* Iterative over siblings, recursive only into (bounded) depth. */
void jr_free(struct jr_value *v)
{
	while (v) {
		struct jr_value *next = v->next;

		jr_free(v->child);
		free(v->string);
		free(v->key);
		free(v);
		v = next;
	}
}

const struct jr_value *jr_get(const struct jr_value *obj, const char *key)
{
	if (!obj || obj->type != JR_OBJECT)
		return NULL;
	for (const struct jr_value *v = obj->child; v; v = v->next)
		if (!strcmp(v->key, key))
			return v;
	return NULL;
}

const char *jr_get_string(const struct jr_value *obj, const char *key)
{
	const struct jr_value *v = jr_get(obj, key);

	return v && v->type == JR_STRING ? v->string : NULL;
}

bool jr_get_number(const struct jr_value *obj, const char *key, double *out)
{
	const struct jr_value *v = jr_get(obj, key);

	if (!v || v->type != JR_NUMBER)
		return false;
	*out = v->number;
	return true;
}

bool jr_get_bool(const struct jr_value *obj, const char *key, bool *out)
{
	const struct jr_value *v = jr_get(obj, key);

	if (!v || v->type != JR_BOOL)
		return false;
	*out = v->boolean;
	return true;
}

const char *jr_type_name(enum jr_type t)
{
	static const char *const names[] = {
		"null", "boolean", "number", "string", "array", "object"
	};

	return t <= JR_OBJECT ? names[t] : "?";
}

int jr_member(const struct jr_value *obj, const char *key, enum jr_type type,
	      bool null_ok, const struct jr_value **out)
{
	const struct jr_value *v = jr_get(obj, key);

	*out = NULL;
	if (!v || (null_ok && v->type == JR_NULL))
		return 0;
	if (v->type != type)
		return -1;
	*out = v;
	return 0;
}

static int jr_child_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct jr_value *const *)a)->key,
		      (*(const struct jr_value *const *)b)->key);
}

/* The children of an object by name: member names are unique (jr_keys_unique). */
static const struct jr_value **jr_sorted_children(const struct jr_value *obj)
{
	const struct jr_value **c = malloc((obj->count ? obj->count : 1) * sizeof(*c));
	size_t i = 0;

	if (!c)
		return NULL;
	for (const struct jr_value *v = obj->child; v; v = v->next)
		c[i++] = v;
	qsort(c, obj->count, sizeof(*c), jr_child_cmp);
	return c;
}

static int jr_objects_equal(const struct jr_value *a, const struct jr_value *b)
{
	const struct jr_value **ca, **cb;
	int eq = 1;

	ca = jr_sorted_children(a);
	cb = jr_sorted_children(b);
	if (!ca || !cb)
		eq = -1;
	for (size_t i = 0; eq == 1 && i < a->count; i++) {
		eq = !strcmp(ca[i]->key, cb[i]->key);
		if (eq)
			eq = jr_equal(ca[i], cb[i]);
	}
	free(ca);
	free(cb);
	return eq;
}

int jr_equal(const struct jr_value *a, const struct jr_value *b)
{
	if (a->type != b->type || a->count != b->count)
		return 0;
	switch (a->type) {
	case JR_NULL:
		return 1;
	case JR_BOOL:
		return a->boolean == b->boolean;
	case JR_NUMBER:
		return a->number == b->number;
	case JR_STRING:
		return !strcmp(a->string, b->string);
	case JR_ARRAY:
		for (a = a->child, b = b->child; a && b; a = a->next, b = b->next) {
			int eq = jr_equal(a, b);

			if (eq != 1)
				return eq;
		}
		return 1;
	default:
		return jr_objects_equal(a, b);
	}
}
