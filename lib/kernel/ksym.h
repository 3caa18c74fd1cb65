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

#include <stdbool.h>

/*
 * Find @sym in the kallsyms file @path: by its exact name or, with
 * @clones, also as a compiler clone of it (@sym.cold, @sym.part.N);
 * a module's symbol too. 0 with its address in *@addr (0 where the
 * addresses are hidden), or -1 when it is not listed.
 */
int ksym_find(const char *path, const char *sym, bool clones, unsigned long long *addr);
/* The address of @sym in /proc/kallsyms: 0, or -1 when it is missing or hidden. */
int ksym_addr(const char *sym, unsigned long long *addr);
/* Whether /proc/kallsyms lists @sym or a clone of it (whatever its address). */
bool ksym_exists(const char *sym);

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
