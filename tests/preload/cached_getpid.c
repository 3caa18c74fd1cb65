// SPDX-License-Identifier: GPL-2.0
/*
 * A test double for tests/getpid_bench.t, built there with
 * cc -shared -fPIC and loaded with LD_PRELOAD: a syscall(3) that answers
 * SYS_getpid from a value cached at load time without entering the
 * kernel, as glibc's getpid() did before 2.25. Every return value is
 * still right, so only getpid_bench's kernel-count check can notice that
 * the kernel never saw the calls. Other syscalls go to libc's syscall().
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

static long cached_pid;

__attribute__((constructor)) static void cache_pid(void)
{
	cached_pid = getpid();
}

long syscall(long nr, ...)
{
	static long (*next)(long nr, ...);
	long a[6];
	va_list ap;

	if (nr == SYS_getpid && cached_pid)
		return cached_pid;
	if (!next)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
