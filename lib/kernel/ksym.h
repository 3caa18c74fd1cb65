/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbol addresses from /proc/kallsyms, e.g. for a tracepoint
 * filter on a function pointer ("function == 0x..."). Without root or
 * with kptr_restrict the addresses read as 0: then the symbol counts as
 * not found.
 */
#ifndef ISOLBENCH_KSYM_H
#define ISOLBENCH_KSYM_H

/* The address of @sym: 0, or -1 when it is missing or hidden. */
int ksym_addr(const char *sym, unsigned long long *addr);

#endif
