/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel was built with: its config and its symbols. */
#ifndef ISOLBENCH_KCONFIG_H
#define ISOLBENCH_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The value of @key ("CONFIG_HZ") from /proc/config.gz, else
 * /boot/config-RELEASE: 0 with the value in @val, -1 when not set or
 * no config is readable.
 */
int kconfig_value(const char *key, char *val, size_t len);

#endif
