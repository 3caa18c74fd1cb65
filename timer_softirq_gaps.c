// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "timer_softirq_gaps.h"

void timer_softirq_gaps_sources_init(struct noise_sources *ns)
{
	memset(ns, 0, sizeof(*ns));
	tally_slots_init(&ns->names, NOISE_SOURCES);
}

int timer_softirq_gaps_source(struct noise_sources *ns, enum intf_kind kind, const char *name)
{
	bool added;
	int i = tally_slot(&ns->names, intf_kinds[kind].name, name, &added);

	if (added)
		ns->src[i].kind = kind;
	return i;
}

static struct noise_source *source_at(struct noise_sources *ns, int i)
{
	return i < 0 ? &ns->other : &ns->src[i];
}

static int act_cmp(const void *a, const void *b)
{
	const struct noise_act *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first activity that may overlap [@from, ...]: started at most @longest before it. */
static size_t first_act(const struct noise_timeline *tl, uint64_t from, uint64_t longest)
{
	uint64_t t = from > longest + NOISE_SLACK_NS ? from - longest - NOISE_SLACK_NS : 0;
	size_t lo = 0, hi = tl->nacts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tl->acts[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t longest_act(const struct noise_timeline *tl)
{
	uint64_t m = 0;

	for (size_t i = 0; i < tl->nacts; i++)
		if (tl->acts[i].end - tl->acts[i].start > m)
			m = tl->acts[i].end - tl->acts[i].start;
	return m;
}

static bool overlaps(const struct noise_act *a, const struct noise_gap *g)
{
	return a->start <= g->end + NOISE_SLACK_NS && a->end + NOISE_SLACK_NS >= g->start;
}

void timer_softirq_gaps_attribute(struct noise_timeline *tl, struct noise_sources *ns,
				  const struct noise_gap *gaps, size_t n)
{
	uint64_t longest;

	timer_softirq_gaps_timeline_sort(tl);
	longest = longest_act(tl);
	for (int i = 0; i < ns->names.n; i++)
		ns->src[i].win_gaps = 0;
	ns->other.win_gaps = 0;
	ns->win_unexplained = 0;
	for (size_t g = 0; g < n; g++) {
		bool seen[NOISE_SOURCES + 1] = { false }, any = false;
		uint64_t len = gaps[g].end - gaps[g].start;

		for (size_t i = first_act(tl, gaps[g].start, longest);
		     i < tl->nacts && tl->acts[i].start <= gaps[g].end + NOISE_SLACK_NS; i++) {
			const struct noise_act *a = &tl->acts[i];
			struct noise_source *s = source_at(ns, a->src);
			uint64_t lo = a->start > gaps[g].start ? a->start : gaps[g].start;
			uint64_t hi = a->end < gaps[g].end ? a->end : gaps[g].end;
			uint64_t alen = a->end - a->start;

			if (!overlaps(a, &gaps[g]))
				continue;
			any = true;
			/* its own time, the share of it inside the gap */
			if (hi > lo && alen)
				s->stolen_ns += (uint64_t)((double)a->own * (hi - lo) / alen);
			if (seen[a->src < 0 ? NOISE_SOURCES : a->src])
				continue;
			seen[a->src < 0 ? NOISE_SOURCES : a->src] = true;
			s->gaps++;
			s->win_gaps++;
		}
		ns->gaps++;
		ns->gap_ns += len;
		if (!any) {
			ns->unexplained++;
			ns->unexplained_ns += len;
			ns->win_unexplained++;
		}
	}
}

void timer_softirq_gaps_timeline_sort(struct noise_timeline *tl)
{
	/* activities in start order (a thread's began before what nested in it) */
	qsort(tl->acts, tl->nacts, sizeof(*tl->acts), act_cmp);
}

/*
 * Whether @a runs on top of @b where both cover an instant: an
 * interrupt over a thread, else the one begun later (it nested in the
 * other; of two begun together, the shorter).
 */
static bool on_top(const struct noise_act *a, const struct noise_act *b)
{
	if ((a->kind == INTF_THREAD) != (b->kind == INTF_THREAD))
		return b->kind == INTF_THREAD;
	return a->start > b->start || (a->start == b->start && a->end < b->end);
}

/*
 * Each instant of [e->programmed, e->woke] to the activity on top then,
 * per source into @by_src (the last entry: "other"), whether any of it
 * came from an untraced start into @untraced; what none covers is
 * e->unknown_ns. Overlapping activities are so counted once.
 */
static void explain_sweep(const struct noise_timeline *tl, struct noise_explain *e,
			  uint64_t *by_src, bool *untraced)
{
	size_t first = first_act(tl, e->programmed, longest_act(tl));
	uint64_t t = e->programmed;

	while (t < e->woke) {
		const struct noise_act *top = NULL;
		uint64_t next = e->woke;

		for (size_t i = first; i < tl->nacts && tl->acts[i].start < e->woke; i++) {
			const struct noise_act *a = &tl->acts[i];

			if (a->start > t) {
				next = a->start < next ? a->start : next;
				continue;
			}
			if (a->end <= t)
				continue;
			next = a->end < next ? a->end : next;
			if (!top || on_top(a, top))
				top = a;
		}
		if (top) {
			int k = top->src < 0 ? NOISE_SOURCES : top->src;

			by_src[k] += next - t;
			untraced[k] |= top->start_untraced;
		} else {
			e->unknown_ns += next - t;
		}
		t = next;
	}
}

void timer_softirq_gaps_explain(const struct noise_timeline *tl, uint64_t programmed, uint64_t woke,
				struct noise_explain *e)
{
	uint64_t by_src[NOISE_SOURCES + 1] = { 0 };
	bool untraced[NOISE_SOURCES + 1] = { false };

	memset(e, 0, sizeof(*e));
	e->programmed = programmed;
	e->woke = woke;
	/* the timer's expiry after the programmed time, then the switch-in */
	for (size_t i = 0; i < tl->nmarks; i++) {
		const struct noise_mark *m = &tl->marks[i];

		if (m->ts + NOISE_SLACK_NS < programmed || m->ts > woke + NOISE_SLACK_NS)
			continue;
		if (!m->switch_in && !e->expiry) {
			e->expiry = m->ts;
			e->expiry_cpu = m->cpu;
		} else if (m->switch_in && e->expiry && m->ts >= e->expiry)
			e->switch_in = m->ts;
	}
	explain_sweep(tl, e, by_src, untraced);
	/* the longest first; beyond NOISE_EXPLAIN_PARTS, the rest */
	for (;;) {
		int best = -1;

		for (int k = 0; k <= NOISE_SOURCES; k++)
			if (by_src[k] && (best < 0 || by_src[k] > by_src[best]))
				best = k;
		if (best < 0)
			break;
		if (e->nparts == NOISE_EXPLAIN_PARTS) {
			e->rest_ns += by_src[best];
		} else {
			e->parts[e->nparts].src = best == NOISE_SOURCES ? TALLY_OTHER : best;
			e->parts[e->nparts].ns = by_src[best];
			e->parts[e->nparts++].start_untraced = untraced[best];
		}
		by_src[best] = 0;
	}
}

void timer_softirq_gaps_thread_recall(const struct noise_timeline *tl, pid_t pid,
				      const struct noise_gap *gaps, size_t n,
			 uint64_t *runs, uint64_t *in_gaps)
{
	size_t g = 0;

	*runs = *in_gaps = 0;
	/* activities in start order (timer_softirq_gaps_attribute sorted them), gaps in time order */
	for (size_t i = 0; i < tl->nacts; i++) {
		const struct noise_act *a = &tl->acts[i];

		if (a->kind != INTF_THREAD || a->pid != pid)
			continue;
		(*runs)++;
		while (g < n && gaps[g].end + NOISE_SLACK_NS < a->start)
			g++;
		if (g < n && overlaps(a, &gaps[g]))
			(*in_gaps)++;
	}
}
