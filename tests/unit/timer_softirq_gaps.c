// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of timer_softirq_gaps.c: the gaps of a busy loop on cpu 1 attributed
 * to what the trace saw run there: the tick's interrupt and its
 * softirq, a thread that preempted the loop (its own time less an
 * interrupt nested in it), an IPI named by its sender's stack; a gap
 * with nothing in it is unexplained; the control's sleeper found in the
 * gaps it caused; a late wakeup taken apart, its timer followed to the
 * CPU it expired on; and with the gaps on another clock (1 ms off) nothing
 * is attributed and the sleeper is not found: the check fails. On arm64,
 * the IPIs by the kind ipi_entry names.
 */
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/base/util.h"
#include "timer_softirq_gaps.h"

#define LOOP	900	/* the busy loop's thread */
#define SLEEPER	901

/* Records of cpu 1 at 1000.000100 s ... (timestamps in us) */
static const char *const records[] = {
	/* the tick: interrupt 100-108 us, then its TIMER softirq 108-110 us */
	"          spin-900     [001] d.h1.  1000.000100: local_timer_entry: vector=236",
	"          spin-900     [001] d.h1.  1000.000108: local_timer_exit: vector=236",
	"          spin-900     [001] ..s1.  1000.000108: softirq_entry: vec=1 [action=TIMER]",
	"          spin-900     [001] ..s1.  1000.000110: softirq_exit: vec=1 [action=TIMER]",
	/* a kworker preempts the loop 200-240 us, an interrupt at 210-214 us inside it */
	"          spin-900     [001] d..2.  1000.000200: sched_switch: prev_comm=spin prev_pid=900 prev_prio=120 prev_state=R ==> next_comm=kworker/1:2 next_pid=77 next_prio=120",
	"   kworker/1:2-77       [001] d.h1.  1000.000210: irq_handler_entry: irq=11 name=virtio0",
	"   kworker/1:2-77       [001] d.h1.  1000.000214: irq_handler_exit: irq=11 ret=handled",
	"   kworker/1:2-77       [001] d..2.  1000.000240: sched_switch: prev_comm=kworker/1:2 prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=spin next_pid=900 next_prio=120",
	/* cpu 0 sends cpu 1 a function call at 299 us; it runs 300-306 us */
	"            cc-4242    [000] d..1.  1000.000299: ipi_send_cpu: cpu=1 callsite=generic_exec_single+0x3e/0x100 callback=generic_smp_call_function_single_interrupt+0x0/0x10",
	"            cc-4242    [000] d..1.  1000.000299: <stack trace>",
	" => generic_exec_single",
	" => smp_call_function_single",
	" => ttwu_queue_wakelist",
	"          spin-900     [001] d.h1.  1000.000300: call_function_single_entry: vector=251",
	"          spin-900     [001] d.h1.  1000.000306: call_function_single_exit: vector=251",
	/* the loop's timer expires at 800 us; a kworker runs 805-840 us; it switches in at 841 us */
	"          <idle>-0     [001] d.h1.  1000.000800: hrtimer_expire_entry: hrtimer=0000000012345678 function=hrtimer_wakeup now=1000000800000",
	"          <idle>-0     [001] d..2.  1000.000805: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/1:2 next_pid=77 next_prio=120",
	"   kworker/1:2-77       [001] d..2.  1000.000840: sched_switch: prev_comm=kworker/1:2 prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=spin next_pid=900 next_prio=120",
	/*
	 * a sleeper's timer armed on cpu 1 at 660 us, queued on cpu 0 (a
	 * nohz_full CPU's, on 6.1), expires there at 670 us; at 630 us cpu
	 * 0 expired a timer of its own sleeper: not cpu 1's
	 */
	"            cc-4242    [000] d.h1.  1000.000630: hrtimer_expire_entry: hrtimer=0000000099999999 function=hrtimer_wakeup now=1000000630000",
	"          spin-900     [001] d..1.  1000.000660: hrtimer_start: hrtimer=00000000abcdef01 function=hrtimer_wakeup expires=1000000670000 softexpires=1000000670000 mode=ABS",
	"            cc-4242    [000] d.h1.  1000.000670: hrtimer_expire_entry: hrtimer=00000000abcdef01 function=hrtimer_wakeup now=1000000670000",
	/* the control's sleeper 500-520 us */
	"          spin-900     [001] d..2.  1000.000500: sched_switch: prev_comm=spin prev_pid=900 prev_prio=120 prev_state=R ==> next_comm=timer_softirq next_pid=901 next_prio=120",
	" timer_softirq-901     [001] d..2.  1000.000520: sched_switch: prev_comm=timer_softirq prev_pid=901 prev_prio=120 prev_state=S ==> next_comm=spin next_pid=900 next_prio=120",
};

/*
 * arm64 (no irq_vectors): the tick is the arch timer's IRQ, and every
 * IPI one IRQ, "IPI", named by the ipi_entry record that follows it.
 */
static const char *const arm64_records[] = {
	"          spin-900     [001] d.h1.  1000.000100: irq_handler_entry: irq=11 name=arch_timer",
	"          spin-900     [001] d.h1.  1000.000106: irq_handler_exit: irq=11 ret=handled",
	/* cpu 0 wakes a task of cpu 1: a reschedule IPI sent at 299 us, run 300-304 us */
	"            cc-4242    [000] d..1.  1000.000299: ipi_send_cpu: cpu=1 callsite=try_to_wake_up+0x2a0/0x5e0 callback=0x0",
	"            cc-4242    [000] d..1.  1000.000299: <stack trace>",
	" => try_to_wake_up",
	" => wake_up_process",
	"          spin-900     [001] d.h1.  1000.000300: irq_handler_entry: irq=1 name=IPI",
	"          spin-900     [001] d.h1.  1000.000300: ipi_entry: (Rescheduling interrupts)",
	"          spin-900     [001] d.h1.  1000.000304: ipi_exit: (Rescheduling interrupts)",
	"          spin-900     [001] d.h1.  1000.000304: irq_handler_exit: irq=1 ret=handled",
	/* an irq_work IPI, 500-503 us: no IPI kind, an IRQ by its reason */
	"          spin-900     [001] d.h1.  1000.000500: irq_handler_entry: irq=6 name=IPI",
	"          spin-900     [001] d.h1.  1000.000500: ipi_entry: (IRQ work interrupts)",
	"          spin-900     [001] d.h1.  1000.000503: ipi_exit: (IRQ work interrupts)",
	"          spin-900     [001] d.h1.  1000.000503: irq_handler_exit: irq=6 ret=handled",
	/* an IPI whose ipi_entry the trace lacks, 700-702 us: the IRQ's name */
	"          spin-900     [001] d.h1.  1000.000700: irq_handler_entry: irq=2 name=IPI",
	"          spin-900     [001] d.h1.  1000.000702: irq_handler_exit: irq=2 ret=handled",
};

#define US(x)	(1000000000000ULL + (x) * 1000ULL)

static const struct noise_source *find(const struct noise_sources *ns, enum intf_kind k,
				       const char *name)
{
	for (int i = 0; i < ns->names.n; i++)
		if (!strcmp(intf_kinds[ns->src[i].kind].name, intf_kinds[k].name) &&
		    !strcmp(tally_slot_name(&ns->names, i), name))
			return &ns->src[i];
	return NULL;
}

static void timeline_of(struct noise_timeline *tl, struct noise_sources *ns,
			const char *const *lines, size_t n)
{
	memset(tl, 0, sizeof(*tl));
	timer_softirq_gaps_sources_init(ns);
	timer_softirq_gaps_timeline_begin(tl, 1, LOOP);
	for (size_t i = 0; i < n; i++)
		timer_softirq_gaps_timeline_line(tl, ns, lines[i]);
	timer_softirq_gaps_timeline_end(tl, ns, US(1000));
}

static void timeline(struct noise_timeline *tl, struct noise_sources *ns)
{
	timeline_of(tl, ns, records, ARRAY_SIZE(records));
}

/* arm64's IPIs by kind: the reschedule IPI by its sender, irq_work by its reason. */
static void arm64_ipis(void)
{
	struct noise_gap gaps[] = { { US(99), US(107) }, { US(299), US(305) },
				    { US(499), US(504) }, { US(699), US(703) } };
	const struct noise_source *s;
	struct noise_timeline tl;
	struct noise_sources ns;

	timeline_of(&tl, &ns, arm64_records, ARRAY_SIZE(arm64_records));
	timer_softirq_gaps_attribute(&tl, &ns, gaps, ARRAY_SIZE(gaps));
	for (int i = 0; i < ns.names.n; i++)
		ksft_print_msg("arm64: %s %s in %llu gaps, %llu ns\n", intf_kinds[ns.src[i].kind].name,
			       tally_slot_name(&ns.names, i), (unsigned long long)ns.src[i].gaps,
			       (unsigned long long)ns.src[i].stolen_ns);
	s = find(&ns, INTF_IPI_RESCHED, "try_to_wake_up");
	ksft_test_result(s && s->kind == INTF_IPI_RESCHED && s->gaps == 1 && s->stolen_ns == 4000,
			 "arm64: a reschedule IPI (ipi_entry) named by its sender's stack");
	s = find(&ns, INTF_IRQ, "IRQ work");
	ksft_test_result(s && s->gaps == 1 && s->stolen_ns == 3000 &&
			 find(&ns, INTF_IRQ, "arch_timer") && find(&ns, INTF_IRQ, "arch_timer")->gaps == 1,
			 "arm64: an irq_work IPI is irq IRQ work, the tick irq arch_timer");
	s = find(&ns, INTF_IRQ, "IPI");
	ksft_test_result(s && s->gaps == 1 && ns.names.n == 4 && !ns.unexplained,
			 "arm64: only the IPI without its ipi_entry is irq IPI; 4 sources, none unexplained");
	timer_softirq_gaps_timeline_free(&tl);
}

/*
 * A source is its kind's name and its own: irq and thread "x" are two,
 * a function call and a reschedule IPI "y" one (of the first kind);
 * the names beyond the table are other.
 */
static void sources_by_kind(void)
{
	struct noise_sources ns;
	int irq, thread, call, resched, beyond = 0;
	char name[16];

	timer_softirq_gaps_sources_init(&ns);
	irq = timer_softirq_gaps_source(&ns, INTF_IRQ, "x");
	thread = timer_softirq_gaps_source(&ns, INTF_THREAD, "x");
	call = timer_softirq_gaps_source(&ns, INTF_IPI_CALL, "y");
	resched = timer_softirq_gaps_source(&ns, INTF_IPI_RESCHED, "y");
	ksft_test_result(irq == 0 && thread == 1 && call == 2 && resched == 2 &&
			 ns.src[call].kind == INTF_IPI_CALL,
			 "sources: irq x and thread x two, ipi y one of the first IPI kind (%d %d %d %d)",
			 irq, thread, call, resched);
	for (int i = ns.names.n; i <= NOISE_SOURCES; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		beyond = timer_softirq_gaps_source(&ns, INTF_THREAD, name);
	}
	ksft_test_result(beyond == TALLY_OTHER && ns.names.n == NOISE_SOURCES &&
			 timer_softirq_gaps_source(&ns, INTF_IRQ, "x") == irq,
			 "sources beyond the table are other, the kept ones keep their place");
}

int main(void)
{
	/* the loop's gaps: around the tick, the kworker, the IPI, the sleeper, and one with nothing */
	struct noise_gap gaps[] = {
		{ US(99), US(111) }, { US(199), US(241) }, { US(299), US(307) },
		{ US(499), US(521) }, { US(700), US(720) },
	}, shifted[5];
	const struct noise_source *s;
	struct noise_timeline tl;
	struct noise_sources ns;
	struct noise_explain e;
	uint64_t runs, in;

	ksft_print_header();
	ksft_set_plan(16);

	timeline(&tl, &ns);
	timer_softirq_gaps_attribute(&tl, &ns, gaps, 5);
	ksft_test_result(ns.gaps == 5 && ns.unexplained == 1 && ns.unexplained_ns == 20000,
			 "5 gaps, 1 unexplained (20 us) (got %llu, %llu, %llu ns)",
			 (unsigned long long)ns.gaps, (unsigned long long)ns.unexplained,
			 (unsigned long long)ns.unexplained_ns);
	s = find(&ns, INTF_IRQ, "local_timer");
	ksft_test_result(s && s->gaps == 1 && s->stolen_ns == 8000 &&
			 find(&ns, INTF_SOFTIRQ, "TIMER") && find(&ns, INTF_SOFTIRQ, "TIMER")->gaps == 1,
			 "the tick's gap: irq local_timer (8 us) and softirq TIMER");
	s = find(&ns, INTF_THREAD, "kworker");
	ksft_test_result(s && s->gaps == 1 && s->stolen_ns == 36000 &&
			 find(&ns, INTF_IRQ, "virtio0") && find(&ns, INTF_IRQ, "virtio0")->stolen_ns == 4000,
			 "a preemption: thread kworker, its own 36 us less the 4 us interrupt nested in it (got %llu ns)",
			 s ? (unsigned long long)s->stolen_ns : 0ULL);
	s = find(&ns, INTF_IPI_CALL, "ttwu_queue_wakelist");
	ksft_test_result(s && s->gaps == 1 && !find(&ns, INTF_IPI_CALL, "call_function_single (sender not traced)"),
			 "an IPI: named ttwu_queue_wakelist from its sender's stack");
	ksft_test_result(ns.win_unexplained == 1 && find(&ns, INTF_THREAD, "timer_softirq") &&
			 find(&ns, INTF_THREAD, "timer_softirq")->win_gaps == 1,
			 "the window's counts: 1 unexplained, the sleeper in 1 gap");
	timer_softirq_gaps_thread_recall(&tl, SLEEPER, gaps, 5, &runs, &in);
	ksft_test_result(runs == 1 && in == 1, "the sleeper: 1 run, in a gap of the loop");
	/* a wakeup programmed at 798 us, back in user space at 845 us */
	timer_softirq_gaps_explain(&tl, US(798), US(845), &e);
	ksft_test_result(e.expiry == US(800) && e.switch_in == US(840) && e.nparts == 1 &&
			 tl.ns->src[e.parts[0].src].kind == INTF_THREAD &&
			 !strcmp(tally_slot_name(&ns.names, e.parts[0].src), "kworker") && e.parts[0].ns == 35000,
			 "a late wakeup explained: timer +2 us, kworker 35 us, switched in +42 us");
	timer_softirq_gaps_explain(&tl, US(600), US(650), &e);
	ksft_test_result(!e.expiry && !e.nparts,
			 "a wakeup with no expiry traced: said so, nothing in between (another CPU's sleeper's timer not taken)");
	timer_softirq_gaps_explain(&tl, US(665), US(690), &e);
	ksft_test_result(e.expiry == US(670) && e.expiry_cpu == 0,
			 "a sleeper's timer armed on cpu 1 followed to cpu 0, where it expired (got %llu on cpu %d)",
			 (unsigned long long)e.expiry, e.expiry_cpu);
	timer_softirq_gaps_timeline_free(&tl);

	/* the gaps on a clock 1 ms off: nothing is where they are */
	for (int i = 0; i < 5; i++)
		shifted[i] = (struct noise_gap){ gaps[i].start + 1000000, gaps[i].end + 1000000 };
	timeline(&tl, &ns);
	timer_softirq_gaps_attribute(&tl, &ns, shifted, 5);
	ksft_test_result(ns.unexplained == 5, "gaps 1 ms off the trace's clock: all 5 unexplained");
	timer_softirq_gaps_thread_recall(&tl, SLEEPER, shifted, 5, &runs, &in);
	ksft_test_result(runs == 1 && in == 0,
			 "...and the sleeper's run is in no gap: the control's 95%% check fails");
	timer_softirq_gaps_timeline_free(&tl);
	arm64_ipis();
	sources_by_kind();
	ksft_finished();
}
