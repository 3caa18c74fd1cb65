// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the settings journal (lib/kernel/journal.c): what a SIGKILLed
 * run changed is put back by the next run; what it put back itself, a
 * live run's journal and a run that ended through its cleanups are
 * left alone; of two dead runs the older save wins; a line cut by the
 * kill is not read; a setting whose write-back failed keeps the journal.
 * The settings are files in a scratch directory.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/base/cleanup.h"
#include "lib/kernel/journal.h"
#include "lib/base/ktap.h"
#include "lib/base/util.h"

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

static void journal_name(pid_t pid, char *path, size_t len)
{
	snprintf(path, len, "%s/settings-%d", journal_dir(), (int)pid);
}

static bool journal_of(pid_t pid)
{
	char path[4200];

	journal_name(pid, path, sizeof(path));
	return !access(path, F_OK);
}

/* ...and whether it marks @path put back */
static bool journal_marks(pid_t pid, const char *path)
{
	char file[4200], want[700], *text;
	bool found;

	journal_name(pid, file, sizeof(file));
	snprintf(want, sizeof(want), "\nR\t%s\n", path);
	text = read_file_all(file, NULL);
	found = text && strstr(text, want);
	free(text);
	return found;
}

/*
 * A child run: save @path as @saved (the value it found), set it to
 * "new", put it back if @restore, then end as @how says: 'k' SIGKILL,
 * 'c' its cleanups, 'p' stay alive until killed.
 */
static pid_t child_run(const char *path, const char *saved, bool restore,
		       bool truncate, char how)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	cleanup_init();
	journal_save(path, saved, truncate);
	put(path, "new");
	if (restore) {
		put(path, saved);
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

/* A dead PID: a child that exited at once. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	reap(pid);
	return pid;
}

static void test_one_run(void)
{
	char a[600], b[600], c[600];
	pid_t pid;

	setting("a", a, sizeof(a), "old");
	pid = child_run(a, "old", false, false, 'k');
	reap(pid);
	ksft_test_result(holds(a, "new") && journal_of(pid),
			 "a SIGKILLed run leaves its setting changed and its journal");
	ksft_test_result(journal_recover() == 1 && holds(a, "old"),
			 "the next run puts the setting back");
	ksft_test_result(!journal_of(pid), "... and removes the journal");

	setting("b", b, sizeof(b), "old");
	pid = child_run(b, "old", true, false, 'k');
	reap(pid);
	put(b, "changed later");	/* by someone else, after the run */
	ksft_test_result(journal_recover() == 0 && holds(b, "changed later") &&
			 !journal_of(pid),
			 "a setting the killed run had put back is not written again");

	setting("c", c, sizeof(c), "old");
	pid = child_run(c, "old", true, false, 'c');
	reap(pid);
	ksft_test_result(!journal_of(pid),
			 "a run that put its settings back and ended through its cleanups leaves no journal");

	/* a filter file: written back with O_TRUNC */
	setting("a", a, sizeof(a), "old");
	pid = child_run(a, "old", false, true, 'k');
	reap(pid);
	put(a, "new and longer");
	ksft_test_result(journal_recover() == 1 && holds(a, "old"),
			 "a truncating setting is written back whole");
}

static void test_two_runs(void)
{
	char d[600], e[600];
	pid_t pid, live, first, second;

	setting("d", d, sizeof(d), "old");
	live = child_run(d, "old", false, false, 'p');
	while (!holds(d, "new"))
		usleep(1000);
	ksft_test_result(journal_recover() == 0 && holds(d, "new") && journal_of(live),
			 "a live run's journal is not touched");
	setting("e", e, sizeof(e), "e-old");
	pid = child_run(d, "new", false, false, 'k');	/* d and, below, e */
	reap(pid);
	{
		char file[4200];
		FILE *f;

		journal_name(pid, file, sizeof(file));
		f = fopen(file, "a");
		if (!f || fprintf(f, "S\t0\t1\t%s\te-old\n", e) < 0 || fclose(f))
			ksft_exit_fail_msg("append to %s\n", file);
		put(e, "e-new");
	}
	ksft_test_result(journal_recover() == 1 && holds(d, "new") && holds(e, "e-old") &&
			 journal_of(pid) && journal_marks(pid, e),
			 "a dead run's setting a live run holds is left to it; the rest is put back and marked");
	put(e, "e-later");
	kill(live, SIGKILL);
	reap(live);
	ksft_test_result(journal_recover() == 1 && holds(d, "old") && holds(e, "e-later") &&
			 !journal_of(pid) && !journal_of(live),
			 "once both are gone the older save of d is put back, e is not written again");

	/* two dead runs of one path: the earlier save stands, whatever order */
	setting("d", d, sizeof(d), "orig");
	first = child_run(d, "orig", false, false, 'p');
	while (!holds(d, "new"))
		usleep(1000);
	second = child_run(d, "new", false, false, 'k');
	reap(second);
	kill(first, SIGKILL);
	reap(first);
	ksft_test_result(journal_recover() == 1 && holds(d, "orig") &&
			 !journal_of(first) && !journal_of(second),
			 "two killed runs of one setting: the first run's value is put back");
}

static void test_damage(void)
{
	char f[600], g[600], file[4200];
	pid_t pid = dead_pid();
	FILE *j;

	/* a line the SIGKILL cut in the middle of its write */
	setting("f", f, sizeof(f), "changed");
	journal_name(pid, file, sizeof(file));
	j = fopen(file, "w");
	if (!j || fprintf(j, "S\t1\t1\t%s\tno", f) < 0 || fclose(j))
		ksft_exit_fail_msg("write %s\n", file);
	ksft_test_result(journal_recover() == 0 && holds(f, "changed") && !journal_of(pid),
			 "a last line without its newline is not read");

	/* a write-back that fails keeps the journal */
	snprintf(g, sizeof(g), "%s/no-such-dir/setting", dir);
	j = fopen(file, "w");
	if (!j || fprintf(j, "S\t0\t1\t%s\tx\n", g) < 0 || fclose(j))
		ksft_exit_fail_msg("write %s\n", file);
	ksft_test_result(journal_recover() == 0 && !journal_of(pid),
			 "a setting that no longer exists is dropped, not retried forever");
	pid = fork();
	if (!pid) {	/* its restore fails: the file is gone */
		cleanup_init();
		setting("h", g, sizeof(g), "old");
		journal_save(g, "old", false);
		unlink(g);
		cleanup_run_all();
		_exit(0);
	}
	reap(pid);
	ksft_test_result(journal_of(pid),
			 "a run whose setting could not be put back keeps its journal");
	journal_recover();
}

int main(void)
{
	char sub[600], cmd[700];

	ksft_print_header();
	ksft_set_plan(13);
	if (!mkdtemp(dir))
		ksft_exit_fail_msg("mkdtemp\n");
	snprintf(sub, sizeof(sub), "%s/state", dir);
	setenv("ISOLBENCH_STATE_DIR", sub, 1);
	test_one_run();
	test_two_runs();
	test_damage();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ksft_print_msg("could not remove %s\n", dir);
	ksft_finished();
}
