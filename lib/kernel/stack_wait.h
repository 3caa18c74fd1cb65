/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records waiting for their stack: the stacktrace trigger logs a
 * kernel_stack record right after its event's record, on the same CPU,
 * and the records of other CPUs may come in between. A record of
 * interest waits in a short queue, in arrival order; it is done (given
 * to the owner's callback) when its stack has ended, when its CPU logs
 * another record of interest without a stack in between, when the
 * queue is full (the oldest first), or at the flush.
 *
 * The owner's items begin with a struct stack_wait_item:
 *
 *	struct send { struct stack_wait_item w; ... } items[8];
 *	stack_wait_init(&q, items, sizeof(items[0]), 8, done, arg);
 *	a record of interest: s = stack_wait_next(&q, cpu); fill s; stack_wait_keep(&q);
 *	a kernel_stack record: stack_wait_stack(&q, cpu);
 *	each frame: s = stack_wait_frame(&q, func) (NULL at the end, or no item's)
 *	stack_wait_flush(&q);
 */
#ifndef ISOLBENCH_STACK_WAIT_H
#define ISOLBENCH_STACK_WAIT_H

#include <stdbool.h>
#include <stddef.h>

struct stack_wait_item {
	int cpu;		/* the CPU that logged the record */
	bool stack;		/* its stack came */
};

struct stack_wait {
	char *items;		/* the owner's array */
	size_t size;		/* of one item */
	int n, max;		/* waiting, and room */
	int collecting;		/* the item whose frames are being read, or -1 */
	void (*done)(void *arg, void *item);
	void *arg;
};

void stack_wait_init(struct stack_wait *q, void *items, size_t size, int max,
		     void (*done)(void *arg, void *item), void *arg);
/*
 * The slot of a record of interest of @cpu, zeroed but for its CPU: the
 * stack being read, a record of @cpu still waiting and, when full, the
 * oldest are done first. It joins the queue at stack_wait_keep().
 */
void *stack_wait_next(struct stack_wait *q, int cpu);
void stack_wait_keep(struct stack_wait *q);
/* A kernel_stack record of @cpu: its frames are those of @cpu's waiting item, if any. */
void stack_wait_stack(struct stack_wait *q, int cpu);
/*
 * A frame of the stack being read: the item it belongs to, or NULL
 * when none does; NULL @func ends the stack (its item done).
 */
void *stack_wait_frame(struct stack_wait *q, const char *func);
/* The end of the records: every item still waiting is done. */
void stack_wait_flush(struct stack_wait *q);

#endif
