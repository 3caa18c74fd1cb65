// SPDX-License-Identifier: GPL-2.0
/*
 * The topology from sysfs, for a build without hwloc: the kernel's own
 * lists of the CPUs that share a core, a package or a cache
 * (/sys/devices/system/cpu/cpuN/topology, cpuN/cache/indexK) and its
 * online NUMA nodes (/sys/devices/system/node/online).
 */
#include <stdint.h>
#include <stdio.h>

#include "cpu.h"
#include "topo_source.h"
#include "util.h"

const char *const topo_source = "sysfs";

/* The CPUs of cpu@cpu's @what (a cpulist file below it), online ones only. */
static int cpus_of(int cpu, const char *what, cpu_mask_t *m)
{
	cpu_mask_t online;
	char name[96];

	snprintf(name, sizeof(name), "cpu%d/%s", cpu, what);
	if (cpu_mask_sysfs(name, m) || cpu_mask_sysfs("online", &online))
		return -1;
	CPU_AND(m, m, &online);
	return 0;
}

/* core_cpus_list and package_cpus_list since 5.7, the old names before */
static int core_of(int cpu, cpu_mask_t *m)
{
	return cpus_of(cpu, "topology/core_cpus_list", m) &&
	       cpus_of(cpu, "topology/thread_siblings_list", m) ? -1 : 0;
}

static int package_of(int cpu, cpu_mask_t *m)
{
	return cpus_of(cpu, "topology/package_cpus_list", m) &&
	       cpus_of(cpu, "topology/core_siblings_list", m) ? -1 : 0;
}

/* The CPUs sharing @cpu's cache of the highest level; its level, or -1. */
static int last_level_cache_of(int cpu, cpu_mask_t *m)
{
	int best = -1;

	for (int i = 0; i < 16; i++) {
		char path[96], line[32];
		uint64_t level;
		cpu_mask_t s;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 cpu, i);
		if (read_file_line(path, line, sizeof(line)) < 0)
			break;
		snprintf(path, sizeof(path), "cache/index%d/shared_cpu_list", i);
		if (parse_u64(line, &level) || (int)level <= best || cpus_of(cpu, path, &s))
			continue;
		best = (int)level;
		*m = s;
	}
	return best;
}

int topo_load(void)
{
	cpu_mask_t m;

	return core_of(cpu_mask_sysfs("online", &m) ? 0 : cpu_mask_first(&m), &m);
}

int topo_same_core(int a, int b)
{
	cpu_mask_t m;

	return !core_of(a, &m) && CPU_ISSET(b, &m);
}

int topo_cache_shared(int a, int b)
{
	for (int i = 0; i < 16; i++) {
		char what[64];
		cpu_mask_t m;

		snprintf(what, sizeof(what), "cache/index%d/shared_cpu_list", i);
		if (cpus_of(a, what, &m))
			break;
		if (CPU_ISSET(b, &m))
			return 1;
	}
	return 0;
}

/*
 * Each core, package and last-level cache counted once, at its first
 * online CPU (the caches -1 where a CPU shows none); NUMA nodes as the
 * kernel has them online (1 without NUMA).
 */
int topo_counts(struct cpu_topology *t)
{
	char path[] = "/sys/devices/system/node/online", line[4096], err[128];
	cpu_mask_t online, m;
	bool caches_unknown = false;
	int cpu;

	if (cpu_mask_sysfs("online", &online))
		return -1;
	cpu_mask_for_each(cpu, &online) {
		t->pus++;
		t->cores += !core_of(cpu, &m) && cpu_mask_first(&m) == cpu;
		t->packages += !package_of(cpu, &m) && cpu_mask_first(&m) == cpu;
		if (last_level_cache_of(cpu, &m) < 0)
			caches_unknown = true;
		else
			t->llcs += cpu_mask_first(&m) == cpu;
	}
	/* some VMs show no cpuN/cache/: unknown, not 0 */
	if (caches_unknown)
		t->llcs = -1;
	t->numa_nodes = 1;
	if (read_file_line(path, line, sizeof(line)) >= 0 && !cpu_mask_parse(line, &m, err, sizeof(err)))
		t->numa_nodes = CPU_COUNT(&m);
	return 0;
}
