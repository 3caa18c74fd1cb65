// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the batched scan's walks: funcgraph-retval lines parsed
 * by lib/kernel/tracefs.c, calls grouped into walks by cid_scan_passes.c, and
 * the calls-per-walk verdict failing when a walk has another count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cid_scan_passes.h"
#include "lib/base/ktap.h"
#include "lib/kernel/tracefs.h"

/* A trace line as function_graph prints it with abstime, cpu, proc, retval. */
static void line(char *buf, size_t len, double ts, int pid, double us, const char *ret)
{
	snprintf(buf, len, " %.6f |   1)  cid_scan-%d   |   %6.3f us    |  task_mm_cid_scan(); /* = %s */\n",
		 ts, pid, us, ret);
}

/* Feed @n calls of process @pid at 1 ms steps returning @rets in turn. */
static double feed(struct graph_passes *gp, double t, int pid, const char *const *rets, int n)
{
	struct graph_call c;
	char buf[256];

	for (int i = 0; i < n; i++, t += 0.001) {
		line(buf, sizeof(buf), t, pid, 5.0, rets[i]);
		if (graph_line_parse(buf, &c))
			ksft_exit_fail_msg("line not parsed: %s", buf);
		cid_scan_passes_call(&c, gp);
	}
	return t;
}

static struct graph_passes *fresh(struct graph_passes *gp, struct bench *b, int expect)
{
	cid_scan_passes_free(gp);
	for (int i = 0; i < b->nmetrics; i++)
		free(b->metrics[i].samples);
	*gp = (struct graph_passes){ .by_retval = true, .expect = expect, .below_us = 10 };
	b->nmetrics = 0;
	gp->call = bench_metric(b, "c_us", "us", BETTER_LOWER, "call");
	gp->pass_us = bench_metric(b, "p_us", "us", BETTER_LOWER, "walk");
	gp->gap_us = bench_metric(b, "g_us", "us", BETTER_NONE, "gap");
	cid_scan_passes_init(gp, 2, 2);
	cid_scan_passes_task(gp, 100, 0);
	cid_scan_passes_task(gp, 200, 1);
	return gp;
}

/* 4 calls per walk: 32 possible CPUs in batches of 8 */
static const char *const walk[] = { "0x8", "0x10", "0x18", "0x0" };
static const char *const tail[] = { "0x10", "0x18", "0x0" };

/* funcgraph-retval's comments parsed: negative, all ones, none, after a brace. */
static void test_parse(void)
{
	struct graph_call c;
	char buf[256];
	int rc;

	line(buf, sizeof(buf), 2.5, 42, 3.25, "-16");
	rc = graph_line_parse(buf, &c);
	ksft_test_result(!rc && c.has_ret && c.ret == -16 && c.pid == 42 && c.duration_us == 3.25,
			 "retval -16 parsed (rc %d, has %d, ret %ld, pid %d)", rc, c.has_ret, c.ret, c.pid);
	line(buf, sizeof(buf), 2.5, 42, 3.25, "0xffffffffffffffff");
	rc = graph_line_parse(buf, &c);
	ksft_test_result(!rc && c.has_ret && c.ret == -1,
			 "retval 0xffffffffffffffff parsed as -1 (rc %d, %ld)", rc, c.ret);
	snprintf(buf, sizeof(buf), " 2.500000 |   1)  a-42   |   3.250 us    |  task_mm_cid_work();\n");
	rc = graph_line_parse(buf, &c);
	ksft_test_result(!rc && !c.has_ret, "no retval comment: has_ret 0 (rc %d)", rc);
	/* a non-leaf call's closing brace with funcgraph-tail and retval */
	snprintf(buf, sizeof(buf), " 2.500000 |   1)  a-42   | + 13.250 us   |  } /* task_mm_cid_scan = 0x18 */\n");
	rc = graph_line_parse(buf, &c);
	ksft_test_result(rc == GRAPH_CLOSE && c.has_ret && c.ret == 0x18 &&
			 !strcmp(c.func, "task_mm_cid_scan"),
			 "closing brace: name and retval 0x18 (rc %d, %s, %ld)", rc, c.func, c.ret);
}

/*
 * a call that begins before the previous one ended (another CPU's
 * batch): no negative delay, counted as an overlap
 */
static double test_overlap(struct graph_passes *gp, struct bench *b, double t)
{
	static const double at_ms[] = { 0, 1, 1.5, 4 }, us[] = { 5, 2000, 5, 5 };
	double min_gap = 1e9;
	struct graph_call c;
	char buf[256];

	fresh(gp, b, 4);
	t = feed(gp, t, 100, tail, 3);
	for (int i = 0; i < 4; i++) {
		line(buf, sizeof(buf), t + at_ms[i] / 1e3, 100, us[i], walk[i]);
		if (graph_line_parse(buf, &c))
			ksft_exit_fail_msg("line not parsed: %s", buf);
		cid_scan_passes_call(&c, gp);
	}
	for (size_t i = 0; i < gp->gap_us->n; i++)
		if (gp->gap_us->samples[i] < min_gap)
			min_gap = gp->gap_us->samples[i];
	cid_scan_passes_end(gp);
	ksft_test_result(gp->overlap == 1 && gp->gap_us->n == 4 && min_gap >= 0 &&
			 gp->walk_calls[4] == 1,
			 "an overlapping call: %zu overlap, %zu delays (2 of the tail, 2 of the walk; min %.1f us), the walk still complete",
			 gp->overlap, gp->gap_us->n, min_gap);
	return t + 0.01;
}

int main(void)
{
	static const char *const busy_walk[] = { "0x8", "-16", "0x10", "0x18", "0x0" };
	static const char *const short_walk[] = { "0x8", "0x18", "0x0" };
	struct bench b = { 0 };
	struct graph_passes gp = { 0 };
	char why[256];
	double t = 1.0;

	ksft_print_header();
	ksft_set_plan(11);
	test_parse();

	/* the first walk starts before the trace: partial; then 3 complete */
	fresh(&gp, &b, 4);
	t = feed(&gp, t, 100, tail, 3);
	for (int w = 0; w < 3; w++)
		t = feed(&gp, t + 0.1, 100, walk, 4);
	t = feed(&gp, t + 0.1, 100, walk, 2);	/* cut by the end */
	cid_scan_passes_end(&gp);
	ksft_test_result(gp.walk_calls[4] == 3 && gp.partial == 2 && gp.pass_us->n == 3 &&
			 gp.calls == 17,
			 "3 complete walks of 4 calls, 2 partial (%zu, %zu, %zu walks timed, %zu calls)",
			 gp.walk_calls[4], gp.partial, gp.pass_us->n, gp.calls);
	ksft_test_result(cid_scan_walks_verdict(&gp, why, sizeof(why)) == KSFT_PASS,
			 "verdict passes: %s", why);
	/* gap: 1 ms steps of 5 us calls: 995 us within a walk */
	ksft_test_result(gp.gap_us->n > 0 && gp.gap_us->samples[0] > 994 &&
			 gp.gap_us->samples[0] < 996,
			 "delay between calls of a walk %.1f us", gp.gap_us->samples[0]);

	t = test_overlap(&gp, &b, t);

	/* -EBUSY calls are no batch; two processes walk apart */
	fresh(&gp, &b, 4);
	t = feed(&gp, t, 100, tail, 3);
	t = feed(&gp, t, 200, tail, 3);
	t = feed(&gp, t, 100, busy_walk, 5);
	t = feed(&gp, t, 200, walk, 4);
	cid_scan_passes_end(&gp);
	ksft_test_result(gp.busy == 1 && gp.walk_calls[4] == 2 &&
			 cid_scan_walks_verdict(&gp, why, sizeof(why)) == KSFT_PASS,
			 "-EBUSY not a call, two processes' walks apart: %s", why);

	/* a walk with a call missing (a lost event) fails the verdict */
	fresh(&gp, &b, 4);
	t = feed(&gp, t, 100, tail, 3);
	t = feed(&gp, t, 100, walk, 4);
	t = feed(&gp, t, 100, short_walk, 3);
	cid_scan_passes_end(&gp);
	ksft_test_result(gp.walk_calls[3] == 1 && cid_scan_walks_other(&gp) == 1 &&
			 gp.pass_us->n == 1 &&
			 cid_scan_walks_verdict(&gp, why, sizeof(why)) == KSFT_FAIL,
			 "a walk of 3 calls is reported, not timed, verdict fails: %s", why);

	/* the wrong batch size expected (8 calls per walk): fails */
	fresh(&gp, &b, 8);
	t = feed(&gp, t, 100, tail, 3);
	t = feed(&gp, t, 100, walk, 4);
	cid_scan_passes_end(&gp);
	ksft_test_result(cid_scan_walks_verdict(&gp, why, sizeof(why)) == KSFT_FAIL &&
			 gp.pass_us->n == 0,
			 "walks of 4 calls where 8 are expected fail: %s", why);
	fresh(&gp, &b, 1);
	cid_scan_passes_free(&gp);
	for (int i = 0; i < b.nmetrics; i++)
		free(b.metrics[i].samples);
	ksft_finished();
}
