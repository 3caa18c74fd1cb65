// SPDX-License-Identifier: GPL-2.0
/* The topology from hwloc: the first choice, where libhwloc is installed. */
#include <hwloc.h>

#include "topo_source.h"

const char *const topo_source = "hwloc";

static hwloc_topology_t topo;

/* Loaded once: a pair search asks for many relations. */
int topo_load(void)
{
	static int failed;

	if (topo || failed)
		return topo ? 0 : -1;
	if (hwloc_topology_init(&topo)) {
		failed = 1;
		return -1;
	}
	if (hwloc_topology_load(topo)) {
		hwloc_topology_destroy(topo);
		topo = NULL;
		failed = 1;
		return -1;
	}
	return 0;
}

int topo_same_core(int a, int b)
{
	hwloc_obj_t pa = hwloc_get_pu_obj_by_os_index(topo, a);
	hwloc_obj_t pb = hwloc_get_pu_obj_by_os_index(topo, b);
	hwloc_obj_t oa, ob;

	if (!pa || !pb)
		return 0;
	oa = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pa);
	ob = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pb);
	return oa && oa == ob;
}

int topo_cache_shared(int a, int b)
{
	hwloc_obj_t pa = hwloc_get_pu_obj_by_os_index(topo, a);

	if (!pa || !hwloc_get_pu_obj_by_os_index(topo, b))
		return 0;
	/* Walk up from a: the first cache that also covers b is shared. */
	for (hwloc_obj_t o = pa->parent; o; o = o->parent)
		if (hwloc_obj_type_is_cache(o->type) &&
		    hwloc_bitmap_isset(o->cpuset, b))
			return 1;
	return 0;
}

static int count(hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);

	return n < 0 ? 0 : n;
}

int topo_counts(struct cpu_topology *t)
{
	t->packages = count(HWLOC_OBJ_PACKAGE);
	t->numa_nodes = count(HWLOC_OBJ_NUMANODE);
	t->cores = count(HWLOC_OBJ_CORE);
	t->pus = count(HWLOC_OBJ_PU);
	/* the last-level cache is the cache level nearest the root */
	for (int depth = 0; depth < hwloc_topology_get_depth(topo); depth++) {
		hwloc_obj_t o = hwloc_get_obj_by_depth(topo, depth, 0);

		if (o && hwloc_obj_type_is_cache(o->type)) {
			t->llcs = hwloc_get_nbobjs_by_depth(topo, depth);
			break;
		}
	}
	return 0;
}
