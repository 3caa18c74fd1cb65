/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel setting (sysctl, sysfs) changed for a measurement and put
 * back: by knob_restore() on the normal path, and through cleanup_push()
 * on every other exit path, signals included.
 */
#ifndef ISOLBENCH_KNOB_H
#define ISOLBENCH_KNOB_H

#include <stddef.h>

struct knob {
	char path[128];
	char saved[64];	/* the value before, without the newline */
	int handle;	/* cleanup handle, -1 when nothing to undo */
};

/*
 * Write @value to @path, remembering what was there. 0, or -1 with a
 * reason in @err (the setting is unchanged then).
 */
int knob_set(struct knob *k, const char *path, const char *value,
	     char *err, size_t errlen);
/* Put the old value back now (once; a no-op when nothing was changed). */
void knob_restore(struct knob *k);

#endif
