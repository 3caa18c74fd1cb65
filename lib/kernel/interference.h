/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kinds of interference a CPU gets, one table for every program:
 * ipistorm's watch counts the IPI kinds of it (per kind, from the trace
 * or /proc/interrupts), timer_softirq's quiet phase attributes the busy
 * loop's gaps to all of them. Each kind has the name the noise prints
 * and names its metrics by, the words the watch prints, its JSON key,
 * its /proc/interrupts row and how a trace record is classified into it.
 * A new kind is one enum value and one line of intf_kinds[].
 */
#ifndef ISOLBENCH_KERNEL_INTERFERENCE_H
#define ISOLBENCH_KERNEL_INTERFERENCE_H

#include <stdbool.h>

#include "trace_event.h"

enum intf_kind {
	INTF_IRQ,		/* a hard interrupt that is not an IPI */
	INTF_SOFTIRQ,
	INTF_IPI_CALL,		/* a function-call IPI */
	INTF_IPI_RESCHED,	/* a reschedule IPI */
	INTF_IPI_TLB,		/* a TLB shootdown, run by a function-call IPI */
	INTF_THREAD,		/* a thread that preempted the CPU's own */
	INTF_KINDS,
	INTF_NONE = -1		/* a record that starts no interference */
};

struct intf_kind_desc {
	const char *name;	/* the noise's: "irq", "softirq", "ipi", "thread" */
	const char *what;	/* the watch's words: "function call", "reschedule" */
	const char *key;	/* the watch's JSON key of its count; NULL: no IPI */
	const char *row;	/* its /proc/interrupts row (x86), or NULL */
	bool row_in_call;	/* its row's counts are in the function-call row too */
	const char *event;	/* the trace event that starts one, or NULL */
	const char *vector;	/* the x86 vectors it arrives by (fnmatch), or NULL */
	const char *reason;	/* arm64's ipi_entry reason it arrives by, or NULL */
	const char *callback;	/* an IPI send's callbacks of it (fnmatch), or NULL */
};

extern const struct intf_kind_desc intf_kinds[INTF_KINDS];

/* Whether @k is one of the IPI kinds (it has a JSON key). */
bool intf_kind_is_ipi(enum intf_kind k);
/* The kind of an IPI sent with @callback ("0x0": a reschedule); a function call by default. */
enum intf_kind intf_kind_of_callback(const char *callback);
/* The kind of an interrupt entered by x86 vector @vector ("reschedule"); an irq by default. */
enum intf_kind intf_kind_of_vector(const char *vector);
/*
 * The kind of an arm64 IPI entered for @reason (ipi_entry's "Rescheduling
 * interrupts"); an irq for the others ("IRQ work interrupts").
 */
enum intf_kind intf_kind_of_reason(const char *reason);
/*
 * The kind whose activity trace record @r starts (an irq_vectors
 * "NAME_entry" by its vector), or INTF_NONE.
 */
enum intf_kind intf_kind_of_record(const struct trace_event_record *r);
/* Whether an IPI of kind @sent is taken by an interrupt of kind @entered (the same vectors). */
bool intf_kind_arrives_as(enum intf_kind sent, enum intf_kind entered);

#endif
