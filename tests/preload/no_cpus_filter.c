// SPDX-License-Identifier: GPL-2.0
/*
 * A test double for tests/ipistorm.t, loaded with LD_PRELOAD: trace
 * filters without CPUS{}, as in Linux 6.3-6.5 (the ipi tracepoints are
 * there, "cpumask & CPUS{2}" is not). PERF_EVENT_IOC_SET_FILTER with a
 * filter that names CPUS{ fails with EINVAL, as such a kernel's does;
 * every other ioctl goes to libc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next)(int fd, unsigned long request, ...);
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == PERF_EVENT_IOC_SET_FILTER && arg && strstr(arg, "CPUS{")) {
		errno = EINVAL;
		return -1;
	}
	if (!next)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return next(fd, request, arg);
}
