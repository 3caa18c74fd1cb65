/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's topology: how two CPUs relate, the counts of its parts,
 * a CPU's NUMA node. Each fact comes from one source the build picks
 * (the Makefile, through pkg-config): hwloc (topo_hwloc.c), else the
 * kernel's sysfs (topo_sysfs.c); the NUMA node from libnuma
 * (numa_libnuma.c), else sysfs (numa_sysfs.c). The results name them.
 */
#ifndef ISOLBENCH_TOPO_H
#define ISOLBENCH_TOPO_H

#include "cpu.h"
#include "numa_source.h"
#include "topo_source.h"

/* -1 if the topology cannot be read. */
int cpu_relation(int a, int b, enum cpu_relation *rel);
/* NUMA node of @cpu, 0 when NUMA is not available. */
int cpu_numa_node(int cpu);
/*
 * Find a pair (@src, @dst) in @allowed with relation @rel; 0 on
 * success, -1 if the machine has none.
 */
int cpu_pair_find(const cpu_mask_t *allowed, enum cpu_relation rel,
		  int *src, int *dst);

/* Counts of the machine's topology objects; -1 if unreadable. */
int cpu_topology_read(struct cpu_topology *t);

#endif
