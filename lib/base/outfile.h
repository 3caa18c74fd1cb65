/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A result file that is never lost: it is written to a temporary file
 * beside the target and renamed into place only when complete, so a
 * run killed by SIGKILL or rejected leaves an existing file as it was,
 * and one that measured nothing can leave it too (outfile_commit_new). A target that exists and is not a regular file (/dev/null,
 * a pipe, a terminal) is written directly. A failed write is reported
 * as such: outfile_commit() returns -1 with the reason.
 */
#ifndef ISOLBENCH_OUTFILE_H
#define ISOLBENCH_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *f;		/* write here */
	const char *path;	/* the target */
	char tmp[PATH_MAX];	/* the temporary file, "" when direct */
	int handle;		/* cleanup that removes tmp on exit */
};

/* Create the temporary file (or open the target): 0, or -1 with @err. */
int outfile_open(struct outfile *o, const char *path, char *err, size_t len);
/* Flush, close and rename into place: 0, or -1 with @err. */
int outfile_commit(struct outfile *o, char *err, size_t len);
/*
 * The same, but an existing target is left as it is (1; the temporary
 * file is removed): for a result that holds no measurement.
 */
int outfile_commit_new(struct outfile *o, char *err, size_t len);
/* Give up: close and remove the temporary file; the target stays. */
void outfile_abort(struct outfile *o);

#endif
