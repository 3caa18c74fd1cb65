// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipi_source.h"
#include "kconfig.h"
#include "../base/util.h"

/*
 * Frames that are not where an IPI came from, by prefix: the tracing
 * that recorded it, then the cross-CPU call code every sender goes
 * through (and the x86 paths that raise the IPI).
 */
static const char *const generic_prefixes[] = {
	/* tracing */
	"trace_event_raw_event_", "perf_trace_", "__traceiter_", "__trace_",
	"trace_", "event_trigger", "stack_trace", "__ftrace", "ftrace_",
	"__bpf_trace",
	/* generic cross-CPU calls */
	"smp_call_function", "__smp_call_single_queue", "generic_exec_single",
	"on_each_cpu", "irq_work_queue", "__irq_work_queue",
	"arch_send_call_function", "send_call_function", "native_send_call_func",
	"smp_send_reschedule", "native_smp_send_reschedule", "arch_smp_send_reschedule",
	/* the APIC and the TLB flush dispatch */
	"__send_ipi", "default_send_IPI", "x2apic_send_IPI", "__x2apic_send_IPI",
	"flat_send_IPI", "kvm_send_ipi", "__kvm_send_ipi", "native_flush_tlb_multi",
	"flush_tlb_multi", "__flush_tlb_multi",
};

bool ipi_stacks_reliable(char *why, size_t len)
{
	char v[8];

	if (kconfig_value("CONFIG_UNWINDER_GUESS", v, sizeof(v)) || strcmp(v, "y"))
		return true;
	snprintf(why, len, "this kernel's stack traces come from the guess unwinder (CONFIG_UNWINDER_GUESS): they list stale return addresses");
	return false;
}

bool ipi_frame_generic(const char *func)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic_prefixes); i++)
		if (!strncmp(func, generic_prefixes[i], strlen(generic_prefixes[i])))
			return true;
	return false;
}

void ipi_source_find(struct ipi_send *s)
{
	s->source[0] = '\0';
	for (int i = 0; i < s->nframes; i++) {
		if (!ipi_frame_generic(s->frames[i])) {
			snprintf(s->source, sizeof(s->source), "%s", s->frames[i]);
			return;
		}
	}
	snprintf(s->source, sizeof(s->source), "%s", s->callsite);
}

void ipi_sends_init(struct ipi_sends *q, const cpu_mask_t *cpus,
		    void (*done)(void *arg, const struct ipi_send *s), void *arg)
{
	memset(q, 0, sizeof(*q));
	q->cpus = *cpus;
	q->done = done;
	q->arg = arg;
	q->collecting = -1;
}

/* Send @i is complete: its source, to the caller, out of the queue. */
static void send_done(struct ipi_sends *q, int i)
{
	struct ipi_send *s = &q->pending[i];

	ipi_source_find(s);
	q->stacks += s->have_stack;
	q->done(q->arg, s);
	memmove(&q->pending[i], &q->pending[i + 1], (q->npending - i - 1) * sizeof(*s));
	q->npending--;
	if (q->collecting > i)
		q->collecting--;
	else if (q->collecting == i)
		q->collecting = -1;
}

static int pending_of_cpu(const struct ipi_sends *q, int cpu)
{
	for (int i = 0; i < q->npending; i++)
		if (q->pending[i].rec.cpu == cpu && !q->pending[i].have_stack)
			return i;
	return -1;
}

/* The watched targets of an ipi_send_cpu or ipi_send_cpumask record. */
static bool send_targets(const struct ipi_sends *q, const struct trace_record *r,
			 cpu_mask_t *hit)
{
	const char *v;

	CPU_ZERO(hit);
	if (!strcmp(r->event, "ipi_send_cpu")) {
		long cpu = trace_field_long(r->fields, "cpu", -1);

		if (cpu < 0 || cpu >= CPU_SETSIZE)
			return false;
		CPU_SET(cpu, hit);
	} else {
		/* a hex bitmask ("%*pb"), not a cpulist */
		v = trace_field(r->fields, "cpumask");
		if (!v || cpu_mask_parse_hex(v, strcspn(v, " \n"), hit))
			return false;
	}
	CPU_AND(hit, hit, &q->cpus);
	return CPU_COUNT(hit) > 0;
}

bool ipi_sends_line(struct ipi_sends *q, const char *line)
{
	struct trace_record r;
	struct ipi_send *s;
	char frame[64];
	int i;

	if (trace_stack_frame(line, frame, sizeof(frame))) {
		if (q->collecting >= 0) {
			s = &q->pending[q->collecting];
			if (s->nframes < IPI_SOURCE_FRAMES)
				snprintf(s->frames[s->nframes++], sizeof(s->frames[0]), "%s", frame);
		}
		return q->collecting >= 0 || q->skipping;
	}
	/* any other line ends the stack being read */
	if (q->collecting >= 0)
		send_done(q, q->collecting);
	q->skipping = false;
	if (trace_record_parse(line, &r))
		return false;
	if (!strcmp(r.event, "<stack trace>")) {
		i = pending_of_cpu(q, r.cpu);
		q->collecting = i;
		q->skipping = i < 0;
		if (i >= 0)
			q->pending[i].have_stack = true;
		return true;
	}
	if (strcmp(r.event, "ipi_send_cpu") && strcmp(r.event, "ipi_send_cpumask"))
		return false;
	/* an earlier send of this CPU got no stack: done without */
	i = pending_of_cpu(q, r.cpu);
	if (i >= 0)
		send_done(q, i);
	if (q->npending == IPI_SENDS_PENDING)
		send_done(q, 0);
	s = &q->pending[q->npending];
	memset(s, 0, sizeof(*s));
	if (!send_targets(q, &r, &s->targets))
		return true;
	s->rec = r;
	s->rec.fields = NULL;	/* the line is not kept */
	trace_field_func(r.fields, "callsite", s->callsite, sizeof(s->callsite));
	trace_field_func(r.fields, "callback", s->callback, sizeof(s->callback));
	if (!strcmp(s->callback, "(nil)"))
		snprintf(s->callback, sizeof(s->callback), "0x0");
	q->npending++;
	q->sends++;
	return true;
}

void ipi_sends_flush(struct ipi_sends *q)
{
	while (q->npending)
		send_done(q, 0);
	q->skipping = false;
}
