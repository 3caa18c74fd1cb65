/* SPDX-License-Identifier: GPL-2.0 */
/* The system context every result file carries (docs/result-schema.md). */
#ifndef ISOLBENCH_SYSINFO_H
#define ISOLBENCH_SYSINFO_H

#include <stdbool.h>

#include "../base/cpu.h"
#include "../base/json.h"

/* "kvm", "tcg", "hyperv", ... or "none"; emulated is true under TCG. */
const char *sysinfo_hypervisor(bool *emulated);
/* Write the "system" object. */
void sysinfo_json(struct json *j, const struct cpu_sets *sets, int target);

#endif
