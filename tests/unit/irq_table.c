// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of /proc/interrupts reading (lib/kernel/counters.c): x86's
 * rows by their names, and arm64's IPI rows and arch timer by their
 * descriptions under the same names. The arm64 table is Debian 6.12's in
 * a qemu virt guest (GICv3, 2 CPUs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/ktap.h"
#include "lib/kernel/counters.h"

static const char x86[] =
	"           CPU0       CPU1       \n"
	" 26:          0          1  IO-APIC   4-edge      ttyS0\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:     161930     180369   Local timer interrupts\n"
	"IWI:          5         27   IRQ work interrupts\n"
	"RES:      31110      26319   Rescheduling interrupts\n"
	"CAL:     250809      82071   Function call interrupts\n"
	"TLB:          0          0   TLB shootdowns\n"
	"ERR:          0\n";

static const char arm64[] =
	"           CPU0       CPU1       \n"
	" 11:       1080        143     GICv3  27 Level     arch_timer\n"
	" 13:          0          0     GICv3  33 Level     uart-pl011\n"
	" 18:          0          3  ITS-PCI-MSIX-0000:00:02.0   1 Edge      virtio1-virtqueues\n"
	" 20:          0          0     GICv3  23 Level     arm-pmu\n"
	"IPI0:        10          6       Rescheduling interrupts\n"
	"IPI1:         9         37       Function call interrupts\n"
	"IPI2:         0          0       CPU stop interrupts\n"
	"IPI3:         0          0       CPU stop NMIs\n"
	"IPI4:         0          0       Timer broadcast interrupts\n"
	"IPI5:         0          3       IRQ work interrupts\n"
	"IPI6:         0          0       CPU backtrace interrupts\n"
	"IPI7:         0          0       KGDB roundup interrupts\n"
	"Err:          0\n";

/* A later arm64 snapshot whose CPUs are 0 and 2, with a second timer row. */
static const char arm64_later[] =
	"           CPU0       CPU2       \n"
	" 10:          7          5     GICv3  26 Level     arch_timer\n"
	" 11:       1180        150     GICv3  27 Level     arch_timer\n"
	"IPI0:        12         46       Rescheduling interrupts\n"
	"IPI1:         9         37       Function call interrupts\n";

static int table(const char *text, struct irq_table *t)
{
	char path[] = "/tmp/isolbench-irq-XXXXXX";
	int fd = mkstemp(path), rc = -1;

	if (fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		rc = irq_table_read(path, t);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return rc;
}

int main(void)
{
	struct irq_table x, a, b;

	ksft_print_header();
	ksft_set_plan(7);
	if (table(x86, &x) || table(arm64, &a) || table(arm64_later, &b))
		ksft_exit_fail_msg("cannot read the tables\n");

	ksft_test_result(irq_table_count(&x, "RES", 1) == 26319 &&
			 irq_table_count(&x, "CAL", 0) == 250809 &&
			 irq_table_count(&x, "LOC", 1) == 180369 &&
			 irq_table_count(&x, "TLB", 0) == 0,
			 "x86: rows by their names");
	ksft_test_result(irq_table_count(&a, "RES", 1) == 6 &&
			 irq_table_count(&a, "CAL", 1) == 37 &&
			 irq_table_count(&a, "IWI", 1) == 3,
			 "arm64: IPI rows by their descriptions");
	ksft_test_result(irq_table_count(&a, "LOC", 0) == 1080,
			 "arm64: the tick is the arch timer's row");
	ksft_test_result(irq_table_count(&a, "TLB", 0) == -1 &&
			 irq_table_count(&a, "IPI9", 0) == -1,
			 "arm64: no TLB row (a flush broadcasts in hardware), no row for an unknown name");
	ksft_test_result(irq_table_count(&a, "RES", 2) == -1 &&
			 irq_table_count(&b, "RES", 2) == 46,
			 "a CPU is found by its column's header, not its position");
	ksft_test_result(irq_table_count(&b, "LOC", 0) == 1187,
			 "arm64: the arch timer's rows are summed");
	ksft_test_result(irq_table_delta(&a, &b, "RES", 0) == 2 &&
			 irq_table_delta(&a, &b, "LOC", 0) == 107 &&
			 irq_table_delta(&a, &b, "RES", 1) == -1,
			 "deltas by kind, -1 where a snapshot lacks the CPU");
	irq_table_free(&x);
	irq_table_free(&a);
	irq_table_free(&b);
	ksft_finished();
}
