// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/base/json_read.c: what it accepts, what it refuses, bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/json_read.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"

static struct jr_value *parse(const char *s, char *err, size_t errlen)
{
	return jr_parse(s, strlen(s), err, errlen);
}

/* jr_equal of two documents */
static int equal(const char *a, const char *b)
{
	char err[160];
	struct jr_value *va = parse(a, err, sizeof(err)), *vb = parse(b, err, sizeof(err));
	int eq = va && vb ? jr_equal(va, vb) : -2;

	jr_free(va);
	jr_free(vb);
	return eq;
}

static int parses(const char *s)
{
	char err[160];
	struct jr_value *v = jr_parse(s, strlen(s), err, sizeof(err));

	jr_free(v);
	return v != NULL;
}

/* Documents accepted and refused; what a valid one holds, by type. */
static void test_documents(void)
{
	static const char *const good[] = {
		"{}", "[]", "0", "-0.5e+3", "\"\"", "true", "null",
		" {\"a\": [1, 2.5, {\"b\": null}], \"c\": \"x\\u00e9\\ud83d\\ude00\"} \n",
	};
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1",
		"NaN", "Infinity", "tru", "{\"a\" 1}", "{a:1}", "[1 2]", "\"abc",
		"\"a\tb\"", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
		"\"\\u0000\"", "1 2", "{} x", "1e999", "// c\n1", "'a'",
	};
	char err[160];
	struct jr_value *v;
	const struct jr_value *a;
	double d;
	int nbad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!parses(good[i]))
			ksft_print_msg("refused: %s\n", good[i]);
		else
			nbad++;
	ksft_test_result(nbad == (int)ARRAY_SIZE(good), "accepts %d valid documents", nbad);
	nbad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parses(bad[i]))
			ksft_print_msg("accepted: %s\n", bad[i]);
		else
			nbad++;
	}
	ksft_test_result(nbad == (int)ARRAY_SIZE(bad), "refuses %d invalid documents", nbad);

	v = jr_parse(good[7], strlen(good[7]), err, sizeof(err));
	a = jr_get(v, "a");
	ksft_test_result(a && a->type == JR_ARRAY && a->count == 3 &&
			 a->child->next->number == 2.5, "array members in order");
	ksft_test_result(jr_get_string(v, "c") &&
			 !strcmp(jr_get_string(v, "c"), "x\xc3\xa9\xf0\x9f\x98\x80"),
			 "\\u escapes and surrogate pairs decode to UTF-8");
	ksft_test_result(!jr_get_number(v, "c", &d) && !jr_get(v, "zz") &&
			 !jr_get(a, "a"), "typed access refuses the wrong type");
	jr_free(v);
}

/* An error says where it is; a NUL byte is no JSON. */
static void test_errors(void)
{
	char err[160];
	struct jr_value *v;

	v = jr_parse("{\n  \"a\": [1,\n  2,,]}", 19, err, sizeof(err));
	ksft_test_result(!v && !strncmp(err, "line 3 col 5:", 13),
			 "errors say where: %s", err);
	ksft_test_result(!jr_parse("1\0", 2, err, sizeof(err)), "a NUL byte is refused");
}

/* A member name twice in one object: malformed, whichever would win. */
static void test_duplicate_keys(void)
{
	char err[160];
	struct jr_value *v;

	v = parse("{\"a\": 1,\n \"b\": 2, \"a\": 3}", err, sizeof(err));
	ksft_test_result(!v && !strcmp(err, "line 2 col 10: duplicate key 'a' in an object"),
			 "a duplicate key is refused where it repeats: %s", err);
	jr_free(v);
	v = parse("[{\"x\": {\"k\": 1, \"k\": 1}}]", err, sizeof(err));
	ksft_test_result(!v && strstr(err, "duplicate key 'k'"),
			 "... in a nested object too: %s", err);
	jr_free(v);
	v = parse("{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}, \"c\": [{\"a\": 1}, {\"a\": 2}]}",
		  err, sizeof(err));
	ksft_test_result(v != NULL, "the same name in different objects is fine (%s)",
			 v ? "parsed" : err);
	jr_free(v);
	v = parse("{\"a\\n\\u0001b\": 1, \"a\\n\\u0001b\": 2}", err, sizeof(err));
	ksft_test_result(!v && strstr(err, "duplicate key 'a??b'") && !strchr(err, '\n'),
			 "the error stays one line: %s", err);
	jr_free(v);
}

/* A duplicate key's name cut in the error. */
static void test_duplicate_long_key(void)
{
	char err[160];
	struct jr_value *v;
	char doc[512], key[201];

	memset(key, 'x', 200);
	key[200] = '\0';
	snprintf(doc, sizeof(doc), "{\"%s\": 1, \"%s\": 2}", key, key);
	v = parse(doc, err, sizeof(err));
	ksft_test_result(!v && strstr(err, "xxx...' in an object") && strlen(err) < 100,
			 "a long name is cut: %s", err);
	jr_free(v);
}

/* 200000 members, the last repeating the first: found in n log n, not n^2. */
static void test_duplicate_key_many(void)
{
	char err[160];
	struct jr_value *v;
	size_t n = 200000, cap = n * 16 + 16, len = 0;
	char *big = malloc(cap);

	len += snprintf(big + len, cap - len, "{");
	for (size_t i = 0; i < n; i++)
		len += snprintf(big + len, cap - len, "\"k%zu\":0,", i);
	len += snprintf(big + len, cap - len, "\"k0\":1}");
	v = jr_parse(big, len, err, sizeof(err));
	ksft_test_result(!v && strstr(err, "duplicate key 'k0'"),
			 "200000 members with one repeat: %s", err);
	jr_free(v);
	free(big);
}

/* Typed members, and documents compared as data. */
static void test_members_equal(void)
{
	char err[160];
	struct jr_value *v;
	const struct jr_value *a;

	/* typed members: a wrong type is told apart from a missing member */
	v = parse("{\"s\": \"yes\", \"n\": null, \"b\": true}", err, sizeof(err));
	ksft_test_result(v && !jr_member(v, "b", JR_BOOL, false, &a) && a && a->boolean &&
			 !jr_member(v, "x", JR_BOOL, false, &a) && !a,
			 "jr_member: a member of its type, and a missing one (NULL)");
	ksft_test_result(v && jr_member(v, "s", JR_BOOL, false, &a) == -1 && !a,
			 "jr_member: \"yes\" where a boolean belongs is -1, not missing");
	ksft_test_result(v && !jr_member(v, "n", JR_NUMBER, true, &a) && !a &&
			 jr_member(v, "n", JR_NUMBER, false, &a) == -1,
			 "jr_member: null is missing only where allowed");
	jr_free(v);
	/* the same data, whatever the layout and member order */
	ksft_test_result(equal("{\"a\": [1, {\"x\": null, \"y\": \"s\"}], \"b\": true}",
			       " {\"b\":true,\"a\":[1.0,{\"y\":\"s\",\"x\":null}]}") == 1,
			 "jr_equal: members in another order, other spacing, 1 and 1.0");
	ksft_test_result(equal("[1, 2]", "[2, 1]") == 0 && equal("{\"a\": 1}", "{\"a\": 2}") == 0 &&
			 equal("{\"a\": 1}", "{\"b\": 1}") == 0 &&
			 equal("{\"a\": 1}", "{\"a\": 1, \"b\": 1}") == 0,
			 "jr_equal: array order, a value, a name, a member more all differ");
	ksft_test_result(equal("\"x\"", "\"x \"") == 0 && equal("true", "1") == 0 &&
			 equal("null", "null") == 1,
			 "jr_equal: strings and types compared exactly");
}

/* Nesting up to JR_MAX_DEPTH, not deeper. */
static void test_depth(void)
{
	char err[160], *deep;
	struct jr_value *v;

	deep = malloc(2 * JR_MAX_DEPTH + 10);
	memset(deep, '[', JR_MAX_DEPTH);
	memset(deep + JR_MAX_DEPTH, ']', JR_MAX_DEPTH);
	v = jr_parse(deep, 2 * JR_MAX_DEPTH, err, sizeof(err));
	ksft_test_result(v != NULL, "nesting of %d is fine", JR_MAX_DEPTH);
	jr_free(v);
	memset(deep, '[', JR_MAX_DEPTH + 1);
	memset(deep + JR_MAX_DEPTH + 1, ']', JR_MAX_DEPTH + 1);
	v = jr_parse(deep, 2 * JR_MAX_DEPTH + 2, err, sizeof(err));
	ksft_test_result(!v && strstr(err, "nested deeper"), "nesting of %d is refused: %s",
			 JR_MAX_DEPTH + 1, err);
	free(deep);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(21);
	test_documents();
	test_errors();
	test_duplicate_keys();
	test_duplicate_long_key();
	test_duplicate_key_many();
	test_members_equal();
	test_depth();
	ksft_finished();
}
