// SPDX-License-Identifier: GPL-2.0
/* The kinds of interference a CPU gets: see interference.h. */
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "interference.h"

/*
 * Matched in this order, the first match wins: a remote TLB flush
 * arrives by a function-call vector, which names a function call.
 */
const struct intf_kind_desc intf_kinds[INTF_KINDS] = {
	[INTF_IRQ] = { .name = "irq", .what = "irq", .event = "irq_handler_entry" },
	[INTF_SOFTIRQ] = { .name = "softirq", .what = "softirq", .event = "softirq_entry" },
	[INTF_IPI_CALL] = { .name = "ipi", .what = "function call", .key = "function_call_ipis",
			    .row = "CAL", .vector = "call_function*",
			    .reason = "Function call interrupts" },
	[INTF_IPI_RESCHED] = { .name = "ipi", .what = "reschedule", .key = "reschedule_ipis",
			       .row = "RES", .vector = "reschedule", .reason = "Rescheduling interrupts",
			       .callback = "0x0" },
	[INTF_IPI_TLB] = { .name = "ipi", .what = "TLB shootdown", .key = "tlb_ipis",
			   .row = "TLB", .row_in_call = true, .vector = "call_function*",
			   .callback = "*flush_tlb*" },
	[INTF_THREAD] = { .name = "thread", .what = "thread", .event = "sched_switch" },
};

bool intf_kind_is_ipi(enum intf_kind k)
{
	return k >= 0 && k < INTF_KINDS && intf_kinds[k].key;
}

/* The first kind whose pattern at @field (fnmatch) matches @s, else @otherwise. */
static enum intf_kind kind_matching(size_t field, const char *s, enum intf_kind otherwise)
{
	for (int k = 0; k < INTF_KINDS; k++) {
		const char *pat = *(const char *const *)((const char *)&intf_kinds[k] + field);

		if (pat && !fnmatch(pat, s, 0))
			return k;
	}
	return otherwise;
}

enum intf_kind intf_kind_of_callback(const char *callback)
{
	return kind_matching(offsetof(struct intf_kind_desc, callback), callback, INTF_IPI_CALL);
}

enum intf_kind intf_kind_of_vector(const char *vector)
{
	return kind_matching(offsetof(struct intf_kind_desc, vector), vector, INTF_IRQ);
}

enum intf_kind intf_kind_of_reason(const char *reason)
{
	return kind_matching(offsetof(struct intf_kind_desc, reason), reason, INTF_IRQ);
}

enum intf_kind intf_kind_of_record(const struct trace_event_record *r)
{
	size_t len = strlen(r->event);
	char vec[48];

	for (int k = 0; k < INTF_KINDS; k++)
		if (intf_kinds[k].event && !strcmp(r->event, intf_kinds[k].event))
			return k;
	if (len <= 6 || strcmp(r->event + len - 6, "_entry") || !trace_event_has(r, "vector"))
		return INTF_NONE;
	snprintf(vec, sizeof(vec), "%.*s", (int)(len - 6), r->event);
	return intf_kind_of_vector(vec);
}

bool intf_kind_arrives_as(enum intf_kind sent, enum intf_kind entered)
{
	const char *a = intf_kinds[sent].vector, *b = intf_kinds[entered].vector;

	return a && b && !strcmp(a, b);
}
