// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of timer_softirq_gaps_explain(): a late wakeup of the cyclic
 * thread taken apart never adds up to more than its latency. Each
 * instant between the programmed time and the return to user space is
 * one source's at most (an interrupt's, not also the thread's it
 * interrupted), a thread whose switch-in the trace does not show (on
 * 6.18 no switch out of idle is) starts no earlier than the CPU's last
 * record of another task and is said to be of untraced start, and what
 * no traced activity covers is unknown. Fed two excerpts recorded on
 * the project's 6.18 VM and synthetic records of cpu 1.
 */
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "timer_softirq_gaps.h"

#define LOOP	900	/* the cyclic thread of the synthetic records */

/* Recorded: sleep -> idle, idle -> cc not traced, cc -> the cyclic thread (14886). */
static const char *const rec_idle[] = {
	"           sleep-15212   [001] d..2. 10327.424995: sched_switch: prev_comm=sleep prev_pid=15212 prev_prio=120 prev_state=R ==> next_comm=timer_softirq next_pid=14886 next_prio=4",
	"   timer_softirq-14886   [001] d..1. 10327.425000: hrtimer_start: hrtimer=000000006b51bae2 function=hrtimer_wakeup expires=10327425980744 softexpires=10327425980744 mode=ABS was_armed=0",
	"   timer_softirq-14886   [001] d..2. 10327.425006: sched_switch: prev_comm=timer_softirq prev_pid=14886 prev_prio=4 prev_state=S ==> next_comm=sh next_pid=14781 next_prio=120",
	"              sh-14781   [001] d..2. 10327.425017: sched_switch: prev_comm=sh prev_pid=14781 prev_prio=120 prev_state=S ==> next_comm=sleep next_pid=15212 next_prio=120",
	"           sleep-15212   [001] d..1. 10327.425078: hrtimer_start: hrtimer=000000009d3da8b9 function=hrtimer_wakeup expires=10327427127266 softexpires=10327427077266 mode=REL was_armed=0",
	"           sleep-15212   [001] d..2. 10327.425085: sched_switch: prev_comm=sleep prev_pid=15212 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
	"              cc-15136   [000] d..2. 10327.425916: ipi_send_cpu: cpu=1 callsite=wakeup_preempt+0x55/0xa0 callback=0x0",
	"          <idle>-0       [001] dnh1. 10327.425944: reschedule_entry: vector=253",
	"          <idle>-0       [001] dNh1. 10327.425945: reschedule_exit: vector=253",
	"              as-15213   [001] d.h.. 10327.425983: local_timer_entry: vector=236",
	"              as-15213   [001] d.h.. 10327.425985: hrtimer_expire_entry: hrtimer=000000006b51bae2 function=hrtimer_wakeup now=10327425983947",
	"              as-15213   [001] dNh.. 10327.425990: local_timer_exit: vector=236",
	"              as-15213   [001] d..2. 10327.425995: sched_switch: prev_comm=cc prev_pid=15213 prev_prio=120 prev_state=R ==> next_comm=timer_softirq next_pid=14886 next_prio=4",
	"   timer_softirq-14886   [001] d..1. 10327.426000: hrtimer_start: hrtimer=000000009ec08011 function=hrtimer_wakeup expires=10327426980744 softexpires=10327426980744 mode=ABS was_armed=0",
};

/*
 * Recorded: the cyclic thread (26289) switches to vsock-console, whose
 * switch to perl is not traced; perl runs the tick and the thread's
 * timer, then switches to it.
 */
static const char *const rec_thread[] = {
	"   timer_softirq-26289   [001] d..1. 10559.739373: hrtimer_start: hrtimer=00000000597d41e3 function=hrtimer_wakeup expires=10559740357276 softexpires=10559740357276 mode=ABS was_armed=0",
	"   timer_softirq-26289   [001] d..2. 10559.739377: sched_switch: prev_comm=timer_softirq prev_pid=26289 prev_prio=4 prev_state=S ==> next_comm=vsock-console next_pid=59 next_prio=120",
	"            perl-26252   [001] d.h.. 10559.740003: local_timer_entry: vector=236",
	"            perl-26252   [001] d.h.. 10559.740005: hrtimer_expire_entry: hrtimer=0000000050161ceb function=tick_nohz_handler now=10559740003834",
	"            perl-26252   [001] d.h.. 10559.740023: local_timer_exit: vector=236",
	"            perl-26252   [001] ..s.. 10559.740025: softirq_entry: vec=9 [action=RCU]",
	"            perl-26252   [001] ..s.. 10559.740034: softirq_exit: vec=9 [action=RCU]",
	"            perl-26252   [001] d.h.. 10559.740360: local_timer_entry: vector=236",
	"            perl-26252   [001] d.h.. 10559.740361: hrtimer_expire_entry: hrtimer=00000000597d41e3 function=hrtimer_wakeup now=10559740360475",
	"            perl-26252   [001] dNh.. 10559.740366: local_timer_exit: vector=236",
	"            perl-26252   [001] d..2. 10559.740369: sched_switch: prev_comm=perl prev_pid=26252 prev_prio=120 prev_state=R ==> next_comm=timer_softirq next_pid=26289 next_prio=4",
};

/*
 * Synthetic, at 1000.000000 s + us: the loop sleeps into idle; an
 * interrupt in idle at 400-405; nm's switch-in from idle not traced;
 * the loop's timer in the tick at 990-995; nm -> loop at 1000; later
 * the same again (idle at 1100, nm -> loop at 2000).
 */
static const char *const syn_idle[] = {
	"          spin-900     [001] d..2.  1000.000000: sched_switch: prev_comm=spin prev_pid=900 prev_prio=4 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
	"        <idle>-0       [001] d.h1.  1000.000400: irq_handler_entry: irq=11 name=virtio0",
	"        <idle>-0       [001] d.h1.  1000.000405: irq_handler_exit: irq=11 ret=handled",
	"            nm-300     [001] d.h..  1000.000990: local_timer_entry: vector=236",
	"            nm-300     [001] d.h..  1000.000991: hrtimer_expire_entry: hrtimer=0000000012345678 function=hrtimer_wakeup now=1000000991000",
	"            nm-300     [001] dNh..  1000.000995: local_timer_exit: vector=236",
	"            nm-300     [001] d..2.  1000.001000: sched_switch: prev_comm=nm prev_pid=300 prev_prio=120 prev_state=R ==> next_comm=spin next_pid=900 next_prio=4",
	"          spin-900     [001] d..2.  1000.001100: sched_switch: prev_comm=spin prev_pid=900 prev_prio=4 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
	"            nm-300     [001] d..2.  1000.002000: sched_switch: prev_comm=nm prev_pid=300 prev_prio=120 prev_state=R ==> next_comm=spin next_pid=900 next_prio=4",
};

/*
 * Synthetic: a kworker switched in at 0 runs until 1000 with an
 * interrupt (500-520) and the tick that expires the loop's timer
 * (988-995) nested in it.
 */
static const char *const syn_nested[] = {
	"          spin-900     [001] d..2.  1000.000000: sched_switch: prev_comm=spin prev_pid=900 prev_prio=4 prev_state=S ==> next_comm=kworker/1:2 next_pid=77 next_prio=120",
	"   kworker/1:2-77       [001] d.h1.  1000.000500: irq_handler_entry: irq=11 name=virtio0",
	"   kworker/1:2-77       [001] d.h1.  1000.000520: irq_handler_exit: irq=11 ret=handled",
	"   kworker/1:2-77       [001] d.h1.  1000.000988: local_timer_entry: vector=236",
	"   kworker/1:2-77       [001] d.h1.  1000.000990: hrtimer_expire_entry: hrtimer=0000000012345678 function=hrtimer_wakeup now=1000000990000",
	"   kworker/1:2-77       [001] dNh1.  1000.000995: local_timer_exit: vector=236",
	"   kworker/1:2-77       [001] d..2.  1000.001000: sched_switch: prev_comm=kworker/1:2 prev_pid=77 prev_prio=120 prev_state=R ==> next_comm=spin next_pid=900 next_prio=4",
};

/* Synthetic: 8 interrupts of 8, 7, ... 1 us, one every 10 us from 0: more sources than parts. */
static void syn_many(char recs[16][160])
{
	for (int k = 0; k < 8; k++) {
		snprintf(recs[2 * k], 160, "          spin-900     [001] d.h1.  1000.%06d: irq_handler_entry: irq=%d name=dev%d",
			 10 * k, 20 + k, k);
		snprintf(recs[2 * k + 1], 160, "          spin-900     [001] d.h1.  1000.%06d: irq_handler_exit: irq=%d ret=handled",
			 10 * k + 8 - k, 20 + k);
	}
}

#define US(x)	(1000000000000ULL + (x) * 1000ULL)
#define N(a)	(sizeof(a) / sizeof((a)[0]))

struct explained {
	struct noise_timeline tl;
	struct noise_sources ns;
	struct noise_explain e;
};

/* @n records of cpu 1 whose cyclic thread is @loop; the wakeup [@programmed, @woke] explained */
static void explain(struct explained *x, const char *const *recs, size_t n, pid_t loop,
		    uint64_t programmed, uint64_t woke)
{
	memset(&x->tl, 0, sizeof(x->tl));
	timer_softirq_gaps_sources_init(&x->ns);
	timer_softirq_gaps_timeline_begin(&x->tl, 1, loop);
	for (size_t i = 0; i < n; i++)
		timer_softirq_gaps_timeline_line(&x->tl, &x->ns, recs[i]);
	timer_softirq_gaps_timeline_end(&x->tl, &x->ns, woke + 5000000);
	timer_softirq_gaps_timeline_sort(&x->tl);
	timer_softirq_gaps_explain(&x->tl, programmed, woke, &x->e);
	timer_softirq_gaps_timeline_free(&x->tl);
}

/* the time of the parts and of the sources beyond them */
static uint64_t traced_ns(const struct noise_explain *e)
{
	uint64_t sum = e->rest_ns;

	for (int i = 0; i < e->nparts; i++)
		sum += e->parts[i].ns;
	return sum;
}

static uint64_t unknown_ns(const struct noise_explain *e)
{
	return e->unknown_ns;
}

static bool start_untraced(const struct noise_explain *e, int part)
{
	return e->parts[part].start_untraced;
}

/* The part of source @kind @name, or -1. */
static int part(const struct explained *x, enum intf_kind kind, const char *name)
{
	int found = -1;

	for (int i = 0; i < x->e.nparts; i++) {
		int src = x->e.parts[i].src;
		const struct noise_source *s = src == TALLY_OTHER ? &x->ns.other : &x->ns.src[src];

		if (s->kind == kind && !strcmp(tally_slot_name(&x->ns.names, src), name))
			found = i;
	}
	return found;
}

static uint64_t part_ns(const struct explained *x, enum intf_kind kind, const char *name)
{
	int i = part(x, kind, name);

	return i < 0 ? 0 : x->e.parts[i].ns;
}

/* The sum of the parts at most the latency, the unknown the rest: checked and printed. */
static bool adds_up(const struct explained *x, uint64_t unknown)
{
	uint64_t lat = x->e.woke - x->e.programmed;

	ksft_print_msg("latency %llu ns: traced %llu ns (%d parts and the rest), unknown %llu ns (want %llu)\n",
		       (unsigned long long)lat, (unsigned long long)traced_ns(&x->e), x->e.nparts,
		       (unsigned long long)unknown_ns(&x->e), (unsigned long long)unknown);
	for (int i = 0; i < x->e.nparts; i++) {
		int src = x->e.parts[i].src;
		const struct noise_source *s = src == TALLY_OTHER ? &x->ns.other : &x->ns.src[src];

		ksft_print_msg("  %s %s %llu ns%s\n", intf_kinds[s->kind].name,
			       tally_slot_name(&x->ns.names, src),
			       (unsigned long long)x->e.parts[i].ns,
			       start_untraced(&x->e, i) ? " (start not traced)" : "");
	}
	return traced_ns(&x->e) <= lat && unknown_ns(&x->e) == unknown &&
	       traced_ns(&x->e) + unknown_ns(&x->e) == lat;
}

int main(void)
{
	const char *many[16];
	char many_recs[16][160];
	struct explained x;
	int i;

	ksft_print_header();
	ksft_set_plan(11);

	/* recorded: due at .425980744, back in user space at .425998 */
	explain(&x, rec_idle, N(rec_idle), 14886, 10327425980744ULL, 10327425998000ULL);
	ksft_test_result(adds_up(&x, 3000),
			 "recorded, switch out of idle not traced: the parts add up to the latency with the unknown");
	i = part(&x, INTF_THREAD, "cc");
	ksft_test_result(i >= 0 && x.e.parts[i].ns == 7256 && start_untraced(&x.e, i) &&
			 part_ns(&x, INTF_IRQ, "local_timer") == 7000,
			 "recorded, switch out of idle not traced: cc from the interval's start, less the tick, of untraced start");

	/* recorded: due at .740357276, back in user space at .740372 */
	explain(&x, rec_thread, N(rec_thread), 26289, 10559740357276ULL, 10559740372000ULL);
	ksft_test_result(adds_up(&x, 3000),
			 "recorded, a thread's switch-out not traced: the parts add up to the latency with the unknown");
	i = part(&x, INTF_THREAD, "perl");
	ksft_test_result(i >= 0 && x.e.parts[i].ns == 5724 && start_untraced(&x.e, i) &&
			 part(&x, INTF_THREAD, "vsock-console") < 0,
			 "recorded, a thread's switch-out not traced: the time is perl's, not the thread traced before");

	/* the loop due at 985 us, back at 1010 us: later runs of nm not piled up */
	explain(&x, syn_idle, N(syn_idle), LOOP, US(985), US(1010));
	ksft_test_result(adds_up(&x, 10000),
			 "idle, switch-ins not traced: the parts add up to the latency with the unknown");
	i = part(&x, INTF_THREAD, "nm");
	ksft_test_result(i >= 0 && x.e.parts[i].ns == 10000 && start_untraced(&x.e, i) &&
			 x.e.expiry == US(991),
			 "idle, switch-ins not traced: nm once, clipped to the interval, of untraced start");

	/* due at 300 us: nm cannot have run before the interrupt in idle ended at 405 us */
	explain(&x, syn_idle, N(syn_idle), LOOP, US(300), US(1010));
	ksft_test_result(adds_up(&x, 110000),
			 "idle before the untraced switch-in: the parts add up to the latency with the unknown");
	ksft_test_result(part_ns(&x, INTF_THREAD, "nm") == 590000 &&
			 part_ns(&x, INTF_IRQ, "virtio0") == 5000,
			 "idle before the untraced switch-in: nm from the CPU's last record of another task");

	/* due at 490 us, back at 1010 us, inside the kworker's run with interrupts nested */
	explain(&x, syn_nested, N(syn_nested), LOOP, US(490), US(1010));
	ksft_test_result(adds_up(&x, 10000),
			 "nested interrupts: the parts add up to the latency with the unknown");
	ksft_test_result(part_ns(&x, INTF_THREAD, "kworker") == 483000 &&
			 part_ns(&x, INTF_IRQ, "virtio0") == 20000 &&
			 part_ns(&x, INTF_IRQ, "local_timer") == 7000 &&
			 !start_untraced(&x.e, part(&x, INTF_THREAD, "kworker")),
			 "nested interrupts: their time is theirs, not also the kworker's");

	/* 0 to 100 us: 6 parts of 33 us, the other two 3 us, 64 us unknown */
	syn_many(many_recs);
	for (i = 0; i < 16; i++)
		many[i] = many_recs[i];
	explain(&x, many, 16, LOOP, US(0), US(100));
	ksft_test_result(adds_up(&x, 64000) && x.e.nparts == NOISE_EXPLAIN_PARTS &&
			 x.e.parts[0].ns == 8000 && x.e.parts[NOISE_EXPLAIN_PARTS - 1].ns == 3000,
			 "more sources than parts: the longest first, the others' time kept");
	ksft_finished();
}
