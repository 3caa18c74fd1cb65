// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's user-space storm modes: a thread pinned to src makes calls
 * that each need one IPI to dst, and waits for it. Each mode is its
 * setup and its measured loop (the operation and nothing else; the
 * storm thread times it from outside, 256 calls a burst).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipistorm_common.h"

const char *const ipistorm_tlb_op_names[] = { "madvise", "mprotect", NULL };

/*
 * membarrier: membarrier(PRIVATE_EXPEDITED_RSEQ, FLAG_CPU, dst) while a
 * thread of this process spins on dst.
 */
int ipistorm_membarrier_ready(char *why, size_t len)
{
	long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (q < 0)
		snprintf(why, len, "membarrier: %s", strerror(errno));
	else if (!(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		snprintf(why, len, "membarrier PRIVATE_EXPEDITED_RSEQ not supported by this kernel (CONFIG_RSEQ?)");
	else if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0))
		snprintf(why, len, "membarrier REGISTER_PRIVATE_EXPEDITED_RSEQ: %s", strerror(errno));
	else if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
			 MEMBARRIER_CMD_FLAG_CPU, 0) && errno == EINVAL)
		snprintf(why, len, "membarrier MEMBARRIER_CMD_FLAG_CPU not supported (kernel < 5.10)");
	else
		return 0;
	return -1;
}

void ipistorm_membarrier_ipi(int cpu)
{
	syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
		MEMBARRIER_CMD_FLAG_CPU, cpu);
}

static void membarrier_setup(struct storm *s)
{
	char why[160];

	if (ipistorm_membarrier_ready(why, sizeof(why)))
		bench_skip(s->b, "%s", why);
}

static void membarrier_pair_describe(const struct storm *s, struct pair *p)
{
	(void)s;
	p->busy = true;
}

static uint64_t membarrier_burst(struct pair *p, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		ipistorm_membarrier_ipi(p->dst);
	return n;
}

const struct storm_mode ipistorm_membarrier_mode = {
	.name = "membarrier",
	.setup = membarrier_setup,
	.pair_describe = membarrier_pair_describe,
	.burst = membarrier_burst,
	.busy_dst_why = "membarrier returns at once, without an IPI, while dst runs another process",
};

/*
 * perf-read: read() of a software perf event bound to dst (idle dst by
 * default, as the ipistorm numbers of the Idle Load Balance series;
 * --target busy keeps a spinner on it).
 */
static void perf_read_pair_setup(struct storm *s, struct pair *p)
{
	struct counter *ev = calloc(1, sizeof(*ev));

	if (!ev)
		ksft_exit_fail_msg("no memory\n");
	if (counter_open_sw(ev, PERF_COUNT_SW_CPU_CLOCK, -1, p->dst))
		bench_skip(s->b, "perf event on cpu %d: %s", p->dst, ev->error);
	counter_enable(ev);
	p->priv = ev;
}

static void perf_read_pair_describe(const struct storm *s, struct pair *p)
{
	p->busy = s->o->target == 1;
}

static uint64_t perf_read_burst(struct pair *p, uint64_t n)
{
	int fd = ((struct counter *)p->priv)->fd;
	uint64_t val;

	for (uint64_t k = 0; k < n; k++)
		if (read(fd, &val, sizeof(val)) != sizeof(val))
			return k;
	return n;
}

const struct storm_mode ipistorm_perf_read_mode = {
	.name = "perf-read",
	.pair_describe = perf_read_pair_describe,
	.pair_setup = perf_read_pair_setup,
	.burst = perf_read_burst,
	.busy_dst_why = "an event not active on dst is read without an IPI",
};

/*
 * tlb: madvise(MADV_DONTNEED) or mprotect() of a page of this process
 * while a thread of it runs on dst: a shootdown each.
 */
struct tlb_page {
	char *page;
	size_t size;
	bool mprotect, writable;
};

/*
 * Where /proc/interrupts has no TLB row a remote flush sends no IPI:
 * arm64 invalidates other CPUs' TLBs by broadcast instructions.
 */
static void tlb_setup(struct storm *s)
{
	struct irq_table t;
	bool has_row;

	if (irq_table_read("/proc/interrupts", &t))
		bench_skip(s->b, "/proc/interrupts cannot be read");
	has_row = irq_table_count(&t, intf_kinds[INTF_IPI_TLB].row, t.cpu_of_col[0]) >= 0;
	irq_table_free(&t);
	if (!has_row)
		bench_skip(s->b, "no TLB shootdown IPIs to count: /proc/interrupts has no TLB row (arm64 flushes other CPUs' TLBs by broadcast, in hardware)");
}

static void tlb_pair_describe(const struct storm *s, struct pair *p)
{
	p->busy = true;
	p->variant = ipistorm_tlb_op_names[s->o->tlb_op];
}

static void tlb_pair_setup(struct storm *s, struct pair *p)
{
	struct tlb_page *t = calloc(1, sizeof(*t));

	if (!t)
		ksft_exit_fail_msg("no memory\n");
	t->size = sysconf(_SC_PAGESIZE);
	t->mprotect = s->o->tlb_op == 1;
	t->writable = true;
	t->page = mmap(NULL, t->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->page == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	t->page[0] = 1;
	p->priv = t;
}

static uint64_t tlb_burst(struct pair *p, uint64_t n)
{
	struct tlb_page *t = p->priv;

	if (!t->mprotect) {
		for (uint64_t k = 0; k < n; k++) {
			t->page[0] = 1;	/* map it again */
			madvise(t->page, t->size, MADV_DONTNEED);
		}
		return n;
	}
	/* every change of protection is one flush */
	for (uint64_t k = 0; k < n; k++) {
		t->writable = !t->writable;
		mprotect(t->page, t->size, t->writable ?
			 PROT_READ | PROT_WRITE : PROT_READ);
	}
	return n;
}

const struct storm_mode ipistorm_tlb_mode = {
	.name = "tlb",
	.setup = tlb_setup,
	.pair_describe = tlb_pair_describe,
	.pair_setup = tlb_pair_setup,
	.burst = tlb_burst,
	.busy_dst_why = "no shootdown is needed while dst runs another mm",
};
