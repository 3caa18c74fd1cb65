// SPDX-License-Identifier: GPL-2.0
/*
 * cid_batch_probe: a kprobe on task_mm_cid_work() that writes, at each
 * call's entry, where the batched mm_cid scan of the posted batch
 * patch's shape stands into the trace buffer: "cid_batch: n=OFFSET",
 * the process's batch counter times CONFIG_RSEQ_CID_SCAN_BATCH (0, or
 * at least the number of possible CPUs, when the call begins a walk).
 * function_graph prints it with the call, so that cid_scan can group
 * the calls of a scan that returns nothing into walks.
 *
 * isolbench's port of that shape (vm/patches/cid-scan-batch-posted.patch)
 * keeps the counter in mm_cid_scan_cpu, the member cid-scan-batch.patch
 * adds, where it means the next CPU instead: cid_scan loads this module
 * only where task_mm_cid_work() runs the batches itself. Elsewhere the
 * module refuses to load (-ENODEV).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>

#if defined(CONFIG_RSEQ_CID_SCAN_BATCH) && defined(CONFIG_KPROBES)
static int cid_batch_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;

	if (mm)
		trace_printk("cid_batch: n=%lu\n",
			     (unsigned long)READ_ONCE(mm->mm_cid_scan_cpu) *
			     CONFIG_RSEQ_CID_SCAN_BATCH);
	return 0;
}

static struct kprobe cid_batch_kp = {
	.symbol_name = "task_mm_cid_work",
	.pre_handler = cid_batch_pre,
};

static int __init cid_batch_probe_init(void)
{
	return register_kprobe(&cid_batch_kp);
}

static void __exit cid_batch_probe_exit(void)
{
	unregister_kprobe(&cid_batch_kp);
}
#else
static int __init cid_batch_probe_init(void)
{
	return -ENODEV;
}

static void __exit cid_batch_probe_exit(void)
{
}
#endif

module_init(cid_batch_probe_init);
module_exit(cid_batch_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("isolbench: the posted batch patch's mm_cid batch counter in the trace");
