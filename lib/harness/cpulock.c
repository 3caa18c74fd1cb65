// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulock.h"
#include "../base/ktap.h"

static int lock_fd[CPU_SETSIZE];	/* fd + 1 of a lock we hold, else 0 */

const char *cpulock_dir(void)
{
	const char *d = getenv("ISOLBENCH_LOCK_DIR");
	struct stat st;

	if (d && *d)
		return d;
	if (!stat("/run/lock", &st) && S_ISDIR(st.st_mode) &&
	    !access("/run/lock", W_OK | X_OK))
		return "/run/lock";
	return "/tmp";
}

/* "NAME (pid P)" of the holder, from the lock file */
static void holder(int fd, char *buf, size_t len)
{
	char line[96];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	long pid;
	char name[64];

	if (n > 0) {
		line[n] = '\0';
		if (sscanf(line, "%ld %63s", &pid, name) == 2) {
			snprintf(buf, len, "%s (pid %ld)", name, pid);
			return;
		}
	}
	snprintf(buf, len, "another isolbench run");
}

static int lock_one(int cpu, const char *name, bool wait, char *err,
		    size_t len)
{
	char path[4096], who[96], line[96];
	int fd, n;

	if (lock_fd[cpu])
		return 0;
	snprintf(path, sizeof(path), "%s/isolbench-cpu%d.lock", cpulock_dir(), cpu);
	/*
	 * Open an existing file without O_CREAT (fs.protected_regular
	 * refuses O_CREAT on another user's file in a sticky directory);
	 * read-only is enough for flock when it is not ours to write.
	 */
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0 && fchmod(fd, 0666))	/* any user's run may take it next */
			ksft_print_msg("lock %s: chmod: %s\n", path, strerror(errno));
		if (fd < 0 && errno == EEXIST)
			fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(err, len, "cannot open the lock %s: %s", path,
			 strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			snprintf(err, len, "lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		holder(fd, who, sizeof(who));
		if (!wait) {
			snprintf(err, len, "cpu %d is in use by %s (lock %s; --wait waits for it)",
				 cpu, who, path);
			close(fd);
			return 1;
		}
		ksft_print_msg("waiting for cpu %d: in use by %s\n", cpu, who);
		if (flock(fd, LOCK_EX)) {
			int e = errno;

			snprintf(err, len, "waiting for cpu %d: %s", cpu,
				 strerror(e));
			close(fd);
			errno = e;
			return -1;
		}
		break;
	}
	/* held: say who holds it, when the file is ours to write */
	n = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), name);
	if ((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR &&
	    (ftruncate(fd, 0) || pwrite(fd, line, n, 0) != n))
		ksft_print_msg("lock %s: %s\n", path, strerror(errno));
	lock_fd[cpu] = fd + 1;
	return 0;
}

int cpulock_take(const cpu_mask_t *cpus, const char *name, bool wait,
		 char *err, size_t len)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int ret = CPU_ISSET(cpu, cpus) ? lock_one(cpu, name, wait, err, len) : 0;

		if (ret)
			return ret;
	}
	return 0;
}
