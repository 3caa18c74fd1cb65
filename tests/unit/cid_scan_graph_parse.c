// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the function_graph reader (lib/kernel/tracefs.c): leaf calls,
 * non-leaf calls ("func() {" ... "}", as when the call is preempted),
 * lost-event markers and the header's overwritten entries.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/kernel/tracefs.h"

static const char trace[] =
	"# tracer: function_graph\n"
	"#\n"
	"# entries-in-buffer/entries-written: 9/11   #P:2\n"
	"#\n"
	"#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
	"#      |          |     |    |           |   |                     |   |   |   |\n"
	"  112.123456 |   1)  cid_scan-389   | + 31.234 us   |  task_mm_cid_work();\n"
	"  112.200000 |   0)  cid_scan-390   |               |  task_mm_cid_work() {\n"
	" ------------------------------------------\n"
	"   0)  cid_sca-390   =>  kworker-12  \n"
	" ------------------------------------------\n"
	"CPU:0 [LOST 17 EVENTS]\n"
	"  112.300500 |   1)  cid_scan-390   | ! 100.500 us  |  } /* task_mm_cid_work */\n"
	"  112.400000 |   1)  cid_scan-391   |               |  task_mm_cid_work() {\n"
	"  112.400050 |   1)  cid_scan-391   |   50.000 us   |  }\n"
	"  113.000000 |   0)  cid_scan-392   |   20.000 us   |  } /* task_mm_cid_work */\n"
	"CPU:1 [LOST EVENTS]\n"
	"  114.000000 |   1)  cid_scan-393   |               |  task_mm_cid_work() {\n";

struct seen {
	struct graph_call c[8];
	int n;
};

static void collect(const struct graph_call *c, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->c[s->n++] = *c;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-7;
}

int main(void)
{
	struct graph_read_info info;
	struct graph_call c;
	struct seen s = { .n = 0 };
	FILE *f = fmemopen((void *)trace, sizeof(trace) - 1, "r");
	long n;

	ksft_print_header();
	ksft_set_plan(10);
	if (!f)
		ksft_exit_fail_msg("fmemopen\n");
	n = graph_stream_read(f, collect, &s, &info);
	fclose(f);

	ksft_test_result(graph_line_parse("CPU:3 [LOST 12 EVENTS]\n", &c) == GRAPH_LOST &&
			 c.lost == 12 && c.cpu == 3, "LOST line: cpu 3, 12 events");
	ksft_test_result(graph_line_parse("  1.000000 |   0)  a-1   |               |  f() {\n", &c) == GRAPH_OPEN &&
			 !strcmp(c.func, "f") && c.pid == 1 && c.nonleaf,
			 "\"f() {\" is an open entry of task 1");
	ksft_test_result(n == 4, "4 complete calls: 1 leaf and 3 non-leaf (got %ld)", n);
	ksft_test_result(s.n >= 1 && !s.c[0].nonleaf && near(s.c[0].duration_us, 31.234) &&
			 s.c[0].pid == 389 && s.c[0].cpu == 1 && near(s.c[0].ts_s, 112.123456),
			 "leaf call: 31.234 us, pid 389, cpu 1, at 112.123456");
	ksft_test_result(s.n >= 2 && s.c[1].nonleaf && near(s.c[1].duration_us, 100.5) &&
			 s.c[1].pid == 390 && near(s.c[1].ts_s, 112.2) &&
			 !strcmp(s.c[1].func, "task_mm_cid_work"),
			 "preempted call across a switch and a LOST marker: 100.5 us from its entry at 112.2");
	ksft_test_result(s.n >= 3 && near(s.c[2].duration_us, 50) && s.c[2].pid == 391 &&
			 !strcmp(s.c[2].func, "task_mm_cid_work"),
			 "bare \"}\" takes the name of its entry");
	ksft_test_result(s.n >= 4 && near(s.c[3].ts_s, 113.0 - 20e-6) && s.c[3].pid == 392,
			 "\"}\" whose entry was lost: start = return - duration");
	ksft_test_result(info.lost_lines == 18, "LOST markers summed, unknown count as 1 (got %llu)",
			 (unsigned long long)info.lost_lines);
	ksft_test_result(info.overwritten == 2 && graph_read_lost(&info) == 18,
			 "header: 2 overwritten; lost = largest view, 18 (got %llu)",
			 (unsigned long long)graph_read_lost(&info));
	ksft_test_result(info.nonleaf == 3 && info.unmatched == 1,
			 "3 non-leaf calls counted, 1 entry cut by the end (got %zu, %zu)",
			 info.nonleaf, info.unmatched);
	ksft_finished();
}
