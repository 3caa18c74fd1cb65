// SPDX-License-Identifier: GPL-2.0
/* function_graph calls grouped into passes: see graph_passes.h. */
#include <stdlib.h>

#include "graph_passes.h"
#include "ktap.h"
#include "tracefs.h"

void graph_passes_init(struct graph_passes *gp, int ntasks, int ngroups)
{
	gp->pids = calloc(ntasks + 1, sizeof(int));
	gp->group = calloc(ntasks + 1, sizeof(int));
	gp->pass = calloc(ngroups + 1, sizeof(*gp->pass));
	if (!gp->pids || !gp->group || !gp->pass)
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
	if (p->calls)
		metric_add(gp->pass_us, (p->end_s - p->start_s) * 1e6);
	p->calls = 0;
}

void graph_passes_call(const struct graph_call *c, void *arg)
{
	struct graph_passes *gp = arg;
	struct graph_pass *p = NULL;

	for (int i = 0; i < gp->npids && !p; i++)
		if (gp->pids[i] == c->pid)
			p = &gp->pass[gp->group[i]];
	if (!p) {
		gp->other++;
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
	if (p->calls && c->ts_s - p->end_s > gp->split_s)
		pass_end(gp, p);
	if (!p->calls)
		p->start_s = c->ts_s;
	p->end_s = c->ts_s + c->duration_us / 1e6;
	p->calls++;
	if (!gp->split_s)
		pass_end(gp, p);
}

long graph_passes_read(struct graph_passes *gp, struct graph_read_info *info)
{
	long n = tracefs_graph_read(graph_passes_call, gp, info);

	for (int i = 0; i < gp->ngroups; i++)
		pass_end(gp, &gp->pass[i]);
	return n;
}

void graph_passes_free(struct graph_passes *gp)
{
	free(gp->pids);
	free(gp->group);
	free(gp->pass);
	free(gp->ts_s);
	free(gp->ts_pid);
	free(gp->ts_us);
	gp->ts_us = NULL;
	gp->ts_s = NULL;
	gp->ts_pid = NULL;
	gp->pids = gp->group = NULL;
	gp->pass = NULL;
}
