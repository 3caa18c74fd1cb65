// SPDX-License-Identifier: GPL-2.0
/*
 * cid_scan's scan timed by function_graph: each call, the walks the
 * batched scan's calls form (their return values say where a walk
 * stands), and on a spin workload the estimate checked against them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/kernel/tracefs.h"
#include "lib/base/util.h"
#include "cid_scan_common.h"

/*
 * On a batched kernel whose scan function returns nothing (the posted
 * series' task_mm_cid_work()) nothing function_graph shows says where a
 * walk stands. Each call finds its batch's first CPU with
 * cpumask_nth(batch number * batch size, cpu_possible_mask), which passes
 * that index to __find_nth_bit() as its third argument unless it is past
 * the last possible CPU (the walk then starts over). A kprobe event there
 * (no module, no member name) writes the index into the trace, inside the
 * call. The per-CPU clear functions, whose cpu argument would say the
 * same, are inlined (no symbol in the 6.12 guest's kernel nor in the
 * host's 6.18); lib/ is built without ftrace, and kprobe events refuse it
 * without CONFIG_KPROBE_EVENTS_ON_NOTRACE (vm/guest.config sets it).
 */
#define NEST_EVENT	"cid_batch"
#define NEST_PROBE	"__find_nth_bit"
#define NEST_FETCH	"n=$arg3:u64"

/* How the calls of the batched scan formed complete walks, and their verdict. */
static void walks_report(const struct scan_model *sm, const struct graph_passes *gp,
			 uint64_t lost, struct cid_scan_row *row)
{
	char other[160] = "", why[256];
	size_t off = 0, n;
	int code;

	for (int k = 1; k <= GRAPH_WALK_CALLS_MAX + 1; k++) {
		if (k == sm->walk_calls || !gp->walk_calls[k] || off >= sizeof(other))
			continue;
		off += snprintf(other + off, sizeof(other) - off, "%s%s%d calls x%zu",
				off ? ", " : "", k > GRAPH_WALK_CALLS_MAX ? ">" : "",
				k > GRAPH_WALK_CALLS_MAX ? GRAPH_WALK_CALLS_MAX : k,
				gp->walk_calls[k]);
	}
	n = cid_scan_walks_other(gp);
	code = cid_scan_walks_verdict(gp, why, sizeof(why));
	if (code == KSFT_SKIP)
		ksft_print_msg("walks: %s; no complete-scan time\n", why);
	else if (gp->by_nested)
		ksft_print_msg("walks (reconstructed from where each call of %s starts its batch, a kprobe event on " NEST_PROBE "): %zu complete with %d calls, %zu with other counts%s%s%s; %zu partial at the trace's ends; %zu calls took no batch; offsets (counter x batch) %ld to %ld%s\n",
			       sm->func, gp->walk_calls[sm->walk_calls], sm->walk_calls, n,
			       n ? " (" : "", other, n ? ")" : "", gp->partial, gp->busy,
			       gp->n_min, gp->n_max, lost ? ", events lost" : "");
	else
		ksft_print_msg("walks (function_graph return values): %zu complete with %d calls, %zu with other counts%s%s%s; %zu partial at the trace's ends; %zu calls claimed no batch (-EBUSY)%s\n",
			       gp->walk_calls[sm->walk_calls], sm->walk_calls, n,
			       n ? " (" : "", other, n ? ")" : "", gp->partial, gp->busy,
			       lost ? ", events lost" : "");
	if (row->delay.n)
		ksft_print_msg("delay between the calls of a walk (function_graph): min %.2f us, p50 %.2f, p99 %.2f, max %.2f; %zu calls began before the previous one ended (on another CPU: no delay)\n",
			       row->delay.min, row->delay.p50, row->delay.p99, row->delay.max,
			       gp->overlap);
	if (gp->gap_us)
		metric_extra(gp->gap_us, "calls_overlapping_previous", gp->overlap);
	metric_extra(gp->call, "walks_expected_calls", gp->walk_calls[sm->walk_calls]);
	metric_extra(gp->call, "walks_other_calls", n);
	metric_extra(gp->call, "walks_partial", gp->partial);
	metric_extra(gp->call, "calls_no_batch", gp->busy);
	metric_extra(gp->call, "walks_nested", gp->by_nested);
	if (sm->batch_expected)
		metric_extra(gp->call, "batch_expected", sm->batch_expected);
	if (gp->by_nested) {
		metric_extra(gp->call, "walks_reconstructed", code != KSFT_SKIP);
		metric_extra(gp->call, "walk_offset_min", gp->n_min);
		metric_extra(gp->call, "walk_offset_max", gp->n_max);
	}
	/* the counts in the JSON's reason too: scripts/cid_scan_table.py shows them */
	if (code == KSFT_PASS)
		ksft_print_msg("%s\n", why);
	/* the walks phase gives the verdict (cid_scan.c) */
	row->walks_code = code;
	snprintf(row->walks_why, sizeof(row->walks_why), "%s", why);
	row->walks_judged = true;
}

/* A return matches a traced call that ended at most this long before it. */
#define CROSS_TOL_NS	2000000

/* What the two methods found of each other on one run. */
struct cross_tally {
	size_t ntw;		/* traced calls in the busy loops */
	size_t walks;		/* of them, picked as walks */
	size_t found, missed;	/* walks the estimate found, missed */
	size_t real;		/* attributed scans that were traced walks */
	/* why a traced walk was missed: the return after it was ... */
	size_t m_none, m_switched, m_unmarked, m_lonely, m_other;
};

/* Whether @t (CLOCK_MONOTONIC, ns) lies within the tolerance after @walk. */
static bool cross_after(const struct periodic_ev *walk, uint64_t t)
{
	return t >= walk->t && t - walk->t < CROSS_TOL_NS + walk->w * 1e3;
}

/* The traced calls of the busy loops' threads, the walks among them picked. */
static struct periodic_ev *cross_traced_walks(const struct wl_run *r,
					      const struct graph_passes *gp,
					      const struct scan_model *sm,
					      struct cross_tally *t)
{
	struct periodic_ev *tw = calloc(gp->nts + 1, sizeof(*tw));

	if (!tw)
		ksft_exit_fail_msg("out of memory\n");
	for (size_t k = 0; k < gp->nts; k++)
		for (int i = 0; i < r->nworkers; i++)
			if (r->w[i].tid == gp->ts_pid[k])
				tw[t->ntw++] = (struct periodic_ev){
					(uint64_t)(gp->ts_s[k] * 1e9), gp->ts_us[k], i, false };
	t->walks = cid_scan_periodic_pick(tw, t->ntw, cid_scan_estimate_window(sm));
	return tw;
}

/* Why the estimate missed a traced walk: what its thread returned after it. */
static void cross_missed(const struct wl_run *r, const struct periodic_ev *walk,
			 bool cand, struct cross_tally *t)
{
	const struct wl_worker *w = &r->w[walk->tag];
	const struct wl_event *ret = NULL;

	t->missed++;
	/* the return in the window, a marked one if there is one */
	for (size_t j = 0; j < w->nev && !(ret && ret->marked); j++)
		if (cross_after(walk, cid_scan_workload_mono_ns(r, w->ev[j].t_ns)))
			ret = &w->ev[j];
	if (!ret)
		t->m_none++;
	else if (!ret->marked)
		t->m_unmarked++;
	else if (ret->switched)
		t->m_switched++;
	else if (!cand)
		t->m_lonely++;
	else
		t->m_other++;
}

/* Each traced walk: found by the estimate, or missed and why. */
static void cross_match_walks(const struct wl_run *r, const struct estimate *e,
			      const struct periodic_ev *tw, struct cross_tally *t)
{
	for (size_t k = 0; k < t->ntw; k++) {
		bool found = false, cand = false;

		if (!tw[k].picked)
			continue;
		for (size_t j = 0; j < e->candidates && !found; j++) {
			bool near = e->ev[j].tag == tw[k].tag &&
				    cross_after(&tw[k], cid_scan_workload_mono_ns(r, e->ev[j].t));

			cand |= near;
			found = near && e->ev[j].picked;
		}
		t->found += found;
		if (!found)
			cross_missed(r, &tw[k], cand, t);
	}
}

/*
 * An attributed scan is real when a traced call of the scan function
 * in the same thread ended within 2 ms before its return (under
 * emulation two scans can come closer than the pick keeps walks
 * apart: the later call is no traced walk, but the scan ran).
 */
static void cross_real_scans(const struct wl_run *r, const struct estimate *e,
			     const struct periodic_ev *tw, struct cross_tally *t)
{
	for (size_t j = 0; j < e->candidates; j++) {
		uint64_t ns = cid_scan_workload_mono_ns(r, e->ev[j].t);
		bool near = false;

		for (size_t k = 0; e->ev[j].picked && k < t->ntw && !near; k++)
			near = e->ev[j].tag == tw[k].tag && cross_after(&tw[k], ns);
		t->real += near;
	}
}

/*
 * The tally as text and metrics: what the estimate found of the traced
 * walks, of those it could see (their return not after a context
 * switch), and what it attributed that was no traced walk.
 */
static void cross_report(struct bench *b, const struct wl_run *r, const struct estimate *e,
			 const struct cross_tally *t, struct metric *call)
{
	struct metric *recall, *spurious;
	double visible;

	ksft_print_msg("both methods on this run: the estimate attributed %zu scans, %zu of them real (a traced call in the same thread ending within 2 ms before), %zu not; function_graph saw %zu walks (%zu calls in the busy loops), the estimate found %zu and missed %zu: %zu returned after a context switch, %zu without a periodic neighbour, %zu another pick in their period, %zu unmarked, %zu with no return recorded\n",
		       e->periodic, t->real, e->periodic - t->real, t->walks, t->ntw, t->found,
		       t->missed, t->m_switched, t->m_lonely, t->m_other, t->m_unmarked, t->m_none);
	if (r->clk1_ns > r->clk0_ns)
		ksft_print_msg("both methods: the busy loops' clock ran %+.0f ppm against CLOCK_MONOTONIC over the run (mapped linearly)\n",
			       1e6 * ((double)(r->mono1_ns - r->mono0_ns) /
				      (r->clk1_ns - r->clk0_ns) - 1));
	metric_extra(call, "cross_estimated_scans", e->periodic);
	metric_extra(call, "cross_estimated_real", t->real);
	metric_extra(call, "cross_found", t->found);
	metric_extra(call, "cross_traced_walks", t->walks);
	metric_extra(call, "cross_missed", t->missed);
	metric_extra(call, "cross_missed_switched", t->m_switched);
	visible = t->walks > t->m_switched ?
		(double)t->found / (t->walks - t->m_switched) : 0;
	recall = bench_metric(b, "estimate_recall", "share", BETTER_HIGHER,
			      "traced walks the estimate found, share of one run (both methods on one run)");
	metric_add(recall, t->walks ? (double)t->found / t->walks : 0);
	metric_kind(recall, KIND_COUNT);
	metric_sample_noun(recall, "run", "runs");
	metric_extra(recall, "traced_walks", t->walks);
	metric_extra(recall, "found", t->found);
	metric_extra(recall, "walks_after_switch", t->m_switched);
	metric_extra(recall, "recall_visible", visible);
	metric_extra(recall, "seen_share_said", e->seen_share);
	spurious = bench_metric(b, "estimate_spurious_share", "share", BETTER_LOWER,
				"scans the estimate attributed that were no traced walk, share of one run (both methods on one run)");
	metric_add(spurious, e->periodic ? (double)(e->periodic - t->real) / e->periodic : 0);
	metric_kind(spurious, KIND_COUNT);
	metric_sample_noun(spurious, "run", "runs");
	metric_extra(spurious, "attributed", e->periodic);
	metric_extra(spurious, "not_real", e->periodic - t->real);
	ksft_print_msg("both methods: recall %.1f%% (%zu of %zu traced walks), %.1f%% of the %zu whose return was not after a context switch; spurious %.1f%% (%zu of %zu attributed); the estimate said it saw %.0f%%\n",
		       t->walks ? 100.0 * t->found / t->walks : 0, t->found, t->walks,
		       100 * visible, t->walks - t->m_switched,
		       e->periodic ? 100.0 * (e->periodic - t->real) / e->periodic : 0,
		       e->periodic - t->real, e->periodic, 100 * e->seen_share);
}

/*
 * Both methods on one run (spin workload under function_graph): the
 * traced walks (the longest call per period, in a busy loop's thread)
 * against the returns the estimate attributed. A match is the same
 * thread with the estimate's return within 2 ms after the traced call
 * ended. Needs the trace clock on CLOCK_MONOTONIC.
 */
static void cross_check(struct bench *b, struct wl_run *r, const struct graph_passes *gp,
			const struct scan_model *sm, double seconds, struct metric *call)
{
	struct estimate e = { 0 };
	struct cross_tally t = { 0 };
	struct periodic_ev *tw;

	cid_scan_estimate_analyse(r, sm, seconds, &e);
	tw = cross_traced_walks(r, gp, sm, &t);
	cross_match_walks(r, &e, tw, &t);
	cross_real_scans(r, &e, tw, &t);
	cross_report(b, r, &e, &t, call);
	free(e.ev);
	free(tw);
}

/*
 * The workload under function_graph on the scan function: 0, or -1
 * with the function_graph verdict given (it could not be set up).
 */
static int graph_run(struct bench *b, const struct cid_opts *o,
		     const struct scan_model *sm, struct wl_run *r, double *run_s)
{
	bool spin = o->workload == WL_SPIN;
	char err[256];
	uint64_t t0;

	/* without the event the walks say they cannot be reconstructed */
	if (sm->walk_nested &&
	    tracefs_kprobe_event("isolbench/" NEST_EVENT, NEST_PROBE " " NEST_FETCH,
				 err, sizeof(err)))
		bench_note(b, "where each call's batch starts cannot be read: %s (a kprobe event on " NEST_PROBE ", in lib/, needs CONFIG_KPROBE_EVENTS_ON_NOTRACE)",
			   err);

	if (o->trace_buffer_kb) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)o->trace_buffer_kb);
		if (tracefs_set("buffer_size_kb", kb, err, sizeof(err))) {
			tracefs_restore_all();
			bench_verdict(b, KSFT_FAIL, err, "%s", CID_SCAN_TRACED_CHECK);
			return -1;
		}
	}
	if (tracefs_graph_start(sm->func, err, sizeof(err))) {
		tracefs_restore_all();
		bench_verdict(b, KSFT_SKIP, err, "%s", CID_SCAN_TRACED_CHECK);
		return -1;
	}
	t0 = mono_ns();
	cid_scan_run_workload(b, o, r, spin ? (int)o->threads : 0, !spin);
	tracefs_graph_stop();
	*run_s = (mono_ns() - t0) / 1e9;
	return 0;
}

/* The workload's tasks and the metrics the calls and walks go to. */
static void graph_setup(struct bench *b, const struct scan_model *sm,
			const struct wl_run *r, struct graph_passes *gp, struct hist *h)
{
	bool walks = gp->by_retval || gp->by_nested;

	cid_scan_passes_init(gp, r->nworkers + r->nchildren, r->nchildren + 1);
	if (hist_init(h, 0, 1, 200))
		ksft_exit_fail_msg("out of memory\n");
	/* this process is group 0, each hackbench child its own */
	cid_scan_passes_task(gp, getpid(), 0);
	for (int i = 0; i < r->nworkers; i++)
		cid_scan_passes_task(gp, r->w[i].tid, 0);
	for (int i = 0; i < r->nchildren; i++)
		cid_scan_passes_task(gp, -r->children[i], i + 1);
	gp->h = h;
	gp->call = bench_metric(b, "scan_call_us", "us", BETTER_LOWER,
				"one call of the scan function (function_graph)");
	/* a batched walk is timed only where its calls can be grouped */
	if (walks || !sm->batch)
		gp->pass_us = bench_metric(b, "complete_scan_us", "us", BETTER_LOWER,
					   gp->by_nested ? "first to last call of one complete walk over all CPUs, reconstructed from the calls nested in each, walks with the expected number of calls (function_graph)"
					   : gp->by_retval ? "first to last call of one complete walk over all CPUs, walks with the expected number of calls (function_graph)"
					   : "one call, a walk over all CPUs (function_graph)");
	if (walks)
		gp->gap_us = bench_metric(b, "scan_call_delay_us", "us", BETTER_NONE,
					  "end of one call to the start of the next within a walk (function_graph)");
}

/* The calls and walks read from the trace: metric, table row, text. */
static void graph_report(struct bench *b, const struct cid_opts *o,
			 const struct scan_model *sm, struct graph_passes *gp,
			 uint64_t lost, struct cid_scan_row *row)
{
	metric_extra(gp->call, "batch_cpus", sm->batch);
	metric_extra(gp->call, "possible_cpus", sm->possible);
	metric_extra(gp->call, "walk_calls_expected", sm->walk_calls);
	metric_extra(gp->call, "scan_off", sm->scan_off);
	metric_extra(gp->call, "below_10us_share", gp->calls ? (double)gp->below / gp->calls : 0);
	metric_extra(gp->call, "nonleaf_calls", gp->nonleaf);
	metric_extra(gp->call, "events_lost", lost);
	gp->call->hist = gp->h;
	metric_sample_noun(gp->call, "call", "calls");
	metric_summary(gp->call, "scan per call", "%s, %s, %d possible CPUs, %zu calls, function_graph",
		       sm->scan_off ? "scan off" : sm->batch ? "batched" : "full scan",
		       cid_scan_workload_names[o->workload], sm->possible, gp->calls);
	cid_scan_row_fill(row, sm, o, "function_graph", gp->call, gp->pass_us);
	if (gp->gap_us && gp->gap_us->n)
		stats_compute(gp->gap_us->samples, gp->gap_us->n, &row->delay);
	if (!gp->calls)
		return;
	ksft_print_msg("scan per call (function_graph, %s): min %.2f us, p50 %.2f, p99 %.2f, max %.2f; %.0f%% below 10 us; %zu calls (%zu non-leaf: %s), %zu in other processes ignored\n",
		       sm->func, row->call.min, row->call.p50, row->call.p99,
		       row->call.max, 100.0 * gp->below / gp->calls, gp->calls,
		       gp->nonleaf, gp->by_nested ? "the nested calls shown" : "preempted or interrupted inside",
		       gp->other);
	if (row->full.n)
		ksft_print_msg("complete scan (function_graph): %zu walks, min %.2f us, p50 %.2f, max %.2f\n",
			       row->full.n, row->full.min, row->full.p50, row->full.max);
	else if (sm->batch && !gp->pass_us)
		ksft_print_msg("complete scan: not measured (batches of %s size whose calls say nothing of their walk)\n",
			       sm->batch < 0 ? "unknown" : "known");
	if (!b->opt.quiet)
		hist_print(gp->h, stdout, "us", 50);
}

void cid_scan_latency_traced(struct bench *b, const struct cid_opts *o,
			     const struct scan_model *sm, struct cid_scan_row *row)
{
	struct wl_run r = { 0 };
	/*
	 * every call is a pass of its own: a batched walk is grouped by the
	 * return values or the nested calls, never by time
	 */
	struct graph_passes gp = { .below_us = 10, .by_retval = sm->walk_retval,
				   .by_nested = sm->walk_nested, .func = sm->func,
				   .nest_cont = NEST_EVENT, .possible = sm->possible,
				   .expect = sm->walk_calls };
	/* the metric keeps it until the JSON is written: not on this stack */
	static struct hist h;
	struct graph_read_info info;
	uint64_t lost;
	double run_s;

	if (graph_run(b, o, sm, &r, &run_s))
		return;
	graph_setup(b, sm, &r, &gp, &h);
	cid_scan_passes_read(&gp, &info);
	tracefs_restore_all();
	lost = graph_read_lost(&info);
	if (o->workload == WL_SPIN && tracefs_graph_mono())
		cross_check(b, &r, &gp, sm, run_s, gp.call);
	graph_report(b, o, sm, &gp, lost, row);
	ksft_print_msg("function_graph trace: %llu events lost (%llu in LOST markers, %llu overwritten, %llu per-CPU overrun and dropped), %zu entries cut by the end of tracing\n",
		       (unsigned long long)lost, (unsigned long long)info.lost_lines,
		       (unsigned long long)info.overwritten, (unsigned long long)info.overrun,
		       info.unmatched);
	ksft_print_msg("function_graph timed %zu calls of %s in %.1f s (%s)%s\n",
		       gp.calls, sm->func, run_s, cid_scan_workload_names[o->workload],
		       lost ? ", but the trace lost events: calls are missing" : "");
	bench_verdict(b, gp.calls && !lost ? KSFT_PASS : KSFT_FAIL, NULL,
		      "%s", CID_SCAN_TRACED_CHECK);
	if (gp.by_retval || gp.by_nested)
		walks_report(sm, &gp, lost, row);
	cid_scan_passes_free(&gp);
	cid_scan_workload_free(&r);
}
