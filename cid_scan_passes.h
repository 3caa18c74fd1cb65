/* SPDX-License-Identifier: GPL-2.0 */
/*
 * function_graph calls of one function grouped into passes: the calls
 * a group of tasks (one process) makes in one walk. Consecutive calls of
 * a group closer than @split_s form one pass; with split_s 0 every call
 * is a pass of its own. Calls by tasks not added are counted apart.
 *
 * With @by_retval the function says itself where a walk stands: it
 * returns where the next call starts, 0 when it ended a walk, a negative
 * error when it walked nothing (counted in @busy, not as a call). A walk
 * is then the calls up to one returning 0; the first walk of a group
 * (its start was before the trace) and a walk still open at the end are
 * partial. Complete walks of @expect calls give @pass_us; the others are
 * counted by their number of calls in @walk_calls, never merged. The
 * delay between a walk's calls goes to @gap_us; a call that began before
 * the previous one ended has none and is counted in @overlap.
 *
 * With @by_nested the function returns nothing, and each walk is
 * reconstructed from an event inside each call (function_graph prints it
 * with the call; cid_scan_passes_call() gets it before the call):
 * @nest_cont, whose first field is the walk's offset, where the call's
 * batch starts (the batch counter times the batch: a kprobe event on
 * __find_nth_bit() on the posted batch patch's shape, which fires in
 * every call but the first of a walk). The calls are walked at the end in the order of their events
 * (when the counter was read), though neither that nor their entries
 * order them reliably under emulation (a vCPU stalls between the read and
 * the event's time stamp): so the offsets decide. The batch is the
 * smallest offset. An offset of 0, or of @possible or more, begins a walk
 * unless the walk under way began that way and has not reached its last
 * batch: then it was a thread that read the counter before another
 * claimed the walk (of two such calls in a row, the longer begins the
 * walk). Such a call, and one repeating an offset of its walk, read the
 * counter before another thread moved it: it took a later batch (the
 * scan reads the counter again) or none. They fill the batches the walk
 * has no call for; the rest are counted in @busy. A walk is
 * complete when the next one began; the first walk of a group and the
 * last are partial. Complete walks are judged and timed as above. When
 * no call carried the event, the walks cannot be reconstructed:
 * cid_scan_walks_verdict() says so (KSFT_SKIP) and nothing is timed as a
 * walk.
 *
 *	cid_scan_passes_init(&gp, ntasks, ngroups);
 *	cid_scan_passes_task(&gp, pid, group);	...for each task
 *	gp.call = ...; gp.pass_us = ...; gp.split_s = 0.05;
 *	cid_scan_passes_read(&gp, &info);		reads the trace
 *	cid_scan_passes_free(&gp);
 */
#ifndef ISOLBENCH_CID_SCAN_PASSES_H
#define ISOLBENCH_CID_SCAN_PASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/harness/bench.h"
#include "lib/base/stats.h"
#include "lib/kernel/tracefs.h"

struct graph_pass {
	double start_s, end_s;
	int calls;
	bool from_start;	/* by_retval: a walk ended before this one */
	long max_n;		/* by_nested: the walk's largest offset */
	uint64_t seen;		/* by_nested: its offsets, in batches */
	double first_us;	/* by_nested: its first call's duration */
	int dups;		/* by_nested: calls that repeated an offset */
};

#define GRAPH_WALK_CALLS_MAX	64	/* walk_calls[] counts up to this */

/* by_nested: one call as the trace gave it, kept for the walks */
struct graph_nested {
	struct graph_call c;
	double key;		/* when it read the counter: its event, else its entry */
	int group;
	bool cont;
	long n;
};

struct graph_passes {
	/* set by the caller */
	double split_s;		/* a longer pause between calls ends a pass */
	double below_us;	/* count the calls shorter than this */
	struct metric *call;	/* gets each call's duration, us */
	struct metric *pass_us;	/* gets each pass, first call to last end */
	struct hist *h;		/* each call's duration, us (optional) */
	bool by_retval;		/* walks end at a call returning 0 */
	int expect;		/* by_retval: calls in a complete walk */
	struct metric *gap_us;	/* by_retval: end of a call to the next in a walk */
	bool by_nested;		/* walks from an event inside each call */
	const char *func;	/* by_nested: the scan function */
	const char *nest_cont;	/* by_nested: the event at each call's entry */
	long possible;		/* by_nested: an offset this large begins a walk */
	/* state and results */
	int *pids, *group, npids, ngroups;
	struct graph_pass *pass;	/* per group */
	size_t calls, other, below;
	/* by_retval: calls that walked nothing, walks by their count of calls
	 * (the last slot: more), walks cut by the trace's ends
	 */
	size_t busy, no_ret, walk_calls[GRAPH_WALK_CALLS_MAX + 2], partial;
	size_t nonleaf;		/* of calls: printed as "func() {" ... "}" */
	size_t overlap;		/* by_retval: calls begun before the last one ended */
	/* by_nested: per task, the last event: its time and offset */
	double *pend_ts;
	long *pend_n;
	struct graph_nested *nest;	/* the calls, walked in entry order at the end */
	size_t nnest, cap_nest;
	size_t event_calls;	/* calls the event came with */
	size_t cont_calls;	/* calls that continued a walk */
	size_t start_calls;	/* calls that began one */
	long n_min, n_max;	/* offsets seen: the smallest is the batch */
	long step;		/* by_nested: the batch, while walking */
	double *ts_s;		/* each counted call's entry, trace clock */
	double *ts_us;		/* its duration */
	int *ts_pid;		/* and its task */
	size_t nts, cap_ts;
};

/* Room for @ntasks tasks in @ngroups groups; exits when out of memory. */
void cid_scan_passes_init(struct graph_passes *gp, int ntasks, int ngroups);
/* Count the calls of task @pid (a tid; a process as -pid is allowed). */
void cid_scan_passes_task(struct graph_passes *gp, int pid, int group);
/* Read the function_graph trace, then end the open passes. */
long cid_scan_passes_read(struct graph_passes *gp, struct graph_read_info *info);
/* Feed one call, as cid_scan_passes_read() does for each traced one. */
void cid_scan_passes_call(const struct graph_call *c, void *arg);
void cid_scan_passes_free(struct graph_passes *gp);
/* End the open passes (cid_scan_passes_read() does it after the trace). */
void cid_scan_passes_end(struct graph_passes *gp);
/*
 * by_nested: whether the event showed where walks begin (some calls
 * continued a walk); if not, @why says what was missing.
 */
bool cid_scan_walks_reconstructed(const struct graph_passes *gp, char *why, size_t len);
/* by_retval: the complete walks whose count of calls is not @expect. */
size_t cid_scan_walks_other(const struct graph_passes *gp);
/*
 * by_retval, by_nested: KSFT_PASS when complete walks were seen and each
 * had @expect calls, else KSFT_FAIL; by_nested, KSFT_SKIP when the walks
 * cannot be reconstructed. What was seen in @why.
 */
int cid_scan_walks_verdict(const struct graph_passes *gp, char *why, size_t len);

#endif
