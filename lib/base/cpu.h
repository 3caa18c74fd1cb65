/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU sets: kernel cpulist syntax, the sysfs masks (online, isolated,
 * nohz_full), the default target rule, the housekeeping set, pinning,
 * and the names of the topology relations of two CPUs (topo.h).
 */
#ifndef ISOLBENCH_CPU_H
#define ISOLBENCH_CPU_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* cpu_set_t holds CPU_SETSIZE (1024) CPUs; larger machines are refused. */
typedef cpu_set_t cpu_mask_t;

/*
 * Parse a kernel cpulist ("0-3,8", "0-15:2/4", "" is an error).
 * Returns 0, or -1 with a reason in @err.
 */
int cpu_mask_parse(const char *s, cpu_mask_t *mask, char *err, size_t errlen);
/*
 * Parse a kernel hex bitmask ("%*pb": 32-bit words, most significant
 * first, comma-separated: "00000000,0000000c" is CPUs 2 and 3), as the
 * trace prints a cpumask field. @len bytes of @s. 0, or -1 when it is
 * no such mask or sets a CPU above CPU_SETSIZE.
 */
int cpu_mask_parse_hex(const char *s, size_t len, cpu_mask_t *mask);
/* Format as a cpulist ("2-3,8"); "" for the empty set. */
char *cpu_mask_format(const cpu_mask_t *mask, char *buf, size_t len);
int cpu_mask_first(const cpu_mask_t *mask);
int cpu_mask_last(const cpu_mask_t *mask);
/* Next set CPU after @cpu, or -1. */
int cpu_mask_next(int cpu, const cpu_mask_t *mask);
#define cpu_mask_for_each(cpu, mask) \
	for ((cpu) = cpu_mask_first(mask); (cpu) >= 0; \
	     (cpu) = cpu_mask_next((cpu), (mask)))

/*
 * A mask from /sys/devices/system/cpu/@name ("online", "possible",
 * "isolated", "nohz_full"). A missing file is the empty set: returns 0
 * when it was read, -1 when absent.
 */
int cpu_mask_sysfs(const char *name, cpu_mask_t *mask);

struct cpu_sets {
	cpu_mask_t online, possible, isolated, nohz_full, allowed;
};

void cpu_sets_read(struct cpu_sets *sets);
/* "nohz_full", "isolated", "nohz_full,isolated" or "not isolated". */
const char *cpu_isolation_name(const struct cpu_sets *sets, int cpu);

/*
 * Check that every CPU of @mask is online and in our affinity mask.
 * Returns 0, or -1 with a reason naming the CPU in @err.
 */
int cpu_mask_check_usable(const struct cpu_sets *sets, const cpu_mask_t *mask,
			  char *err, size_t errlen);

/*
 * The default target: the first nohz_full CPU, else the first isolated
 * one, else the highest online CPU we may run on. Sets @reason.
 */
int cpu_target_default(const struct cpu_sets *sets, const char **reason);

/*
 * The housekeeping set for @targets: allowed online CPUs that are not
 * targets and not isolated or nohz_full; failing that, any other allowed
 * online CPU. May be empty.
 */
void cpu_housekeeping_default(const struct cpu_sets *sets,
			      const cpu_mask_t *targets, cpu_mask_t *hk);

/* Pin the calling thread to @cpu or @mask; 0 or -1 with errno. */
int cpu_pin_self(int cpu);
int cpu_pin_self_mask(const cpu_mask_t *mask);

/*
 * Remember the calling thread's affinity now and restore it at exit
 * (and on a second signal) through cleanup_push().
 */
void cpu_affinity_save(void);

/* How two CPUs relate, nearest first. */
enum cpu_relation {
	CPU_REL_SAME,
	CPU_REL_SMT,		/* hardware threads of one core */
	CPU_REL_CORE,		/* other cores sharing the last-level cache */
	CPU_REL_CROSS_LLC,	/* other LLC, same NUMA node */
	CPU_REL_CROSS_NODE,	/* other NUMA node */
};

const char *cpu_relation_name(enum cpu_relation rel);
/* Parse "smt", "core", "llc" (same as core), "cross-llc", "cross-node". */
int cpu_relation_parse(const char *s, enum cpu_relation *rel);
/*
 * Parse "8:16,9:17" into at most @max pairs. Returns the number of
 * pairs, or -1 with a reason in @err.
 */
int cpu_pairs_parse(const char *s, int *src, int *dst, int max,
		    char *err, size_t errlen);

#endif
