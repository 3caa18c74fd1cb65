/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cid_scan's parts (cid_scan.c reads as the experiment): what the kernel
 * has (cid_scan_detect.c), the scan timed by function_graph
 * (cid_scan_graph.c) or estimated from user space (cid_scan_estimate.c),
 * with what both share (cid_scan_run.c), the calls grouped into passes
 * and walks (cid_scan_passes.c), the periodic marks the estimate finds
 * (cid_scan_periodic.c), the workloads (cid_scan_workload.c),
 * compaction and the CID invariants (cid_scan_compaction.c), the model
 * (cid_scan_model.c) and its remote cache lines (cid_scan_remote.c).
 */
#ifndef ISOLBENCH_CID_SCAN_COMMON_H
#define ISOLBENCH_CID_SCAN_COMMON_H

#include "lib/harness/bench.h"
#include "cid_scan_passes.h"
#include "cid_scan_periodic.h"
#include "lib/kernel/rseq.h"
#include "cid_scan_workload.h"

#define SCAN_PERIOD_NS		(100 * 1000000ULL)	/* MM_CID_SCAN_DELAY */
/* scans hidden by a context switch leave holes: look 1 to 3 periods away */
#define SCAN_MULTIPLES		3

enum method { M_AUTO, M_TRACE, M_ESTIMATE };

struct cid_opts {
	int workload, method;
	uint64_t threads, period_us, gap_min_ns, compaction_threads;
	double compaction_timeout_s;
	bool hackbench_threads, model, no_compaction, compaction_control;
	bool model_gap_given;
	uint64_t model_max_cpus, trace_buffer_kb, expect_batch;
	double model_call_gap_us;
};

/* What the kernel has (detection). */
struct scan_model {
	struct rseq_info rseq;
	bool periodic;		/* task_mm_cid_work in kallsyms */
	int batch;		/* CPUs per call: 0 full scan, -1 batched, size unknown */
	char batch_from[96];	/* where the batch size was read */
	bool scan_off;		/* the batch patch's rseq_cid_scan=off */
	bool walk_retval;	/* the scan returns where its walk stands */
	bool walk_nested;	/* it returns nothing: walks from its nested calls */
	int batch_expected;	/* --expect-batch, else 0 */
	int walk_calls;		/* calls in a complete walk: ceil(possible / batch) */
	const char *func;	/* the function to trace */
	int hz;
	int possible;
	bool emulated;		/* TCG: ticks come late, periods stretch */
};

struct estimate {
	size_t events, marked, switched, candidates, periodic, host_gaps;
	size_t control;			/* matches half a period off */
	size_t below_tick;		/* picked, but no longer than a tick */
	double expected_scans, allowed;
	double base_p25, base_p50, base_p75;	/* unmarked gaps, us */
	double scan_p50, scan_max;	/* picked gaps, us */
	uint64_t hi;			/* a period at the longest, ns */
	double period_ms;		/* between consecutive picks (median) */
	double seen_share;		/* picks / the periods they span */
	double seen_slots;		/* those periods */
	bool resolved;
	struct periodic_ev *ev;		/* candidates, picked ones marked */
	struct metric *m;
};

struct cid_scan_row {			/* one line of the CID-batches thread's table */
	char scan[24];
	const char *workload, *method;
	struct stats call, full, delay;
	size_t n;
	bool walks_judged;	/* the trace grouped its calls into walks */
	int walks_code;		/* and the calls-per-walk verdict on them */
	char walks_why[256];
};

/* cid_scan_run.c */
void cid_scan_run_workload(struct bench *b, const struct cid_opts *o,
			   struct wl_run *r, int nprobe, bool with_wl);
void cid_scan_row_fill(struct cid_scan_row *row, const struct scan_model *sm,
		       const struct cid_opts *o, const char *method,
		       struct metric *call, struct metric *full);

/* cid_scan_detect.c */
void cid_scan_detect(struct bench *b, struct scan_model *m);

/* cid_scan_estimate.c */
uint64_t cid_scan_estimate_window(const struct scan_model *sm);
void cid_scan_estimate_analyse(struct wl_run *r, const struct scan_model *sm,
			       double seconds, struct estimate *e);
void cid_scan_latency_estimated(struct bench *b, const struct cid_opts *o,
				const struct scan_model *sm, struct cid_scan_row *row);

/* cid_scan_graph.c */
void cid_scan_latency_traced(struct bench *b, const struct cid_opts *o,
			     const struct scan_model *sm, struct cid_scan_row *row);

/* cid_scan_compaction.c: each one result, by these names */
/*
 * The latency check when function_graph times the scan: the same name
 * whatever the kernel calls its scan function (a # line names it).
 */
#define CID_SCAN_TRACED_CHECK		"function_graph timed the mm_cid scan"
#define CID_SCAN_COMPACTION_CHECK	"compaction by the scan"
#define CID_SCAN_INVARIANTS_CHECK	"mm_cid invariants"
void cid_scan_compaction(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm);
void cid_scan_invariants(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm);

/* cid_scan_model.c */
void cid_scan_run_model(struct bench *b, const struct cid_opts *o,
			const struct scan_model *sm, const struct cid_scan_row *traced);

#endif
