// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of walks reconstructed from nested calls (lib/graph_passes.c,
 * by_nested): function_graph text at depth 2 as the posted series' shape
 * prints it (task_mm_cid_work() returns nothing; _find_next_bit() per CPU
 * walked, __find_nth_bit() in every call but a walk's first), read by
 * lib/tracefs.c; the calls-per-walk verdict passing, failing on a wrong
 * batch size and a missing call, and saying "cannot reconstruct" when
 * the nested calls are not in the trace.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/graph_passes.h"
#include "lib/ktap.h"
#include "lib/tracefs.h"

#define FUNC	"task_mm_cid_work"
#define STEP	"_find_next_bit"
#define CONT	"__find_nth_bit"

/* Trace lines, sorted by time when read (CPUs interleave in the trace). */
struct text {
	char **line;
	size_t n, cap;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->line = realloc(t->line, t->cap * sizeof(*t->line));
		if (!t->line)
			ksft_exit_fail_msg("out of memory\n");
	}
	va_start(ap, fmt);
	if (vasprintf(&t->line[t->n++], fmt, ap) < 0)
		ksft_exit_fail_msg("out of memory\n");
	va_end(ap);
}

static int by_time(const void *a, const void *b)
{
	double x = strtod(*(char *const *)a, NULL), y = strtod(*(char *const *)b, NULL);

	return (x > y) - (x < y);
}

/* The line function_graph prints for a leaf call at @depth. */
static void leaf(struct text *t, double ts, int pid, double us, int depth,
		 const char *fn)
{
	add(t, " %.6f |   %d)  cid_scan-%d   |   %6.3f us    |  %*s%s();\n",
	    ts, pid / 100, pid, us, 2 * depth, "", fn);
}

/*
 * One call of the scan function by @pid at @ts lasting 40 us: @cont
 * nests __find_nth_bit first; @cpus CPUs walked nest 2 * (cpus + 1)
 * _find_next_bit; with @nested false nothing is nested (depth 1).
 */
static void call(struct text *t, double ts, int pid, bool cont, int cpus,
		 bool nested)
{
	double at = ts;

	if (!nested || (!cont && !cpus)) {
		leaf(t, ts, pid, 40, 0, FUNC);
		return;
	}
	add(t, " %.6f |   %d)  cid_scan-%d   |               |  %s() {\n",
	    ts, pid / 100, pid, FUNC);
	if (cont)
		leaf(t, at += 1e-6, pid, 0.5, 1, CONT);
	for (int i = 0; cpus && i < 2 * (cpus + 1); i++)
		leaf(t, at += 1e-6, pid, 0.3, 1, STEP);
	add(t, " %.6f |   %d)  cid_scan-%d   | + 40.000 us   |  } /* %s */\n",
	    ts + 40e-6, pid / 100, pid, FUNC);
}

/*
 * A walk of @calls calls of @batch CPUs out of @possible from the first
 * (@first: its first call begins the walk), 1 ms apart; returns the time
 * after it.
 */
static double walk(struct text *t, double ts, int pid, int calls, int batch,
		   int possible, bool first, bool nested)
{
	for (int i = 0; i < calls; i++, ts += 0.001) {
		int left = possible - i * batch;

		call(t, ts, pid, !(first && i == 0), left < batch ? left : batch, nested);
	}
	return ts;
}

static struct bench b;

static void fresh(struct graph_passes *gp, int expect, int possible)
{
	graph_passes_free(gp);
	for (int i = 0; i < b.nmetrics; i++)
		free(b.metrics[i].samples);
	b.nmetrics = 0;
	*gp = (struct graph_passes){ .by_nested = true, .func = FUNC, .nest_step = STEP,
				     .nest_cont = CONT, .possible = possible,
				     .expect = expect, .below_us = 10 };
	gp->call = bench_metric(&b, "c_us", "us", BETTER_LOWER, "call");
	gp->pass_us = bench_metric(&b, "p_us", "us", BETTER_LOWER, "walk");
	gp->gap_us = bench_metric(&b, "g_us", "us", BETTER_NONE, "gap");
	graph_passes_init(gp, 2, 2);
	graph_passes_task(gp, 100, 0);
	graph_passes_task(gp, 200, 1);
}

static void read_text(struct graph_passes *gp, struct text *t)
{
	struct graph_read_info info;
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		ksft_exit_fail_msg("open_memstream\n");
	qsort(t->line, t->n, sizeof(*t->line), by_time);
	fputs("# tracer: function_graph\n#\n", f);
	for (size_t i = 0; i < t->n; i++) {
		fputs(t->line[i], f);
		free(t->line[i]);
	}
	t->n = 0;
	fclose(f);
	f = fmemopen(buf, len, "r");
	if (!f)
		ksft_exit_fail_msg("fmemopen\n");
	graph_stream_read(f, graph_passes_call, gp, &info);
	fclose(f);
	free(buf);
	graph_passes_end(gp);
}

int main(void)
{
	struct graph_passes gp = { 0 };
	struct text t = { 0 };
	char why[512];
	double ts = 10.0;
	int rc;

	ksft_print_header();
	ksft_set_plan(9);

	/*
	 * 128 possible CPUs in batches of 16: the process's first walk is
	 * under way when the trace starts (3 calls), then 3 complete walks
	 * of 8 calls, 50 ms apart, and one cut by the end; an early return
	 * (the period had not elapsed) walks nothing
	 */
	fresh(&gp, 8, 128);
	ts = walk(&t, ts, 100, 3, 16, 128, false, true) + 0.05;
	call(&t, ts, 100, false, 0, true);
	for (int w = 0; w < 3; w++)
		ts = walk(&t, ts + 0.05, 100, 8, 16, 128, true, true);
	walk(&t, ts + 0.05, 100, 2, 16, 128, true, true);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_PASS && gp.walk_calls[8] == 3 && gp.partial == 2 &&
			 gp.busy == 1 && gp.pass_us->n == 3 && gp.calls == 29,
			 "3 complete walks of 8 calls, 2 partial, 1 call walked nothing: %s", why);
	ksft_test_result(gp.cpus_min == 16 && gp.cpus_max == 16 && !gp.cpus_other,
			 "16 CPUs per call, every complete walk over 128 (%d-%d, %zu other)",
			 gp.cpus_min, gp.cpus_max, gp.cpus_other);
	/* 8 calls 1 ms apart: 7 ms + 40 us; 40 us calls: 960 us between them */
	ksft_test_result(gp.pass_us->n && gp.pass_us->samples[0] > 7039 &&
			 gp.pass_us->samples[0] < 7041 && gp.gap_us->n &&
			 gp.gap_us->samples[0] > 959 && gp.gap_us->samples[0] < 961,
			 "complete scan %.1f us, delay between calls %.1f us",
			 gp.pass_us->n ? gp.pass_us->samples[0] : -1,
			 gp.gap_us->n ? gp.gap_us->samples[0] : -1);

	/*
	 * walks back to back, 1 ms apart, two processes interleaved: a 50 ms
	 * gap would merge them; the nested calls do not
	 */
	fresh(&gp, 8, 128);
	for (int w = 0; w < 4; w++) {
		double end = walk(&t, ts, 100, 8, 16, 128, true, true);

		walk(&t, ts + 10e-6, 200, 8, 16, 128, true, true);
		ts = end;
	}
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_PASS && gp.walk_calls[8] == 6 && gp.partial == 2,
			 "back-to-back walks of two processes apart: %s", why);

	/* the same walks judged against batches of 8 (16 calls): fails */
	fresh(&gp, 16, 128);
	for (int w = 0; w < 3; w++)
		ts = walk(&t, ts + 0.05, 100, 8, 16, 128, true, true);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_FAIL && gp.walk_calls[8] == 2 && !gp.pass_us->n,
			 "walks of 8 calls where 16 are expected fail: %s", why);

	/* a call missing (7 of 8): reported, not timed, fails */
	fresh(&gp, 8, 128);
	ts = walk(&t, ts + 0.05, 100, 8, 16, 128, true, true);
	ts = walk(&t, ts + 0.05, 100, 7, 16, 128, true, true);
	ts = walk(&t, ts + 0.05, 100, 8, 16, 128, true, true);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_FAIL && gp.walk_calls[7] == 1 && gp.cpus_other == 1 &&
			 gp.pass_us->n == 1,
			 "a walk of 7 calls (112 CPUs) is reported, not timed, fails: %s", why);

	/* depth 1 (nothing nested): cannot reconstruct, nothing timed */
	fresh(&gp, 8, 128);
	for (int w = 0; w < 3; w++)
		ts = walk(&t, ts + 0.05, 100, 8, 16, 128, true, false);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_SKIP && strstr(why, "cannot reconstruct") &&
			 !gp.pass_us->n && !gp.gap_us->n && !graph_walks_other(&gp),
			 "no nested calls: %s", why);

	/*
	 * the per-CPU calls nested, the continuing call not (it could not
	 * be traced): every call would begin a walk; cannot reconstruct
	 */
	fresh(&gp, 1, 128);
	for (int i = 0; i < 6; i++, ts += 0.01)
		call(&t, ts, 100, false, 16, true);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_SKIP && strstr(why, CONT) && !gp.pass_us->n &&
			 !gp.walk_calls[1],
			 "per-CPU calls but no %s: %s", CONT, why);

	/* 130 possible CPUs: the last batch walks 2, 9 calls per walk */
	fresh(&gp, 9, 130);
	for (int w = 0; w < 3; w++)
		ts = walk(&t, ts + 0.05, 100, 9, 16, 130, true, true);
	read_text(&gp, &t);
	rc = graph_walks_verdict(&gp, why, sizeof(why));
	ksft_test_result(rc == KSFT_PASS && gp.walk_calls[9] == 2 && gp.cpus_min == 2 &&
			 !gp.cpus_other,
			 "130 CPUs: walks of 9 calls, the last of 2 CPUs: %s", why);

	graph_passes_free(&gp);
	for (int i = 0; i < b.nmetrics; i++)
		free(b.metrics[i].samples);
	free(t.line);
	ksft_finished();
}
