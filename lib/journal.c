// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "journal.h"
#include "ktap.h"
#include "util.h"

#define JOURNAL_PREFIX	"settings-"
#define JOURNAL_MAX	64	/* settings one journal holds */

/* This process's journal: fixed buffers, so the cleanup is signal-safe. */
static char journal_path[4096];
static int journal_fd = -1;
static bool journal_failed;

const char *journal_dir(void)
{
	const char *d = getenv("ISOLBENCH_STATE_DIR");

	return d && *d ? d : "/run/isolbench";
}

/* Runs last of the cleanups: every setting is back, the journal goes. */
static void journal_end(void *arg)
{
	(void)arg;
	if (journal_fd < 0)
		return;
	close(journal_fd);
	journal_fd = -1;
	unlink(journal_path);
}

static int journal_open(void)
{
	const char *dir = journal_dir();

	if (journal_fd >= 0)
		return 0;
	if (journal_failed)
		return -1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	snprintf(journal_path, sizeof(journal_path), "%s/" JOURNAL_PREFIX "%d",
		 dir, (int)getpid());
	journal_fd = open(journal_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
			  O_CLOEXEC | O_NOFOLLOW, 0644);
	if (journal_fd < 0)
		goto fail;
	cleanup_push(journal_end, NULL);
	return 0;
fail:
	journal_failed = true;
	ksft_print_msg("settings journal %s: %s: a SIGKILL now would leave the settings this run changes\n",
		       dir, strerror(errno));
	return -1;
}

int journal_save(const char *path, const char *old, bool truncate)
{
	char line[4096 + 1100];
	int n;

	if (strchr(path, '\t') || strchr(path, '\n') || strchr(old, '\n'))
		return -1;	/* not a line of the journal */
	if (journal_open())
		return -1;
	n = snprintf(line, sizeof(line), "S\t%d\t%s\t%s\n", truncate, path, old);
	if (n < 0 || (size_t)n >= sizeof(line) || write(journal_fd, line, n) != n)
		return -1;
	return 0;
}

void journal_restored(const char *path)
{
	char line[4096 + 4];
	size_t n = strlen(path);

	if (journal_fd < 0 || n + 3 > sizeof(line))
		return;
	line[0] = 'R';
	line[1] = '\t';
	memcpy(line + 2, path, n);
	line[n + 2] = '\n';
	/* on an exit path: nothing more to do when it fails */
	if (write(journal_fd, line, n + 3) != (ssize_t)(n + 3))
		journal_failed = true;
}

struct setting {
	char *path, *old;
	bool truncate, restored;
};

/*
 * The settings @text (one journal) still holds: the first save of a
 * path not followed by its restore. Points into @text. The count.
 */
static int journal_parse(char *text, struct setting *s, int max)
{
	int n = 0;

	for (char *sp, *line = strtok_r(text, "\n", &sp); line;
	     line = strtok_r(NULL, "\n", &sp)) {
		char *f[4] = { line };
		int nf = 1;
		int i;

		while (nf < 4 && (f[nf] = strchr(f[nf - 1], '\t')))
			*f[nf++]++ = '\0';
		if (!strcmp(f[0], "R") && nf == 2) {
			for (i = 0; i < n; i++)
				if (!s[i].restored && !strcmp(s[i].path, f[1]))
					s[i].restored = true;
			continue;
		}
		if (strcmp(f[0], "S") || nf != 4)
			continue;
		for (i = 0; i < n; i++)	/* saved again: the older value stands */
			if (!s[i].restored && !strcmp(s[i].path, f[2]))
				break;
		if (i == n && n < max)
			s[n++] = (struct setting){ f[2], f[3], !strcmp(f[1], "1"), false };
	}
	return n;
}

static long journal_pid(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)))
		return 0;
	pid = strtol(name + strlen(JOURNAL_PREFIX), &end, 10);
	return *end || pid <= 0 ? 0 : pid;
}

/* Whether a live run's journal (other than a dead one's) holds @path. */
static bool held_by_live(const char *dir, const char *path)
{
	struct setting s[JOURNAL_MAX];
	struct dirent *e;
	bool held = false;
	DIR *d = opendir(dir);

	while (d && !held && (e = readdir(d))) {
		long pid = journal_pid(e->d_name);
		char file[4352], *text;
		int n;

		if (!pid || pid_gone(pid))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		text = read_file_all(file, NULL);
		n = text ? journal_parse(text, s, JOURNAL_MAX) : 0;
		for (int i = 0; i < n && !held; i++)
			held = !s[i].restored && !strcmp(s[i].path, path);
		free(text);
	}
	if (d)
		closedir(d);
	return held;
}

static int write_back(const struct setting *s)
{
	int fd = open(s->path, O_WRONLY | O_CLOEXEC | (s->truncate ? O_TRUNC : 0));
	ssize_t len = strlen(s->old);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (len && write(fd, s->old, len) != len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/* Put back one dead run's journal @file; the number put back. */
static int recover_one(const char *dir, const char *file, long pid)
{
	struct setting s[JOURNAL_MAX];
	char *text = read_file_all(file, NULL);
	int n, done = 0, kept = 0;

	if (!text)
		return 0;
	n = journal_parse(text, s, JOURNAL_MAX);
	for (int i = n - 1; i >= 0; i--) {	/* last changed, first put back */
		if (s[i].restored)
			continue;
		if (held_by_live(dir, s[i].path)) {
			ksft_print_msg("settings journal: %s, left by pid %ld (gone), is in a live run's journal too: left to it\n",
				       s[i].path, pid);
			kept++;
			continue;
		}
		if (write_back(&s[i])) {
			ksft_print_msg("settings journal: cannot put back %s = '%s', left by pid %ld (gone): %s\n",
				       s[i].path, s[i].old, pid, strerror(errno));
			kept++;
			continue;
		}
		ksft_print_msg("settings journal: put back %s = '%s', left changed by pid %ld (gone before its cleanups)\n",
			       s[i].path, s[i].old, pid);
		done++;
	}
	free(text);
	if (!kept)	/* else the next run tries again */
		unlink(file);
	return done;
}

int journal_recover(void)
{
	const char *dir = journal_dir();
	struct dirent *e;
	int done = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = journal_pid(e->d_name);
		char file[4352];

		if (!pid || pid == getpid() || !pid_gone(pid))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		done += recover_one(dir, file, pid);
	}
	closedir(d);
	return done;
}
