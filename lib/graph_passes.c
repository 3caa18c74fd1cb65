// SPDX-License-Identifier: GPL-2.0
/* function_graph calls grouped into passes: see graph_passes.h. */
#include <stdlib.h>
#include <string.h>

#include "graph_passes.h"
#include "ktap.h"
#include "tracefs.h"

void graph_passes_init(struct graph_passes *gp, int ntasks, int ngroups)
{
	gp->pids = calloc(ntasks + 1, sizeof(int));
	gp->group = calloc(ntasks + 1, sizeof(int));
	gp->pass = calloc(ngroups + 1, sizeof(*gp->pass));
	gp->pend_step = calloc(ntasks + 1, sizeof(int));
	gp->pend_cont = calloc(ntasks + 1, sizeof(int));
	if (!gp->pids || !gp->group || !gp->pass || !gp->pend_step || !gp->pend_cont)
		ksft_exit_fail_msg("out of memory\n");
	gp->npids = 0;
	gp->ngroups = ngroups;
}

void graph_passes_task(struct graph_passes *gp, int pid, int group)
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
	if (ended && p->from_start && gp->by_nested && p->cpus != gp->possible)
		gp->cpus_other++;
	if (ended && p->from_start && p->calls == gp->expect && gp->pass_us)
		metric_add(gp->pass_us, (p->end_s - p->start_s) * 1e6);
	p->calls = 0;
	p->cpus = 0;
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
 * by_nested: a call that walked @cpus CPUs; without the continuing
 * call nested it began a walk, which ends the one before (complete if
 * that one had begun in the trace too).
 */
static void nested_call(struct graph_passes *gp, struct graph_pass *p,
			const struct graph_call *c, bool cont, int cpus)
{
	if (!cont) {
		walk_end(gp, p, true);
		p->from_start = true;
	}
	walk_add(gp, p, c);
	p->cpus += cpus;
}

/* by_nested: a call nested in one of the scan function's; false if not one. */
static bool nested_take(struct graph_passes *gp, const struct graph_call *c, int task)
{
	if (!strcmp(c->func, gp->func))
		return false;
	if (task >= 0 && gp->nest_step && !strcmp(c->func, gp->nest_step))
		gp->pend_step[task]++;
	else if (task >= 0 && gp->nest_cont && !strcmp(c->func, gp->nest_cont))
		gp->pend_cont[task]++;
	return true;
}

void graph_passes_call(const struct graph_call *c, void *arg)
{
	struct graph_passes *gp = arg;
	struct graph_pass *p = NULL;
	int task = -1, steps = 0, conts = 0;

	for (int i = 0; i < gp->npids && !p; i++)
		if (gp->pids[i] == c->pid) {
			p = &gp->pass[gp->group[i]];
			task = i;
		}
	if (gp->by_nested && nested_take(gp, c, task))
		return;
	if (!p) {
		gp->other++;
		return;
	}
	if (gp->by_nested) {
		steps = gp->pend_step[task];
		conts = gp->pend_cont[task];
		gp->pend_step[task] = gp->pend_cont[task] = 0;
		if (!steps) {
			gp->busy++;	/* returned before walking a CPU */
			return;
		}
	}
	if (gp->by_retval && !c->has_ret) {
		gp->no_ret++;
		return;
	}
	if (gp->by_retval && c->ret < 0) {
		gp->busy++;
		return;
	}
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
	if (gp->by_retval) {
		walk_call(gp, p, c);
		return;
	}
	if (gp->by_nested) {
		int cpus = steps / 2 - 1;

		if (!gp->step_calls || cpus < gp->cpus_min)
			gp->cpus_min = cpus;
		if (!gp->step_calls || cpus > gp->cpus_max)
			gp->cpus_max = cpus;
		gp->step_calls++;
		gp->cont_calls += conts > 0;
		nested_call(gp, p, c, conts > 0, cpus);
		return;
	}
	if (p->calls && c->ts_s - p->end_s > gp->split_s)
		pass_end(gp, p);
	if (!p->calls)
		p->start_s = c->ts_s;
	p->end_s = c->ts_s + c->duration_us / 1e6;
	p->calls++;
	if (!gp->split_s)
		pass_end(gp, p);
}

size_t graph_walks_other(const struct graph_passes *gp)
{
	size_t n = 0;

	for (int k = 1; k <= GRAPH_WALK_CALLS_MAX + 1; k++)
		if (k != gp->expect)
			n += gp->walk_calls[k];
	return n;
}

bool graph_walks_reconstructed(const struct graph_passes *gp, char *why, size_t len)
{
	if (!gp->by_nested)
		return true;
	if (!gp->step_calls)
		snprintf(why, len, "no call of %s showed %s nested in it (%zu calls, none walked a CPU that function_graph could see)",
			 gp->func, gp->nest_step ? gp->nest_step : "a per-CPU call",
			 gp->calls + gp->busy);
	else if (!gp->cont_calls)
		snprintf(why, len, "no call of %s showed %s nested in it (%zu calls walked CPUs): where a walk begins is not visible",
			 gp->func, gp->nest_cont ? gp->nest_cont : "a continuing call",
			 gp->step_calls);
	else
		return true;
	return false;
}

int graph_walks_verdict(const struct graph_passes *gp, char *why, size_t len)
{
	size_t good = gp->expect > 0 && gp->expect <= GRAPH_WALK_CALLS_MAX ?
		      gp->walk_calls[gp->expect] : 0;
	size_t other = graph_walks_other(gp);
	char cannot[224];
	int n;

	if (!graph_walks_reconstructed(gp, cannot, sizeof(cannot))) {
		snprintf(why, len, "cannot reconstruct the walks: %s", cannot);
		return KSFT_SKIP;
	}
	n = snprintf(why, len, "%zu of %zu complete walks had %d calls (%zu partial walks at the trace's ends not counted)",
		     good, good + other, gp->expect, gp->partial);
	if (gp->by_nested && n >= 0 && (size_t)n < len)
		snprintf(why + n, len - n, "; reconstructed from the calls nested in %s: %d-%d CPUs walked per call, %zu complete walks did not cover %d CPUs",
			 gp->func, gp->cpus_min, gp->cpus_max, gp->cpus_other, gp->possible);
	return good && !other ? KSFT_PASS : KSFT_FAIL;
}

void graph_passes_end(struct graph_passes *gp)
{
	char why[224];

	for (int i = 0; i < gp->ngroups; i++)
		if (gp->by_retval || gp->by_nested)
			walk_end(gp, &gp->pass[i], false);
		else
			pass_end(gp, &gp->pass[i]);
	if (graph_walks_reconstructed(gp, why, sizeof(why)))
		return;
	/* walks that could not be reconstructed are neither timed nor counted */
	if (gp->pass_us)
		gp->pass_us->n = 0;
	if (gp->gap_us)
		gp->gap_us->n = 0;
	memset(gp->walk_calls, 0, sizeof(gp->walk_calls));
	gp->overlap = gp->cpus_other = 0;
}

long graph_passes_read(struct graph_passes *gp, struct graph_read_info *info)
{
	long n = tracefs_graph_read(graph_passes_call, gp, info);

	graph_passes_end(gp);
	return n;
}

void graph_passes_free(struct graph_passes *gp)
{
	free(gp->pids);
	free(gp->group);
	free(gp->pass);
	free(gp->pend_step);
	free(gp->pend_cont);
	gp->pend_step = gp->pend_cont = NULL;
	free(gp->ts_s);
	free(gp->ts_pid);
	free(gp->ts_us);
	gp->ts_us = NULL;
	gp->ts_s = NULL;
	gp->ts_pid = NULL;
	gp->pids = gp->group = NULL;
	gp->pass = NULL;
}
