// SPDX-License-Identifier: GPL-2.0
/* NUMA nodes from libnuma: the first choice, where it is installed. */
#include <numa.h>

#include "numa_source.h"

const char *const numa_source = "libnuma";

int numa_cpu_node(int cpu)
{
	if (numa_available() < 0)
		return -1;
	return numa_node_of_cpu(cpu);
}
