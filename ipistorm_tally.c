// SPDX-License-Identifier: GPL-2.0
/* The IPIs a watch saw, counted: see ipistorm_tally.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "ipistorm_tally.h"

void ipistorm_tally_init(struct ipi_tally *t, const cpu_mask_t *cpus)
{
	int cpu;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < CPU_SETSIZE; i++)
		t->cpu_index[i] = -1;
	cpu_mask_for_each(cpu, cpus)
		t->cpu_index[cpu] = t->ncpus++;
	tally_slots_init(&t->sources, IPI_TALLY_SOURCES);
	tally_init(&t->cb, IPI_TALLY_NAMES);
	tally_init(&t->func, IPI_TALLY_NAMES);
}

void ipistorm_tally_free(struct ipi_tally *t)
{
	free(t->per_min);
	free(t->per_win);
	for (int i = 0; i < t->sources.n; i++)
		free(t->src[i].per_win);
	free(t->src_other.per_win);
	t->per_min = t->per_win = NULL;
	t->sources.n = 0;
	t->src_other.per_win = NULL;
}

/* @a of @n counters grown to @want (new ones zero); -1 on no memory. */
static int grow(uint64_t **a, size_t n, size_t want)
{
	uint64_t *p;

	if (want <= n)
		return 0;
	p = realloc(*a, want * sizeof(*p));
	if (!p)
		return -1;
	memset(p + n, 0, (want - n) * sizeof(*p));
	*a = p;
	return 0;
}

int ipistorm_tally_add(struct ipi_tally *t, int cpu, enum intf_kind kind, uint64_t n,
		       size_t window, size_t minute)
{
	int place = t->cpu_index[cpu];

	if (place < 0)
		return 0;
	if (grow(&t->per_min, t->nmin, minute + 1))
		return -1;
	t->nmin = t->nmin > minute + 1 ? t->nmin : minute + 1;
	if (window >= t->nwin) {
		if (grow(&t->per_win, t->nwin * t->ncpus, (window + 1) * t->ncpus))
			return -1;
		t->nwin = window + 1;
	}
	t->per_win[window * t->ncpus + place] += n;
	t->per_cpu[cpu] += n;
	t->kind[kind] += n;
	t->total += n;
	t->per_min[minute] += n;
	return 0;
}

uint64_t ipistorm_tally_win(const struct ipi_tally *t, size_t win, int place)
{
	return win < t->nwin ? t->per_win[win * t->ncpus + place] : 0;
}

/* The entry of source @name (src_other when the table is full). */
static struct ipi_tally_source *source_of(struct ipi_tally *t, const char *name,
					  const char *callback)
{
	bool added;
	int i = tally_slot(&t->sources, "", name, &added);

	if (i == TALLY_OTHER)
		return &t->src_other;
	if (added)
		snprintf(t->src[i].callback, sizeof(t->src[i].callback), "%s", callback);
	return &t->src[i];
}

static void sender_count(struct ipi_tally_source *s, const struct ipi_send *r, uint64_t n)
{
	int i;

	for (i = 0; i < s->nsenders; i++)
		if (s->senders[i].cpu == r->w.cpu && !strcmp(s->senders[i].comm, r->comm))
			break;
	if (i == s->nsenders) {
		if (s->nsenders == IPI_TALLY_SENDERS) {
			s->senders_other += n;	/* the first senders are kept */
			return;
		}
		s->nsenders++;
		snprintf(s->senders[i].comm, sizeof(s->senders[i].comm), "%s", r->comm);
		s->senders[i].cpu = r->w.cpu;
	}
	s->senders[i].n += n;
}

/* Sender @a before @b: more IPIs first, then by name and CPU. */
static bool sender_before(const struct ipi_sender *a, const struct ipi_sender *b)
{
	int c = strcmp(a->comm, b->comm);

	if (a->n != b->n)
		return a->n > b->n;
	return c ? c < 0 : a->cpu < b->cpu;
}

void ipistorm_tally_senders(const struct ipi_tally_source *s, int max, char *buf,
			    size_t len)
{
	const struct ipi_sender *by[IPI_TALLY_SENDERS];
	uint64_t rest = s->senders_other;
	size_t off = 0;
	int i, j;

	for (i = 0; i < s->nsenders; i++) {
		for (j = i; j > 0 && sender_before(&s->senders[i], by[j - 1]); j--)
			by[j] = by[j - 1];
		by[j] = &s->senders[i];
	}
	buf[0] = '\0';
	for (i = 0; i < s->nsenders && i < max && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s on cpu %d (%llu)", i ? ", " : "",
				by[i]->comm, by[i]->cpu, (unsigned long long)by[i]->n);
	for (j = i; j < s->nsenders; j++)
		rest += by[j]->n;
	if (rest && off < len)
		snprintf(buf + off, len - off, " and %s%d more (%llu IPIs)",
			 s->senders_other ? "at least " : "",
			 s->nsenders - i + (s->senders_other ? 1 : 0), (unsigned long long)rest);
}

const struct ipi_tally_source *ipistorm_tally_source(const struct ipi_tally *t, int slot)
{
	return slot == TALLY_OTHER ? &t->src_other : &t->src[slot];
}

#define TOP_SENDERS	4	/* senders printed per source */

void ipistorm_tally_source_print(const struct ipi_tally *t, int slot, double seconds)
{
	const struct ipi_tally_source *s = ipistorm_tally_source(t, slot);
	char senders[320];

	ipistorm_tally_senders(s, TOP_SENDERS, senders, sizeof(senders));
	ksft_print_msg("source %s: %llu IPIs (%.2f/s), callback %s, %s; from %s\n",
		       tally_slot_name(&t->sources, slot), (unsigned long long)s->n,
		       seconds > 0 ? s->n / seconds : 0, s->callback,
		       s->stacks == s->n ? "named from the sender's stack" :
		       s->stacks ? "named from the sender's stack (some)" : "named by its call site",
		       senders[0] ? senders : "?");
}

int ipistorm_tally_send(struct ipi_tally *t, const struct ipi_send *s, size_t window,
			size_t minute)
{
	enum intf_kind kind = intf_kind_of_callback(s->callback);
	char name[64];
	struct ipi_tally_source *src;
	uint64_t n = 0;
	int cpu;

	cpu_mask_for_each(cpu, &s->targets) {
		if (ipistorm_tally_add(t, cpu, kind, 1, window, minute))
			return -1;
		n++;
	}
	if (!n)
		return 0;
	tally_add(&t->cb, s->callback, n);
	/* a kernel without callsite: named by what it ran, as before 6.6 */
	if (!s->source[0]) {
		t->no_callsite += n;
		snprintf(name, sizeof(name), "callback %.54s", s->callback);
	} else {
		snprintf(name, sizeof(name), "%s", s->source);
	}
	src = source_of(t, name, s->callback);
	if (grow(&src->per_win, src->nwin, window + 1))
		return -1;
	src->nwin = src->nwin > window + 1 ? src->nwin : window + 1;
	src->per_win[window] += n;
	src->n += n;
	src->stacks += s->w.stack ? n : 0;
	sender_count(src, s, n);
	return 0;
}

void ipistorm_tally_queued(struct ipi_tally *t, const struct trace_event_record *r,
			   const cpu_mask_t *watched)
{
	uint64_t cpu;
	char func[64];

	if (trace_event_u64(r, "cpu", &cpu) || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, watched))
		return;
	if (!trace_event_str(r, "func", func, sizeof(func)))
		snprintf(func, sizeof(func), "?");
	t->queued++;
	tally_add(&t->func, func, 1);
}
