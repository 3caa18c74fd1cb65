/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols from /proc/kallsyms: the address of a symbol, e.g. for
 * a tracepoint filter on a function pointer ("function == 0x..."), and
 * the function an address lies in, as the trace's %ps prints it. Without
 * root or with kptr_restrict the addresses read as 0: then no symbol is
 * found.
 */
#ifndef ISOLBENCH_KSYM_H
#define ISOLBENCH_KSYM_H

/* The address of @sym: 0, or -1 when it is missing or hidden. */
int ksym_addr(const char *sym, unsigned long long *addr);

/* The text symbols (kernel and modules), sorted by address. */
struct ksym_table;

/* Read once from @path (/proc/kallsyms); NULL when out of memory or unreadable. */
struct ksym_table *ksym_table_load(const char *path);
/*
 * The function @addr lies in: the text symbol at or below it, when
 * @addr is no further above it than the next one starts (the last
 * symbol's reach is bounded); NULL for none.
 */
const char *ksym_table_name(const struct ksym_table *t, unsigned long long addr);
void ksym_table_free(struct ksym_table *t);

#endif
