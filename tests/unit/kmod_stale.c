// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of kmod_stale_owner(): a module's owner file names a process
 * that is gone (a SIGKILLed run: unload it), one that runs (leave it),
 * or nothing usable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/harness/kmod.h"
#include "lib/base/ktap.h"

static void owner(const char *dir, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/isolbench-kmod-test_kmod.pid", dir);
	f = fopen(path, "w");
	if (!f)
		ksft_exit_fail_msg("%s\n", path);
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char tmpl[] = "/tmp/isolbench-kmod-XXXXXX", buf[64], cmd[600];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);	/* a PID that is gone now */
	ksft_print_header();
	ksft_set_plan(4);
	if (!mkdtemp(tmpl))
		ksft_exit_fail_msg("mkdtemp\n");
	setenv("ISOLBENCH_LOCK_DIR", tmpl, 1);
	ksft_test_result(kmod_stale_owner("test_kmod") == 0, "no owner file: not ours");
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	owner(tmpl, buf);
	ksft_test_result(kmod_stale_owner("test_kmod") == pid,
			 "owner gone: a leftover of pid %d", (int)pid);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	owner(tmpl, buf);
	ksft_test_result(kmod_stale_owner("test_kmod") == 0, "owner running: left alone");
	owner(tmpl, "12ab\n");
	ksft_test_result(kmod_stale_owner("test_kmod") == 0, "garbage: left alone");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", tmpl);
	ksft_finished();
}
