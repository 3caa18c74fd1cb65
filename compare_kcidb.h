/* SPDX-License-Identifier: GPL-2.0 */
/*
 * isolbench results as KCIDB test records (KCIDB I/O schema v4), for
 * test farms (KernelCI, LAVA, LKP). The mapping is in docs/kcidb.md:
 *
 *	isolbench.PROGRAM		the program's exit: PASS, FAIL, SKIP
 *	isolbench.PROGRAM.check_N	its N-th verdict: PASS, FAIL, SKIP
 *	isolbench.PROGRAM.METRIC	DONE, number = mean with its unit
 *	isolbench.PROGRAM.METRIC.vs_base  PASS/FAIL/SKIP against a base
 */
#ifndef ISOLBENCH_COMPARE_KCIDB_H
#define ISOLBENCH_COMPARE_KCIDB_H

#include <stdio.h>

#include "compare_cmp.h"
#include "lib/result/result.h"

#define KCIDB_ORIGIN		"isolbench"
#define KCIDB_MAJOR		4
#define KCIDB_MINOR		5

/* A metric compared against a base, exported as a vs_base record. */
struct kcidb_cmp {
	const struct result *res;
	const struct result_metric *metric;
	const char *base_label;
	struct cmp c;
	enum bisect_verdict verdict;
	char why[192];
	double threshold;
	const char *threshold_unit;	/* NULL: threshold is % of the base */
};

/*
 * Write one KCIDB document with the records of @res[0..nres) and of
 * @cmps[0..ncmps). @build_id (an "origin:id" of the farm's build) may be
 * NULL: "isolbench:<kernel release>" is used then. 0 or -1 (errno).
 */
int compare_kcidb_write(FILE *f, const struct result *const *res, size_t nres,
			const struct kcidb_cmp *cmps, size_t ncmps,
			const char *build_id);

#endif
