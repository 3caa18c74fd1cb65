// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/ipi.c: a counter that cannot be read counts nothing;
 * the delivery check fails short counts and more deliveries than calls.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/ipi.h"
#include "lib/ktap.h"

int main(void)
{
	struct ipi_count c;
	int ret;

	ksft_print_header();
	ksft_set_plan(7);
	/* /dev/zero reads as a counter at 0, /dev/null as a failed read */
	memset(&c, 0, sizeof(c));
	c.sent.fd = open("/dev/zero", O_RDONLY);
	c.sent_mask.fd = open("/dev/zero", O_RDONLY);
	c.elided.fd = open("/dev/zero", O_RDONLY);
	c.queued.fd = -1;
	ret = ipi_count_read(&c);
	ksft_test_result(!ret && !c.real && !c.elided_n, "readable counters: 0 calls counted");
	close(c.sent_mask.fd);
	c.sent_mask.fd = open("/dev/null", O_RDONLY);
	ret = ipi_count_read(&c);
	ksft_test_result(ret == -1 && !c.real && strstr(c.why, "ipi_send_cpumask"),
			 "failed read: not counted, reason '%s' (real %llu)", c.why,
			 (unsigned long long)c.real);
	ksft_test_result(ipi_delivery_judge(4000, 4000) == IPI_DELIVERY_OK,
			 "4000 of 4000 delivered: ok");
	ksft_test_result(ipi_delivery_judge(4000, 3960) == IPI_DELIVERY_OK,
			 "3960 of 4000 (99%%): ok");
	ksft_test_result(ipi_delivery_judge(4000, 3959) == IPI_DELIVERY_SHORT,
			 "3959 of 4000: short");
	ksft_test_result(ipi_delivery_judge(4000, 4001) == IPI_DELIVERY_EXCESS,
			 "4001 of 4000: flagged, not passed");
	ksft_test_result(ipi_delivery_judge(0, 0) == IPI_DELIVERY_NONE,
			 "no call: not a pass");
	ksft_finished();
}
