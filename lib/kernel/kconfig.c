// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kconfig.h"
#include "../base/util.h"

int kconfig_value(const char *key, char *val, size_t len)
{
	char cmd[256], path[128];
	struct utsname u;
	FILE *f;
	char line[256];
	size_t klen = strlen(key);
	int found = -1;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	if (!access("/proc/config.gz", R_OK))
		snprintf(cmd, sizeof(cmd), "zcat /proc/config.gz 2>/dev/null");
	else
		snprintf(cmd, sizeof(cmd), "cat '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == '=') {
			snprintf(val, len, "%s", line + klen + 1);
			val[strcspn(val, "\n")] = '\0';
			found = 0;
		}
	pclose(f);
	return found;
}
