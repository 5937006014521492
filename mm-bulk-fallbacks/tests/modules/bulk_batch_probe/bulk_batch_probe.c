// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_batch_probe: lets the mm-bulk-fallbacks guest tests call the bulk
 * page allocator from a process, in that process's memory cgroup.
 * Writing to /sys/kernel/debug/kstacks_bulk_batch_probe:
 *
 *   N [account] [nofail] [atomic] [memalloc] [keep]
 *     [refs | prep | events | race | zero] [hole | full]
 *	alloc_pages_bulk() for N pages (GFP_KERNEL, GFP_ATOMIC with
 *	"atomic", __GFP_ACCOUNT with "account", __GFP_NOFAIL with "nofail")
 *	in the writer's context, as a PF_MEMALLOC task with "memalloc";
 *	with "hole" the array has every fourth slot populated beforehand
 *	(by alloc_page()), to check that only the empty slots are filled
 *	and in order, with "full" every slot; with "keep" (not with "refs")
 *	the pages stay allocated until "free", otherwise they are freed at
 *	once; with "refs" the references the call takes on the writer's
 *	obj_cgroup, and those its pages drop when freed, are counted; with
 *	"prep" the pages the call prepares while it holds its CPU's per-cpu
 *	list lock; with "events" the max and high events the call raises in
 *	the writer's memory cgroup or its ancestors; with "race" other charges are made to
 *	take the writer's cgroup's room while the call holds the per-cpu
 *	list lock (below); with "zero" the call asks for __GFP_ZERO, after
 *	N pages filled with 0xaa were freed (to its CPU's per-cpu list,
 *	whence the call takes them again).
 *   free
 *	frees the kept pages.
 *
 * Reading the file gives the last result:
 *
 *   ret R new G charged C kmem K order O [refs +A -F | prep P locked L |
 *			max +M high +H | race W B C | zero Z reused U]
 *
 * R the return value, G the pages the call added, C those charged to the
 * writer's memory cgroup, K those marked as kmem pages; O is "ok" when
 * every slot below R is populated, those populated beforehand still hold
 * their own page, and no page appears twice, else the first slot that is
 * wrong.  A and F are the obj_cgroup references taken by the call and
 * dropped by freeing its pages: one per charged page each, counted on the
 * obj_cgroup of a page allocated with __GFP_ACCOUNT just before the call.
 * P is how many of the pages the call added had their reference count set
 * (the end of their preparation) during the call, L how many of those
 * while the call held the per-cpu list lock of the page's zone on its
 * CPU: seen through the page_ref_set tracepoint (CONFIG_DEBUG_PAGE_REF)
 * and lockdep; "prep none" without them, "prep lockdep off" once lockdep
 * has turned itself off (after a report).  M and H are the MEMCG_MAX and
 * MEMCG_HIGH events raised during the call on the writer's memory cgroup
 * and its ancestors below the root (memory.events "max" and "high" of the
 * ancestor just below the root, which counts its descendants' too).
 *
 * "race" stands in for a race the bulk allocator cannot rule out: its
 * memory cgroup's room, read before it takes the per-cpu list lock, taken
 * by other charges before it charges its run.  When the call takes its
 * CPU's per-cpu list lock of the zone a page for the writer comes from,
 * the writer's cgroup's memory.max is set to its usage (the page counter's
 * max, written directly: this module's fault injection); once that lock
 * is released, the first zone lock the call takes (pages given back to
 * the buddy allocator) sets it back, as does the end of the call.  W is 1
 * when the limit came down, B when a zone lock brought it back, C the
 * memory cgroup reclaims the call began in between (the run's charge
 * reclaiming: mm_vmscan_memcg_reclaim_begin).  Needs lockdep's
 * lock_acquire and lock_release tracepoints; "race none" without them.
 *
 * Z is how many of the pages the call added hold a byte that is not zero,
 * U how many of them are pages filled with 0xaa and freed just before
 * (the test is only worth something when U is not 0).
 */
#include <linux/debug_locks.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#ifdef CONFIG_DEBUG_PAGE_REF
#include <trace/events/page_ref.h>
#endif

static DEFINE_MUTEX(probe_lock);
static char probe_result[128] = "none\n";
static struct dentry *probe_file;
static struct page **kept;
static int nr_kept;

static void free_array(struct page **pages, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (pages[i])
			__free_page(pages[i]);
	kfree(pages);
}

/*
 * The obj_cgroup a __GFP_ACCOUNT page from the writer's context is charged
 * to, one such page held (freed by refs_end()) to keep it; NULL when such
 * pages are not charged.
 */
static struct obj_cgroup *refs_begin(struct page **witness)
{
	*witness = alloc_page(GFP_KERNEL_ACCOUNT);
	if (!*witness || !PageMemcgKmem(*witness))
		return NULL;
	return folio_objcg(page_folio(*witness));
}

/*
 * The count of @objcg's reference, read without changing its mode: the
 * atomic part plus, in percpu mode, every CPU's part (the sum is off by a
 * constant bias, which differences cancel).  Exact when no one else takes
 * or drops a reference meanwhile: only the writer is in its cgroup.
 */
static long refs_count(struct obj_cgroup *objcg)
{
	unsigned long __percpu *percpu_count;
	unsigned long sum;
	int cpu;

	if (!objcg)
		return 0;
	rcu_read_lock();
	sum = atomic_long_read(&objcg->refcnt.data->count);
	if (__ref_is_percpu(&objcg->refcnt, &percpu_count))
		for_each_possible_cpu(cpu)
			sum += *per_cpu_ptr(percpu_count, cpu);
	rcu_read_unlock();
	return sum;
}

static void refs_end(struct page *witness)
{
	if (witness)
		__free_page(witness);
}

#if defined(CONFIG_DEBUG_PAGE_REF) && defined(CONFIG_LOCKDEP)
/*
 * "prep": the pages whose reference count the writer's task sets to one
 * while it is in the bulk call, each with whether the task then held its
 * CPU's per-cpu list lock of the page's zone.  Only that task writes the
 * table, with preemption off (in the tracepoint), under prep_mutex.
 */
#define PREP_MAX 4096
static DEFINE_MUTEX(prep_mutex);
static struct task_struct *prep_task;
static struct page *prep_page[PREP_MAX];
static bool prep_locked[PREP_MAX];
static int nr_prep;

static void prep_ref_set(void *data, struct page *page, int v)
{
	struct per_cpu_pages *pcp;

	if (current != READ_ONCE(prep_task) || in_interrupt() || v != 1 ||
	    nr_prep >= PREP_MAX)
		return;
	pcp = this_cpu_ptr(page_zone(page)->per_cpu_pageset);
	prep_page[nr_prep] = page;
	prep_locked[nr_prep] = lockdep_is_held(&pcp->lock);
	nr_prep++;
}

static int prep_begin(void)
{
	int err;

	mutex_lock(&prep_mutex);
	nr_prep = 0;
	err = register_trace_page_ref_set(prep_ref_set, NULL);
	if (err) {
		mutex_unlock(&prep_mutex);
		return err;
	}
	WRITE_ONCE(prep_task, current);
	return 0;
}

/* Ends what prep_begin() started; @tail gets the counts for @pages. */
static void prep_end(struct page **pages, struct page **before, int nr,
		     char *tail, size_t size)
{
	int i, j, prepped = 0, locked = 0;

	WRITE_ONCE(prep_task, NULL);
	unregister_trace_page_ref_set(prep_ref_set, NULL);
	tracepoint_synchronize_unregister();
	for (i = 0; i < nr; i++) {
		if (!pages[i] || pages[i] == before[i])
			continue;
		for (j = 0; j < nr_prep; j++) {
			if (prep_page[j] != pages[i])
				continue;
			prepped++;
			locked += prep_locked[j];
			break;
		}
	}
	mutex_unlock(&prep_mutex);
	/* lockdep off (a report earlier in the boot): every lock "held" */
	if (!debug_locks)
		snprintf(tail, size, " prep lockdep off");
	else
		snprintf(tail, size, " prep %d locked %d", prepped, locked);
}
#else
static int prep_begin(void)
{
	return 0;
}

static void prep_end(struct page **pages, struct page **before, int nr,
		     char *tail, size_t size)
{
	snprintf(tail, size, " prep none");
}
#endif

/* The first slot below @ret that is wrong, or -1 when all are right. */
#if defined(CONFIG_LOCKDEP) && defined(CONFIG_TRACEPOINTS)
static DEFINE_MUTEX(race_mutex);
static struct tracepoint *tp_acquire, *tp_release, *tp_reclaim;
static struct task_struct *race_task;
static struct mem_cgroup *race_memcg;
static struct zone *race_zone;
static unsigned long race_max;
static int race_state;	/* 1 lowered, 2 pcp lock released, 3 restored */
static int race_reclaims;

static void race_restore(void)
{
	WRITE_ONCE(race_memcg->memory.max, race_max);
}

static void race_acquire(void *data, struct lockdep_map *lock,
			 unsigned int subclass, int trylock, int read,
			 int check, struct lockdep_map *next_lock,
			 unsigned long ip)
{
	if (current != READ_ONCE(race_task) || in_interrupt())
		return;
	if (race_state == 0 &&
	    lock == &this_cpu_ptr(race_zone->per_cpu_pageset)->lock.dep_map) {
		WRITE_ONCE(race_memcg->memory.max,
			   page_counter_read(&race_memcg->memory));
		race_state = 1;
	} else if (race_state == 2 && lock == &race_zone->lock.dep_map) {
		race_restore();
		race_state = 3;
	}
}

static void race_release(void *data, struct lockdep_map *lock,
			 unsigned long ip)
{
	if (current != READ_ONCE(race_task) || in_interrupt())
		return;
	if (race_state == 1 &&
	    lock == &this_cpu_ptr(race_zone->per_cpu_pageset)->lock.dep_map)
		race_state = 2;
}

/* Memory cgroup reclaim begun by the call while the limit is down. */
static void race_reclaim(void *data, gfp_t gfp, int order,
			 struct mem_cgroup *memcg)
{
	if (current == READ_ONCE(race_task) && race_state == 2)
		race_reclaims++;
}

static void race_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "lock_acquire"))
		tp_acquire = tp;
	else if (!strcmp(tp->name, "lock_release"))
		tp_release = tp;
	else if (!strcmp(tp->name, "mm_vmscan_memcg_reclaim_begin"))
		tp_reclaim = tp;
}

static int race_begin(struct mem_cgroup *memcg, gfp_t gfp)
{
	struct page *page;
	int err;

	if (!memcg || mem_cgroup_is_root(memcg))
		return -EINVAL;
	if (!tp_acquire || !tp_release || !tp_reclaim)
		for_each_kernel_tracepoint(race_find, NULL);
	if (!tp_acquire || !tp_release || !tp_reclaim)
		return -ENOENT;
	page = alloc_page(gfp & ~__GFP_ACCOUNT);
	if (!page)
		return -ENOMEM;
	mutex_lock(&race_mutex);
	race_zone = page_zone(page);
	__free_page(page);
	race_memcg = memcg;
	race_max = READ_ONCE(memcg->memory.max);
	race_state = 0;
	race_reclaims = 0;
	err = tracepoint_probe_register(tp_acquire, (void *)race_acquire,
					NULL);
	if (!err) {
		err = tracepoint_probe_register(tp_release,
						(void *)race_release, NULL);
		if (err)
			tracepoint_probe_unregister(tp_acquire,
						    (void *)race_acquire, NULL);
	}
	if (!err) {
		err = tracepoint_probe_register(tp_reclaim,
						(void *)race_reclaim, NULL);
		if (err) {
			tracepoint_probe_unregister(tp_release,
						    (void *)race_release, NULL);
			tracepoint_probe_unregister(tp_acquire,
						    (void *)race_acquire, NULL);
		}
	}
	if (err) {
		mutex_unlock(&race_mutex);
		return err;
	}
	WRITE_ONCE(race_task, current);
	return 0;
}

static void race_end(char *tail, size_t size)
{
	WRITE_ONCE(race_task, NULL);
	tracepoint_probe_unregister(tp_reclaim, (void *)race_reclaim, NULL);
	tracepoint_probe_unregister(tp_release, (void *)race_release, NULL);
	tracepoint_probe_unregister(tp_acquire, (void *)race_acquire, NULL);
	tracepoint_synchronize_unregister();
	if (race_state != 3)
		race_restore();
	snprintf(tail, size, " race %d %d %d", race_state >= 1, race_state == 3,
		 race_reclaims);
	mutex_unlock(&race_mutex);
}
#else
static int race_begin(struct mem_cgroup *memcg, gfp_t gfp)
{
	return 0;
}

static void race_end(char *tail, size_t size)
{
	snprintf(tail, size, " race none");
}
#endif

static int check_order(struct page **pages, struct page **before, int nr,
		       unsigned long ret)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		if (before[i] && pages[i] != before[i])
			return i;
		if (i < ret && !pages[i])
			return i;
		for (j = 0; pages[i] && j < i; j++)
			if (pages[j] == pages[i])
				return i;
	}
	return -1;
}

/*
 * The ancestor of @memcg just below the root (or @memcg itself): its
 * memory.events counts the events raised on it and on all its descendants,
 * wherever in the hierarchy the limit that raised them is.
 */
static struct mem_cgroup *events_memcg(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent;

	while ((parent = parent_mem_cgroup(memcg)) &&
	       !mem_cgroup_is_root(parent))
		memcg = parent;
	return memcg;
}

static ssize_t probe_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct page **pages, **before;
	struct mem_cgroup *memcg, *top = NULL;
	struct obj_cgroup *objcg = NULL;
	struct page *witness = NULL;
	long refs0 = 0, refs1 = 0, refs2 = 0;
	bool keep = false, refs = false, prep = false, events = false;
	bool race = false, atomic = false, memalloc = false, zero = false;
	struct page **dirty = NULL;
	int nonzero = 0, reused = 0, j;
	unsigned int noreclaim = 0;
	long max0 = 0, high0 = 0;
	int step = 0;
	int nr, i, added = 0, charged = 0, kmem = 0, bad, err;
	char buf[64], *p, *w, tail[48] = "";
	gfp_t gfp = GFP_KERNEL;
	unsigned long ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	p = strim(buf);

	mutex_lock(&probe_lock);
	if (!strcmp(p, "free")) {
		if (kept)
			free_array(kept, nr_kept);
		kept = NULL;
		nr_kept = 0;
		mutex_unlock(&probe_lock);
		return len;
	}
	mutex_unlock(&probe_lock);

	w = strsep(&p, " ");
	if (kstrtoint(w, 0, &nr) || nr <= 0 || nr > 4096)
		return -EINVAL;
	while ((w = strsep(&p, " "))) {
		if (!strcmp(w, "account"))
			gfp |= __GFP_ACCOUNT;
		else if (!strcmp(w, "nofail"))
			gfp |= __GFP_NOFAIL;
		else if (!strcmp(w, "atomic"))
			atomic = true;
		else if (!strcmp(w, "memalloc"))
			memalloc = true;
		else if (!strcmp(w, "keep"))
			keep = true;
		else if (!strcmp(w, "refs"))
			refs = true;
		else if (!strcmp(w, "prep"))
			prep = true;
		else if (!strcmp(w, "events"))
			events = true;
		else if (!strcmp(w, "race"))
			race = true;
		else if (!strcmp(w, "zero"))
			zero = true;
		else if (!strcmp(w, "hole"))
			step = 4;
		else if (!strcmp(w, "full"))
			step = 1;
		else if (*w)
			return -EINVAL;
	}
	if ((keep && refs) || refs + prep + events + race + zero > 1)
		return -EINVAL;
	if (atomic)
		gfp = (gfp & ~GFP_KERNEL) | GFP_ATOMIC;

	pages = kcalloc(nr, sizeof(*pages), GFP_KERNEL);
	before = kcalloc(nr, sizeof(*before), GFP_KERNEL);
	if (!pages || !before) {
		kfree(pages);
		kfree(before);
		return -ENOMEM;
	}
	for (i = 0; step && i < nr; i += step) {
		pages[i] = alloc_page(GFP_KERNEL);
		before[i] = pages[i];
	}
	if (zero) {
		dirty = kcalloc(nr, sizeof(*dirty), GFP_KERNEL);
		if (!dirty) {
			free_array(pages, nr);
			kfree(before);
			return -ENOMEM;
		}
		for (i = 0; i < nr; i++) {
			dirty[i] = alloc_page(GFP_KERNEL);
			if (dirty[i])
				memset(page_address(dirty[i]), 0xaa, PAGE_SIZE);
		}
		/* the last freed is the first the call takes */
		for (i = nr - 1; i >= 0; i--)
			if (dirty[i])
				__free_page(dirty[i]);
		gfp |= __GFP_ZERO;
	}

	memcg = get_mem_cgroup_from_mm(current->mm);
	if (refs) {
		objcg = refs_begin(&witness);
		refs0 = refs_count(objcg);
	}
	err = 0;
	if (prep)
		err = prep_begin();
	else if (race)
		err = race_begin(memcg, gfp);
	if (err) {
		mem_cgroup_put(memcg);
		free_array(pages, nr);
		kfree(before);
		kfree(dirty);
		return err;
	}
	if (events && memcg) {
		top = events_memcg(memcg);
		max0 = atomic_long_read(&top->memory_events[MEMCG_MAX]);
		high0 = atomic_long_read(&top->memory_events[MEMCG_HIGH]);
	}
	if (memalloc)
		noreclaim = memalloc_noreclaim_save();
	ret = alloc_pages_bulk(gfp, nr, pages);
	if (memalloc)
		memalloc_noreclaim_restore(noreclaim);
	if (prep)
		prep_end(pages, before, nr, tail, sizeof(tail));
	else if (race)
		race_end(tail, sizeof(tail));
	if (events && memcg)
		snprintf(tail, sizeof(tail), " max +%ld high +%ld",
			 atomic_long_read(&top->memory_events[MEMCG_MAX]) -
			 max0,
			 atomic_long_read(&top->memory_events[MEMCG_HIGH]) -
			 high0);
	else if (events)
		snprintf(tail, sizeof(tail), " events none");
	if (zero) {
		for (i = 0; i < nr; i++) {
			if (!pages[i] || pages[i] == before[i])
				continue;
			if (memchr_inv(page_address(pages[i]), 0, PAGE_SIZE))
				nonzero++;
			for (j = 0; j < nr; j++) {
				if (dirty[j] == pages[i]) {
					reused++;
					break;
				}
			}
		}
		kfree(dirty);
		snprintf(tail, sizeof(tail), " zero %d reused %d", nonzero,
			 reused);
	}
	refs1 = refs_count(objcg);
	bad = check_order(pages, before, nr, ret);
	rcu_read_lock();
	for (i = 0; i < nr; i++) {
		if (!pages[i] || pages[i] == before[i])
			continue;
		added++;
		if (memcg && !mem_cgroup_is_root(memcg) &&
		    page_memcg_check(pages[i]) == memcg)
			charged++;
		if (PageMemcgKmem(pages[i]))
			kmem++;
	}
	rcu_read_unlock();
	mem_cgroup_put(memcg);
	kfree(before);

	mutex_lock(&probe_lock);
	if (keep && !kept) {
		kept = pages;
		nr_kept = nr;
	} else {
		free_array(pages, nr);
	}
	if (refs) {
		refs2 = refs_count(objcg);
		refs_end(witness);
		if (objcg)
			snprintf(tail, sizeof(tail), " refs +%ld -%ld",
				 refs1 - refs0, refs1 - refs2);
		else
			snprintf(tail, sizeof(tail), " refs none");
	}
	if (bad < 0)
		snprintf(probe_result, sizeof(probe_result),
			 "ret %lu new %d charged %d kmem %d order ok%s\n",
			 ret, added, charged, kmem, tail);
	else
		snprintf(probe_result, sizeof(probe_result),
			 "ret %lu new %d charged %d kmem %d order bad at %d%s\n",
			 ret, added, charged, kmem, bad, tail);
	mutex_unlock(&probe_lock);
	return len;
}

static ssize_t probe_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	char buf[sizeof(probe_result)];

	mutex_lock(&probe_lock);
	memcpy(buf, probe_result, sizeof(buf));
	mutex_unlock(&probe_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.read = probe_read,
	.write = probe_write,
	.llseek = default_llseek,
};

static int __init probe_init(void)
{
	probe_file = debugfs_create_file("kstacks_bulk_batch_probe", 0600,
					 NULL, NULL, &probe_fops);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove(probe_file);
	if (kept)
		free_array(kept, nr_kept);
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstacks: the bulk page allocator called from a process");
