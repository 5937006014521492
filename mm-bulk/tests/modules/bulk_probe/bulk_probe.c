// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_probe: lets the mm-bulk guest tests call the bulk page allocator
 * from a process, in that process's memory cgroup.  Writing "N" or
 * "N account" to /sys/kernel/debug/kstacks_bulk_probe calls
 * alloc_pages_bulk_array() for N pages (GFP_KERNEL, with __GFP_ACCOUNT for
 * "account") in the writer's context, looks at what came back and frees
 * it; reading the file gives the last result:
 *
 *   ret R charged C kmem K
 *
 * R the return value, C the pages charged to the writer's memory cgroup,
 * K the pages marked as kmem pages.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(probe_lock);
static char probe_result[96] = "none\n";
static struct dentry *probe_file;

static ssize_t probe_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct mem_cgroup *memcg;
	struct page **pages;
	unsigned long ret;
	char buf[32], *sp;
	int nr, i, charged = 0, kmem = 0;
	gfp_t gfp = GFP_KERNEL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	sp = strchr(buf, ' ');
	if (sp) {
		*sp++ = '\0';
		if (strncmp(sp, "account", 7))
			return -EINVAL;
		gfp |= __GFP_ACCOUNT;
	}
	if (kstrtoint(strim(buf), 0, &nr) || nr <= 0 || nr > 4096)
		return -EINVAL;
	pages = kcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;

	memcg = get_mem_cgroup_from_mm(current->mm);
	ret = alloc_pages_bulk_array(gfp, nr, pages);
	for (i = 0; i < nr; i++) {
		if (!pages[i])
			continue;
		if (memcg && pages[i]->mem_cgroup == memcg)
			charged++;
		if (PageKmemcg(pages[i]))
			kmem++;
		__free_page(pages[i]);
	}
	if (memcg)
		css_put(&memcg->css);
	kfree(pages);

	mutex_lock(&probe_lock);
	snprintf(probe_result, sizeof(probe_result),
		 "ret %lu charged %d kmem %d\n", ret, charged, kmem);
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
	probe_file = debugfs_create_file("kstacks_bulk_probe", 0600, NULL,
					 NULL, &probe_fops);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove(probe_file);
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstacks: the bulk page allocator called from a process");
