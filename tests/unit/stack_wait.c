// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the records waiting for their stack (lib/kernel/stack_wait.h). */
#include <stdio.h>
#include <string.h>

#include "lib/base/ktap.h"
#include "lib/kernel/stack_wait.h"

struct rec {
	struct stack_wait_item w;
	int id;
	char top[32];		/* the first frame of its stack */
};

/* What was done, in order: "id:top" each. */
struct log {
	char s[256];
};

static void done(void *arg, void *item)
{
	struct log *l = arg;
	const struct rec *r = item;
	size_t n = strlen(l->s);

	snprintf(l->s + n, sizeof(l->s) - n, "%s%d:%s", n ? " " : "", r->id,
		 r->w.stack ? r->top : "-");
}

static void record(struct stack_wait *q, int cpu, int id)
{
	struct rec *r = stack_wait_next(q, cpu);

	r->id = id;
	stack_wait_keep(q);
}

static void stack(struct stack_wait *q, int cpu, const char *top)
{
	struct rec *r;

	stack_wait_stack(q, cpu);
	r = stack_wait_frame(q, top);
	if (r)
		snprintf(r->top, sizeof(r->top), "%s", top);
	stack_wait_frame(q, "caller");
	stack_wait_frame(q, NULL);
}

/* An empty queue over @items, its done log emptied. */
static void fresh(struct stack_wait *q, struct rec *items, int max, struct log *l)
{
	l->s[0] = '\0';
	stack_wait_init(q, items, sizeof(items[0]), max, done, l);
}

int main(void)
{
	struct rec items[3];
	struct stack_wait q;
	struct log l;

	ksft_print_header();
	ksft_set_plan(3);

	/* cpu 0 and 1 interleaved: each stack to its own CPU's record */
	fresh(&q, items, 3, &l);
	record(&q, 0, 1);
	record(&q, 1, 2);
	stack(&q, 1, "b");
	stack(&q, 0, "a");
	stack_wait_flush(&q);
	ksft_test_result(!strcmp(l.s, "2:b 1:a"), "a stack goes to its CPU's record, done at its end (%s)",
			 l.s);

	/* a record of a CPU with one still waiting: that one done without a stack */
	fresh(&q, items, 3, &l);
	record(&q, 0, 1);
	record(&q, 0, 2);
	stack(&q, 0, "c");
	stack(&q, 1, "orphan");
	stack_wait_flush(&q);
	ksft_test_result(!strcmp(l.s, "1:- 2:c"),
			 "a CPU's next record ends the wait of its last; a stack of no record is dropped (%s)",
			 l.s);

	/* full: the oldest done first; the rest at the flush */
	fresh(&q, items, 3, &l);
	for (int i = 0; i < 4; i++)
		record(&q, i, 10 + i);
	stack(&q, 3, "d");
	stack_wait_flush(&q);
	ksft_test_result(!strcmp(l.s, "10:- 13:d 11:- 12:-"),
			 "a full queue does its oldest first, the flush the rest (%s)", l.s);
	ksft_finished();
}
