// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "plan.h"

long plan_declare(struct plan *p, const struct plan_phase *table)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; table[i].name; i++) {
		if (i == PLAN_MAX_PHASES)
			return -1;
		p->phases[p->nphases++] = table[i];
		p->total += table[i].verdicts * table[i].times;
	}
	p->declared = true;
	return p->total;
}

void plan_count(struct plan *p, unsigned int n)
{
	memset(p, 0, sizeof(*p));
	p->declared = true;
	p->total = n;
}

int plan_check(const struct plan *p, unsigned int printed, char *buf,
	       size_t len)
{
	size_t off;

	if (!p->declared || printed == p->total)
		return 0;
	off = snprintf(buf, len, "%u results printed, the plan declared %u",
		       printed, p->total);
	for (int i = 0; i < p->nphases && off < len; i++) {
		const struct plan_phase *ph = &p->phases[i];

		off += snprintf(buf + off, len - off, "%s %s %u x %u",
				i ? "," : ":", ph->name, ph->verdicts, ph->times);
	}
	return -1;
}
