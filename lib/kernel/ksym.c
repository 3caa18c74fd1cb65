// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"

int ksym_addr(const char *sym, unsigned long long *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], name[128], hex[32], type;
	int ret = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %c %127s", hex, &type, name) == 3 &&
		    !strcmp(name, sym)) {
			*addr = strtoull(hex, NULL, 16);
			ret = *addr ? 0 : -1;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}
