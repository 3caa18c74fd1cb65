// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan: what the latency parts (function_graph and the estimate)
 * share: the workload run they time, and the table row they fill.
 */
#include <stdio.h>

#include "lib/base/clock.h"
#include "cid_scan_common.h"

/* The CID-batches thread's table row from the per-call (and complete-scan) metric. */
void cid_scan_row_fill(struct cid_scan_row *row, const struct scan_model *sm,
		       const struct cid_opts *o, const char *method,
		       struct metric *call, struct metric *full)
{
	if (sm->scan_off)
		snprintf(row->scan, sizeof(row->scan), "scan off");
	else if (sm->batch > 0)
		snprintf(row->scan, sizeof(row->scan), "batch %d", sm->batch);
	else if (sm->batch < 0)
		snprintf(row->scan, sizeof(row->scan), "batch ?");
	else
		snprintf(row->scan, sizeof(row->scan), "full scan");
	row->workload = cid_scan_workload_names[o->workload];
	row->method = method;
	row->n = call->n;
	if (call->n)
		stats_compute(call->samples, call->n, &row->call);
	if (full && full->n)
		stats_compute(full->samples, full->n, &row->full);
	else if (!sm->batch)
		row->full = row->call;	/* a full scan is one call */
}

/* The workload on --cpu for -D seconds, with @nprobe timed busy loops. */
void cid_scan_run_workload(struct bench *b, const struct cid_opts *o,
			   struct wl_run *r, int nprobe, bool with_wl)
{
	r->kind = o->workload;
	r->period_us = o->period_us;
	r->hackbench_threads = o->hackbench_threads;
	r->gap_min_ns = o->gap_min_ns;
	r->end_ns = mono_ns() + b->opt.duration_s * 1e9;
	cid_scan_workload_start(r, &b->opt.cpus, nprobe, (int)o->threads, with_wl);
	cid_scan_workload_wait_until(r->end_ns);
	cid_scan_workload_join(r);
}
