// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the settings journal (lib/journal.c): what a SIGKILLed
 * run changed is put back by the next run; what it put back itself, a
 * live run's journal and a run that ended through its cleanups are
 * left alone. The settings are files in a scratch directory.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/journal.h"
#include "lib/ktap.h"
#include "lib/util.h"

static char dir[] = "/tmp/isolbench-journal-XXXXXX";

/* A file standing for a setting: written whole, as sysfs takes a write. */
static void put(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(value, f) < 0 || fclose(f))
		ksft_exit_fail_msg("write %s\n", path);
}

static void setting(const char *name, char *path, size_t len, const char *value)
{
	snprintf(path, len, "%s/%s", dir, name);
	put(path, value);
}

static bool holds(const char *path, const char *value)
{
	char buf[64];

	return read_file_line(path, buf, sizeof(buf)) >= 0 && !strcmp(buf, value);
}

static bool journal_of(pid_t pid)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/settings-%d", journal_dir(), (int)pid);
	return !access(path, F_OK);
}

/*
 * A child run: save @path ("old"), set it to "new", put it back if
 * @restore, then end as @how says: 'k' SIGKILL, 'c' its cleanups, 'p'
 * stay alive until killed.
 */
static pid_t child_run(const char *path, bool restore, bool truncate, char how)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	cleanup_init();
	journal_save(path, "old", truncate);
	put(path, "new");
	if (restore) {
		put(path, "old");
		journal_restored(path);
	}
	if (how == 'c') {
		cleanup_run_all();
		_exit(0);
	}
	if (how == 'p')
		pause();
	raise(SIGKILL);
	_exit(1);
}

static void reap(pid_t pid)
{
	waitpid(pid, NULL, 0);
}

int main(void)
{
	char a[600], b[600], c[600], d[600], sub[600], cmd[700];
	pid_t pid, live;

	ksft_print_header();
	ksft_set_plan(9);
	if (!mkdtemp(dir))
		ksft_exit_fail_msg("mkdtemp\n");
	snprintf(sub, sizeof(sub), "%s/state", dir);
	setenv("ISOLBENCH_STATE_DIR", sub, 1);

	setting("a", a, sizeof(a), "old");
	pid = child_run(a, false, false, 'k');
	reap(pid);
	ksft_test_result(holds(a, "new") && journal_of(pid),
			 "a SIGKILLed run leaves its setting changed and its journal");
	ksft_test_result(journal_recover() == 1 && holds(a, "old"),
			 "the next run puts the setting back");
	ksft_test_result(!journal_of(pid), "... and removes the journal");

	setting("b", b, sizeof(b), "old");
	pid = child_run(b, true, false, 'k');
	reap(pid);
	put(b, "changed later");	/* by someone else, after the run */
	ksft_test_result(journal_recover() == 0 && holds(b, "changed later") &&
			 !journal_of(pid),
			 "a setting the killed run had put back is not written again");

	setting("c", c, sizeof(c), "old");
	pid = child_run(c, false, false, 'c');
	reap(pid);
	ksft_test_result(!journal_of(pid), "a run that ends through its cleanups leaves no journal");

	setting("d", d, sizeof(d), "old");
	live = child_run(d, false, false, 'p');
	while (!holds(d, "new"))
		usleep(1000);
	ksft_test_result(journal_recover() == 0 && holds(d, "new") && journal_of(live),
			 "a live run's journal is not touched");
	pid = child_run(d, false, false, 'k');
	reap(pid);
	ksft_test_result(journal_recover() == 0 && holds(d, "new") && journal_of(pid),
			 "a dead run's setting that a live run holds is left to it");
	kill(live, SIGKILL);
	reap(live);
	ksft_test_result(journal_recover() == 2 && holds(d, "old") &&
			 !journal_of(pid) && !journal_of(live),
			 "once both are gone, both journals are put back");

	/* a filter file: written back with O_TRUNC */
	setting("a", a, sizeof(a), "old");
	pid = child_run(a, false, true, 'k');
	reap(pid);
	put(a, "new and longer");
	ksft_test_result(journal_recover() == 1 && holds(a, "old"),
			 "a truncating setting is written back whole");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", dir);
	ksft_finished();
}
