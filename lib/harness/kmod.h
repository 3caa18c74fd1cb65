/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and unloading a helper module from module/: finit_module(2)
 * with a parameter string, delete_module(2) at the end, at exit and on
 * a second signal. A kernel without module support, a missing .ko or a
 * missing privilege is reported as a reason to SKIP.
 */
#ifndef ISOLBENCH_KMOD_H
#define ISOLBENCH_KMOD_H

#include <stdbool.h>
#include <stddef.h>

struct kmod {
	char name[64];		/* as the kernel knows it: "ipistorm_kmod" */
	bool loaded;
	bool loading;		/* finit_module() under way: unload on a signal */
	bool cleanup_set;	/* the unload is registered (before the load) */
	int cleanup_handle;
	char owner[4096];	/* the file naming the loading PID, "" if none */
};

/* Whether this kernel can load modules at all; a reason when not. */
bool kmod_supported(char *why, size_t whylen);
/*
 * Load @path with @params ("a=1 b=2"). Returns 0, or -1 with a reason
 * in @err (and errno set). The module is unloaded at exit.
 */
int kmod_load(struct kmod *m, const char *path, const char *name,
	      const char *params, char *err, size_t errlen);
/* Unload now; 0 or -1 with errno. Safe to call twice. */
int kmod_unload(struct kmod *m);
/* Whether a module of @name is loaded (/sys/module/NAME/initstate). */
bool kmod_is_loaded(const char *name);

/*
 * A module outlives a SIGKILLed program. While loaded, the loading
 * process's PID is kept in the lock directory (lib/harness/cpulock.h) as
 * isolbench-kmod-NAME.pid; kmod_load() unloads a loaded @name whose file
 * names a process that is gone, and says so. This is the PID of such a
 * leftover, or 0 (no file, or its process still runs).
 */
long kmod_stale_owner(const char *name);

/* debugfs's mount point, mounted on demand (unmounted at exit); or NULL. */
const char *debugfs_path(void);

#endif
