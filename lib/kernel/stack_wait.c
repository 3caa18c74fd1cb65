// SPDX-License-Identifier: GPL-2.0
/* Records waiting for their stack: see stack_wait.h. */
#include <string.h>

#include "stack_wait.h"

static struct stack_wait_item *item(const struct stack_wait *q, int i)
{
	return (struct stack_wait_item *)(q->items + (size_t)i * q->size);
}

void stack_wait_init(struct stack_wait *q, void *items, size_t size, int max,
		     void (*done)(void *arg, void *item), void *arg)
{
	memset(q, 0, sizeof(*q));
	q->items = items;
	q->size = size;
	q->max = max;
	q->done = done;
	q->arg = arg;
	q->collecting = -1;
}

/* Item @i is complete: to the owner, out of the queue. */
static void item_done(struct stack_wait *q, int i)
{
	q->done(q->arg, item(q, i));
	memmove(item(q, i), item(q, i + 1), (size_t)(q->n - i - 1) * q->size);
	q->n--;
	if (q->collecting > i)
		q->collecting--;
	else if (q->collecting == i)
		q->collecting = -1;
}

/* The item of @cpu still waiting for its stack, or -1. */
static int waiting_of_cpu(const struct stack_wait *q, int cpu)
{
	for (int i = 0; i < q->n; i++)
		if (item(q, i)->cpu == cpu && !item(q, i)->stack)
			return i;
	return -1;
}

void *stack_wait_next(struct stack_wait *q, int cpu)
{
	struct stack_wait_item *s;
	int i;

	if (q->collecting >= 0)
		item_done(q, q->collecting);
	/* an earlier record of this CPU got no stack: done without */
	i = waiting_of_cpu(q, cpu);
	if (i >= 0)
		item_done(q, i);
	if (q->n == q->max)
		item_done(q, 0);
	s = item(q, q->n);
	memset(s, 0, q->size);
	s->cpu = cpu;
	return s;
}

void stack_wait_keep(struct stack_wait *q)
{
	q->n++;
}

void stack_wait_stack(struct stack_wait *q, int cpu)
{
	if (q->collecting >= 0)
		item_done(q, q->collecting);
	q->collecting = waiting_of_cpu(q, cpu);
	if (q->collecting >= 0)
		item(q, q->collecting)->stack = true;
}

void *stack_wait_frame(struct stack_wait *q, const char *func)
{
	if (q->collecting < 0)
		return NULL;
	if (!func) {
		item_done(q, q->collecting);
		return NULL;
	}
	return item(q, q->collecting);
}

void stack_wait_flush(struct stack_wait *q)
{
	while (q->n)
		item_done(q, 0);
}
