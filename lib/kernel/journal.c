// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "journal.h"
#include "../base/ktap.h"
#include "../base/util.h"

#define JOURNAL_PREFIX	"settings-"
#define JOURNAL_MAX	64	/* settings one journal holds */
#define JOURNALS_MAX	64	/* journals one recovery reads */
#define SETTING_PATH	256

/*
 * This process's journal, in fixed buffers: the cleanups that put the
 * settings back, and the journal's own removal, may run from a signal.
 */
static char journal_path[4096];
static int journal_fd = -1;
static bool journal_failed;
static char saved_path[JOURNAL_MAX][SETTING_PATH];
static volatile sig_atomic_t saved_open[JOURNAL_MAX];
static int nsaved;

const char *journal_dir(void)
{
	const char *d = getenv("ISOLBENCH_STATE_DIR");

	return d && *d ? d : "/run/isolbench";
}

/*
 * Runs last of the cleanups. The journal goes when every setting it
 * saved is back; one whose write-back failed keeps it for the next run.
 */
static void journal_end(void *arg)
{
	bool open = false;

	(void)arg;
	if (journal_fd < 0)
		return;
	for (int i = 0; i < nsaved; i++)
		open |= saved_open[i];
	close(journal_fd);
	journal_fd = -1;
	if (!open)
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
	/* a journal of a dead run with our PID was recovered before this */
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

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int journal_save(const char *path, const char *old, bool truncate)
{
	char line[SETTING_PATH + 1100];
	int n;

	if (strlen(path) >= SETTING_PATH || strchr(path, '\t') ||
	    strchr(path, '\n') || strchr(old, '\n') || nsaved == JOURNAL_MAX)
		return -1;	/* not a line of the journal */
	if (journal_open())
		return -1;
	/* the time orders the saves of several runs of one path */
	n = snprintf(line, sizeof(line), "S\t%d\t%llu\t%s\t%s\n", truncate,
		     (unsigned long long)realtime_ns(), path, old);
	if (n < 0 || (size_t)n >= sizeof(line) || write(journal_fd, line, n) != n)
		return -1;
	snprintf(saved_path[nsaved], SETTING_PATH, "%s", path);
	saved_open[nsaved++] = 1;
	return 0;
}

void journal_restored(const char *path)
{
	char line[SETTING_PATH + 4];
	size_t n = strlen(path);
	int i;

	for (i = nsaved - 1; i >= 0; i--)	/* strcmp, memcpy: signal-safe */
		if (saved_open[i] && !strcmp(saved_path[i], path))
			break;
	if (i < 0 || journal_fd < 0)
		return;	/* not journaled */
	saved_open[i] = 0;
	line[0] = 'R';
	line[1] = '\t';
	memcpy(line + 2, path, n);
	line[n + 2] = '\n';
	/*
	 * The setting is back either way: a lost R line only makes the next
	 * run write the same old value again, should this run be killed.
	 */
	if (write(journal_fd, line, n + 3) != (ssize_t)(n + 3))
		return;
}

/* A setting a journal still holds: saved, not put back. */
struct setting {
	char *path, *old;
	uint64_t saved_ns;
	bool truncate;
	bool done;		/* recovery: put back, superseded or refused */
};

struct journal {
	char file[4352];
	long pid;
	bool live;
	char *text;
	struct setting s[JOURNAL_MAX];
	int n;
};

/*
 * The settings @text still holds, in the order saved: the first save of
 * a path (the older value) not followed by its restore. A last line
 * without its newline was cut by the kill: not read. Points into @text.
 */
static int journal_parse(char *text, struct setting *s, int max)
{
	char *end = strrchr(text, '\n');
	int n = 0;

	if (!end)
		return 0;
	end[1] = '\0';
	for (char *sp, *line = strtok_r(text, "\n", &sp); line;
	     line = strtok_r(NULL, "\n", &sp)) {
		char *f[5] = { line };
		int nf = 1, i;

		while (nf < 5 && (f[nf] = strchr(f[nf - 1], '\t')))
			*f[nf++]++ = '\0';
		if (!strcmp(f[0], "R") && nf == 2) {
			for (i = 0; i < n && strcmp(s[i].path, f[1]); i++)
				;
			if (i < n)	/* put back: its slot goes */
				memmove(&s[i], &s[i + 1], (n-- - i - 1) * sizeof(*s));
			continue;
		}
		if (strcmp(f[0], "S") || nf != 5)
			continue;
		for (i = 0; i < n && strcmp(s[i].path, f[3]); i++)
			;
		if (i == n && n < max)
			s[n++] = (struct setting){ f[3], f[4], strtoull(f[2], NULL, 10),
						   !strcmp(f[1], "1"), false };
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

/*
 * Read the journals of @dir: ours of this run and any a live process
 * holds are live; a journal another user wrote is not read (a root run
 * writes back what journals name).
 */
static int journals_read(const char *dir, struct journal *j, int max)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && n < max && (e = readdir(d))) {
		long pid = journal_pid(e->d_name);
		struct journal *o = &j[n];
		struct stat st;

		if (!pid)
			continue;
		snprintf(o->file, sizeof(o->file), "%s/%s", dir, e->d_name);
		if (lstat(o->file, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			ksft_print_msg("settings journal: %s is not this user's regular file: ignored\n",
				       o->file);
			continue;
		}
		o->pid = pid;
		o->live = pid == getpid() ? journal_fd >= 0 : !pid_gone(pid);
		o->text = read_file_all(o->file, NULL);
		if (!o->text)
			continue;
		o->n = journal_parse(o->text, o->s, JOURNAL_MAX);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Whether @s of dead journal @self is decided elsewhere: a live run's
 * journal holds its path (left to it), or another dead run saved it
 * earlier (that run's older value is the one to put back).
 */
static const char *setting_elsewhere(const struct journal *j, int n, int self,
				     const struct setting *s)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; k != self && i < j[k].n; i++) {
			const struct setting *o = &j[k].s[i];

			if (strcmp(o->path, s->path))
				continue;
			if (j[k].live)
				return "is in a live run's journal too: left to it";
			if (o->saved_ns < s->saved_ns)
				return NULL;	/* superseded: decided, silently */
		}
	return "";
}

/* Only kernel settings are written back, unless the user moved the journals. */
static bool setting_allowed(const char *path)
{
	const char *d = getenv("ISOLBENCH_STATE_DIR");

	return (d && *d) || !strncmp(path, "/proc/sys/", 10) || !strncmp(path, "/sys/", 5);
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

/* Decide setting @s of dead journal @k: true when nothing is left to do. */
static bool setting_recover(struct journal *j, int n, int k, struct setting *s, int *done)
{
	const char *why = setting_elsewhere(j, n, k, s);

	if (!why)
		return true;
	if (*why) {
		ksft_print_msg("settings journal: %s, left by pid %ld (gone), %s\n",
			       s->path, j[k].pid, why);
		return false;
	}
	if (!setting_allowed(s->path)) {
		ksft_print_msg("settings journal: %s, named by pid %ld's journal, is no kernel setting: not written\n",
			       s->path, j[k].pid);
		return true;
	}
	if (write_back(s)) {
		bool gone = errno == ENOENT;

		ksft_print_msg("settings journal: cannot put back %s = '%s', left by pid %ld (gone): %s%s\n",
			       s->path, s->old, j[k].pid, strerror(errno),
			       gone ? " (nothing left to put back)" : "");
		return gone;
	}
	ksft_print_msg("settings journal: put back %s = '%s', left changed by pid %ld (gone before its cleanups)\n",
		       s->path, s->old, j[k].pid);
	(*done)++;
	return true;
}

/*
 * The dead journal @k after recovery: removed when every setting is
 * decided, else kept with an R line for each one that is, so that the
 * next run tries only the rest.
 */
static void journal_settle(struct journal *jk)
{
	bool left = false;
	FILE *f;

	for (int i = 0; i < jk->n; i++)
		left |= !jk->s[i].done;
	if (!left) {
		unlink(jk->file);
		return;
	}
	f = fopen(jk->file, "a");
	for (int i = 0; f && i < jk->n; i++)
		if (jk->s[i].done)
			fprintf(f, "R\t%s\n", jk->s[i].path);
	if (f)
		fclose(f);
}

int journal_recover(void)
{
	struct journal *j = calloc(JOURNALS_MAX, sizeof(*j));
	int n, done = 0;

	if (!j)
		return 0;
	n = journals_read(journal_dir(), j, JOURNALS_MAX);
	for (int k = 0; k < n; k++) {
		if (j[k].live)
			continue;
		for (int i = j[k].n - 1; i >= 0; i--)	/* last changed, first back */
			j[k].s[i].done = setting_recover(j, n, k, &j[k].s[i], &done);
	}
	/* settled after all are decided: the others' entries point into text */
	for (int k = 0; k < n; k++)
		if (!j[k].live)
			journal_settle(&j[k]);
	for (int k = 0; k < n; k++)
		free(j[k].text);
	free(j);
	return done;
}
