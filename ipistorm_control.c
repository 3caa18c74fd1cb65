// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's control phase: the watch must name membarrier the source
 * of the control's storm (ipistorm_control_storm.h), from the sender's
 * stack: the call site is generic.
 */
#include <stdio.h>
#include <string.h>

#include "lib/base/util.h"
#include "ipistorm_watch_phases.h"

#define CONTROL_MIN	50	/* IPIs it must have caused to judge */
/*
 * membarrier interrupts only the CPUs that run this process: while other
 * tasks hold the control's CPU, its calls send nothing. Below this share
 * of the CPU for its spinner, too few IPIs say nothing of the watch.
 */
#define CONTROL_MIN_SHARE	0.9

static const char *const control_checks[] = {
	"control: the watch named membarrier the source of a membarrier storm"
};

/* Of the storm's IPIs, what the watch kept and how it named them. */
static void control_run(struct bench *b, void *ctx)
{
	/* what membarrier queues on the CPUs it interrupts */
	static const char *const funcs[] = {
		"ipi_mb", "ipi_rseq", "ipi_sync_core", "ipi_sync_rq_state", NULL
	};
	struct ipistorm_watch_run *r = ctx;
	const struct ipi_watch *w = r->w;
	struct watch_control *c = &r->c;
	char share[64];

	(void)b;
	if (c->skip)
		return;
	ipistorm_watcher_control_count(w, "membarrier", funcs, &c->named, &c->other, &c->excused);
	if (c->spinner_share >= 0)
		snprintf(share, sizeof(share), " (its spinner had %.0f%% of it)", 100 * c->spinner_share);
	else
		snprintf(share, sizeof(share), " (no schedstat: its spinner's share unknown)");
	ksft_print_msg("control: %llu membarrier calls from cpu %d to cpu %d%s: %llu IPIs named membarrier, %llu named otherwise, %llu of its thread's own besides (queued functions not membarrier's)\n",
		       (unsigned long long)c->calls, c->from, c->cpu, share,
		       (unsigned long long)c->named, (unsigned long long)c->other,
		       (unsigned long long)c->excused);
	if (w->lost_after)
		ksft_print_msg("control: %lld events lost after the window (the trace buffer overran under its storm): its counts are of the records kept\n",
			       w->lost_after);
	for (int i = 0; i < w->after.sources.n && c->other + c->excused; i++)
		if (!strstr(tally_slot_name(&w->after.sources, i), "membarrier"))
			ipistorm_tally_source_print(&w->after, i, w->seconds);
}

/*
 * 99% of 50 IPIs or more named membarrier; not judged when the trace
 * lost some (a send whose stack record was lost is named by its call
 * site) or other tasks held the CPU.
 */
static void control_verdicts(struct bench *b, void *ctx)
{
	const struct ipistorm_watch_run *r = ctx;
	const struct watch_control *c = &r->c;
	uint64_t kept = c->named + c->other;
	bool pass = kept >= CONTROL_MIN && c->named * 100 >= kept * 99;
	char why[256];

	if (c->skip) {
		phase_verdict(b, &ipistorm_control_phase, ctx, 0, 0, KSFT_SKIP, c->skip);
		return;
	}
	if (!pass && r->w->lost_after) {
		snprintf(why, sizeof(why),
			 "the trace lost %lld events under the control's storm, its IPIs' stacks among them: %llu of its IPIs kept, %llu named otherwise",
			 r->w->lost_after, (unsigned long long)kept, (unsigned long long)c->other);
		phase_verdict(b, &ipistorm_control_phase, ctx, 0, 0, KSFT_SKIP, why);
		return;
	}
	if (kept < CONTROL_MIN && c->spinner_share >= 0 && c->spinner_share < CONTROL_MIN_SHARE) {
		snprintf(why, sizeof(why),
			 "cpu %d ran other tasks: the control's spinner had %.0f%% of it, and membarrier sends no IPI while another process runs there (%llu IPIs, %d needed)",
			 c->cpu, 100 * c->spinner_share, (unsigned long long)kept, CONTROL_MIN);
		phase_verdict(b, &ipistorm_control_phase, ctx, 0, 0, KSFT_SKIP, why);
		return;
	}
	phase_verdict(b, &ipistorm_control_phase, ctx, 0, 0, pass ? KSFT_PASS : KSFT_FAIL, NULL);
}

/* Last: the watch's tallies, kept for the control. */
static void control_teardown(struct bench *b, void *ctx)
{
	struct ipistorm_watch_run *r = ctx;

	(void)b;
	ipistorm_tally_free(&r->w->t);
	ipistorm_tally_free(&r->w->after);
}

const struct phase ipistorm_control_phase = {
	.name = "control",
	.nverdicts = ARRAY_SIZE(control_checks),
	.checks = control_checks,
	.run = control_run,
	.verdicts = control_verdicts,
	.teardown = control_teardown,
};
