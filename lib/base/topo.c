// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "topo.h"

int cpu_numa_node(int cpu)
{
	int node = numa_cpu_node(cpu);

	return node < 0 ? 0 : node;
}

int cpu_relation(int a, int b, enum cpu_relation *rel)
{
	if (a == b) {
		*rel = CPU_REL_SAME;
		return 0;
	}
	if (topo_load())
		return -1;
	if (cpu_numa_node(a) != cpu_numa_node(b))
		*rel = CPU_REL_CROSS_NODE;
	else if (topo_same_core(a, b))
		*rel = CPU_REL_SMT;
	else if (topo_cache_shared(a, b))
		*rel = CPU_REL_CORE;
	else
		*rel = CPU_REL_CROSS_LLC;
	return 0;
}

int cpu_pair_find(const cpu_mask_t *allowed, enum cpu_relation want,
		  int *src, int *dst)
{
	int a, b;

	cpu_mask_for_each(a, allowed) {
		cpu_mask_for_each(b, allowed) {
			enum cpu_relation rel;

			if (a == b || cpu_relation(a, b, &rel))
				continue;
			if (rel == want) {
				*src = a;
				*dst = b;
				return 0;
			}
		}
	}
	return -1;
}

int cpu_topology_read(struct cpu_topology *t)
{
	memset(t, 0, sizeof(*t));
	t->source = topo_source;
	t->numa_source = numa_source;
	return topo_load() ? -1 : topo_counts(t);
}
