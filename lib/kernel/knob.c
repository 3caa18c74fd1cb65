// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "journal.h"
#include "knob.h"
#include "../base/util.h"

/* Runs from a signal handler too: open, write and close only. */
static void knob_write_back(void *arg)
{
	struct knob *k = arg;
	int fd = open(k->path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, k->saved, strlen(k->saved)) < 0)
		k->handle = -1;	/* nothing more can be done here */
	else
		journal_restored(k->path);
	close(fd);
}

int knob_set(struct knob *k, const char *path, const char *value,
	     char *err, size_t errlen)
{
	k->handle = -1;
	snprintf(k->path, sizeof(k->path), "%s", path);
	if (read_file_line(path, k->saved, sizeof(k->saved)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!strcmp(k->saved, value))
		return 0;	/* already so: nothing to undo */
	journal_save(path, k->saved, false);	/* for the run after a SIGKILL */
	if (write_file(path, value)) {
		snprintf(err, errlen, "cannot set %s to %s: %s", path, value,
			 strerror(errno));
		return -1;
	}
	k->handle = cleanup_push(knob_write_back, k);
	return 0;
}

void knob_restore(struct knob *k)
{
	if (k->handle >= 0)
		cleanup_run_one(k->handle);
	k->handle = -1;
}
