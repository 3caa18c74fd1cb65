// SPDX-License-Identifier: GPL-2.0
/* Cache lines kept remote by a writer on another CPU: see cid_scan_remote.h. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/cleanup.h"
#include "lib/base/clock.h"
#include "lib/base/cpu.h"
#include "lib/base/ktap.h"
#include "cid_scan_remote.h"

/* On another CPU: touch every line so the reader's loads are remote. */
static void *remote_lines_writer(void *arg)
{
	struct remote_lines *rl = arg;
	int seen = 0;

	cpu_pin_self(rl->writer_cpu);
	while (!rl->stop) {
		if (rl->want == seen) {
			sched_yield();
			continue;
		}
		seen = rl->want;
		for (int i = 0; i < rl->n; i++) {
			remote_line(rl->base, i)->val = i;
			remote_line(rl->base, i)->tag = seen;
		}
		__atomic_store_n(&rl->done, seen, __ATOMIC_RELEASE);
	}
	return NULL;
}

void cid_scan_remote_lines_start(struct remote_lines *rl, int n, int writer_cpu)
{
	memset(rl, 0, sizeof(*rl));
	rl->n = n;
	rl->writer_cpu = writer_cpu;
	rl->base = aligned_alloc(4096, (size_t)n * REMOTE_LINE_STRIDE);
	if (!rl->base)
		ksft_exit_fail_msg("out of memory\n");
	memset(rl->base, 0, (size_t)n * REMOTE_LINE_STRIDE);
	errno = pthread_create(&rl->th, NULL, remote_lines_writer, rl);
	if (errno)	/* returned, not set */
		ksft_exit_fail_msg("pthread_create: %s\n", strerror(errno));
}

bool cid_scan_remote_lines_refresh(struct remote_lines *rl)
{
	uint64_t end = mono_ns() + REMOTE_LINES_WAIT_NS;
	int gen = ++rl->gen;

	rl->want = gen;
	while (__atomic_load_n(&rl->done, __ATOMIC_ACQUIRE) != gen) {
		if (bench_stop)
			return false;
		if (mono_ns() > end)
			ksft_exit_fail_msg("MODEL: the writer thread on cpu %d did not rewrite the lines within %llu s\n",
					   rl->writer_cpu,
					   REMOTE_LINES_WAIT_NS / 1000000000ULL);
		sched_yield();
	}
	return true;
}

void cid_scan_remote_lines_stop(struct remote_lines *rl)
{
	rl->stop = 1;
	pthread_join(rl->th, NULL);
	free(rl->base);
	rl->base = NULL;
}
