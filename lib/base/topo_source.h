/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a topology source provides to topo.c: topo_hwloc.c or
 * topo_sysfs.c, the one the build links.
 */
#ifndef ISOLBENCH_TOPO_SOURCE_H
#define ISOLBENCH_TOPO_SOURCE_H

struct cpu_topology {
	int packages, numa_nodes, llcs, cores, pus;
	const char *source, *numa_source;	/* "hwloc"/"sysfs", "libnuma"/"sysfs" */
};

extern const char *const topo_source;	/* "hwloc" or "sysfs" */
/* 0 when the topology can be read (loaded once). */
int topo_load(void);
/* Whether @a and @b share a core, or any cache: 1, else 0. */
int topo_same_core(int a, int b);
int topo_cache_shared(int a, int b);
/* packages, numa_nodes, llcs (-1: unknown), cores and pus; -1 if unreadable. */
int topo_counts(struct cpu_topology *t);

#endif
