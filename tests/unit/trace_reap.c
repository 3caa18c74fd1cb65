// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of trace_instances_reap(): the instances of isolbench
 * processes that are gone are removed, nothing else is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/ktap.h"
#include "lib/kernel/trace_instance.h"

static int there(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st);
}

static void make(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mkdir(path, 0700))
		ksft_exit_fail_msg("mkdir %s\n", path);
}

int main(void)
{
	char tmpl[] = "/tmp/isolbench-reap-XXXXXX", dead[64], live[64],
	     self[64], other[64], cmd[600];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);	/* a PID that is gone now */
	ksft_print_header();
	ksft_set_plan(5);
	if (!mkdtemp(tmpl))
		ksft_exit_fail_msg("mkdtemp\n");
	snprintf(dead, sizeof(dead), "isolbench-ipistorm-%d", (int)pid);
	snprintf(live, sizeof(live), "isolbench-ipistorm-%d", (int)getppid());
	snprintf(self, sizeof(self), "isolbench-cid_scan-%d", (int)getpid());
	snprintf(other, sizeof(other), "someone-%d", (int)pid);
	make(tmpl, dead);
	make(tmpl, live);
	make(tmpl, self);
	make(tmpl, other);
	make(tmpl, "isolbench-x-12ab");
	ksft_test_result(trace_instances_reap(tmpl) == 1, "one stale instance removed");
	ksft_test_result(!there(tmpl, dead), "the dead process's instance is gone");
	ksft_test_result(there(tmpl, live) && there(tmpl, self),
			 "live processes' instances stay");
	ksft_test_result(there(tmpl, other), "instances not named isolbench-NAME-PID stay");
	ksft_test_result(there(tmpl, "isolbench-x-12ab"), "a name without a PID stays");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", tmpl);
	ksft_finished();
}
