/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in housekeeping load. Three kinds, from three components:
 *
 *   messaging  hackbench-style groups of processes exchanging small
 *              messages over socket pairs;
 *   burners    one integer-and-memory CPU burner per housekeeping CPU;
 *   compile    one stream of short-lived jobs per housekeeping CPU, like
 *              make -jN of a kernel build: each job forks and execs the
 *              C compiler on a small generated file (which forks and
 *              execs cc1 and as, maps, faults and exits), or where no
 *              compiler works, forks, maps and faults 4 MB and execs
 *              /bin/true.
 *
 * LOAD_RTEVAL (the default, what the IPI-deferral series ran: rteval's hackbench plus a
 * kernel compilation) is messaging + compile; LOAD_MESSAGING is messaging
 * + burners (the first load of the suite); LOAD_COMPILE is compile only.
 *
 * Every load process is pinned to the housekeeping set, lives in one
 * process group, dies with its parent (PR_SET_PDEATHSIG, set again in
 * every job before its exec) and is stopped by load_stop() or at exit.
 * While the load runs the caller is a child subreaper, so jobs orphaned
 * by a killed driver come back to it to be reaped.
 */
#ifndef ISOLBENCH_LOAD_H
#define ISOLBENCH_LOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "../base/cpu.h"

struct load_stats;

enum load_kind { LOAD_RTEVAL, LOAD_MESSAGING, LOAD_COMPILE };
/* "rteval", "messaging", "compile"; NULL-terminated (an OPT_CHOICE table) */
extern const char *const load_kind_names[];

struct load {
	pid_t pgid;		/* 0 when not running */
	int kind;		/* enum load_kind */
	int nprocs;		/* started directly: pairs, burners, drivers */
	int ndrivers;		/* compile job streams */
	int cleanup_handle;
	int src_fd;		/* memfd with the generated C file, or -1 */
	int was_subreaper;
	char compiler[128];	/* path of the compiler, "" for the churn */
	uint64_t start_ns;
	struct load_stats *shared;	/* progress counters in shared memory */
};

struct load_report {
	int kind;		/* enum load_kind */
	double seconds;
	uint64_t messages;	/* exchanged by the messaging groups */
	uint64_t burner_loops;	/* millions of burner iterations */
	uint64_t jobs;		/* compile/churn jobs forked and exec'd */
	uint64_t jobs_failed;	/* jobs that did not exit 0 */
	uint64_t compiles;	/* of the jobs, compiler runs that succeeded */
	uint64_t churn;		/* of the jobs, fork/mmap/fault/exec churn */
	char compiler[128];	/* the compiler used, "" when none worked */
};

/*
 * Start a load of @kind on @hk (non-empty): @groups messaging groups (0
 * picks one per housekeeping CPU). Returns 0, or -1 with a reason in @err.
 */
int load_start(struct load *l, const cpu_mask_t *hk, int kind, int groups,
	       char *err, size_t errlen);
/* Stop and reap every load process; fills @rep when non-NULL. */
void load_stop(struct load *l, struct load_report *rep);

#endif
