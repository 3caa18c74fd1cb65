/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict, bounded JSON reader (RFC 8259): recursive descent
 * into a tree of values. Strict: no comments, no trailing commas, no
 * leading zeros, no NaN/Infinity, no raw control characters in strings,
 * no member name twice in one object, nothing after the document but
 * whitespace. Bounded: nesting depth,
 * node count and string length are limited, so any input, however
 * hostile, costs bounded time and memory (tests/fuzz/ fuzzes it).
 */
#ifndef ISOLBENCH_JSON_READ_H
#define ISOLBENCH_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JR_MAX_DEPTH	64
#define JR_MAX_NODES	(4u << 20)	/* values in one document */

enum jr_type { JR_NULL, JR_BOOL, JR_NUMBER, JR_STRING, JR_ARRAY, JR_OBJECT };

struct jr_value {
	enum jr_type type;
	bool boolean;
	double number;
	char *string;		/* JR_STRING: decoded UTF-8, NUL-terminated */
	char *key;		/* the member name when inside an object */
	size_t pos;		/* offset of the member name, else of the value */
	size_t count;		/* JR_ARRAY, JR_OBJECT: number of children */
	struct jr_value *child;	/* first child */
	struct jr_value *next;	/* next sibling */
};

/*
 * Parse @len bytes of @buf (need not be NUL-terminated). Returns the
 * root value, or NULL with "line L col C: what" in @err.
 */
struct jr_value *jr_parse(const char *buf, size_t len, char *err,
			  size_t errlen);
void jr_free(struct jr_value *v);

/* The member @key of an object, or NULL (also when @obj is not one). */
const struct jr_value *jr_get(const struct jr_value *obj, const char *key);
/* Typed member access: NULL or false when missing or of another type. */
const char *jr_get_string(const struct jr_value *obj, const char *key);
bool jr_get_number(const struct jr_value *obj, const char *key, double *out);
bool jr_get_bool(const struct jr_value *obj, const char *key, bool *out);
const char *jr_type_name(enum jr_type t);
/*
 * The member @key of @obj when it is of @type (or null where @null_ok,
 * which leaves *@out NULL, as a missing member does): 0; -1 when it is
 * there with another type.
 */
int jr_member(const struct jr_value *obj, const char *key, enum jr_type type,
	      bool null_ok, const struct jr_value **out);
/*
 * Whether @a and @b hold the same data: the same values in arrays in
 * the same order, the same members in objects in any order. 1 or 0; -1
 * when out of memory.
 */
int jr_equal(const struct jr_value *a, const struct jr_value *b);

#endif
