// SPDX-License-Identifier: GPL-2.0
/* function_graph calls grouped into passes: see cid_scan_passes.h. */
#include <stdlib.h>
#include <string.h>

#include "cid_scan_passes.h"
#include "lib/base/ktap.h"
#include "lib/kernel/tracefs.h"

void cid_scan_passes_init(struct graph_passes *gp, int ntasks, int ngroups)
{
	gp->pids = calloc(ntasks + 1, sizeof(int));
	gp->group = calloc(ntasks + 1, sizeof(int));
	gp->pass = calloc(ngroups + 1, sizeof(*gp->pass));
	gp->pend_ts = calloc(ntasks + 1, sizeof(double));
	gp->pend_n = calloc(ntasks + 1, sizeof(long));
	if (!gp->pids || !gp->group || !gp->pass || !gp->pend_ts || !gp->pend_n)
		ksft_exit_fail_msg("out of memory\n");
	gp->npids = 0;
	gp->ngroups = ngroups;
}

void cid_scan_passes_task(struct graph_passes *gp, int pid, int group)
{
	gp->group[gp->npids] = group;
	gp->pids[gp->npids++] = pid;
}

static void pass_end(struct graph_passes *gp, struct graph_pass *p)
{
	if (p->calls && gp->pass_us)
		metric_add(gp->pass_us, (p->end_s - p->start_s) * 1e6);
	p->calls = 0;
}

/* A walk ended by a call returning 0, or cut by the end of the trace. */
static void walk_end(struct graph_passes *gp, struct graph_pass *p, bool ended)
{
	if (!p->calls)
		return;
	if (!ended || !p->from_start)
		gp->partial++;
	else if (p->calls > GRAPH_WALK_CALLS_MAX)
		gp->walk_calls[GRAPH_WALK_CALLS_MAX + 1]++;
	else
		gp->walk_calls[p->calls]++;
	if (ended && p->from_start && p->calls == gp->expect && gp->pass_us)
		metric_add(gp->pass_us, (p->end_s - p->start_s) * 1e6);
	p->calls = 0;
	p->from_start = ended;
}

/*
 * A call of a walk. The gap since the previous call's end is its delay;
 * a call that began before the previous one ended (another CPU's batch
 * of the same walk, or a preempted call's neighbour) has none: counted
 * in @overlap, not as a negative delay.
 */
static void walk_add(struct graph_passes *gp, struct graph_pass *p,
		     const struct graph_call *c)
{
	double end_s = c->ts_s + c->duration_us / 1e6;

	if (p->calls && c->ts_s < p->end_s)
		gp->overlap++;
	else if (p->calls && gp->gap_us)
		metric_add(gp->gap_us, (c->ts_s - p->end_s) * 1e6);
	if (!p->calls)
		p->start_s = c->ts_s;
	if (!p->calls || end_s > p->end_s)
		p->end_s = end_s;
	p->calls++;
}

static void walk_call(struct graph_passes *gp, struct graph_pass *p,
		      const struct graph_call *c)
{
	walk_add(gp, p, c);
	if (c->ret == 0)
		walk_end(gp, p, true);
}

/*
 * by_nested: the calls that repeated an offset fill the batches the walk
 * has no call for (ceil(possible / batch) in a walk); the others took
 * none.
 */
static void nested_fill(struct graph_passes *gp, struct graph_pass *p)
{
	int k = gp->step > 0 ? (int)((gp->possible + gp->step - 1) / gp->step) : 0;
	int fill = p->calls < k ? k - p->calls : 0;

	if (fill > p->dups)
		fill = p->dups;
	p->calls += fill;
	gp->busy += p->dups - fill;
	p->dups = 0;
}

/* by_nested: @c begins a walk, which ends the one before. */
static void nested_start(struct graph_passes *gp, struct graph_pass *p,
			 const struct graph_call *c)
{
	nested_fill(gp, p);
	walk_end(gp, p, true);
	p->from_start = true;
	walk_add(gp, p, c);
	p->max_n = 0;
	p->seen = 0;
	p->first_us = c->duration_us;
	gp->start_calls++;
}

/*
 * by_nested: a call with its offset @n (@cont: inside a walk), in the
 * order of the events; @step is the batch (the smallest offset).
 */
static void nested_call(struct graph_passes *gp, struct graph_pass *p,
			const struct graph_call *c, bool cont, long n)
{
	long step = gp->step;
	uint64_t bit = step > 0 && n / step < 64 ? 1ULL << (n / step) : 0;
	bool last = step <= 0 || p->max_n >= gp->possible - step;

	if (!cont) {
		if (!p->calls || !p->from_start || last) {
			nested_start(gp, p, c);
			return;
		}
		/*
		 * another thread read the counter before this walk claimed
		 * it: it took a batch of the walk (the scan reads the counter
		 * again), or returned at once
		 */
		p->dups++;
		if (p->calls == 1 && c->duration_us > p->first_us) {
			p->start_s = c->ts_s;
			p->end_s = c->ts_s + c->duration_us / 1e6;
			p->first_us = c->duration_us;
		}
		return;
	}
	if (p->calls && (p->seen & bit)) {
		double end_s = c->ts_s + c->duration_us / 1e6;

		p->dups++;		/* the next batch, or none */
		if (end_s > p->end_s)
			p->end_s = end_s;
		return;
	}
	walk_add(gp, p, c);
	p->seen |= bit;
	if (n > p->max_n)
		p->max_n = n;
	gp->cont_calls++;
	if (n > 0 && (!gp->n_min || n < gp->n_min))
		gp->n_min = n;
	if (n > gp->n_max)
		gp->n_max = n;
}

/*
 * by_nested: the event fired in a task's call (it comes before the call
 * in the trace); false if @c is no event.
 */
static bool nested_take(struct graph_passes *gp, const struct graph_call *c, int task)
{
	if (!strcmp(c->func, gp->func))
		return false;
	if (task >= 0 && gp->nest_cont && !strcmp(c->func, gp->nest_cont) && c->has_ret) {
		gp->pend_ts[task] = c->ts_s;
		gp->pend_n[task] = c->ret;
	}
	return true;
}

/* The task of @pid among those added, or -1. */
static int passes_task(const struct graph_passes *gp, int pid)
{
	for (int i = 0; i < gp->npids; i++)
		if (gp->pids[i] == pid)
			return i;
	return -1;
}

/*
 * by_nested: the task's pending event, taken by @c when it came with it:
 * inside the call, or at its entry just before function_graph's (20 us
 * slack). Its offset in @n, its time as @c's @key when it came with @c;
 * whether @c continues a walk.
 */
static bool nested_event(struct graph_passes *gp, const struct graph_call *c, int task,
			 double *key, long *n)
{
	bool with = gp->pend_ts[task] >= c->ts_s - 20e-6 &&
		    gp->pend_ts[task] <= c->ts_s + c->duration_us / 1e6 + 1e-6;

	*n = gp->pend_n[task];
	if (with)
		*key = gp->pend_ts[task];
	gp->event_calls += with;
	gp->pend_ts[task] = 0;
	return with && *n > 0 && (gp->possible <= 0 || *n < gp->possible);
}

/* A counted call: its duration to the metric and histogram, kept with its time and task. */
static void call_record(struct graph_passes *gp, const struct graph_call *c)
{
	gp->calls++;
	gp->nonleaf += c->nonleaf;
	gp->below += c->duration_us < gp->below_us;
	if (gp->nts == gp->cap_ts) {
		gp->cap_ts = gp->cap_ts ? 2 * gp->cap_ts : 256;
		gp->ts_s = realloc(gp->ts_s, gp->cap_ts * sizeof(*gp->ts_s));
		gp->ts_us = realloc(gp->ts_us, gp->cap_ts * sizeof(*gp->ts_us));
		gp->ts_pid = realloc(gp->ts_pid, gp->cap_ts * sizeof(*gp->ts_pid));
		if (!gp->ts_s || !gp->ts_us || !gp->ts_pid)
			ksft_exit_fail_msg("out of memory\n");
	}
	gp->ts_pid[gp->nts] = c->pid;
	gp->ts_us[gp->nts] = c->duration_us;
	gp->ts_s[gp->nts++] = c->ts_s;
	metric_add(gp->call, c->duration_us);
	if (gp->h)
		hist_add(gp->h, c->duration_us);
}

/* by_nested: a call kept for the walks, made at the end in @key's order. */
static void nested_keep(struct graph_passes *gp, const struct graph_call *c, double key,
			int group, bool cont, long n)
{
	if (gp->nnest == gp->cap_nest) {
		gp->cap_nest = gp->cap_nest ? 2 * gp->cap_nest : 256;
		gp->nest = realloc(gp->nest, gp->cap_nest * sizeof(*gp->nest));
		if (!gp->nest)
			ksft_exit_fail_msg("out of memory\n");
	}
	gp->nest[gp->nnest++] = (struct graph_nested){ *c, key, group, cont, n };
}

/* A call of a pass: a pause longer than @split_s before it ends the pass under way. */
static void pass_call(struct graph_passes *gp, struct graph_pass *p,
		      const struct graph_call *c)
{
	if (p->calls && c->ts_s - p->end_s > gp->split_s)
		pass_end(gp, p);
	if (!p->calls)
		p->start_s = c->ts_s;
	p->end_s = c->ts_s + c->duration_us / 1e6;
	p->calls++;
	if (!gp->split_s)
		pass_end(gp, p);
}

void cid_scan_passes_call(const struct graph_call *c, void *arg)
{
	struct graph_passes *gp = arg;
	int task = passes_task(gp, c->pid);
	struct graph_pass *p = task >= 0 ? &gp->pass[gp->group[task]] : NULL;
	bool cont = false;
	double key = c->ts_s;
	long n = 0;

	if (gp->by_nested && nested_take(gp, c, task))
		return;
	if (!p) {
		gp->other++;
		return;
	}
	if (gp->by_nested && gp->pend_ts[task] > 0)
		cont = nested_event(gp, c, task, &key, &n);
	if (gp->by_retval && !c->has_ret) {
		gp->no_ret++;
		return;
	}
	if (gp->by_retval && c->ret < 0) {
		gp->busy++;
		return;
	}
	call_record(gp, c);
	if (gp->by_retval)
		walk_call(gp, p, c);
	else if (gp->by_nested)
		nested_keep(gp, c, key, (int)(p - gp->pass), cont, n);
	else
		pass_call(gp, p, c);
}

size_t cid_scan_walks_other(const struct graph_passes *gp)
{
	size_t n = 0;

	for (int k = 1; k <= GRAPH_WALK_CALLS_MAX + 1; k++)
		if (k != gp->expect)
			n += gp->walk_calls[k];
	return n;
}

bool cid_scan_walks_reconstructed(const struct graph_passes *gp, char *why, size_t len)
{
	/* one call per walk (a batch of every CPU): nothing to group */
	if (!gp->by_nested || (gp->event_calls && gp->cont_calls) || gp->expect == 1)
		return true;
	if (!gp->event_calls)
		snprintf(why, len, "no call of %s came with %s (%zu calls): where a walk stands is not visible",
			 gp->func, gp->nest_cont ? gp->nest_cont : "the event", gp->calls);
	else
		snprintf(why, len, "no call of %s continued a walk (%zu calls with %s): where a walk begins is not visible",
			 gp->func, gp->event_calls, gp->nest_cont ? gp->nest_cont : "the event");
	return false;
}

int cid_scan_walks_verdict(const struct graph_passes *gp, char *why, size_t len)
{
	size_t good = gp->expect > 0 && gp->expect <= GRAPH_WALK_CALLS_MAX ?
		      gp->walk_calls[gp->expect] : 0;
	size_t other = cid_scan_walks_other(gp);
	char cannot[224];
	int n;

	if (!cid_scan_walks_reconstructed(gp, cannot, sizeof(cannot))) {
		snprintf(why, len, "cannot reconstruct the walks: %s", cannot);
		return KSFT_SKIP;
	}
	n = snprintf(why, len, "%zu of %zu complete walks had %d calls (%zu partial walks at the trace's ends not counted)",
		     good, good + other, gp->expect, gp->partial);
	if (gp->by_nested && n >= 0 && (size_t)n < len)
		snprintf(why + n, len - n, "; reconstructed from %s in %s: offsets %ld to %ld, %zu calls took no batch",
			 gp->nest_cont, gp->func, gp->n_min, gp->n_max, gp->busy);
	return good && !other ? KSFT_PASS : KSFT_FAIL;
}

static int nested_cmp(const void *a, const void *b)
{
	const struct graph_nested *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

void cid_scan_passes_end(struct graph_passes *gp)
{
	char why[224];

	for (size_t k = 0; k < gp->nnest; k++)
		if (gp->nest[k].cont && gp->nest[k].n > 0 &&
		    (!gp->step || gp->nest[k].n < gp->step))
			gp->step = gp->nest[k].n;
	if (gp->nnest)
		qsort(gp->nest, gp->nnest, sizeof(*gp->nest), nested_cmp);
	for (size_t k = 0; k < gp->nnest; k++)
		nested_call(gp, &gp->pass[gp->nest[k].group], &gp->nest[k].c,
			    gp->nest[k].cont, gp->nest[k].n);
	gp->nnest = 0;

	for (int i = 0; i < gp->ngroups; i++) {
		struct graph_pass *p = &gp->pass[i];

		if (gp->by_nested)
			nested_fill(gp, p);
		if (gp->by_retval || gp->by_nested)
			walk_end(gp, p, false);
		else
			pass_end(gp, p);
	}
	if (cid_scan_walks_reconstructed(gp, why, sizeof(why)))
		return;
	/* walks that could not be reconstructed are neither timed nor counted */
	if (gp->pass_us)
		gp->pass_us->n = 0;
	if (gp->gap_us)
		gp->gap_us->n = 0;
	memset(gp->walk_calls, 0, sizeof(gp->walk_calls));
	gp->overlap = 0;
}

long cid_scan_passes_read(struct graph_passes *gp, struct graph_read_info *info)
{
	long n = tracefs_graph_read(cid_scan_passes_call, gp, info);

	cid_scan_passes_end(gp);
	return n;
}

void cid_scan_passes_free(struct graph_passes *gp)
{
	free(gp->pids);
	free(gp->group);
	free(gp->pass);
	free(gp->pend_ts);
	free(gp->pend_n);
	free(gp->nest);
	gp->nest = NULL;
	gp->nnest = gp->cap_nest = 0;
	gp->pend_ts = NULL;
	gp->pend_n = NULL;
	free(gp->ts_s);
	free(gp->ts_pid);
	free(gp->ts_us);
	gp->ts_us = NULL;
	gp->ts_s = NULL;
	gp->ts_pid = NULL;
	gp->pids = gp->group = NULL;
	gp->pass = NULL;
}
