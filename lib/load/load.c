// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/cleanup.h"
#include "../base/clock.h"
#include "load.h"

#define LOAD_MSG_BYTES	100	/* hackbench's default message size */
#define LOAD_PAIRS	10	/* sender/receiver pairs per group */
#define LOAD_MAX_PROCS	1024
#define LOAD_SRC_FUNCS	16	/* about 0.1 s of cc1 -O2 on this VM */
#define LOAD_CHURN_BYTES	(4u << 20)

const char *const load_kind_names[] = { "rteval", "messaging", "compile", NULL };

struct load_stats {
	volatile uint64_t messages;
	volatile uint64_t burner_loops;
	volatile uint64_t jobs, jobs_failed, compiles, churn;
};

/* Children only: make sure a dead benchmark never leaves load behind. */
static void load_child_setup(const cpu_mask_t *hk, pid_t parent)
{
	cleanup_child_signals();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	sched_setaffinity(0, sizeof(*hk), hk);
}

static void load_sender(int fd, struct load_stats *st)
{
	char msg[LOAD_MSG_BYTES];

	memset(msg, 0x5a, sizeof(msg));
	for (;;) {
		if (write(fd, msg, sizeof(msg)) != sizeof(msg))
			_exit(0);
		__atomic_add_fetch(&st->messages, 1, __ATOMIC_RELAXED);
	}
}

static void load_receiver(int fd)
{
	char msg[LOAD_MSG_BYTES];

	for (;;)
		if (read(fd, msg, sizeof(msg)) <= 0)
			_exit(0);
}

/* Integer and memory work, like a compiler job rather than a pure spin. */
static void load_burner(struct load_stats *st)
{
	static unsigned int buf[16384];
	unsigned int x = 1;

	for (;;) {
		for (unsigned int i = 0; i < 1000000; i++) {
			x = x * 1103515245 + 12345;
			buf[x % 16384] += x;
		}
		__atomic_add_fetch(&st->burner_loops, 1, __ATOMIC_RELAXED);
	}
}

/* The first of @names found executable in $PATH, into @out; -1 if none. */
static int load_find_compiler(char *out, size_t len)
{
	static const char *const names[] = { "cc", "gcc", "clang" };
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		for (const char *p = path; *p; ) {
			size_t dl = strcspn(p, ":");

			if (dl && (size_t)snprintf(out, len, "%.*s/%s", (int)dl, p,
						   names[n]) < len &&
			    !access(out, X_OK))
				return 0;
			p += dl;
			if (*p == ':')
				p++;
		}
	}
	out[0] = '\0';
	return -1;
}

/* The compile jobs' input: LOAD_SRC_FUNCS small functions, in a memfd. */
static int load_source_fd(void)
{
	int fd = memfd_create("isolbench-load.c", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	for (int i = 0; i < LOAD_SRC_FUNCS; i++)
		dprintf(fd,
			"int f%d(const int *a, int n)\n{\n\tint s = %d;\n\n"
			"\tfor (int i = 0; i < n; i++) {\n"
			"\t\tswitch (a[i] & 7) {\n"
			"\t\tcase 0: s += a[i] * %d; break;\n"
			"\t\tcase 1: s ^= a[i] << 3; break;\n"
			"\t\tcase 2: s -= a[i] / 3; break;\n"
			"\t\tdefault: s = s * 31 + a[i];\n"
			"\t\t}\n\t}\n\treturn s;\n}\n", i, i, i + 3);
	return fd;
}

/*
 * One job, in the child of a driver: dies with the driver (the death
 * signal survives the exec), then either the compiler on the generated
 * file (its own reading position: the memfd reopened through /proc),
 * output thrown away, or the churn: map and fault 4 MB, exec /bin/true.
 */
static noreturn void load_job(const char *compiler, int src_fd, pid_t driver)
{
	char path[64];
	char *p;
	int fd, nul;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != driver)
		_exit(1);
	if (compiler[0]) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", src_fd);
		fd = open(path, O_RDONLY);
		nul = open("/dev/null", O_WRONLY);
		if (fd < 0 || nul < 0 || dup2(fd, 0) < 0 || dup2(nul, 1) < 0 ||
		    dup2(nul, 2) < 0)
			_exit(126);
		execl(compiler, compiler, "-O2", "-pipe", "-x", "c", "-c", "-",
		      "-o", "/dev/null", (char *)NULL);
		_exit(127);
	}
	p = mmap(NULL, LOAD_CHURN_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(126);
	for (size_t i = 0; i < LOAD_CHURN_BYTES; i += 4096)
		p[i] = (char)i;
	munmap(p, LOAD_CHURN_BYTES);
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

/*
 * A stream of jobs, one after the other (make -j1's share of make -jN).
 * A compiler that fails its first job is given up for the churn.
 */
static noreturn void load_driver(char *compiler, int src_fd,
				 struct load_stats *st)
{
	pid_t self = getpid();

	for (;;) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			load_job(compiler, src_fd, self);
		if (pid < 0) {
			usleep(10000);
			continue;
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				_exit(1);
		__atomic_add_fetch(&st->jobs, 1, __ATOMIC_RELAXED);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			__atomic_add_fetch(&st->jobs_failed, 1, __ATOMIC_RELAXED);
			if (compiler[0] && !st->compiles)
				compiler[0] = '\0';
		} else if (compiler[0]) {
			__atomic_add_fetch(&st->compiles, 1, __ATOMIC_RELAXED);
		} else {
			__atomic_add_fetch(&st->churn, 1, __ATOMIC_RELAXED);
		}
	}
}

static pid_t load_fork(struct load *l, const cpu_mask_t *hk)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, l->pgid);
		load_child_setup(hk, parent);
		return 0;
	}
	if (pid > 0) {
		if (!l->pgid)
			l->pgid = pid;
		/* also here, so the group exists before we ever signal it */
		setpgid(pid, l->pgid);
		l->nprocs++;
	}
	return pid;
}

static void load_kill(void *arg)
{
	struct load *l = arg;

	if (!l->pgid)
		return;
	kill(-l->pgid, SIGKILL);
	/*
	 * As a subreaper we inherit the jobs (and the compiler's children)
	 * of a driver before the driver can be reaped: when nothing of the
	 * group is left to wait for, every load process is gone.
	 */
	while (waitpid(-l->pgid, NULL, 0) > 0 || errno == EINTR)
		;
	l->pgid = 0;
	prctl(PR_SET_CHILD_SUBREAPER, l->was_subreaper);
	if (l->src_fd >= 0)
		close(l->src_fd);
	l->src_fd = -1;
}

/* @groups groups of LOAD_PAIRS sender/receiver pairs on a socketpair each. */
static int load_start_messaging(struct load *l, const cpu_mask_t *hk, int groups)
{
	for (int g = 0; g < groups; g++) {
		for (int p = 0; p < LOAD_PAIRS; p++) {
			int sv[2];
			pid_t pid;

			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				return -1;
			pid = load_fork(l, hk);
			if (pid == 0) {
				close(sv[1]);
				load_sender(sv[0], l->shared);
			}
			if (pid > 0)
				pid = load_fork(l, hk);
			if (pid == 0) {
				close(sv[0]);
				load_receiver(sv[1]);
			}
			close(sv[0]);
			close(sv[1]);
			if (pid < 0)
				return -1;
		}
	}
	return 0;
}

int load_start(struct load *l, const cpu_mask_t *hk, int kind, int groups,
	       char *err, size_t errlen)
{
	bool messaging = kind != LOAD_COMPILE, burners = kind == LOAD_MESSAGING;
	bool compile = kind != LOAD_MESSAGING;
	int cpu;

	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->src_fd = -1;
	if (!CPU_COUNT(hk)) {
		snprintf(err, errlen, "no housekeeping CPU to run the load on");
		return -1;
	}
	if (!groups)
		groups = CPU_COUNT(hk);
	if (!messaging)
		groups = 0;
	if (groups * LOAD_PAIRS * 2 + 2 * CPU_COUNT(hk) > LOAD_MAX_PROCS) {
		snprintf(err, errlen, "load of %d groups is too large", groups);
		return -1;
	}
	l->shared = mmap(NULL, sizeof(*l->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->shared == MAP_FAILED) {
		snprintf(err, errlen, "load: mmap: %s", strerror(errno));
		return -1;
	}
	if (compile && !load_find_compiler(l->compiler, sizeof(l->compiler))) {
		l->src_fd = load_source_fd();
		if (l->src_fd < 0)
			l->compiler[0] = '\0';
	}
	prctl(PR_GET_CHILD_SUBREAPER, &l->was_subreaper);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	l->cleanup_handle = cleanup_push(load_kill, l);
	l->start_ns = mono_ns();
	if (load_start_messaging(l, hk, groups))
		goto fail;
	cpu_mask_for_each(cpu, hk) {
		pid_t pid;

		if (burners) {
			pid = load_fork(l, hk);
			if (pid == 0) {
				cpu_pin_self(cpu);
				load_burner(l->shared);
			}
			if (pid < 0)
				goto fail;
		}
		if (compile) {
			pid = load_fork(l, hk);
			if (pid == 0)
				load_driver(l->compiler, l->src_fd, l->shared);
			if (pid < 0)
				goto fail;
			l->ndrivers++;
		}
	}
	return 0;
fail:
	snprintf(err, errlen, "load: cannot start process %d: %s",
		 l->nprocs + 1, strerror(errno));
	cleanup_run_one(l->cleanup_handle);
	munmap(l->shared, sizeof(*l->shared));
	l->shared = NULL;
	return -1;
}

void load_stop(struct load *l, struct load_report *rep)
{
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->kind = l->kind;
		if (l->shared) {
			rep->seconds = (mono_ns() - l->start_ns) / 1e9;
			rep->messages = l->shared->messages;
			rep->burner_loops = l->shared->burner_loops;
			rep->jobs = l->shared->jobs;
			rep->jobs_failed = l->shared->jobs_failed;
			rep->compiles = l->shared->compiles;
			rep->churn = l->shared->churn;
			if (rep->compiles)
				snprintf(rep->compiler, sizeof(rep->compiler),
					 "%s", l->compiler);
		}
	}
	cleanup_run_one(l->cleanup_handle);
	if (l->shared)
		munmap(l->shared, sizeof(*l->shared));
	l->shared = NULL;
}
