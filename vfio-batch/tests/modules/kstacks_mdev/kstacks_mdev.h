/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface of the kstacks_mdev test driver, shared with the guest tests:
 * ioctls on the mdev's vfio device fd that pin and unpin pages of the
 * container's mappings through vfio_pin_pages(), as a mediated device
 * driver does before it reads or writes guest memory.
 */
#ifndef KSTACKS_MDEV_H
#define KSTACKS_MDEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Pin or unpin @npage pages from @iova; pin fills @pfn of the first page. */
struct kstacks_mdev_pin {
	__u64 iova;
	__u32 npage;
	__u32 flags;	/* KSTACKS_MDEV_WRITE: pin for writing */
	__u64 pfn;
};

#define KSTACKS_MDEV_WRITE	(1U << 0)
#define KSTACKS_MDEV_PIN	_IOWR('K', 1, struct kstacks_mdev_pin)
#define KSTACKS_MDEV_UNPIN	_IOW('K', 2, struct kstacks_mdev_pin)
/* number of pages this device holds pinned */
#define KSTACKS_MDEV_PINNED	_IOR('K', 3, __u64)
/* number of dma_unmap callbacks so far */
#define KSTACKS_MDEV_UNMAPS	_IOR('K', 4, __u64)

#define KSTACKS_MDEV_MAX_PINS	64
#define KSTACKS_MDEV_MAX_NPAGE	512

/*
 * mmap() of the device fd, MAP_SHARED, of 1 to KSTACKS_MDEV_MMAP_MAX
 * pages: physically contiguous zeroed pages of the driver's own, mapped
 * as normal pages (vm_insert_page()).  Bit i of the offset in pages
 * (offset / page size) marks page i PageReserved, as drivers that map
 * buffers of their own into user space often do: pin_user_pages()
 * returns such pages, and vfio type1 takes them for reserved pfns.
 */
#define KSTACKS_MDEV_MMAP_MAX	16

#endif /* KSTACKS_MDEV_H */
