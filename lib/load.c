// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "load.h"

#define LOAD_MSG_BYTES	100	/* hackbench's default message size */
#define LOAD_PAIRS	10	/* sender/receiver pairs per group */
#define LOAD_MAX_PROCS	1024

struct load_stats {
	volatile uint64_t messages;
	volatile uint64_t burner_loops;
};

/* Children only: make sure a dead benchmark never leaves load behind. */
static void load_child_setup(const cpu_mask_t *hk, pid_t parent)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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
	while (waitpid(-l->pgid, NULL, 0) > 0 || errno == EINTR)
		;
	l->pgid = 0;
}

int load_start(struct load *l, const cpu_mask_t *hk, int groups,
	       char *err, size_t errlen)
{
	int cpu;

	memset(l, 0, sizeof(*l));
	if (!CPU_COUNT(hk)) {
		snprintf(err, errlen, "no housekeeping CPU to run the load on");
		return -1;
	}
	if (!groups)
		groups = CPU_COUNT(hk);
	if (groups * LOAD_PAIRS * 2 + CPU_COUNT(hk) > LOAD_MAX_PROCS) {
		snprintf(err, errlen, "load of %d groups is too large", groups);
		return -1;
	}
	l->shared = mmap(NULL, sizeof(*l->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->shared == MAP_FAILED) {
		snprintf(err, errlen, "load: mmap: %s", strerror(errno));
		return -1;
	}
	l->cleanup_handle = cleanup_push(load_kill, l);
	l->start_ns = mono_ns();
	for (int g = 0; g < groups; g++) {
		for (int p = 0; p < LOAD_PAIRS; p++) {
			int sv[2];
			pid_t pid;

			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				goto fail;
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
				goto fail;
		}
	}
	cpu_mask_for_each(cpu, hk) {
		pid_t pid = load_fork(l, hk);

		if (pid == 0) {
			cpu_pin_self(cpu);
			load_burner(l->shared);
		}
		if (pid < 0)
			goto fail;
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
		if (l->shared) {
			rep->seconds = (mono_ns() - l->start_ns) / 1e9;
			rep->messages = l->shared->messages;
			rep->burner_loops = l->shared->burner_loops;
		}
	}
	cleanup_run_one(l->cleanup_handle);
	if (l->shared)
		munmap(l->shared, sizeof(*l->shared));
	l->shared = NULL;
}
