// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/ipi_watch.c and the trace record parsing of
 * lib/ipi.c: a kernel that refuses the CPUS{} filter makes an auto
 * watch fall back to /proc/interrupts (a --method trace one fails), and
 * records go into the minute of their own timestamp, not of their read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ipi.h"
#include "lib/ipi_watch.h"
#include "lib/ktap.h"

/* instance dir whose ipi_send_cpu filter cannot be written (a directory) */
static void fake_instance(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "mkdir -p '%s/events/ipi/ipi_send_cpu/filter' '%s/events/ipi/ipi_send_cpumask' && touch '%s/events/ipi/ipi_send_cpu/enable'",
		 dir, dir, dir);
	if (system(path))
		ksft_exit_fail_msg("cannot make %s\n", dir);
}

static void test_filter_refused(const char *dir)
{
	struct ipi_watch w;
	char err[256] = "";
	int ret;

	memset(&w, 0, sizeof(w));
	w.ti.pipe_fd = -1;
	snprintf(w.ti.dir, sizeof(w.ti.dir), "%s", dir);
	CPU_SET(0, &w.cpus);
	ret = ipi_watch_trace_setup(&w, false, err, sizeof(err));
	ksft_test_result(ret == -1 && strstr(err, "refused"),
			 "--method trace, CPUS{} filter refused: fails (%s)", err);
	memset(&w, 0, sizeof(w));
	w.ti.pipe_fd = -1;
	snprintf(w.ti.dir, sizeof(w.ti.dir), "%s", dir);
	CPU_SET(0, &w.cpus);
	err[0] = '\0';
	ret = ipi_watch_trace_setup(&w, true, err, sizeof(err));
	/* the procfs method needs x86's CAL/RES rows */
	if (ret && strstr(err, "CAL and RES"))
		ksft_test_result_skip("auto falls back: no CAL/RES rows here\n");
	else
		ksft_test_result(!ret && w.method == IPI_WATCH_PROCFS &&
				 strstr(w.why_procfs, "CPUS{}"),
				 "auto, CPUS{} filter refused: falls back to procfs (%s)",
				 w.why_procfs);
	irq_table_free(&w.first);
}

static void test_timestamps(const char *dir)
{
	const uint64_t start = 1000ULL * 1000000000ULL;	/* 1000 s */
	struct ipi_watch w;
	uint64_t ns = 0;
	char path[512];
	FILE *f;

	int ret = ipi_trace_line_ns("  kworker/0:1-42  [000] d..1.  1061.250000: ipi_send_cpu: cpu=1 callsite=x callback=f+0x0/0x10", &ns);

	ksft_test_result(!ret && ns == 1061250000000ULL, "record timestamp parsed (%llu ns)",
			 (unsigned long long)ns);
	ksft_test_result(ipi_trace_line_ns("no timestamp: ipi_send_cpu: cpu=1", &ns) == -1,
			 "a line without a timestamp is refused");
	snprintf(path, sizeof(path), "%s/pipe", dir);
	f = fopen(path, "w");
	if (!f)
		ksft_exit_fail_msg("%s\n", path);
	/* 10 s and 70 s into the window: minutes 0 and 1, read at once */
	fprintf(f, "  a-1  [000] d..1.  1010.000000: ipi_send_cpu: cpu=1 callsite=x callback=f+0x0/0x10\n");
	fprintf(f, "  a-1  [000] d..1.  1070.000000: ipi_send_cpu: cpu=1 callsite=x callback=f+0x0/0x10\n");
	fprintf(f, "  a-1  [000] d..1.  1071.000000: ipi_send_cpumask: cpumask=1 callsite=x callback=f+0x0/0x10\n");
	fclose(f);
	memset(&w, 0, sizeof(w));
	w.method = IPI_WATCH_TRACE;
	w.ts_mono = true;
	w.start_ns = start;
	CPU_SET(1, &w.cpus);
	w.buf = malloc(1 << 16);
	w.ti.pipe_fd = open(path, O_RDONLY);
	if (!w.buf || w.ti.pipe_fd < 0 || ipi_watch_poll(&w, false))
		ksft_exit_fail_msg("poll\n");
	ksft_test_result(w.t.nmin == 2 && w.t.per_min[0] == 1 && w.t.per_min[1] == 2,
			 "records bucketed by their timestamps: minute 0 %llu, minute 1 %llu (%zu minutes)",
			 (unsigned long long)(w.t.nmin > 0 ? w.t.per_min[0] : 0),
			 (unsigned long long)(w.t.nmin > 1 ? w.t.per_min[1] : 0), w.t.nmin);
	close(w.ti.pipe_fd);
	free(w.buf);
	free(w.t.per_min);
}

int main(void)
{
	char tmpl[] = "/tmp/isolbench-iw-XXXXXX", cmd[512];

	ksft_print_header();
	ksft_set_plan(5);
	if (!mkdtemp(tmpl))
		ksft_exit_fail_msg("mkdtemp\n");
	fake_instance(tmpl);
	test_filter_refused(tmpl);
	test_timestamps(tmpl);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", tmpl);
	ksft_finished();
}
