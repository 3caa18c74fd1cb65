// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cid_scan_periodic.c: one pick per period (the heaviest), and
 * the count a period allows, which an attribution of events recurring
 * faster than the period exceeds (the estimate's verdict then fails).
 */
#include <stdlib.h>

#include "lib/base/ktap.h"
#include "cid_scan_periodic.h"

#define MS	1000000ULL

int main(void)
{
	struct periodic_ev ev[400];
	size_t n = 0, picked, heavy = 0;
	uint64_t window = 98 * MS, period = 100 * MS;

	ksft_print_header();
	ksft_set_plan(5);

	/* a scan every 100 ms for 10 s, and an early return 30 ms later */
	for (int k = 0; k < 100; k++) {
		ev[n++] = (struct periodic_ev){ k * period + 30 * MS, 2.0, 1, false };
		ev[n++] = (struct periodic_ev){ k * period, 40.0, 0, false };
	}
	picked = cid_scan_periodic_pick(ev, n, window);
	for (size_t i = 0; i < n; i++)
		heavy += ev[i].picked && ev[i].tag == 0;
	ksft_test_result(picked == 100 && heavy == 100,
			 "200 candidates, one per period picked, the heavy one (%zu, %zu)",
			 picked, heavy);
	ksft_test_result(picked <= cid_scan_periodic_allowed(10000 * MS, period, 1),
			 "100 picks in 10 s: within the %.0f the period allows",
			 cid_scan_periodic_allowed(10000 * MS, period, 1));

	/* the heavier of two close events wins even when it comes second */
	n = 0;
	ev[n++] = (struct periodic_ev){ 0, 1.0, 0, false };
	ev[n++] = (struct periodic_ev){ 5 * MS, 9.0, 1, false };
	ev[n++] = (struct periodic_ev){ 200 * MS, 3.0, 2, false };
	picked = cid_scan_periodic_pick(ev, n, window);
	ksft_test_result(picked == 2 && !ev[0].picked && ev[1].picked && ev[2].picked,
			 "a heavier later event replaces the earlier pick");

	/* something recurring every 97 ms is not a 100 ms scan: too many */
	n = 0;
	for (int k = 0; k < 104; k++)
		ev[n++] = (struct periodic_ev){ k * 97 * MS, 10.0, 0, false };
	picked = cid_scan_periodic_pick(ev, n, 96 * MS);
	ksft_test_result(picked == 104 && picked > cid_scan_periodic_allowed(103 * 97 * MS, period, 1),
			 "104 picks 97 ms apart in %.2f s exceed the %.0f allowed: the verdict fails",
			 103 * 97 / 1e3, cid_scan_periodic_allowed(103 * 97 * MS, period, 1));
	ksft_test_result(cid_scan_periodic_allowed(1000 * MS, period, 4) == 44,
			 "batched: 4 calls per walk, 11 walks in 1 s: 44");
	ksft_finished();
}
