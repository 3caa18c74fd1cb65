// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#if defined(__GLIBC_PREREQ) && __GLIBC_PREREQ(2, 35)
#include <sys/rseq.h>	/* glibc 2.35+: where glibc registered rseq */
#define HAVE_GLIBC_RSEQ	1
#endif
#include <sys/syscall.h>
#include <unistd.h>

#include "rseq.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE	27
#endif
#ifndef SYS_rseq
#define SYS_rseq		334
#endif
#define RSEQ_FLAG_UNREGISTER	1

/* The signature glibc registers with (and our own registration). */
#ifndef RSEQ_SIG
#if defined(__aarch64__)
#define RSEQ_SIG	0xd428bc00
#else
#define RSEQ_SIG	0x53053053
#endif
#endif

/*
 * glibc's __rseq_offset and __rseq_size (glibc 2.35+; an older glibc
 * registers nothing): referenced, not looked up with dlsym(), which sees
 * no glibc symbol in a static build, whose own registration then
 * collided with glibc's; set once by rseq_probe().
 */
static const ptrdiff_t *glibc_rseq_offset;
static const unsigned int *glibc_rseq_size;

static __thread struct rseq_abi own_area;
static __thread bool own_registered;
static pthread_key_t own_key;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

/*
 * The marker's descriptor: start_ip/post_commit_offset name a one-byte
 * range that no code runs in, abort_ip points just past a word holding
 * the signature, as the kernel checks before it clears rseq_cs.
 */
struct rseq_cs_abi {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

static const uint32_t marker_sig[2] = { RSEQ_SIG, 0 };
static const char marker_range[8];
static struct rseq_cs_abi marker_cs;

static bool glibc_registered(void)
{
	return glibc_rseq_size && glibc_rseq_offset && *glibc_rseq_size > 0;
}

static void own_unregister(void *arg)
{
	(void)arg;
	if (own_registered)
		syscall(SYS_rseq, &own_area, sizeof(own_area),
			RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
	own_registered = false;
}

static void own_key_create(void)
{
	pthread_key_create(&own_key, own_unregister);
}

volatile struct rseq_abi *rseq_area(void)
{
	if (glibc_registered())
		return (volatile struct rseq_abi *)
			((char *)__builtin_thread_pointer() + *glibc_rseq_offset);
	return own_registered ? &own_area : NULL;
}

int rseq_thread_init(void)
{
	if (glibc_registered() || own_registered)
		return 0;
	if (syscall(SYS_rseq, &own_area, sizeof(own_area), 0, RSEQ_SIG))
		return -1;
	own_registered = true;
	pthread_once(&own_once, own_key_create);
	/* any non-NULL value makes the destructor run at thread exit */
	pthread_setspecific(own_key, &own_area);
	return 0;
}

int rseq_probe(struct rseq_info *ri)
{
	memset(ri, 0, sizeof(*ri));
#ifdef HAVE_GLIBC_RSEQ
	glibc_rseq_offset = &__rseq_offset;
	glibc_rseq_size = &__rseq_size;
#endif
	ri->feature_size = getauxval(AT_RSEQ_FEATURE_SIZE);
	ri->has_mm_cid = ri->feature_size >= RSEQ_FEATURE_MM_CID;
	if (glibc_registered()) {
		ri->by_glibc = true;
		ri->offset = *glibc_rseq_offset;
		ri->size = *glibc_rseq_size;
	} else if (rseq_thread_init()) {
		snprintf(ri->why, sizeof(ri->why),
			 "rseq registration refused: %s", strerror(errno));
		return -1;
	}
	ri->registered = true;
	rseq_marker_desc();	/* set up once, before any thread uses it */
	if (!ri->has_mm_cid)
		snprintf(ri->why, sizeof(ri->why),
			 "no mm_cid: AT_RSEQ_FEATURE_SIZE is %u (mm_cid needs %d, Linux 6.3 or later)",
			 ri->feature_size, RSEQ_FEATURE_MM_CID);
	return 0;
}

uint64_t rseq_marker_desc(void)
{
	if (!marker_cs.abort_ip) {
		marker_cs.start_ip = (uintptr_t)marker_range;
		marker_cs.post_commit_offset = 1;
		marker_cs.abort_ip = (uintptr_t)&marker_sig[1];
	}
	return (uintptr_t)&marker_cs;
}

void rseq_marker_arm(volatile struct rseq_abi *rs)
{
	rs->rseq_cs = rseq_marker_desc();
}
