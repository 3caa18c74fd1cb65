/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every part of lib/ needs: checked parsing, file reads. */
#ifndef ISOLBENCH_UTIL_H
#define ISOLBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL

/* Read the first line of @path without its newline; length or -1. */
int read_file_line(const char *path, char *buf, size_t len);
/* Read a whole (small) file; malloc'ed, NUL-terminated, or NULL. */
char *read_file_all(const char *path, size_t *len);
/* Write @s to @path (sysfs, tracefs); 0 or -1 with errno. */
int write_file(const char *path, const char *s);
/* Whether process @pid no longer exists (ESRCH: not "someone else's"). */
bool pid_gone(long pid);
/* This process's threads (/proc/self/task), at most @max, into @tids; how many. */
int self_threads(pid_t *tids, int max);

/*
 * Whole decimal numbers, digits only (kernel files, CPU numbers), and
 * numbers as options write them: 0, or -1 on junk or range.
 */
int parse_u64(const char *s, uint64_t *out);
int parse_i64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @n bytes),
 * 0 when it is not one (RFC 3629: no overlong forms, surrogates or
 * code points above U+10FFFF).
 */
size_t utf8_len(const unsigned char *s, size_t n);

/*
 * A whole number in the syntax of parse_double ("1e3" is 1000): 0, or
 * one of these when it is not a number, not whole, or beyond int64_t.
 */
enum { NUM_SYNTAX = -1, NUM_FRACTION = -2, NUM_RANGE = -3 };
int parse_whole(const char *s, int64_t *out);

#endif
