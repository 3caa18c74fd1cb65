// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "outfile.h"

/* async-signal-safe: runs at exit and on a second signal */
static void outfile_unlink(void *arg)
{
	struct outfile *o = arg;

	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

int outfile_open(struct outfile *o, const char *path, char *err, size_t len)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->handle = -1;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a device or a pipe: nothing to replace, write as is */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 && fcntl(fd, F_SETFL, 0) < 0) {
			close(fd);
			fd = -1;
		}
	} else {
		int n;

		if (slash)
			n = snprintf(o->tmp, sizeof(o->tmp), "%.*s/.%s.tmp-XXXXXX",
				     (int)(slash - path), path, slash + 1);
		else
			n = snprintf(o->tmp, sizeof(o->tmp), ".%s.tmp-XXXXXX",
				     path);
		if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
			snprintf(err, len, "%s: name too long", path);
			o->tmp[0] = '\0';
			return -1;
		}
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, len, "%s: cannot create a file beside it (%s)",
				 path, strerror(errno));
			o->tmp[0] = '\0';
			return -1;
		}
		/* the mode a plain creat() would give, not mkstemp's 0600 */
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask)) {
			int e = errno;

			close(fd);
			unlink(o->tmp);
			errno = e;
			fd = -1;
		}
	}
	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		o->tmp[0] = '\0';
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		close(fd);
		outfile_unlink(o);
		return -1;
	}
	if (o->tmp[0])
		o->handle = cleanup_push(outfile_unlink, o);
	return 0;
}

static int outfile_finish(struct outfile *o, bool replace, char *err, size_t len)
{
	bool kept = false;
	int e = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		e = errno ? errno : EIO;
	if (!e && o->tmp[0] && fsync(fileno(o->f)))
		e = errno;
	if (fclose(o->f) && !e)
		e = errno;
	o->f = NULL;
	if (!e && o->tmp[0] && replace && rename(o->tmp, o->path))
		e = errno;
	/* link() fails on an existing target: nothing is replaced */
	if (!e && o->tmp[0] && !replace && link(o->tmp, o->path)) {
		if (errno == EEXIST)
			kept = true;
		else
			e = errno;
	}
	if (e) {
		snprintf(err, len, "writing %s failed: %s", o->path, strerror(e));
		outfile_unlink(o);
		return -1;
	}
	if (replace)
		o->tmp[0] = '\0';
	else
		outfile_unlink(o);
	return kept;
}

int outfile_commit(struct outfile *o, char *err, size_t len)
{
	return outfile_finish(o, true, err, len);
}

int outfile_commit_new(struct outfile *o, char *err, size_t len)
{
	return outfile_finish(o, false, err, len);
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	outfile_unlink(o);
}
