// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tick.h"
#include "util.h"

int tick_jiffies(uint64_t *jiffies)
{
	char *s = read_file_all("/proc/timer_list", NULL);
	char *p, *end;
	int ret = -1;

	if (!s)
		return -1;
	/* the first "jiffies: N" line, at the start of a line */
	for (p = strstr(s, "jiffies: "); p; p = strstr(p + 1, "jiffies: ")) {
		if (p != s && p[-1] != '\n')
			continue;
		*jiffies = strtoull(p + 9, &end, 10);
		if (end != p + 9)
			ret = 0;
		break;
	}
	free(s);
	return ret;
}

int tick_hz_from(uint64_t djiffies, double seconds)
{
	static const int choices[] = { 100, 250, 300, 1000 };
	double hz;

	if (seconds < 0.2)
		return 0;
	hz = djiffies / seconds;
	for (size_t i = 0; i < ARRAY_SIZE(choices); i++)
		if (fabs(hz - choices[i]) <= 0.05 * choices[i])
			return choices[i];
	return 0;
}
