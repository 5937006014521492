// SPDX-License-Identifier: GPL-2.0
/*
 * kstacks_mdev: a mediated device for the vfio-batch guest tests.  It
 * has no device behind it: its only job is to pin pages of the container's
 * DMA mappings through vfio_pin_pages() when a test asks it to (ioctls of
 * kstacks_mdev.h on the device fd), the way a mediated device driver
 * pins guest memory it reads or writes, and to unpin them when type1
 * tells it through dma_unmap() that a mapping goes away, or when the
 * device is closed.  That gives type1's external pins (the pfn_list of a
 * vfio_dma) to the tests.
 *
 * An mmap() of the device fd gives physically contiguous pages of which
 * the ones the test chooses are PageReserved (kstacks_mdev.h), for the
 * runs type1 splits where a reserved page begins or ends.
 *
 * Load the module, then create a device of type "kstacks_mdev-pin":
 *   echo $UUID > /sys/class/mdev_bus/kstacks_mdev/mdev_supported_types/kstacks_mdev-pin/create
 */
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/kref.h>
#include <linux/mdev.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/vfio.h>

#include "kstacks_mdev.h"

struct kmdev_range {
	u64 iova;
	u32 npage;
};

struct kmdev_state {
	struct vfio_device vdev;
	struct mutex lock;	/* ranges, nr_ranges */
	struct kmdev_range ranges[KSTACKS_MDEV_MAX_PINS];
	unsigned int nr_ranges;
	u64 pinned;
	u64 unmaps;
};

static struct device *kmdev_parent_dev;
static struct mdev_parent kmdev_parent;

static struct mdev_type kmdev_type = {
	.sysfs_name = "pin",
	.pretty_name = "kstacks test device that pins pages",
};

static struct mdev_type *kmdev_types[] = { &kmdev_type };

/*
 * Take range @i off the list; the caller unpins it after dropping s->lock:
 * type1 calls dma_unmap() with its device list lock held and takes its
 * iommu lock in vfio_pin_pages() and vfio_unpin_pages(), so s->lock must
 * never be held around those.
 */
static struct kmdev_range kmdev_take_range(struct kmdev_state *s,
					   unsigned int i)
{
	struct kmdev_range r = s->ranges[i];

	s->pinned -= r.npage;
	s->ranges[i] = s->ranges[--s->nr_ranges];
	return r;
}

static long kmdev_pin(struct kmdev_state *s, struct kstacks_mdev_pin *p)
{
	struct page **pages;
	int ret;

	if (!p->npage || p->npage > KSTACKS_MDEV_MAX_NPAGE)
		return -EINVAL;
	mutex_lock(&s->lock);
	ret = s->nr_ranges == KSTACKS_MDEV_MAX_PINS ? -ENOSPC : 0;
	mutex_unlock(&s->lock);
	if (ret)
		return ret;
	pages = kcalloc(p->npage, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	ret = vfio_pin_pages(&s->vdev, p->iova, p->npage,
			     IOMMU_READ |
			     (p->flags & KSTACKS_MDEV_WRITE ? IOMMU_WRITE : 0),
			     pages);
	if (ret >= 0 && ret != p->npage) {
		/* vfio_pin_pages() pins all or nothing */
		WARN_ON_ONCE(1);
		ret = -EFAULT;
	}
	if (ret >= 0) {
		p->pfn = page_to_pfn(pages[0]);
		mutex_lock(&s->lock);
		s->ranges[s->nr_ranges].iova = p->iova;
		s->ranges[s->nr_ranges].npage = p->npage;
		s->nr_ranges++;
		s->pinned += p->npage;
		mutex_unlock(&s->lock);
		ret = 0;
	}
	kfree(pages);
	return ret;
}

static long kmdev_unpin(struct kmdev_state *s, struct kstacks_mdev_pin *p)
{
	struct kmdev_range r = { };
	unsigned int i;

	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_ranges; i++) {
		if (s->ranges[i].iova == p->iova &&
		    s->ranges[i].npage == p->npage) {
			r = kmdev_take_range(s, i);
			break;
		}
	}
	mutex_unlock(&s->lock);
	if (!r.npage)
		return -ENOENT;
	vfio_unpin_pages(&s->vdev, r.iova, r.npage);
	return 0;
}

static long kmdev_ioctl(struct vfio_device *vdev, unsigned int cmd,
			unsigned long arg)
{
	struct kmdev_state *s = container_of(vdev, struct kmdev_state, vdev);
	struct kstacks_mdev_pin p;
	u64 v;
	long ret;

	switch (cmd) {
	case KSTACKS_MDEV_PIN:
	case KSTACKS_MDEV_UNPIN:
		if (copy_from_user(&p, (void __user *)arg, sizeof(p)))
			return -EFAULT;
		if (cmd == KSTACKS_MDEV_UNPIN)
			return kmdev_unpin(s, &p);
		ret = kmdev_pin(s, &p);
		if (!ret && copy_to_user((void __user *)arg, &p, sizeof(p)))
			return -EFAULT;
		return ret;
	case KSTACKS_MDEV_PINNED:
	case KSTACKS_MDEV_UNMAPS:
		mutex_lock(&s->lock);
		v = cmd == KSTACKS_MDEV_PINNED ? s->pinned : s->unmaps;
		mutex_unlock(&s->lock);
		return copy_to_user((void __user *)arg, &v, sizeof(v)) ?
		       -EFAULT : 0;
	}
	return -ENOTTY;
}

/* type1: [iova, iova + length) is being unmapped; drop our pins in it */
static void kmdev_dma_unmap(struct vfio_device *vdev, u64 iova, u64 length)
{
	struct kmdev_state *s = container_of(vdev, struct kmdev_state, vdev);
	struct kmdev_range gone[KSTACKS_MDEV_MAX_PINS];
	unsigned int i = 0, n = 0;

	mutex_lock(&s->lock);
	s->unmaps++;
	while (i < s->nr_ranges) {
		u64 start = s->ranges[i].iova;
		u64 end = start + ((u64)s->ranges[i].npage << PAGE_SHIFT);

		if (start < iova + length && iova < end)
			gone[n++] = kmdev_take_range(s, i);
		else
			i++;
	}
	mutex_unlock(&s->lock);
	for (i = 0; i < n; i++)
		vfio_unpin_pages(vdev, gone[i].iova, gone[i].npage);
}

static void kmdev_close_device(struct vfio_device *vdev)
{
	kmdev_dma_unmap(vdev, 0, U64_MAX);
}

static int kmdev_init_dev(struct vfio_device *vdev)
{
	struct kmdev_state *s = container_of(vdev, struct kmdev_state, vdev);

	mutex_init(&s->lock);
	return 0;
}

/* The pages of one mmap() of the device fd, freed with its last vma. */
struct kmdev_buf {
	struct kref ref;
	unsigned int nr;
	struct page *pages[KSTACKS_MDEV_MMAP_MAX];
};

static void kmdev_buf_free(struct kref *ref)
{
	struct kmdev_buf *b = container_of(ref, struct kmdev_buf, ref);
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		ClearPageReserved(b->pages[i]);
		__free_page(b->pages[i]);
	}
	kfree(b);
}

/* a split or a copy of the vma shares the buffer */
static void kmdev_vm_open(struct vm_area_struct *vma)
{
	struct kmdev_buf *b = vma->vm_private_data;

	kref_get(&b->ref);
}

static void kmdev_vm_close(struct vm_area_struct *vma)
{
	struct kmdev_buf *b = vma->vm_private_data;

	kref_put(&b->ref, kmdev_buf_free);
}

static const struct vm_operations_struct kmdev_vm_ops = {
	.open = kmdev_vm_open,
	.close = kmdev_vm_close,
};

static int kmdev_mmap(struct vfio_device *vdev, struct vm_area_struct *vma)
{
	unsigned long nr = vma_pages(vma), mask = vma->vm_pgoff, i;
	unsigned int order = order_base_2(nr);
	struct kmdev_buf *b;
	struct page *page;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || nr > KSTACKS_MDEV_MMAP_MAX ||
	    mask >> nr)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	/* one block, split, so that each page is a page of its own */
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!page) {
		kfree(b);
		return -ENOMEM;
	}
	split_page(page, order);
	for (i = nr; i < 1UL << order; i++)
		__free_page(page + i);
	kref_init(&b->ref);
	b->nr = nr;
	for (i = 0; i < nr; i++) {
		b->pages[i] = page + i;
		if (mask & BIT(i))
			SetPageReserved(page + i);
	}
	for (i = 0; i < nr; i++) {
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     b->pages[i]);
		if (ret) {
			/* the pages go with the unmap of the failed mmap */
			kmdev_buf_free(&b->ref);
			return ret;
		}
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
#endif
	vma->vm_private_data = b;
	vma->vm_ops = &kmdev_vm_ops;
	return 0;
}

static const struct vfio_device_ops kmdev_dev_ops = {
	.name = "kstacks-mdev",
	.init = kmdev_init_dev,
	.close_device = kmdev_close_device,
	.ioctl = kmdev_ioctl,
	.mmap = kmdev_mmap,
	.dma_unmap = kmdev_dma_unmap,
};

static int kmdev_probe(struct mdev_device *mdev)
{
	struct kmdev_state *s;
	int ret;

	s = vfio_alloc_device(kmdev_state, vdev, &mdev->dev, &kmdev_dev_ops);
	if (IS_ERR(s))
		return PTR_ERR(s);
	ret = vfio_register_emulated_iommu_dev(&s->vdev);
	if (ret) {
		vfio_put_device(&s->vdev);
		return ret;
	}
	dev_set_drvdata(&mdev->dev, s);
	return 0;
}

static void kmdev_remove(struct mdev_device *mdev)
{
	struct kmdev_state *s = dev_get_drvdata(&mdev->dev);

	vfio_unregister_group_dev(&s->vdev);
	vfio_put_device(&s->vdev);
}

static struct mdev_driver kmdev_driver = {
	.device_api = VFIO_DEVICE_API_PCI_STRING,
	.max_instances = 4,
	.driver = {
		.name = "kstacks_mdev",
		.owner = THIS_MODULE,
		.mod_name = KBUILD_MODNAME,
	},
	.probe = kmdev_probe,
	.remove = kmdev_remove,
};

static int __init kmdev_init(void)
{
	int ret;

	ret = mdev_register_driver(&kmdev_driver);
	if (ret)
		return ret;
	kmdev_parent_dev = root_device_register("kstacks_mdev");
	if (IS_ERR(kmdev_parent_dev)) {
		ret = PTR_ERR(kmdev_parent_dev);
		goto err_driver;
	}
	ret = mdev_register_parent(&kmdev_parent, kmdev_parent_dev,
				   &kmdev_driver, kmdev_types,
				   ARRAY_SIZE(kmdev_types));
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	root_device_unregister(kmdev_parent_dev);
err_driver:
	mdev_unregister_driver(&kmdev_driver);
	return ret;
}

static void __exit kmdev_exit(void)
{
	mdev_unregister_parent(&kmdev_parent);
	root_device_unregister(kmdev_parent_dev);
	mdev_unregister_driver(&kmdev_driver);
}

module_init(kmdev_init);
module_exit(kmdev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstacks test mdev: pins pages through vfio_pin_pages()");
