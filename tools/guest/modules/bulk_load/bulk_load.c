// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_load: page allocation load on every online CPU, for latency tests
 * (tools/suite's cyclictest).  One kernel thread per CPU, bound to it, at
 * the default priority, takes nr order-0 pages in one call and frees them,
 * again and again, for the seconds the parameter says or until the module
 * is removed:
 *
 *   mode=bulk    one bulk allocator call for the whole array (the kernel
 *                must have one: BULK_LOAD_HAVE_BULK)
 *   mode=single  the same pages by alloc_page(), one call each
 *
 * Only the allocation is timed.  On removal the module prints one line:
 *
 *   bulk_load: mode M nr N cpus C calls K pages P longest L us mean A us
 *
 * L, the longest allocation, bounds from above how long one bulk call
 * holds the per-cpu page lists (the call also prepares the pages).
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

static char *mode = "bulk";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "bulk: one bulk call per array; single: alloc_page() per page");
/* SUNRPC's request page array (RPCSVC_MAXPAGES), the largest batch asked */
static int nr = 259;
module_param(nr, int, 0444);
MODULE_PARM_DESC(nr, "pages per array (1 to 1024)");
static int seconds = 30;
module_param(seconds, int, 0444);
MODULE_PARM_DESC(seconds, "how long each thread runs");

struct load {
	struct task_struct *task;
	struct page **pages;
	unsigned long calls;
	unsigned long pages_taken;
	u64 longest;
	u64 total;
};

static struct load *loads;
static bool bulk;

static unsigned long take(struct page **pages)
{
	unsigned long got = 0;

	memset(pages, 0, nr * sizeof(*pages));
#ifdef BULK_LOAD_HAVE_BULK
	if (bulk) {
#ifdef alloc_pages_bulk		/* the array form's name from 6.14 */
		return alloc_pages_bulk(GFP_KERNEL, nr, pages);
#else
		return alloc_pages_bulk_array(GFP_KERNEL, nr, pages);
#endif
	}
#endif
	while (got < nr) {
		pages[got] = alloc_page(GFP_KERNEL);
		if (!pages[got])
			break;
		got++;
	}
	return got;
}

static int load_fn(void *data)
{
	struct load *l = data;
	unsigned long end = jiffies + seconds * HZ;
	unsigned long got, i;
	u64 t0, dt;

	while (!kthread_should_stop() && time_before(jiffies, end)) {
		t0 = ktime_get_ns();
		got = take(l->pages);
		dt = ktime_get_ns() - t0;
		l->calls++;
		l->pages_taken += got;
		l->total += dt;
		if (dt > l->longest)
			l->longest = dt;
		for (i = 0; i < nr; i++)
			if (l->pages[i])
				__free_page(l->pages[i]);
		cond_resched();
	}
	/* kthread_stop() at removal wants the thread still there */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void load_stop(void)
{
	unsigned long calls = 0, taken = 0;
	u64 longest = 0, total = 0;
	int cpu, cpus = 0;

	for_each_possible_cpu(cpu) {
		struct load *l = &loads[cpu];

		if (!l->task)
			continue;
		kthread_stop(l->task);
		put_task_struct(l->task);
		cpus++;
		calls += l->calls;
		taken += l->pages_taken;
		total += l->total;
		if (l->longest > longest)
			longest = l->longest;
		kfree(l->pages);
	}
	pr_info("bulk_load: mode %s nr %d cpus %d calls %lu pages %lu longest %llu us mean %llu us\n",
		mode, nr, cpus, calls, taken, div64_u64(longest, NSEC_PER_USEC),
		calls ? div64_u64(total, (u64)calls * NSEC_PER_USEC) : 0);
	kfree(loads);
}

static int __init bulk_load_init(void)
{
	int cpu;

	if (!strcmp(mode, "bulk")) {
#ifndef BULK_LOAD_HAVE_BULK
		pr_info("bulk_load: this kernel has no bulk page allocator\n");
		return -EOPNOTSUPP;
#endif
		bulk = true;
	} else if (strcmp(mode, "single")) {
		return -EINVAL;
	}
	if (nr < 1 || nr > 1024 || seconds < 1)
		return -EINVAL;
	loads = kcalloc(nr_cpu_ids, sizeof(*loads), GFP_KERNEL);
	if (!loads)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct load *l = &loads[cpu];
		struct task_struct *t;

		l->pages = kcalloc(nr, sizeof(*l->pages), GFP_KERNEL);
		if (!l->pages)
			break;
		t = kthread_create_on_node(load_fn, l, cpu_to_node(cpu),
					   "bulk_load/%d", cpu);
		if (IS_ERR(t)) {
			kfree(l->pages);
			break;
		}
		kthread_bind(t, cpu);
		get_task_struct(t);
		l->task = t;
		wake_up_process(t);
	}
	cpus_read_unlock();
	if (cpu < nr_cpu_ids) {
		load_stop();
		return -ENOMEM;
	}
	return 0;
}

static void __exit bulk_load_exit(void)
{
	load_stop();
}

module_init(bulk_load_init);
module_exit(bulk_load_exit);
MODULE_DESCRIPTION("page allocation load on every CPU, for latency tests");
MODULE_LICENSE("GPL");
