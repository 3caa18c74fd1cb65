/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Restartable sequences from user space: who registered the thread's
 * rseq area (glibc through __rseq_offset/__rseq_size, or this library
 * when glibc did not), which fields the kernel fills in
 * (AT_RSEQ_FEATURE_SIZE: 28 or more means mm_cid is there), and the
 * thread's current CPU and concurrency ID (mm_cid) read from the area.
 *
 * The notify-resume marker: a valid but never-entered critical section
 * descriptor is stored in the area's rseq_cs field; the kernel clears
 * that field on every return to user space that runs its rseq handler
 * (preemption, migration, signal delivery and task_work queued with
 * TWA_RESUME, such as the periodic mm_cid scan of 6.4 to 6.18). A busy
 * loop that finds the field cleared knows that the kernel entry it just
 * came back from went through the notify-resume path.
 */
#ifndef ISOLBENCH_RSEQ_H
#define ISOLBENCH_RSEQ_H

#include <stdbool.h>
#include <stdint.h>

/* The fixed part of the ABI, as include/uapi/linux/rseq.h lays it out. */
struct rseq_abi {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	char end[];
} __attribute__((aligned(32)));

/* The offset just past mm_cid: the feature size that includes it. */
#define RSEQ_FEATURE_MM_CID	28

struct rseq_info {
	bool registered;	/* the calling thread has an rseq area */
	bool by_glibc;		/* glibc registered it (else this library) */
	unsigned int feature_size;	/* AT_RSEQ_FEATURE_SIZE, 0 if absent */
	bool has_mm_cid;	/* feature_size >= RSEQ_FEATURE_MM_CID */
	long offset;		/* glibc's __rseq_offset */
	unsigned int size;	/* glibc's __rseq_size */
	char why[160];		/* why not registered / no mm_cid */
};

/*
 * Probe once (from the main thread): glibc's registration, the kernel's
 * feature size, and, when glibc did not register, whether the kernel
 * accepts a registration of our own. Fills @ri; 0 when the thread has a
 * usable area, -1 otherwise (reason in ri->why).
 */
int rseq_probe(struct rseq_info *ri);

/*
 * Make sure the calling thread has an area: glibc's, or register one
 * of our own (unregistered again when the thread exits). Call at the
 * start of every thread that reads its area. 0 or -1.
 */
int rseq_thread_init(void);
/* The calling thread's area, NULL if none. */
volatile struct rseq_abi *rseq_area(void);

static inline uint32_t rseq_mm_cid(volatile struct rseq_abi *rs)
{
	return rs->mm_cid;
}

static inline uint32_t rseq_cpu(volatile struct rseq_abi *rs)
{
	return rs->cpu_id;
}

/* Arm the notify-resume marker in @rs (see above). */
void rseq_marker_arm(volatile struct rseq_abi *rs);
/* True once when the kernel has cleared the marker; re-arms it. */
static inline bool rseq_marker_fired(volatile struct rseq_abi *rs,
				     uint64_t desc)
{
	if (__builtin_expect(rs->rseq_cs != 0, 1))
		return false;
	rs->rseq_cs = desc;
	return true;
}
/* The descriptor address rseq_marker_fired() re-arms with. */
uint64_t rseq_marker_desc(void);

#endif
