// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm_kmod: the kernel side of isolbench's ipistorm --mode kmod.
 *
 * One kernel thread per source CPU issues a fixed number of
 * smp_call_function_single() calls to its destination CPU (source plus
 * an offset, wrapping over the online CPUs), or smp_call_function() to
 * all other CPUs. The callback counts itself on the CPU it runs on, so
 * the result says how many calls really executed remotely.
 *
 * Parameters (module parameters, also writable in
 * /sys/module/ipistorm_kmod/parameters between runs):
 *   nr_ipis     calls per source CPU
 *   single      1: one target per source; 0: all other online CPUs
 *   offset      destination = source + offset (mod nr_cpu_ids, online)
 *   cpulist     source CPUs (kernel cpulist); empty: all online CPUs
 *   wait        wait for each callback to finish before the next call
 *   delay_us    busy delay between two calls
 *   timeout_s   every source thread stops after this long
 *
 * debugfs (/sys/kernel/debug/ipistorm/):
 *   run         write 1: run once with the current parameters, return
 *               when every source thread is done, or early on a signal
 *               (the threads stop within 256 calls, timed_out 1)
 *   result      one line per source CPU:
 *               "src DST dst DST calls N ns NS callbacks N timed_out 0|1
 *                errors N last_error E unfinished N"
 *               calls: the calls that succeeded; errors: the calls
 *               smp_call_function_single() refused (last_error its
 *               return, e.g. -6 ENXIO); unfinished: callbacks still not
 *               run 10 s after the last call (with wait=0 the source
 *               waits for its outstanding callbacks before it reports).
 *
 * CPU hotplug is held off (cpus_read_lock) for the whole run, so the
 * sources and destinations stay online and the destinations fixed.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>

static unsigned long nr_ipis = 100000;
module_param(nr_ipis, ulong, 0644);
MODULE_PARM_DESC(nr_ipis, "calls per source CPU");

static bool single = true;
module_param(single, bool, 0644);
MODULE_PARM_DESC(single, "one target per source (1) or all other CPUs (0)");

static unsigned int offset = 1;
module_param(offset, uint, 0644);
MODULE_PARM_DESC(offset, "destination = source + offset");

static char cpulist[256];
module_param_string(cpulist, cpulist, sizeof(cpulist), 0644);
MODULE_PARM_DESC(cpulist, "source CPUs (cpulist); empty: all online");

static bool do_wait = true;
module_param_named(wait, do_wait, bool, 0644);
MODULE_PARM_DESC(wait, "wait for each callback to complete");

static unsigned int delay_us;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "busy delay between calls");

static unsigned int timeout_s = 60;
module_param(timeout_s, uint, 0644);
MODULE_PARM_DESC(timeout_s, "stop every source thread after this long");

/*
 * The parameters of a run, read once under kernel_param_lock(): they may
 * be written in sysfs while the threads run.
 */
struct storm_params {
	unsigned long nr_ipis, timeout_jiffies;
	unsigned int offset, delay_us;
	bool single, wait;
};

struct storm_src {
	int src, dst;
	u64 calls, ns, errors, unfinished;
	int last_error;
	bool timed_out;
	atomic64_t cb_done;	/* callbacks of this source's calls that ran */
	const struct storm_params *p;
	struct completion done;
};

static DEFINE_PER_CPU(atomic64_t, callbacks_run);
static DEFINE_MUTEX(run_lock);
/* set when the writer of 'run' got a signal: the threads end early */
static bool storm_abort;
static struct storm_params run_params;	/* under run_lock */
static struct storm_src *results;
static int nresults;
static struct dentry *dir;

static void storm_callback(void *info)
{
	struct storm_src *s = info;

	atomic64_inc(this_cpu_ptr(&callbacks_run));
	atomic64_inc(&s->cb_done);
}

/*
 * With wait=0 the last calls' callbacks may still be queued or running:
 * wait until all @expected have run (at most 10 s: longer is a csd
 * lockup), so that callbacks == calls holds in 'result' and no callback
 * runs after the module is gone.
 */
static void storm_wait_callbacks(struct storm_src *s, u64 expected)
{
	unsigned long end = jiffies + 10 * HZ;
	u64 done;

	while ((done = atomic64_read(&s->cb_done)) < expected &&
	       time_before(jiffies, end))
		cond_resched();
	s->unfinished = done < expected ? expected - done : 0;
}

static int storm_dst(int src, unsigned int off)
{
	int cpu = (src + off % nr_cpu_ids) % nr_cpu_ids;
	int i;

	/* the next online CPU at or after src + offset */
	for (i = 0; i < nr_cpu_ids; i++, cpu = (cpu + 1) % nr_cpu_ids)
		if (cpu_online(cpu))
			return cpu;
	return -1;
}

/* udelay() is for short waits: a long one overflows its scaling on x86 */
static void storm_delay(unsigned int us)
{
	while (us) {
		unsigned int d = min(us, 1000U);

		udelay(d);
		us -= d;
	}
}

static int storm_thread(void *arg)
{
	struct storm_src *s = arg;
	const struct storm_params *p = s->p;
	unsigned long end = jiffies + p->timeout_jiffies;
	u64 t0 = ktime_get_ns();
	unsigned long i;

	/* hotplug is held off: the other online CPUs stay the same */
	u64 per_call = p->single ? 1 : num_online_cpus() - 1;
	int ret;

	for (i = 0; i < p->nr_ipis; i++) {
		if (p->single) {
			ret = smp_call_function_single(s->dst, storm_callback,
						       s, p->wait);
			if (ret) {
				s->errors++;
				s->last_error = ret;
			} else {
				s->calls++;
			}
		} else {
			smp_call_function(storm_callback, s, p->wait);
			s->calls++;
		}
		storm_delay(p->delay_us);
		/* with a delay a call is slow: look every time */
		if (p->delay_us || !(i & 255)) {
			cond_resched();
			if (time_after(jiffies, end) || kthread_should_stop() ||
			    READ_ONCE(storm_abort)) {
				s->timed_out = true;
				break;
			}
		}
	}
	s->ns = ktime_get_ns() - t0;
	storm_wait_callbacks(s, s->calls * per_call);
	/*
	 * Not complete() and return: the waiter may return to user space
	 * and the module be unloaded while this thread still runs the rest
	 * of this function. This exits without coming back here.
	 */
	kthread_complete_and_exit(&s->done, 0);
}

/* The run's parameters and source CPUs, read once: sysfs may change them. */
static int storm_params_read(struct cpumask *srcs)
{
	int ret = 0;

	kernel_param_lock(THIS_MODULE);
	run_params = (struct storm_params){
		.nr_ipis = nr_ipis,
		.timeout_jiffies = (unsigned long)timeout_s * HZ,
		.offset = offset,
		.delay_us = delay_us,
		.single = single,
		.wait = do_wait,
	};
	if (cpulist[0] && cpulist[0] != '\n')
		ret = cpulist_parse(cpulist, srcs);
	else
		cpumask_copy(srcs, cpu_online_mask);
	kernel_param_unlock(THIS_MODULE);
	return ret;
}

/* How many sources there are, every one online; a negative error if not. */
static int storm_srcs_count(const struct cpumask *srcs)
{
	int cpu, n;

	for_each_cpu(cpu, srcs)
		if (!cpu_online(cpu))
			return -ENODEV;
	n = cpumask_weight(srcs);
	return n ? n : -EINVAL;
}

/*
 * One thread per source, bound to it and not woken yet, with its result
 * ready. On an error none is left: those made are stopped before they
 * run a call.
 */
static int storm_threads_create(const struct cpumask *srcs, struct task_struct **threads)
{
	int cpu, i = 0, ret = 0;

	for_each_possible_cpu(cpu)
		atomic64_set(per_cpu_ptr(&callbacks_run, cpu), 0);
	for_each_cpu(cpu, srcs) {
		struct storm_src *s = &results[i];

		s->src = cpu;
		s->p = &run_params;
		atomic64_set(&s->cb_done, 0);
		s->dst = run_params.single ? storm_dst(cpu, run_params.offset) : -1;
		if (run_params.single && (s->dst < 0 || s->dst == cpu)) {
			ret = -EINVAL;	/* offset leads back to the source */
			break;
		}
		init_completion(&s->done);
		threads[i] = kthread_create(storm_thread, s, "ipistorm/%d", cpu);
		if (IS_ERR(threads[i])) {
			ret = PTR_ERR(threads[i]);
			break;
		}
		kthread_bind(threads[i], cpu);
		i++;
	}
	if (ret) {
		while (i--)
			kthread_stop(threads[i]);
		return ret;
	}
	nresults = i;
	return 0;
}

/*
 * The run: every thread woken, then waited for. Interruptible: a run may
 * last timeout_s (ipistorm -D: days), and Ctrl-C must end it with what
 * was done so far in 'result'. After a signal every thread stops within
 * 256 calls. The caller holds the hotplug lock until every thread is
 * done: no source or destination goes offline under a run (a CPU
 * offline request waits for its end).
 */
static void storm_threads_run(struct task_struct **threads, int n)
{
	int i;

	for (i = 0; i < n; i++)
		wake_up_process(threads[i]);
	for (i = 0; i < n; i++) {
		if (wait_for_completion_interruptible(&results[i].done)) {
			WRITE_ONCE(storm_abort, true);
			wait_for_completion(&results[i].done);
		}
	}
}

static int storm_run(void)
{
	struct task_struct **threads;
	cpumask_var_t srcs;
	int n, ret;

	if (!zalloc_cpumask_var(&srcs, GFP_KERNEL))
		return -ENOMEM;
	ret = storm_params_read(srcs);
	if (ret)
		goto out_mask;
	cpus_read_lock();
	n = storm_srcs_count(srcs);
	if (n < 0) {
		ret = n;
		goto out_unlock;
	}
	kfree(results);
	nresults = 0;
	results = kcalloc(n, sizeof(*results), GFP_KERNEL);
	threads = kcalloc(n, sizeof(*threads), GFP_KERNEL);
	if (!results || !threads) {
		kfree(threads);
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = storm_threads_create(srcs, threads);
	if (!ret)
		storm_threads_run(threads, n);
	WRITE_ONCE(storm_abort, false);
	kfree(threads);
out_unlock:
	cpus_read_unlock();
out_mask:
	free_cpumask_var(srcs);
	return ret;
}

static ssize_t run_write(struct file *f, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	bool go;
	int ret = kstrtobool_from_user(ubuf, len, &go);

	if (ret)
		return ret;
	if (!go)
		return len;
	mutex_lock(&run_lock);
	ret = storm_run();
	mutex_unlock(&run_lock);
	return ret ? ret : len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
};

static int result_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&run_lock);
	for (i = 0; i < nresults; i++) {
		struct storm_src *s = &results[i];
		u64 cb = s->dst >= 0 ?
			atomic64_read(per_cpu_ptr(&callbacks_run, s->dst)) : 0;

		seq_printf(m, "src %d dst %d calls %llu ns %llu callbacks %llu timed_out %d errors %llu last_error %d unfinished %llu\n",
			   s->src, s->dst, s->calls, s->ns, cb, s->timed_out,
			   s->errors, s->last_error, s->unfinished);
	}
	mutex_unlock(&run_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(result);

static int __init ipistorm_init(void)
{
	dir = debugfs_create_dir("ipistorm", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file("run", 0200, dir, NULL, &run_fops);
	debugfs_create_file("result", 0444, dir, NULL, &result_fops);
	return 0;
}

static void __exit ipistorm_exit(void)
{
	debugfs_remove_recursive(dir);
	kfree(results);
}

module_init(ipistorm_init);
module_exit(ipistorm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("isolbench ipistorm: timed smp_call_function floods");
