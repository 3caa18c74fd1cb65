// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA nodes from sysfs, for a build without libnuma: the kernel links
 * each CPU to its node (/sys/devices/system/cpu/cpuN/nodeM).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "numa_source.h"
#include "util.h"

const char *const numa_source = "sysfs";

int numa_cpu_node(int cpu)
{
	char path[64];
	struct dirent *e;
	uint64_t node;
	int found = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while (found < 0 && (e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && !parse_u64(e->d_name + 4, &node) &&
		    node < 1 << 16)
			found = (int)node;
	closedir(d);
	return found;
}
