// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cpu.h"
#include "util.h"

#define CPU_SYSFS	"/sys/devices/system/cpu/"

static int parse_cpu_num(const char **p, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= CPU_SETSIZE)
		return -1;
	*out = v;
	*p = end;
	return 0;
}

int cpu_mask_parse(const char *s, cpu_mask_t *mask, char *err, size_t errlen)
{
	const char *p = s;

	CPU_ZERO(mask);
	if (!s || !*s) {
		snprintf(err, errlen, "empty cpulist");
		return -1;
	}
	while (*p) {
		unsigned int lo, hi, used = 1, group = 1;

		if (parse_cpu_num(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu_num(&p, &hi) || hi < lo)
				goto bad;
			/* "a-b:used/group" as the kernel's bitmap_parselist */
			if (*p == ':') {
				p++;
				if (parse_cpu_num(&p, &used) || *p++ != '/' ||
				    parse_cpu_num(&p, &group) || !used ||
				    !group || used > group)
					goto bad;
			}
		}
		for (unsigned int c = lo; c <= hi; c++)
			if ((c - lo) % group < used)
				CPU_SET(c, mask);
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "invalid cpulist '%s' (expected e.g. 2-5,8; CPUs below %d)",
		 s, CPU_SETSIZE);
	return -1;
}

int cpu_mask_parse_hex(const char *s, size_t len, cpu_mask_t *mask)
{
	unsigned int bit = 0, digits = 0;

	CPU_ZERO(mask);
	/* from the least significant digit, at the end */
	while (len--) {
		char c = s[len];
		unsigned int v;

		if (c == ',')
			continue;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -1;
		for (unsigned int b = 0; b < 4; b++, bit++) {
			if (!(v & (1U << b)))
				continue;
			if (bit >= CPU_SETSIZE)
				return -1;
			CPU_SET(bit, mask);
		}
		digits++;
	}
	return digits ? 0 : -1;
}

char *cpu_mask_format(const cpu_mask_t *mask, char *buf, size_t len)
{
	size_t off = 0;
	int cpu = cpu_mask_first(mask);

	buf[0] = '\0';
	while (cpu >= 0) {
		int end = cpu;

		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, mask))
			end++;
		if (end == cpu)
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%d", off ? "," : "", cpu);
		else
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%d-%d", off ? "," : "", cpu, end);
		cpu = cpu_mask_next(end, mask);
	}
	return buf;
}

int cpu_mask_next(int cpu, const cpu_mask_t *mask)
{
	for (int c = cpu + 1; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, mask))
			return c;
	return -1;
}

int cpu_mask_first(const cpu_mask_t *mask)
{
	return cpu_mask_next(-1, mask);
}

int cpu_mask_last(const cpu_mask_t *mask)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, mask))
			return c;
	return -1;
}

int cpu_mask_sysfs(const char *name, cpu_mask_t *mask)
{
	char path[256], buf[4096], err[128];

	CPU_ZERO(mask);
	snprintf(path, sizeof(path), CPU_SYSFS "%s", name);
	if (read_file_line(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "isolated" and "nohz_full" read as an empty line when unset */
	if (!buf[0] || !strcmp(buf, "(null)"))
		return 0;
	return cpu_mask_parse(buf, mask, err, sizeof(err)) ? -1 : 0;
}

/*
 * isolcpus= leaves the isolated CPUs out of every task's default
 * affinity, yet a task may still move there (that is how they are used).
 * Count them as allowed when the kernel, and any cpuset, accepts it:
 * set the wider mask, read back what took effect, put the old one back.
 */
static void cpu_allowed_add_isolated(struct cpu_sets *s)
{
	cpu_mask_t orig = s->allowed, wide, got;

	CPU_OR(&wide, &s->isolated, &s->nohz_full);
	CPU_AND(&wide, &wide, &s->online);
	CPU_OR(&wide, &wide, &orig);
	if (CPU_EQUAL(&wide, &orig) || sched_setaffinity(0, sizeof(wide), &wide))
		return;
	if (!sched_getaffinity(0, sizeof(got), &got))
		CPU_OR(&s->allowed, &orig, &got);
	sched_setaffinity(0, sizeof(orig), &orig);
}

void cpu_sets_read(struct cpu_sets *s)
{
	cpu_mask_sysfs("online", &s->online);
	cpu_mask_sysfs("possible", &s->possible);
	cpu_mask_sysfs("isolated", &s->isolated);
	cpu_mask_sysfs("nohz_full", &s->nohz_full);
	if (sched_getaffinity(0, sizeof(s->allowed), &s->allowed))
		s->allowed = s->online;
	cpu_allowed_add_isolated(s);
}

const char *cpu_isolation_name(const struct cpu_sets *s, int cpu)
{
	bool nohz = CPU_ISSET(cpu, &s->nohz_full);
	bool isol = CPU_ISSET(cpu, &s->isolated);

	if (nohz && isol)
		return "nohz_full,isolated";
	if (nohz)
		return "nohz_full";
	if (isol)
		return "isolated";
	return "not isolated";
}

int cpu_mask_check_usable(const struct cpu_sets *s, const cpu_mask_t *mask,
			  char *err, size_t errlen)
{
	int cpu;

	if (!CPU_COUNT(mask)) {
		snprintf(err, errlen, "empty CPU set");
		return -1;
	}
	cpu_mask_for_each(cpu, mask) {
		if (!CPU_ISSET(cpu, &s->online)) {
			snprintf(err, errlen, "cpu %d is not online", cpu);
			return -1;
		}
		if (!CPU_ISSET(cpu, &s->allowed)) {
			snprintf(err, errlen,
				 "cpu %d is outside this process's affinity mask",
				 cpu);
			return -1;
		}
	}
	return 0;
}

int cpu_target_default(const struct cpu_sets *s, const char **reason)
{
	cpu_mask_t m;
	int cpu;

	CPU_AND(&m, &s->nohz_full, &s->allowed);
	CPU_AND(&m, &m, &s->online);
	cpu = cpu_mask_first(&m);
	if (cpu >= 0) {
		*reason = "first nohz_full CPU";
		return cpu;
	}
	CPU_AND(&m, &s->isolated, &s->allowed);
	CPU_AND(&m, &m, &s->online);
	cpu = cpu_mask_first(&m);
	if (cpu >= 0) {
		*reason = "first isolated CPU (no nohz_full CPU)";
		return cpu;
	}
	CPU_AND(&m, &s->online, &s->allowed);
	*reason = "highest online CPU (no nohz_full or isolated CPU)";
	return cpu_mask_last(&m);
}

void cpu_housekeeping_default(const struct cpu_sets *s,
			      const cpu_mask_t *targets, cpu_mask_t *hk)
{
	cpu_mask_t usable, quiet;

	CPU_AND(&usable, &s->online, &s->allowed);
	CPU_XOR(hk, &usable, targets);
	CPU_AND(hk, hk, &usable);
	CPU_OR(&quiet, &s->isolated, &s->nohz_full);
	CPU_AND(&quiet, &quiet, hk);
	if (CPU_COUNT(&quiet) < CPU_COUNT(hk))
		CPU_XOR(hk, hk, &quiet);
}

int cpu_pin_self_mask(const cpu_mask_t *mask)
{
	int ret = pthread_setaffinity_np(pthread_self(), sizeof(*mask), mask);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

int cpu_pin_self(int cpu)
{
	cpu_mask_t m;

	CPU_ZERO(&m);
	CPU_SET(cpu, &m);
	return cpu_pin_self_mask(&m);
}

static cpu_mask_t saved_affinity;

static void affinity_restore(void *arg)
{
	(void)arg;
	sched_setaffinity(0, sizeof(saved_affinity), &saved_affinity);
}

void cpu_affinity_save(void)
{
	if (sched_getaffinity(0, sizeof(saved_affinity), &saved_affinity))
		return;
	cleanup_push(affinity_restore, NULL);
}

static const char *const relation_names[] = {
	[CPU_REL_SAME] = "same",
	[CPU_REL_SMT] = "smt",
	[CPU_REL_CORE] = "core",
	[CPU_REL_CROSS_LLC] = "cross-llc",
	[CPU_REL_CROSS_NODE] = "cross-node",
};

const char *cpu_relation_name(enum cpu_relation rel)
{
	return relation_names[rel];
}

int cpu_relation_parse(const char *s, enum cpu_relation *rel)
{
	if (!strcmp(s, "llc")) {
		*rel = CPU_REL_CORE;
		return 0;
	}
	for (unsigned int i = CPU_REL_SMT; i < ARRAY_SIZE(relation_names); i++) {
		if (!strcmp(s, relation_names[i])) {
			*rel = i;
			return 0;
		}
	}
	return -1;
}

int cpu_pairs_parse(const char *s, int *src, int *dst, int max,
		    char *err, size_t errlen)
{
	char *copy = strdup(s), *tok, *next;
	int n = 0;

	if (!copy) {
		snprintf(err, errlen, "no memory");
		return -1;
	}
	/* every ',' separates two pairs: none may be empty (strtok skips them) */
	for (tok = copy; tok; tok = next) {
		char *colon;
		uint64_t a, b;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!*tok) {
			snprintf(err, errlen, "'%s': an empty pair (a leading, trailing or doubled ',')",
				 s);
			goto bad;
		}
		if (n == max) {
			snprintf(err, errlen, "more than %d pairs", max);
			goto bad;
		}
		colon = strchr(tok, ':');
		if (!colon) {
			snprintf(err, errlen, "'%s' is not SRC:DST", tok);
			goto bad;
		}
		*colon = '\0';
		if (parse_u64(tok, &a) || parse_u64(colon + 1, &b) ||
		    a >= CPU_SETSIZE || b >= CPU_SETSIZE) {
			snprintf(err, errlen, "'%s:%s' is not SRC:DST (CPU numbers below %d)",
				 tok, colon + 1, CPU_SETSIZE);
			goto bad;
		}
		src[n] = a;
		dst[n++] = b;
	}
	free(copy);
	return n;
bad:
	free(copy);
	return -1;
}
