// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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

int ipi_stacks_trigger(const char *dir, const char *cpu_cond, const char *mask_cond,
		       char *why, size_t len)
{
	const char *const events[2][2] = {
		{ "ipi/ipi_send_cpu", cpu_cond }, { "ipi/ipi_send_cpumask", mask_cond },
	};
	char path[400], trig[600];

	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(trig, sizeof(trig), "stacktrace if callback != 0 && %s", events[i][1]);
		snprintf(path, sizeof(path), "%s/events/%s/trigger", dir, events[i][0]);
		if (write_file(path, trig)) {
			snprintf(why, len, "the stacktrace trigger of %s: %s", events[i][0],
				 strerror(errno));
			return -1;
		}
	}
	return 0;
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

/* Send @item is complete: its source, to the caller. */
static void send_done(void *arg, void *item)
{
	struct ipi_sends *q = arg;
	struct ipi_send *s = item;

	ipi_source_find(s);
	q->stacks += s->w.stack;
	q->done(q->arg, s);
}

void ipi_sends_init(struct ipi_sends *q, const cpu_mask_t *cpus,
		    void (*done)(void *arg, const struct ipi_send *s), void *arg)
{
	memset(q, 0, sizeof(*q));
	q->cpus = *cpus;
	q->done = done;
	q->arg = arg;
	stack_wait_init(&q->wait, q->pending, sizeof(q->pending[0]), IPI_SENDS_PENDING, send_done,
			q);
}

/* The watched targets of an ipi_send_cpu or ipi_send_cpumask record. */
static bool send_targets(const struct ipi_sends *q, const struct trace_event_record *r,
			 cpu_mask_t *hit)
{
	uint64_t cpu;

	CPU_ZERO(hit);
	if (!strcmp(r->event, "ipi_send_cpu")) {
		if (trace_event_u64(r, "cpu", &cpu) || cpu >= CPU_SETSIZE)
			return false;
		CPU_SET(cpu, hit);
		CPU_AND(hit, hit, &q->cpus);
	} else {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &q->cpus) && trace_event_mask_has(r, "cpumask", c))
				CPU_SET(c, hit);
	}
	return CPU_COUNT(hit) > 0;
}

/* A function field by name ("" when the kernel records none), a null one as "0x0". */
static void send_func(const struct trace_event_record *r, const char *field, char *buf,
		      size_t len)
{
	if (!trace_event_str(r, field, buf, len))
		buf[0] = '\0';
	else if (!strcmp(buf, "(nil)"))
		snprintf(buf, len, "0x0");
}

void ipi_sends_frame(struct ipi_sends *q, const char *func)
{
	struct ipi_send *s = stack_wait_frame(&q->wait, func);

	if (s && s->nframes < IPI_SOURCE_FRAMES)
		snprintf(s->frames[s->nframes++], sizeof(s->frames[0]), "%s", func);
}

void ipi_sends_record(struct ipi_sends *q, const struct trace_event_record *r)
{
	struct ipi_send *s;

	if (!strcmp(r->event, "kernel_stack")) {
		stack_wait_stack(&q->wait, r->cpu);
		return;
	}
	s = stack_wait_next(&q->wait, r->cpu);
	if (!send_targets(q, r, &s->targets))
		return;
	snprintf(s->comm, sizeof(s->comm), "%s", r->comm ? r->comm : "<...>");
	s->pid = r->pid;
	s->irq = r->irq;
	s->ts_ns = r->ts_ns;
	send_func(r, "callsite", s->callsite, sizeof(s->callsite));
	send_func(r, "callback", s->callback, sizeof(s->callback));
	stack_wait_keep(&q->wait);
	q->sends++;
}

void ipi_sends_flush(struct ipi_sends *q)
{
	stack_wait_flush(&q->wait);
}
