// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/kernel/trace_instance.c: lost events over per_cpu stats. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/ktap.h"
#include "lib/kernel/trace_instance.h"

static void put_stats(const char *dir, int cpu, long long overrun, long long dropped)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", dir, cpu);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", dir, cpu);
	f = fopen(path, "w");
	if (!f)
		ksft_exit_fail_msg("%s\n", path);
	fprintf(f, "entries: 5\noverrun: %lld\ncommit overrun: 1000\nbytes: 0\n"
		"oldest event ts:     0.000000\nnow ts:  1.0\n"
		"dropped events: %lld\nread events: 7\n", overrun, dropped);
	fclose(f);
}

int main(void)
{
	struct trace_instance t = { .pipe_fd = -1 };
	char tmpl[] = "/tmp/isolbench-ti-XXXXXX", path[512];

	ksft_print_header();
	ksft_set_plan(2);
	if (!mkdtemp(tmpl))
		ksft_exit_fail_msg("mkdtemp\n");
	snprintf(t.dir, sizeof(t.dir), "%s", tmpl);
	snprintf(path, sizeof(path), "%s/per_cpu", tmpl);
	mkdir(path, 0700);
	ksft_test_result(trace_instance_overruns(&t) == 0, "no CPU: nothing lost");
	/* cpu1 missing: cpu2 and cpu5 must still count */
	put_stats(tmpl, 0, 3, 0);
	put_stats(tmpl, 2, 0, 40);
	put_stats(tmpl, 5, 500, 6);
	ksft_test_result(trace_instance_overruns(&t) == 549,
			 "overrun and dropped events summed over cpu0,2,5 (got %lld)",
			 trace_instance_overruns(&t));
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	if (system(path))
		ksft_print_msg("could not remove %s\n", tmpl);
	ksft_finished();
}
