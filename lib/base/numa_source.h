/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a NUMA source provides to topo.c: numa_libnuma.c or
 * numa_sysfs.c, the one the build links.
 */
#ifndef ISOLBENCH_NUMA_SOURCE_H
#define ISOLBENCH_NUMA_SOURCE_H

extern const char *const numa_source;	/* "libnuma" or "sysfs" */
/* The node of @cpu, -1 if unknown or NUMA is not available. */
int numa_cpu_node(int cpu);

#endif
