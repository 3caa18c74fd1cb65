// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the interference kinds (lib/kernel/interference.h): the
 * table's names and rows as the programs print them, and each kind a
 * trace record or an IPI's callback is classified into.
 */
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/base/util.h"
#include "lib/kernel/interference.h"

static const struct {
	const char *line;
	enum intf_kind kind;
} records[] = {
	{ "  spin-900 [001] d.h1.  1000.000100: local_timer_entry: vector=236", INTF_IRQ },
	{ "  spin-900 [001] d.h1.  1000.000101: local_timer_exit: vector=236", INTF_NONE },
	{ "  spin-900 [001] ..s1.  1000.000108: softirq_entry: vec=1 [action=TIMER]", INTF_SOFTIRQ },
	{ "  spin-900 [001] d.h1.  1000.000210: irq_handler_entry: irq=11 name=virtio0", INTF_IRQ },
	{ "  spin-900 [001] d..2.  1000.000200: sched_switch: prev_comm=spin prev_pid=900 prev_prio=120 prev_state=R ==> next_comm=kworker/1:2 next_pid=77 next_prio=120",
	  INTF_THREAD },
	{ "  spin-900 [001] d.h1.  1000.000300: call_function_single_entry: vector=251", INTF_IPI_CALL },
	{ "  spin-900 [001] d.h1.  1000.000300: call_function_entry: vector=252", INTF_IPI_CALL },
	{ "  spin-900 [001] d.h1.  1000.000400: reschedule_entry: vector=253", INTF_IPI_RESCHED },
	{ "  <idle>-0 [001] d.h1.  1000.000800: hrtimer_expire_entry: hrtimer=0000000012345678 function=hrtimer_wakeup now=1000000800000",
	  INTF_NONE },
	/* an "_entry" that is no vector */
	{ "  <idle>-0 [001] ..s1.  1000.000900: timer_expire_entry: timer=00000000abcdef01 function=process_timeout now=4295 baseclk=4295",
	  INTF_NONE },
};

/* Every record, as the noise timeline's table gives it. */
static void kind_of(void *ctx, const struct trace_event_record *rec)
{
	*(int *)ctx = intf_kind_of_record(rec);
}

static const struct trace_event_row any[] = { { "any", "*", NULL, false, kind_of } };

static const struct {
	const char *callback;
	enum intf_kind kind;
} callbacks[] = {
	{ "0x0", INTF_IPI_RESCHED },
	{ "flush_tlb_func", INTF_IPI_TLB },
	{ "do_flush_tlb_all", INTF_IPI_TLB },
	{ "ipi_mb", INTF_IPI_CALL },
	{ "generic_smp_call_function_single_interrupt", INTF_IPI_CALL },
	{ "0x0123", INTF_IPI_CALL },
};

/* What the programs print and write: the noise's names, the watch's keys, words and rows. */
static void names(void)
{
	static const char *const noise[INTF_KINDS] = { "irq", "softirq", "ipi", "ipi", "ipi", "thread" };
	static const char *const keys[] = { "function_call_ipis", "reschedule_ipis", "tlb_ipis" };
	static const char *const what[] = { "function call", "reschedule", "TLB shootdown" };
	static const char *const rows[] = { "CAL", "RES", "TLB" };
	int bad = 0, ipis = 0;

	for (int k = 0; k < INTF_KINDS; k++)
		bad += strcmp(intf_kinds[k].name, noise[k]) != 0;
	ksft_test_result(!bad, "the noise's kind names: irq, softirq, ipi (x3), thread");
	bad = 0;
	for (int k = 0; k < INTF_KINDS; k++) {
		if (!intf_kind_is_ipi(k))
			continue;
		bad += ipis > 2 || strcmp(intf_kinds[k].key, keys[ipis]) ||
		       strcmp(intf_kinds[k].what, what[ipis]) || strcmp(intf_kinds[k].row, rows[ipis]);
		ipis++;
	}
	ksft_test_result(!bad && ipis == 3,
			 "the IPI kinds in the watch's order: keys, words, /proc/interrupts rows");
	ksft_test_result(intf_kinds[INTF_IPI_TLB].row_in_call &&
			 !intf_kinds[INTF_IPI_CALL].row_in_call &&
			 !intf_kinds[INTF_IPI_RESCHED].row_in_call,
			 "only TLB's row is within the function-call row");
}

int main(void)
{
	struct trace_event_table tab = TRACE_EVENT_TABLE(any);
	size_t i;
	int bad;

	ksft_print_header();
	ksft_set_plan(3 + ARRAY_SIZE(records) + ARRAY_SIZE(callbacks) + 1);
	names();
	for (i = 0; i < ARRAY_SIZE(records); i++) {
		int got = -2;

		trace_event_dispatch_line(&tab, &got, records[i].line);

		if (got != (int)records[i].kind)
			ksft_print_msg("got kind %d\n", got);
		ksft_test_result(got == (int)records[i].kind, "record %s: %s",
				 strstr(records[i].line, ": ") + 2,
				 records[i].kind == INTF_NONE ? "none" : intf_kinds[records[i].kind].what);
	}
	for (i = 0; i < ARRAY_SIZE(callbacks); i++) {
		enum intf_kind got = intf_kind_of_callback(callbacks[i].callback);

		if (got != callbacks[i].kind)
			ksft_print_msg("got %s\n", intf_kinds[got].what);
		ksft_test_result(got == callbacks[i].kind, "callback %s: %s",
				 callbacks[i].callback, intf_kinds[callbacks[i].kind].what);
	}
	bad = !intf_kind_arrives_as(INTF_IPI_TLB, INTF_IPI_CALL) ||
	      !intf_kind_arrives_as(INTF_IPI_CALL, INTF_IPI_CALL) ||
	      intf_kind_arrives_as(INTF_IPI_RESCHED, INTF_IPI_CALL) ||
	      intf_kind_arrives_as(INTF_IPI_CALL, INTF_IPI_RESCHED) ||
	      intf_kind_arrives_as(INTF_IRQ, INTF_IRQ);
	ksft_test_result(!bad, "a TLB shootdown arrives as a function call, a reschedule as itself");
	ksft_finished();
}
