/* SPDX-License-Identifier: MIT */
/*
 * The kstacks_mdev test device of the vfio-batch guest tests: load the
 * module (built with the tests against the kernel under test, at
 * /lib/modules-kstacks/kstacks_mdev.ko in the guest), create a mediated
 * device, open its group and device, and pin and unpin pages of the
 * container's mappings through it (vfio_pin_pages(): type1's external
 * pins).
 */
#ifndef VFIO_MDEV_H
#define VFIO_MDEV_H

#include <glob.h>
#include <sys/syscall.h>
#include "vfio_helpers.h"
#include "../modules/kstacks_mdev/kstacks_mdev.h"

#define KMDEV_KO	"/lib/modules-kstacks/kstacks_mdev.ko"
#define KMDEV_UUID	"6b2f1d2a-4f5e-4c3b-9a81-0d6e5c7b8a90"

struct vt_mdev {
	int group_nr;
	int group;
	int device;
};

/*
 * Load the module and create the mdev.  T_EXIT_PASS, or T_EXIT_SKIP /
 * T_EXIT_FAIL with a message.
 */
static inline int vt_mdev_create(struct vt_mdev *m)
{
	char path[PATH_MAX], link[PATH_MAX];
	glob_t g;
	ssize_t n;
	int fd;

	m->group = m->device = -1;
	fd = open(KMDEV_KO, O_RDONLY);
	if (fd < 0) {
		printf("SKIP: %s: %s\n", KMDEV_KO, strerror(errno));
		return T_EXIT_SKIP;
	}
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
		printf("SKIP: loading %s: %s (CONFIG_VFIO_MDEV?)\n", KMDEV_KO,
		       strerror(errno));
		close(fd);
		return T_EXIT_SKIP;
	}
	close(fd);
	snprintf(path, sizeof(path), "/sys/bus/mdev/devices/%s", KMDEV_UUID);
	if (access(path, F_OK)) {
		if (glob("/sys/class/mdev_bus/*/mdev_supported_types/*pin/create",
			 0, NULL, &g) || g.gl_pathc != 1) {
			vt_fail("kstacks_mdev: no mdev type to create");
			return T_EXIT_FAIL;
		}
		if (vt_write_str(g.gl_pathv[0], KMDEV_UUID)) {
			vt_fail("creating the mdev: %s", strerror(errno));
			globfree(&g);
			return T_EXIT_FAIL;
		}
		globfree(&g);
	}
	snprintf(path, sizeof(path), "/sys/bus/mdev/devices/%s/iommu_group",
		 KMDEV_UUID);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		vt_fail("%s: %s", path, strerror(errno));
		return T_EXIT_FAIL;
	}
	link[n] = '\0';
	m->group_nr = atoi(basename(link));
	snprintf(path, sizeof(path), "/dev/vfio/%d", m->group_nr);
	m->group = open(path, O_RDWR);
	if (m->group < 0) {
		vt_fail("open %s: %s", path, strerror(errno));
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/*
 * Put the mdev's group into @container; open its device when the
 * container has its IOMMU model set already, else leave that to
 * vt_mdev_open() after VFIO_SET_IOMMU.
 */
static inline int vt_mdev_open(struct vt_mdev *m)
{
	m->device = ioctl(m->group, VFIO_GROUP_GET_DEVICE_FD, KMDEV_UUID);
	return m->device < 0 ? -errno : 0;
}

static inline int vt_mdev_attach(struct vt_mdev *m, int container, int open)
{
	if (ioctl(m->group, VFIO_GROUP_SET_CONTAINER, &container))
		return -errno;
	return open ? vt_mdev_open(m) : 0;
}

static inline void vt_mdev_detach(struct vt_mdev *m)
{
	if (m->device >= 0)
		close(m->device);
	m->device = -1;
	ioctl(m->group, VFIO_GROUP_UNSET_CONTAINER);
}

/* Pin @npage pages at @iova for writing; 0 and *@pfn, or -errno. */
static inline int vt_mdev_pin(struct vt_mdev *m, uint64_t iova, unsigned int npage,
			      uint64_t *pfn)
{
	struct kstacks_mdev_pin p = {
		.iova = iova, .npage = npage, .flags = KSTACKS_MDEV_WRITE,
	};

	if (ioctl(m->device, KSTACKS_MDEV_PIN, &p))
		return -errno;
	if (pfn)
		*pfn = p.pfn;
	return 0;
}

static inline int vt_mdev_unpin(struct vt_mdev *m, uint64_t iova,
				unsigned int npage)
{
	struct kstacks_mdev_pin p = { .iova = iova, .npage = npage };

	return ioctl(m->device, KSTACKS_MDEV_UNPIN, &p) ? -errno : 0;
}

/* Pages the device holds pinned, or -1. */
static inline long vt_mdev_pinned(struct vt_mdev *m)
{
	uint64_t v;

	return ioctl(m->device, KSTACKS_MDEV_PINNED, &v) ? -1 : (long)v;
}

/* The pfn mapped at @addr in this process (/proc/self/pagemap), or 0. */
static inline uint64_t vt_pfn_of(const void *addr)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, 8, (uintptr_t)addr / PG * 8) != 8)
		ent = 0;
	close(fd);
	return ent >> 63 ? ent & ((1ULL << 55) - 1) : 0;
}

#endif /* VFIO_MDEV_H */
