// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of walks reconstructed from an event inside each call
 * (cid_scan_passes.c, by_nested): function_graph text as the posted
 * series' shape prints it with the kprobe on __find_nth_bit
 * (task_mm_cid_work() returns nothing; the event, with the batch
 * counter times the batch, fires in every call but a walk's first),
 * read by lib/kernel/tracefs.c; the calls-per-walk verdict passing, failing on
 * a wrong batch size and a missing call, calls that took no batch left
 * out, and "cannot reconstruct" when the event is not in the trace.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cid_scan_passes.h"
#include "lib/base/ktap.h"
#include "lib/kernel/tracefs.h"

#define FUNC	"task_mm_cid_work"
#define EVENT	"cid_batch"

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
 * One call of the scan function by @pid at @ts lasting @us: with @n >= 0
 * the event fires in it with that offset (with @events, else the trace
 * has none).
 */
static void call(struct text *t, double ts, int pid, double us, long n, bool events)
{
	if (n < 0 || !events) {
		leaf(t, ts, pid, us, 0, FUNC);
		return;
	}
	add(t, " %.6f |   %d)  cid_scan-%d   |               |  %s() {\n",
	    ts, pid / 100, pid, FUNC);
	add(t, " %.6f |   %d)  cid_scan-%d   |               |    /* %s: (__find_nth_bit+0x0/0x90) n=%ld */\n",
	    ts + 1e-6, pid / 100, pid, EVENT, n);
	add(t, " %.6f |   %d)  cid_scan-%d   | + %6.3f us   |  } /* %s = 0x1 */\n",
	    ts + us / 1e6, pid / 100, pid, us, FUNC);
}

/*
 * Calls @from to @to - 1 of a walk in batches of @batch (the first has
 * no event), 1 ms apart, 40 us each; returns the time after them.
 */
static double walk(struct text *t, double ts, int pid, int from, int to, int batch,
		   bool events)
{
	for (int i = from; i < to; i++, ts += 0.001)
		call(t, ts, pid, 40, i ? (long)i * batch : -1, events);
	return ts;
}

static struct bench b;

static void fresh(struct graph_passes *gp, int expect, long possible)
{
	cid_scan_passes_free(gp);
	for (int i = 0; i < b.nmetrics; i++)
		free(b.metrics[i].samples);
	b.nmetrics = 0;
	*gp = (struct graph_passes){ .by_nested = true, .func = FUNC, .nest_cont = EVENT,
				     .possible = possible, .expect = expect, .below_us = 10 };
	gp->call = bench_metric(&b, "c_us", "us", BETTER_LOWER, "call");
	gp->pass_us = bench_metric(&b, "p_us", "us", BETTER_LOWER, "walk");
	gp->gap_us = bench_metric(&b, "g_us", "us", BETTER_NONE, "gap");
	cid_scan_passes_init(gp, 3, 2);
	cid_scan_passes_task(gp, 100, 0);
	cid_scan_passes_task(gp, 101, 0);	/* another thread of the same process */
	cid_scan_passes_task(gp, 200, 1);
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
	graph_stream_read(f, cid_scan_passes_call, gp, &info);
	fclose(f);
	free(buf);
	cid_scan_passes_end(gp);
}

/* What the cases share: the passes, the trace text, a clock going on. */
struct fixture {
	struct graph_passes gp;
	struct text t;
	double ts;
	char why[512];
};

/* The trace text read into the passes and their walks judged (why in x->why). */
static int read_judge(struct fixture *x)
{
	read_text(&x->gp, &x->t);
	return cid_scan_walks_verdict(&x->gp, x->why, sizeof(x->why));
}

/* the event line as function_graph prints it */
static void test_event_lines(void)
{
	struct graph_call c;
	int rc;

	rc = graph_line_parse(" 15.630680 |   3)  cid_sca-73   |               |    /* cid_batch: n=112 */\n", &c);
	ksft_test_result(rc == GRAPH_EVENT && !strcmp(c.func, "cid_batch") && c.has_ret &&
			 c.ret == 112 && c.pid == 73 && c.cpu == 3,
			 "event line: name, n=112, task, cpu (rc %d, %s, %ld)", rc, c.func, c.ret);
	rc = graph_line_parse(" 15.630680 |   3)  cid_sca-73   |               |    /* p_x: (__find_nth_bit+0x0/0x90) n=16 */\n", &c);
	ksft_test_result(rc == GRAPH_EVENT && !strcmp(c.func, "p_x") && c.ret == 16,
			 "a kprobe event's line: the field after the symbol (rc %d, %s, %ld)",
			 rc, c.func, c.ret);
}

/*
 * 128 possible CPUs in batches of 16: the process's first walk is
 * under way when the trace starts (its last 3 calls), then 3
 * complete walks of 8 calls 50 ms apart, and one cut by the end
 */
static void test_complete_walks(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	x->ts = walk(&x->t, x->ts, 100, 5, 8, 16, true);
	for (int w = 0; w < 3; w++)
		x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, true);
	walk(&x->t, x->ts + 0.05, 100, 0, 2, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 3 && gp->partial == 2 &&
			 gp->pass_us->n == 3 && gp->calls == 29 && !gp->busy &&
			 gp->n_min == 16 && gp->n_max == 112,
			 "3 complete walks of 8 calls, 2 partial, offsets 16-112: %s", x->why);
	/* 8 calls 1 ms apart: 7 ms + 40 us; 40 us calls: 960 us between them */
	ksft_test_result(gp->pass_us->n && gp->pass_us->samples[0] > 7039 &&
			 gp->pass_us->samples[0] < 7041 && gp->gap_us->n &&
			 gp->gap_us->samples[0] > 959 && gp->gap_us->samples[0] < 961,
			 "complete scan %.1f us, delay between calls %.1f us",
			 gp->pass_us->n ? gp->pass_us->samples[0] : -1,
			 gp->gap_us->n ? gp->gap_us->samples[0] : -1);
}

/*
 * walks back to back, 1 ms apart, two processes whose calls
 * interleave (10 us apart): a 50 ms gap would merge them all
 */
static void test_interleaved_processes(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	for (int w = 0; w < 4; w++) {
		double end = walk(&x->t, x->ts, 100, 0, 8, 16, true);

		walk(&x->t, x->ts + 10e-6, 200, 0, 8, 16, true);
		x->ts = end;
	}
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 6 && gp->partial == 2,
			 "back-to-back walks of two interleaved processes apart: %s", x->why);
}

/* the same walks judged against batches of 8 (16 calls): fails */
static void test_wrong_batch(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 16, 128);
	for (int w = 0; w < 3; w++)
		x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_FAIL && gp->walk_calls[8] == 2 && !gp->pass_us->n,
			 "walks of 8 calls where 16 are expected fail: %s", x->why);
}

/* a call missing (its event lost: 7 of 8): reported, not timed, fails */
static void test_missing_call(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, true);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 3, 16, true);
	x->ts = walk(&x->t, x->ts, 100, 4, 8, 16, true);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_FAIL && gp->walk_calls[7] == 1 && gp->walk_calls[8] == 1 &&
			 gp->pass_us->n == 1,
			 "a walk of 7 calls is reported, not timed, fails: %s", x->why);
}

/*
 * calls that took no batch: an early return mid-walk (no event, the
 * next call goes on), a claim lost (the same offset twice), and at a
 * walk's start two calls without the event (the shorter returned)
 */
static void test_calls_without_batch(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	x->ts = walk(&x->t, x->ts, 100, 0, 8, 16, true);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 3, 16, true);
	call(&x->t, x->ts, 100, 3, -1, true);
	x->ts = walk(&x->t, x->ts + 0.001, 100, 3, 5, 16, true);
	call(&x->t, x->ts, 100, 5, 64, true);
	x->ts = walk(&x->t, x->ts + 0.001, 100, 5, 8, 16, true);
	call(&x->t, x->ts + 0.05, 100, 2, -1, true);
	x->ts = walk(&x->t, x->ts + 0.0502, 100, 0, 8, 16, true);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 1, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 3 && gp->busy == 3,
			 "3 calls that took no batch left out, walks complete: %s", x->why);
}

/* an event outside any call of the function is no continuation */
static void test_event_between_calls(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	x->ts = walk(&x->t, x->ts, 100, 0, 8, 16, true);
	add(&x->t, " %.6f |   1)  cid_scan-100   |               |  /* %s: n=48 */\n",
	    x->ts + 0.0004, EVENT);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, true);
	x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 1, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 2,
			 "an event between calls is not counted: %s", x->why);
}

/* no event in the trace (no kprobe): cannot reconstruct, nothing timed */
static void test_no_event(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	for (int w = 0; w < 3; w++)
		x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 8, 16, false);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_SKIP && strstr(x->why, "cannot reconstruct") &&
			 !gp->pass_us->n && !gp->gap_us->n && !cid_scan_walks_other(gp) &&
			 gp->calls == 24,
			 "no event: %s; the 24 calls still timed", x->why);
}

/* 130 possible CPUs: 9 calls per walk (the last batch of 2 CPUs) */
static void test_cpus_130(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 9, 130);
	for (int w = 0; w < 3; w++)
		x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 9, 16, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[9] == 2 && gp->n_max == 128,
			 "130 CPUs: walks of 9 calls: %s", x->why);
}

/*
 * the module's events: every call carries the offset, a walk's first
 * the wrapped counter (128) or, the process's first walk, 0
 */
static void test_module_events(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	for (int w = 0; w < 3; w++)
		for (int i = 0; i < 8; i++, x->ts += 0.001)
			call(&x->t, x->ts + 0.05, 100, 40, i ? i * 16 : w ? 128 : 0, true);
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 2 && gp->partial == 1 &&
			 gp->event_calls == 24,
			 "an event in every call, the first of a walk wrapped or 0: %s", x->why);
}

/*
 * a long call still running when the next batch (another CPU) began
 * and ended: taken in the order they began, no walk split
 */
static void test_overlapping_calls(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;
	int rc;

	fresh(gp, 8, 128);
	for (int w = 0; w < 3; w++, x->ts += 0.1) {
		walk(&x->t, x->ts, 100, 0, 2, 16, true);
		call(&x->t, x->ts + 0.002, 100, 3000, 32, true);
		call(&x->t, x->ts + 0.003, 101, 200, 48, true);
		walk(&x->t, x->ts + 0.006, 100, 4, 8, 16, true);
	}
	rc = read_judge(x);
	ksft_test_result(rc == KSFT_PASS && gp->walk_calls[8] == 2 && gp->overlap == 3,
			 "overlapping calls in the order they began: %s (%zu overlaps)",
			 x->why, gp->overlap);
}

/*
 * recorded in the guest (tests/data/cid-trace/posted-stale.txt): the
 * posted kernel, eight threads; some read the counter before another
 * moved it (an offset twice, a wrapped one inside a walk) and took a
 * later batch
 */
static void test_recorded_trace(struct fixture *x)
{
	const char *rel = "tests/data/cid-trace/posted-stale.txt";
	struct graph_read_info info;
	char exe[512], path[700];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen(rel, "r");
	struct graph_passes *gp = &x->gp;
	int rc;

	/* run from elsewhere than the top: the binary is build/san/unit/NAME */
	exe[len > 0 ? len : 0] = '\0';
	for (int up = 0; up < 4 && strrchr(exe, '/'); up++)
		*strrchr(exe, '/') = '\0';
	snprintf(path, sizeof(path), "%s/%s", exe, rel);
	if (!f)
		f = fopen(path, "r");

	for (int expect = 8; expect <= 16; expect += 8) {
		fresh(gp, expect, 128);
		cid_scan_passes_free(gp);
		cid_scan_passes_init(gp, 8, 1);
		for (int pid = 78; pid <= 85; pid++)
			cid_scan_passes_task(gp, pid, 0);
		if (f) {
			rewind(f);
			graph_stream_read(f, cid_scan_passes_call, gp, &info);
		}
		cid_scan_passes_end(gp);
		rc = cid_scan_walks_verdict(gp, x->why, sizeof(x->why));
		if (expect == 8)
			ksft_test_result(f && rc == KSFT_PASS && gp->walk_calls[8] == 5 &&
					 gp->busy > 0 && gp->pass_us->n == 5,
					 "recorded trace, stale reads: %s", x->why);
		else
			ksft_test_result(f && rc == KSFT_FAIL && gp->walk_calls[8] == 5,
					 "the same judged against 16 calls: %s", x->why);
	}
	if (f)
		fclose(f);
}

/* a batch of all CPUs: every call a walk of one */
static void test_one_call_walks(struct fixture *x)
{
	struct graph_passes *gp = &x->gp;

	fresh(gp, 1, 128);
	for (int w = 0; w < 4; w++)
		x->ts = walk(&x->t, x->ts + 0.05, 100, 0, 1, 128, true);
	read_text(gp, &x->t);
	ksft_test_result(gp->walk_calls[1] == 3 && gp->partial == 1,
			 "one call per walk: %zu complete, %zu partial", gp->walk_calls[1], gp->partial);
}

int main(void)
{
	struct fixture x = { .ts = 10.0 };

	ksft_print_header();
	ksft_set_plan(16);
	test_event_lines();
	test_complete_walks(&x);
	test_interleaved_processes(&x);
	test_wrong_batch(&x);
	test_missing_call(&x);
	test_calls_without_batch(&x);
	test_event_between_calls(&x);
	test_no_event(&x);
	test_cpus_130(&x);
	test_module_events(&x);
	test_overlapping_calls(&x);
	test_recorded_trace(&x);
	test_one_call_walks(&x);

	cid_scan_passes_free(&x.gp);
	for (int i = 0; i < b.nmetrics; i++)
		free(b.metrics[i].samples);
	free(x.t.line);
	ksft_finished();
}
