/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an IPI came from. The ipi:ipi_send_cpu and ipi_send_cpumask
 * records (Linux 6.3+) name the caller of the send (callsite) and the
 * function the target runs (callback); with the stacktrace trigger on
 * them (`stacktrace if ...` in the event's trigger file) each is
 * followed by the sender's kernel stack. The source of an IPI is the
 * first function of that stack outside the tracing and the generic
 * cross-CPU call code (smp_call_function*, on_each_cpu*,
 * generic_exec_single, irq_work_queue*, the APIC send paths): a
 * membarrier, a text_poke, a TLB flush, a nohz_full kick, a wakeup.
 * Without a stack it is the callsite; a kernel without callsite gives
 * none (the caller falls back to the callback).
 *
 * The sends and their stacks come as records of the owner's event table
 * (trace_event.h):
 *
 *	struct ipi_sends q;
 *	ipi_sends_init(&q, &cpus, done, arg);
 *	rows ipi_send_cpu, ipi_send_cpumask, kernel_stack: ipi_sends_record(&q, rec);
 *	the table's frame handler: ipi_sends_frame(&q, func);
 *	ipi_sends_flush(&q);	done(arg, send) ran for each send to @cpus
 */
#ifndef ISOLBENCH_IPI_SOURCE_H
#define ISOLBENCH_IPI_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/cpu.h"
#include "stack_wait.h"
#include "trace_event.h"

#define IPI_SOURCE_FRAMES	24	/* stack frames kept */
#define IPI_SENDS_PENDING	16	/* sends waiting for their stack */

struct ipi_send {
	struct stack_wait_item w;	/* the CPU it was sent from; its stack came */
	/* the sender, and when */
	char comm[32];
	pid_t pid;
	bool irq;			/* it sent from an interrupt */
	uint64_t ts_ns;
	cpu_mask_t targets;		/* of the watched CPUs */
	char callsite[64];		/* "" when the kernel records none */
	char callback[64];		/* "0x0": a reschedule */
	char source[64];		/* where it came from ("" when unknown) */
	int nframes;
	char frames[IPI_SOURCE_FRAMES][64];
};

struct ipi_sends {
	cpu_mask_t cpus;		/* sends to these are kept */
	void (*done)(void *arg, const struct ipi_send *s);
	void *arg;
	struct stack_wait wait;		/* sends waiting for their stack */
	struct ipi_send pending[IPI_SENDS_PENDING];
	uint64_t sends, stacks;		/* kept, and of those with a stack */
};

void ipi_sends_init(struct ipi_sends *q, const cpu_mask_t *cpus,
		    void (*done)(void *arg, const struct ipi_send *s), void *arg);
/* An ipi_send_cpu or ipi_send_cpumask record, or a kernel_stack after one. */
void ipi_sends_record(struct ipi_sends *q, const struct trace_event_record *rec);
/* A frame of the stack record last given (innermost first); NULL: its end. */
void ipi_sends_frame(struct ipi_sends *q, const char *func);
/* The end of the records: every send still waiting is done. */
void ipi_sends_flush(struct ipi_sends *q);

/*
 * Whether the kernel's stack traces can name a source: not with
 * CONFIG_UNWINDER_GUESS, which lists whatever return addresses it finds
 * on the stack (false, and why in @why).
 */
bool ipi_stacks_reliable(char *why, size_t len);
/*
 * The senders' stacks of the IPIs with a callback (a reschedule's call
 * site names it already) to the CPUs of @cpu_cond and @mask_cond
 * ("cpu == 2", "cpumask & CPUS{2}"): the stacktrace trigger on
 * ipi_send_cpu and ipi_send_cpumask of the trace instance @dir. 0, or
 * -1 with the event refused and its errno in @why.
 */
int ipi_stacks_trigger(const char *dir, const char *cpu_cond, const char *mask_cond,
		       char *why, size_t len);
/* Whether @func is tracing or generic cross-CPU call code, not a source. */
bool ipi_frame_generic(const char *func);
/* The source of @s from its stack, else its callsite, into s->source. */
void ipi_source_find(struct ipi_send *s);

#endif
