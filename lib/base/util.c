// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int read_file_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		buf[0] = '\0';
		fclose(f);
		return 0;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return n;
}

bool pid_gone(long pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

char *read_file_all(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (n == 0)
			break;
		len += n;
		if (len == cap) {
			char *nbuf = realloc(buf, 2 * cap + 1);

			if (!nbuf) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
	}
	close(fd);
	if (buf) {
		buf[len] = '\0';
		if (lenp)
			*lenp = len;
	}
	return buf;
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return (size_t)n == len ? 0 : -1;
}

/*
 * Every number on a command line is written one way: an optional '-',
 * decimal digits, for a fraction a '.' and digits, an optional exponent
 * (e5, e-3). No blanks, no '+', no hex, no inf or nan: " 1", "0x10"
 * and "1e" are refused the same way everywhere.
 */
static bool number_syntax(const char *s, bool fraction)
{
	bool digits = false;

	if (*s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (!fraction)
		return digits && !*s;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would silently accept "-1" */
	if (!s || *s == '-' || !number_syntax(s, false))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_i64(const char *s, int64_t *out)
{
	long long v;
	char *end;

	if (!s || !number_syntax(s, false))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/*
 * A whole number in that syntax, exactly: "1000", "1e3", "2.5e3" and
 * "-4" are whole; "1.5" and "1e-3" are numbers that are not. Each digit's
 * place (its power of ten, the exponent included) is counted, so no
 * rounding can make a fraction whole ("1000000000000.0000001" is one).
 */
int parse_whole(const char *s, int64_t *out)
{
	const char *m, *first = NULL, *last = NULL;
	long nint, e = 0, idx = 0, fidx = 0, lidx = 0, high, low;
	bool neg;
	uint64_t v = 0;

	if (!s || !number_syntax(s, true))
		return NUM_SYNTAX;
	neg = *s == '-';
	m = s + neg;
	nint = strcspn(m, ".eE");	/* digits before the point */
	/* the first and last digit that is not 0, by index among the digits */
	for (const char *c = m; (*c >= '0' && *c <= '9') || *c == '.'; c++) {
		if (*c == '.')
			continue;
		if (*c != '0') {
			if (!first) {
				first = c;
				fidx = idx;
			}
			last = c;
			lidx = idx;
		}
		idx++;
	}
	if (!first) {
		*out = 0;
		return 0;
	}
	m += strcspn(m, "eE");
	if (*m) {
		bool eneg = m[1] == '-';

		for (m += 1 + (m[1] == '-' || m[1] == '+'); *m; m++)
			e = e < 1000000 ? e * 10 + (*m - '0') : e;
		e = eneg ? -e : e;
	}
	/* the places of the highest and the lowest digit that count */
	high = nint - 1 - fidx + e;
	low = nint - 1 - lidx + e;
	if (low < 0)
		return NUM_FRACTION;
	if (high > 18)	/* 10^19 is past INT64_MAX */
		return NUM_RANGE;
	for (const char *c = first; c <= last; c++)
		if (*c != '.')
			v = v * 10 + (*c - '0');
	for (; low > 0; low--)
		v *= 10;
	if (v > (uint64_t)INT64_MAX + neg)
		return NUM_RANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	double v;
	char *end;

	if (!s || !number_syntax(s, true))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @n bytes),
 * 0 when it is not one: no overlong forms, no surrogates, nothing above
 * U+10FFFF (RFC 3629).
 */
size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int self_threads(pid_t *tids, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) && n < max)
		if (isdigit((unsigned char)de->d_name[0]))
			tids[n++] = (pid_t)strtol(de->d_name, NULL, 10);
	if (d)
		closedir(d);
	return n;
}
