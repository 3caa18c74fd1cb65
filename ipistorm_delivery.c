// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm's delivery check, whatever the mode: a pair's counted passes,
 * whose sends are counted where they land: the ipi_send_cpu/cpumask
 * tracepoints (real IPIs), sched_wake_idle_without_ipi (sends elided
 * because dst was polling idle), csd_queue_cpu (calls queued for dst);
 * then what reached dst, printed, kept with the pair's metric, judged.
 */
#include <stdio.h>

#include "ipistorm_common.h"

/* The first reason a pair's counting failed, kept for its delivery line. */
static void pass_why_keep(struct pair *p)
{
	if (!p->d.why[0])
		snprintf(p->d.why, sizeof(p->d.why), "%s", p->cnt.why);
}

/*
 * A counted pass: count what @sender sends from src to dst, outside the
 * timed loop. A failure to count is kept in the delivery's why.
 */
void ipistorm_pass_count_start(struct pair *p, const char *sender)
{
	p->cnt_ok = !ipistorm_count_open(&p->cnt, p->src, p->dst, sender);
	if (p->cnt_ok)
		ipistorm_count_enable(&p->cnt, true);
	else
		pass_why_keep(p);
}

void ipistorm_pass_count_stop(struct pair *p)
{
	p->d.calls += p->done;
	p->d.ns += p->ns;
	if (!p->cnt_ok) {
		p->d.counted = false;
		return;
	}
	ipistorm_count_enable(&p->cnt, false);
	if (ipistorm_count_read(&p->cnt)) {
		p->d.counted = false;
		pass_why_keep(p);
	} else {
		p->d.real += p->cnt.real;
		p->d.elided += p->cnt.elided_n;
		p->d.queued += p->cnt.queued_n;
		p->d.have_queued = p->cnt.have_queued;
	}
	ipistorm_count_close(&p->cnt);
}

/* Whether the machine has the /proc/interrupts row of IPI kind @k: arm64 has no TLB row. */
static bool dst_row_kept(const struct delivery *d, int k)
{
	return intf_kinds[k].row && d->rows[k] >= 0;
}

/* The extra's key of IPI kind @k's row on dst: "dst_cal_irqs". */
static const char *dst_row_key(int k)
{
	static char keys[INTF_KINDS][24];	/* the result keeps the key */
	char row[8];

	if (!keys[k][0]) {
		metric_name_part(row, sizeof(row), intf_kinds[k].row, sizeof(row) - 1);
		snprintf(keys[k], sizeof(keys[k]), "dst_%s_irqs", row);
	}
	return keys[k];
}

/* The pair's counts: printed, and kept as the ipi_ns metric's extras. */
static void delivery_print(struct pair *p, uint64_t preempted)
{
	struct delivery *d = &p->d;
	uint64_t reached = d->real + d->elided;
	uint64_t none = d->calls > reached ? d->calls - reached : 0;
	char rows[96] = "";
	size_t off = 0;

	for (int k = 0; k < INTF_KINDS; k++)
		if (dst_row_kept(d, k))
			off += snprintf(rows + off, sizeof(rows) - off, "%s%s +%lld",
					off ? ", " : "", intf_kinds[k].row, (long long)d->rows[k]);

	if (d->counted)
		ksft_print_msg("%s: counted passes, %llu calls: %llu real IPIs, %llu elided sends (dst polling idle), %llu reached no CPU; csd queued %s%llu (the storm's own sends only)\n",
			       p->desc, (unsigned long long)d->calls,
			       (unsigned long long)d->real, (unsigned long long)d->elided,
			       (unsigned long long)none, d->have_queued ? "" : "(not counted) ",
			       (unsigned long long)d->queued);
	if (d->counted && !p->cnt.have_mask)
		ksft_print_msg("%s: trace filters without CPUS{} (Linux 6.3-6.5): the storm's sends to CPU masks counted whatever their CPUs; none were made, so the sends to cpu %d are the whole count\n",
			       p->desc, p->dst);
	ksft_print_msg("%s: timed passes, %llu calls, no per-event counting; /proc/interrupts cpu %d (every sender): %s\n",
		       p->desc, (unsigned long long)p->calls, p->dst, rows);
	metric_extra(p->ns_m, "calls", p->calls);
	metric_extra(p->ns_m, "counted_calls", d->calls);
	/* what per-event counting costs: the counted passes' time per call */
	if (d->calls)
		metric_extra(p->ns_m, "counted_call_ns", d->ns / d->calls);
	if (d->counted) {	/* not counted: no split to report */
		metric_extra(p->ns_m, "ipis_real", d->real);
		metric_extra(p->ns_m, "sends_elided", d->elided);
		metric_extra(p->ns_m, "calls_reached_no_cpu", none);
		metric_extra(p->ns_m, "delivered_share", d->calls ? (double)reached / d->calls : 0);
	}
	if (d->counted && d->have_queued)
		metric_extra(p->ns_m, "csd_queued", d->queued);
	for (int k = 0; k < INTF_KINDS; k++)
		if (dst_row_kept(d, k))
			metric_extra(p->ns_m, dst_row_key(k), d->rows[k]);
	if (p->spin_share >= 0) {
		metric_extra(p->ns_m, "dst_spinner_cpu_share", p->spin_share);
		metric_extra(p->ns_m, "dst_spinner_switched_out", preempted);
	}
	metric_extra(p->ns_m, "delivered_from_dst_cal_irqs", p->procfs_share);
	if (p->procfs_share)
		ksft_print_msg("%s: not counted (%s): per-IPI figures divide by the function call interrupts dst took in each timed run (every sender's, at most one per call)\n",
			       p->desc, d->why);
}

/*
 * The split of what happened to the calls, printed, and whether it is
 * enough: a KSFT code, and why when it is not a pass (@why, @len).
 */
int ipistorm_delivery_check(struct pair *p, char *why, size_t len)
{
	uint64_t preempted = p->switched.fd >= 0 ? counter_read(&p->switched) : 0;
	struct delivery *d = &p->d;
	uint64_t reached = d->real + d->elided;
	uint64_t none = d->calls > reached ? d->calls - reached : 0;
	enum ipi_delivery judged;

	delivery_print(p, preempted);
	if (!d->counted || !d->calls) {
		snprintf(why, len, "%s", d->calls ? d->why : "no counted run was made");
		return KSFT_SKIP;
	}
	/*
	 * A call made while dst runs another process returns at once with
	 * no IPI (membarrier), or has no CPU to shoot down (tlb); such calls
	 * are quick, so a few % of dst's time lost is many % of the calls.
	 * More deliveries than calls is a counting error: flagged.
	 */
	judged = ipistorm_delivery_judge(d->calls, reached);
	if (judged == IPI_DELIVERY_NONE)
		snprintf(why, len, "no call was counted");
	else if (judged == IPI_DELIVERY_EXCESS)
		snprintf(why, len,
			 "%llu more deliveries than calls: the count is not the storm's alone",
			 (unsigned long long)(reached - d->calls));
	else if (p->spin_share >= 0 && (preempted || p->spin_share < 0.95))
		snprintf(why, len,
			 "cpu %d also ran other tasks: the spinner was switched out %llu times and had %.1f%% of it; %s",
			 p->dst, (unsigned long long)preempted, p->spin_share * 100,
			 p->mode->busy_dst_why ? p->mode->busy_dst_why :
			 "calls made meanwhile may need no IPI");
	else
		snprintf(why, len, "%llu calls reached no CPU", (unsigned long long)none);
	ksft_print_msg("%s: %llu of %llu calls reached dst\n", p->desc,
		       (unsigned long long)reached, (unsigned long long)d->calls);
	return judged == IPI_DELIVERY_OK ? KSFT_PASS : KSFT_FAIL;
}
