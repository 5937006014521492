// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_batch_probe: lets the mm-bulk-fallbacks guest tests call the bulk
 * page allocator from a process, in that process's memory cgroup.
 * Writing to /sys/kernel/debug/kstacks_bulk_batch_probe:
 *
 *   N [account] [nofail] [keep | refs] [hole | full]
 *	alloc_pages_bulk() for N pages (GFP_KERNEL, __GFP_ACCOUNT with
 *	"account", __GFP_NOFAIL with "nofail") in the writer's context;
 *	with "hole" the array has every
 *	fourth slot populated beforehand (by alloc_page()), to check that
 *	only the empty slots are filled and in order, with "full" every slot;
 *	with "keep" the pages stay allocated until "free", otherwise they
 *	are freed at once; with "refs" the references the call takes on the
 *	writer's obj_cgroup, and those its pages drop when freed, are counted.
 *   free
 *	frees the kept pages.
 *
 * Reading the file gives the last result:
 *
 *   ret R new G charged C kmem K order O [refs +A -F]
 *
 * R the return value, G the pages the call added, C those charged to the
 * writer's memory cgroup, K those marked as kmem pages; O is "ok" when
 * every slot below R is populated, those populated beforehand still hold
 * their own page, and no page appears twice, else the first slot that is
 * wrong.  A and F are the obj_cgroup references taken by the call and
 * dropped by freeing its pages: one per charged page each, counted on the
 * obj_cgroup of a page allocated with __GFP_ACCOUNT just before the call.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

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

/* The first slot below @ret that is wrong, or -1 when all are right. */
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

static ssize_t probe_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct page **pages, **before;
	struct mem_cgroup *memcg;
	struct obj_cgroup *objcg = NULL;
	struct page *witness = NULL;
	long refs0 = 0, refs1 = 0, refs2 = 0;
	bool keep = false, refs = false;
	int step = 0;
	int nr, i, added = 0, charged = 0, kmem = 0, bad;
	char buf[64], *p, *w, tail[32] = "";
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
		else if (!strcmp(w, "keep"))
			keep = true;
		else if (!strcmp(w, "refs"))
			refs = true;
		else if (!strcmp(w, "hole"))
			step = 4;
		else if (!strcmp(w, "full"))
			step = 1;
		else if (*w)
			return -EINVAL;
	}
	if (keep && refs)
		return -EINVAL;

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

	memcg = get_mem_cgroup_from_mm(current->mm);
	if (refs) {
		objcg = refs_begin(&witness);
		refs0 = refs_count(objcg);
	}
	ret = alloc_pages_bulk(gfp, nr, pages);
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
