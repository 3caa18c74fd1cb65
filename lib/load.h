/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in housekeeping load, after rteval's: hackbench-style groups
 * of processes exchanging small messages over socket pairs, plus one CPU
 * burner per housekeeping CPU. Every load process is pinned to the
 * housekeeping set, lives in its own process group, dies with its parent
 * (PR_SET_PDEATHSIG) and is stopped by load_stop() or at exit.
 */
#ifndef ISOLBENCH_LOAD_H
#define ISOLBENCH_LOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "cpu.h"

struct load_stats;

struct load {
	pid_t pgid;		/* 0 when not running */
	int nprocs;
	int cleanup_handle;
	uint64_t start_ns;
	struct load_stats *shared;	/* progress counters in shared memory */
};

struct load_report {
	double seconds;
	uint64_t messages;	/* exchanged by the messaging groups */
	uint64_t burner_loops;	/* millions of burner iterations */
};

/*
 * Start the load on @hk (non-empty): @groups messaging groups (0 picks
 * one per housekeeping CPU). Returns 0, or -1 with a reason in @err.
 */
int load_start(struct load *l, const cpu_mask_t *hk, int groups,
	       char *err, size_t errlen);
/* Stop and reap every load process; fills @rep when non-NULL. */
void load_stop(struct load *l, struct load_report *rep);

#endif
