// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "cpulock.h"
#include "kmod.h"
#include "../base/ktap.h"
#include "../base/util.h"

#define DEBUGFS_MAGIC_NR	0x64626720

bool kmod_supported(char *why, size_t whylen)
{
	struct utsname u;

	/* /proc/modules exists exactly when CONFIG_MODULES=y */
	if (!access("/proc/modules", F_OK))
		return true;
	uname(&u);
	snprintf(why, whylen,
		 "kernel %s cannot load modules (CONFIG_MODULES is off: no /proc/modules)",
		 u.release);
	return false;
}

static void kmod_cleanup(void *arg)
{
	struct kmod *m = arg;

	/*
	 * async-signal-safe: one syscall. While finit_module() is under
	 * way the module may just have loaded: try, ENOENT is harmless.
	 */
	if ((__atomic_load_n(&m->loaded, __ATOMIC_SEQ_CST) ||
	     __atomic_load_n(&m->loading, __ATOMIC_SEQ_CST)) &&
	    !syscall(SYS_delete_module, m->name, O_NONBLOCK)) {
		m->loaded = false;
		if (m->owner[0])
			unlink(m->owner);
	}
	m->cleanup_set = false;
}

int kmod_load(struct kmod *m, const char *path, const char *name,
	      const char *params, char *err, size_t errlen)
{
	int fd, ret;
	long stale = kmod_is_loaded(name) ? kmod_stale_owner(name) : 0;

	snprintf(m->owner, sizeof(m->owner), "%s/isolbench-kmod-%s.pid",
		 cpulock_dir(), name);
	if (stale && !syscall(SYS_delete_module, name, O_NONBLOCK)) {
		ksft_print_msg("removed module %s left loaded by isolbench pid %ld (gone)\n",
			       name, stale);
		unlink(m->owner);
	}
	if (kmod_is_loaded(name)) {
		/* someone else's: never register an unload for it */
		snprintf(err, errlen,
			 "%s is already loaded: unload it first (rmmod %s)",
			 name, name);
		errno = EEXIST;
		return -1;
	}
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->loaded = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s (build it with 'make module')",
			 path, strerror(errno));
		return -1;
	}
	/*
	 * Registered before the load: a second signal between the load
	 * and the return of finit_module() still unloads the module.
	 */
	if (!m->cleanup_set) {
		m->cleanup_handle = cleanup_push(kmod_cleanup, m);
		m->cleanup_set = true;
	}
	__atomic_store_n(&m->loading, true, __ATOMIC_SEQ_CST);
	ret = syscall(SYS_finit_module, fd, params, 0);
	if (!ret)
		__atomic_store_n(&m->loaded, true, __ATOMIC_SEQ_CST);
	__atomic_store_n(&m->loading, false, __ATOMIC_SEQ_CST);
	if (ret) {
		int e = errno;

		if (e == EEXIST)
			snprintf(err, errlen,
				 "%s is already loaded: unload it first (rmmod %s)",
				 name, name);
		else if (e == ENOEXEC || e == EINVAL)
			snprintf(err, errlen,
				 "finit_module %s: %s (built for another kernel? see dmesg)",
				 path, strerror(e));
		else
			snprintf(err, errlen, "finit_module %s: %s", path,
				 strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	fd = open(m->owner, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		dprintf(fd, "%ld\n", (long)getpid());
		close(fd);
	} else {
		m->owner[0] = '\0';	/* not ours to remove */
	}
	return 0;
}

long kmod_stale_owner(const char *name)
{
	char path[4096], line[32];
	long pid;
	char *end;

	snprintf(path, sizeof(path), "%s/isolbench-kmod-%s.pid", cpulock_dir(), name);
	if (read_file_line(path, line, sizeof(line)) <= 0)
		return 0;
	pid = strtol(line, &end, 10);
	if (*end || pid <= 0 || !pid_gone(pid))
		return 0;
	return pid;
}

int kmod_unload(struct kmod *m)
{
	if (!m->loaded)
		return 0;
	cleanup_run_one(m->cleanup_handle);
	return m->loaded ? -1 : 0;
}

bool kmod_is_loaded(const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return !access(path, F_OK);
}

static void debugfs_unmount(void *arg)
{
	umount2((const char *)arg, MNT_DETACH);
}

const char *debugfs_path(void)
{
	static const char dir[] = "/sys/kernel/debug";
	static int mounted;	/* 0 unknown, 1 there, -1 unavailable */

	if (!mounted) {
		mounted = -1;
		struct statfs st;

		if (!statfs(dir, &st) && st.f_type == DEBUGFS_MAGIC_NR)
			mounted = 1;
		else if (!mount("debugfs", dir, "debugfs", 0, NULL)) {
			cleanup_push(debugfs_unmount, (void *)dir);
			mounted = 1;
		}
	}
	return mounted > 0 ? dir : NULL;
}
