/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer: commas and escaping handled here. */
#ifndef ISOLBENCH_JSON_H
#define ISOLBENCH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct jr_value;

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	int indent;
};

void json_begin(struct json *j, FILE *f);
/* @key is NULL inside arrays. */
void json_object_start(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_start(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *s);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
/* Non-finite numbers are written as null. */
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/*
 * A value read by lib/base/json_read.c, written as it is (numbers as
 * json_double writes them); its nesting must fit JSON_MAX_DEPTH.
 */
void json_value(struct json *j, const char *key, const struct jr_value *v);

#endif
