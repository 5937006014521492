/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the vfio-batch guest tests: find the qemu edu device
 * (1234:11e8), bind it to vfio-pci, set up a type1v2 container and map
 * and unmap user memory through it.  Exit codes follow liburing's tests:
 * 0 pass, 1 fail, 77 skip.
 */
#ifndef VFIO_HELPERS_H
#define VFIO_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/vfio.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

#define KIB		(1024UL)
#define MIB		(1024UL * 1024UL)
#define PG		4096UL
#define HPAGE		(2 * MIB)

#ifndef MAP_HUGETLB
#define MAP_HUGETLB	0x40000
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE	14
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE	15
#endif

#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8

/* IOVAs well above the x86 MSI window and below a 39 bit aperture. */
#define IOVA_BASE	(1ULL << 32)

static int vt_failed __attribute__((unused));

static inline void vt_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	vt_failed = 1;
}

#define CHECK(cond, ...)			\
	do {					\
		if (!(cond))			\
			vt_fail(__VA_ARGS__);	\
	} while (0)

struct vt_ctx {
	char bdf[NAME_MAX + 1];
	int group_nr;
	int container;
	int group;
	int device;		/* -1 until vt_open_device() */
	uint64_t iova_pgsizes;
};

static inline int vt_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static inline int vt_write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	if (n < 0)
		return -errno;
	return 0;
}

static inline unsigned long vt_read_hex(const char *path)
{
	char buf[64];

	if (vt_read_str(path, buf, sizeof(buf)))
		return ~0UL;
	return strtoul(buf, NULL, 16);
}

/* Return 0 and the BDF of the first edu device, or -ENODEV. */
static inline int vt_find_edu(char *bdf, size_t len)
{
	struct dirent *de;
	char path[PATH_MAX];
	DIR *dir;
	int ret = -ENODEV;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return -ENODEV;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		if (vt_read_hex(path) != EDU_VENDOR)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 de->d_name);
		if (vt_read_hex(path) != EDU_DEVICE)
			continue;
		snprintf(bdf, len, "%s", de->d_name);
		ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/* The name of the driver bound to @bdf, or "" when there is none. */
static inline void vt_driver_of(const char *bdf, char *drv, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		drv[0] = '\0';
		return;
	}
	link[n] = '\0';
	snprintf(drv, len, "%s", basename(link));
}

static inline int vt_bind_vfio_pci(const char *bdf)
{
	char path[PATH_MAX], drv[64];
	int ret;

	vt_driver_of(bdf, drv, sizeof(drv));
	if (!strcmp(drv, "vfio-pci"))
		return 0;
	if (drv[0]) {
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/%s/driver/unbind", bdf);
		ret = vt_write_str(path, bdf);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
		 bdf);
	ret = vt_write_str(path, "vfio-pci");
	if (ret)
		return ret;
	ret = vt_write_str("/sys/bus/pci/drivers_probe", bdf);
	if (ret)
		return ret;
	vt_driver_of(bdf, drv, sizeof(drv));
	return strcmp(drv, "vfio-pci") ? -ENODEV : 0;
}

/*
 * Find and bind the edu device, open the container and the group and
 * select type1v2.  Return T_EXIT_PASS, or T_EXIT_SKIP / T_EXIT_FAIL with
 * a message.
 */
static inline int vt_setup(struct vt_ctx *ctx)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	struct vfio_iommu_type1_info info = { .argsz = sizeof(info) };
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ctx->container = ctx->group = ctx->device = -1;

	if (access("/dev/vfio/vfio", F_OK)) {
		printf("SKIP: /dev/vfio/vfio missing\n");
		return T_EXIT_SKIP;
	}
	if (vt_find_edu(ctx->bdf, sizeof(ctx->bdf))) {
		printf("SKIP: no edu device (qemu -device edu)\n");
		return T_EXIT_SKIP;
	}
	if (access("/sys/bus/pci/drivers/vfio-pci", F_OK)) {
		printf("SKIP: vfio-pci driver missing\n");
		return T_EXIT_SKIP;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 ctx->bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		printf("SKIP: %s has no IOMMU group (no intel-iommu?)\n",
		       ctx->bdf);
		return T_EXIT_SKIP;
	}
	link[n] = '\0';
	ctx->group_nr = atoi(basename(link));

	ret = vt_bind_vfio_pci(ctx->bdf);
	if (ret) {
		vt_fail("binding %s to vfio-pci: %s", ctx->bdf, strerror(-ret));
		return T_EXIT_FAIL;
	}

	ctx->container = open("/dev/vfio/vfio", O_RDWR);
	if (ctx->container < 0) {
		vt_fail("open /dev/vfio/vfio: %s", strerror(errno));
		return T_EXIT_FAIL;
	}
	if (ioctl(ctx->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		vt_fail("unexpected VFIO API version");
		return T_EXIT_FAIL;
	}
	if (ioctl(ctx->container, VFIO_CHECK_EXTENSION,
		  VFIO_TYPE1v2_IOMMU) <= 0) {
		printf("SKIP: no type1v2 IOMMU support\n");
		return T_EXIT_SKIP;
	}

	snprintf(path, sizeof(path), "/dev/vfio/%d", ctx->group_nr);
	ctx->group = open(path, O_RDWR);
	if (ctx->group < 0) {
		vt_fail("open %s: %s", path, strerror(errno));
		return T_EXIT_FAIL;
	}
	if (ioctl(ctx->group, VFIO_GROUP_GET_STATUS, &status)) {
		vt_fail("VFIO_GROUP_GET_STATUS: %s", strerror(errno));
		return T_EXIT_FAIL;
	}
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		printf("SKIP: group %d not viable (other devices in it)\n",
		       ctx->group_nr);
		return T_EXIT_SKIP;
	}
	if (ioctl(ctx->group, VFIO_GROUP_SET_CONTAINER, &ctx->container)) {
		vt_fail("VFIO_GROUP_SET_CONTAINER: %s", strerror(errno));
		return T_EXIT_FAIL;
	}
	if (ioctl(ctx->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU)) {
		vt_fail("VFIO_SET_IOMMU type1v2: %s", strerror(errno));
		return T_EXIT_FAIL;
	}
	if (ioctl(ctx->container, VFIO_IOMMU_GET_INFO, &info)) {
		vt_fail("VFIO_IOMMU_GET_INFO: %s", strerror(errno));
		return T_EXIT_FAIL;
	}
	ctx->iova_pgsizes = info.iova_pgsizes;
	if (!(info.iova_pgsizes & PG)) {
		printf("SKIP: IOMMU page sizes %#llx lack 4 KiB\n",
		       (unsigned long long)info.iova_pgsizes);
		return T_EXIT_SKIP;
	}
	return T_EXIT_PASS;
}

static inline int vt_open_device(struct vt_ctx *ctx)
{
	if (ctx->device >= 0)
		return 0;
	ctx->device = ioctl(ctx->group, VFIO_GROUP_GET_DEVICE_FD, ctx->bdf);
	if (ctx->device < 0)
		return -errno;
	return 0;
}

static inline void vt_teardown(struct vt_ctx *ctx)
{
	if (ctx->device >= 0)
		close(ctx->device);
	if (ctx->group >= 0)
		close(ctx->group);
	if (ctx->container >= 0)
		close(ctx->container);
}

/* Close the container and return the exit code of test @name. */
static inline int vt_finish(struct vt_ctx *ctx, const char *name)
{
	vt_teardown(ctx);
	if (vt_failed)
		return T_EXIT_FAIL;
	printf("%s: all cases passed\n", name);
	return T_EXIT_PASS;
}

/* MAP_DMA; return 0 or -errno. */
static inline int vt_map_prot(struct vt_ctx *ctx, uint64_t iova, void *vaddr,
		       uint64_t size, uint32_t flags)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = flags,
		.vaddr = (uintptr_t)vaddr,
		.iova = iova,
		.size = size,
	};

	if (ioctl(ctx->container, VFIO_IOMMU_MAP_DMA, &map))
		return -errno;
	return 0;
}

static inline int vt_map(struct vt_ctx *ctx, uint64_t iova, void *vaddr,
		  uint64_t size)
{
	return vt_map_prot(ctx, iova, vaddr, size,
			   VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
}

/* UNMAP_DMA; return 0 or -errno, the unmapped size in *done. */
static inline int vt_unmap(struct vt_ctx *ctx, uint64_t iova, uint64_t size,
		    uint64_t *done)
{
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap),
		.iova = iova,
		.size = size,
	};
	int ret = 0;

	if (ioctl(ctx->container, VFIO_IOMMU_UNMAP_DMA, &unmap))
		ret = -errno;
	if (done)
		*done = unmap.size;
	return ret;
}

/* The number on the line of @path that starts with @key, or -1. */
static inline long vt_proc_field(const char *path, const char *key)
{
	size_t len = strlen(key);
	char line[256];
	long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len)) {
			v = strtol(line + len, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/*
 * mm->locked_vm in bytes.  type1 accounts pinned pages with
 * account_locked_vm() to mm->locked_vm, which /proc/PID/status shows as
 * VmLck (mlock() counts there too; these tests do not mlock).
 */
static inline long vt_locked_bytes(void)
{
	long kb = vt_proc_field("/proc/self/status", "VmLck:");

	return kb < 0 ? -1 : kb * 1024;
}

/* Anonymous memory aligned to @align; NULL on failure. */
static inline void *vt_alloc_aligned(size_t size, size_t align,
				       int extra_flags)
{
	size_t len = size + align;
	char *p, *a;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + size < p + len)
		munmap(a + size, p + len - (a + size));
	return a;
}

enum vt_backing {
	VT_ANON_4K,		/* MADV_NOHUGEPAGE, touched */
	VT_ANON_THP,		/* 2 MiB aligned, MADV_HUGEPAGE, touched */
	VT_ANON_POPULATE,	/* MAP_POPULATE */
	VT_HUGETLB,		/* MAP_HUGETLB 2 MiB pages */
};

static inline const char *vt_backing_name(enum vt_backing b)
{
	switch (b) {
	case VT_ANON_4K:	return "anon-4k";
	case VT_ANON_THP:	return "thp";
	case VT_ANON_POPULATE:	return "populate";
	case VT_HUGETLB:	return "hugetlb";
	}
	return "?";
}

/* Fill @p with a pattern derived from @seed, one word per 8 bytes. */
static inline void vt_fill(void *p, size_t size, uint64_t seed)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = seed ^ (i * 0x9e3779b97f4a7c15ULL);
}

static inline int vt_check_fill(const void *p, size_t size, uint64_t seed)
{
	const uint64_t *w = p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		if (w[i] != (seed ^ (i * 0x9e3779b97f4a7c15ULL)))
			return -1;
	return 0;
}

/* Memory of @size bytes with backing @b, filled with a pattern. */
static inline void *vt_alloc(enum vt_backing b, size_t size)
{
	void *p = NULL;

	switch (b) {
	case VT_ANON_4K:
		p = vt_alloc_aligned(size, PG, 0);
		if (p)
			madvise(p, size, MADV_NOHUGEPAGE);
		break;
	case VT_ANON_THP:
		p = vt_alloc_aligned(size, HPAGE, 0);
		if (p)
			madvise(p, size, MADV_HUGEPAGE);
		break;
	case VT_ANON_POPULATE:
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
		break;
	case VT_HUGETLB:
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
		break;
	}
	if (p)
		vt_fill(p, size, size);
	return p;
}

static inline long vt_read_long(const char *path)
{
	char buf[64];

	if (vt_read_str(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * Make sure at least @nr free 2 MiB huge pages exist.  Return the old
 * nr_hugepages to restore later, or -1 if they cannot be had.
 */
static inline long vt_reserve_hugepages(long nr)
{
	const char *nrp = "/proc/sys/vm/nr_hugepages";
	const char *freep =
		"/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";
	long old = vt_read_long(nrp), freenr;
	char buf[32];

	if (old < 0)
		return -1;
	freenr = vt_read_long(freep);
	if (freenr >= nr)
		return old;
	snprintf(buf, sizeof(buf), "%ld", old + nr - (freenr > 0 ? freenr : 0));
	if (vt_write_str(nrp, buf))
		return -1;
	if (vt_read_long(freep) < nr) {
		snprintf(buf, sizeof(buf), "%ld", old);
		vt_write_str(nrp, buf);
		return -1;
	}
	return old;
}

static inline void vt_restore_hugepages(long old)
{
	char buf[32];

	if (old < 0)
		return;
	snprintf(buf, sizeof(buf), "%ld", old);
	vt_write_str("/proc/sys/vm/nr_hugepages", buf);
}

/*
 * Pages pinned with FOLL_PIN and not released yet, system wide:
 * nr_foll_pin_acquired - nr_foll_pin_released of /proc/vmstat, with the
 * per-cpu counter deltas folded in first (vm.stat_refresh), or LONG_MIN.
 */
static inline long vt_pins_held(void)
{
	long acq = -1, rel = -1, v;
	char name[64];
	FILE *f;

	if (vt_write_str("/proc/sys/vm/stat_refresh", "1"))
		return LONG_MIN;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return LONG_MIN;
	while (fscanf(f, "%63s %ld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return acq < 0 || rel < 0 ? LONG_MIN : acq - rel;
}

/* Read the pagemap entries of @n pages from @addr into @ent; 0 or -1. */
static inline int vt_pagemap(const void *addr, size_t n, uint64_t *ent)
{
	size_t len = n * sizeof(*ent);
	ssize_t got;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	got = pread(fd, ent, len, (uintptr_t)addr / PG * sizeof(*ent));
	close(fd);
	return got == (ssize_t)len ? 0 : -1;
}

#define VT_PM_PFN(e)	((e) >> 63 ? (e) & ((1ULL << 55) - 1) : 0)

/*
 * Which pages of [@p, @p + @size), private anonymous memory, something
 * holds pinned with FOLL_PIN.  fork() copies an anonymous page that may
 * be pinned into the child at once (page_needs_cow_for_dma(); a large
 * folio as a whole, splitting the parent's PMD), and shares any other:
 * a page whose pfn differs between this process and a child forked now
 * is pinned.  The FOLL_PIN counters of /proc/vmstat only count pins; this
 * finds the pages, so an unmap that unpins one page too many here and one
 * too few there is seen.  Returns the number of pinned pages and the
 * offset of the first in *@first, or -1 (no pagemap pfns: not root, or
 * fork failed).  Not for shared or hugetlbfs memory, which fork() does
 * not copy or copies from the huge page pool.
 */
static inline long vt_pinned_pages(const void *p, size_t size, size_t *first)
{
	size_t i, n = size / PG;
	uint64_t *mine, *child;
	long pinned = 0;
	int fds[2], status;
	ssize_t got = 0, r;
	pid_t pid;

	mine = calloc(n, sizeof(*mine));
	child = calloc(n, sizeof(*child));
	if (!mine || !child || pipe(fds)) {
		free(mine);
		free(child);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* The child only reads its page table, touching no page. */
		close(fds[0]);
		if (vt_pagemap(p, n, child))
			_exit(1);
		for (i = 0; i < n * sizeof(*child); i += r) {
			r = write(fds[1], (char *)child + i,
				  n * sizeof(*child) - i);
			if (r <= 0)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		while ((size_t)got < n * sizeof(*child)) {
			r = read(fds[0], (char *)child + got,
				 n * sizeof(*child) - got);
			if (r <= 0)
				break;
			got += r;
		}
		waitpid(pid, &status, 0);
	}
	close(fds[0]);
	if (pid < 0 || (size_t)got != n * sizeof(*child) ||
	    vt_pagemap(p, n, mine) || !VT_PM_PFN(mine[0])) {
		free(mine);
		free(child);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (VT_PM_PFN(mine[i]) == VT_PM_PFN(child[i]))
			continue;
		if (!pinned++ && first)
			*first = i * PG;
	}
	free(mine);
	free(child);
	return pinned;
}

/*
 * Check that exactly @want pages of [@p, @p + @size) are pinned
 * (vt_pinned_pages()): all of them while a mapping holds them, none
 * after it was unmapped.
 */
static inline void vt_check_pinned(const char *what, const void *p,
				   size_t size, long want)
{
	size_t first = 0;
	long n = vt_pinned_pages(p, size, &first);

	CHECK(n >= 0, "%s: cannot tell pinned pages apart (pagemap, fork)",
	      what);
	if (n < 0 || n == want)
		return;
	if (n && !want)
		vt_fail("%s: %ld of %zu pages still pinned, the first at +%#zx",
			what, n, size / PG, first);
	else
		vt_fail("%s: %ld of %zu pages pinned, expected %ld", what, n,
			size / PG, want);
}

/*
 * Map @size bytes at @vaddr to @iova, check that locked_vm grew by
 * @acct bytes, unmap and check that it and the pages pinned system wide
 * went back.  Return 0 or -1.
 */
static inline int vt_map_unmap_check(struct vt_ctx *ctx, const char *what,
			      uint64_t iova, void *vaddr, uint64_t size,
			      long acct)
{
	long before = vt_locked_bytes(), during, after;
	long pins = vt_pins_held();
	uint64_t done = 0;
	int ret;

	ret = vt_map(ctx, iova, vaddr, size);
	if (ret) {
		vt_fail("%s: MAP_DMA of %llu bytes: %s", what,
			(unsigned long long)size, strerror(-ret));
		return -1;
	}
	during = vt_locked_bytes();
	CHECK(during - before == acct,
	      "%s: locked_vm grew by %ld, expected %ld", what,
	      during - before, acct);
	ret = vt_unmap(ctx, iova, size, &done);
	CHECK(!ret && done == size, "%s: UNMAP_DMA ret %d size %llu of %llu",
	      what, ret, (unsigned long long)done, (unsigned long long)size);
	after = vt_locked_bytes();
	CHECK(after == before, "%s: locked_vm %ld after unmap, was %ld", what,
	      after, before);
	CHECK(pins != LONG_MIN, "%s: cannot read the FOLL_PIN counters", what);
	CHECK(vt_pins_held() == pins, "%s: %ld pages pinned after unmap, %ld before",
	      what, vt_pins_held(), pins);
	return vt_failed ? -1 : 0;
}

/*
 * Drop CAP_IPC_LOCK (effective, permitted, inheritable and bounding), so
 * that type1 charges RLIMIT_MEMLOCK (dma->lock_cap).  0, or -1.
 */
static inline int vt_drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	char line[256];
	FILE *f;
	int ok = 0;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	data[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
	data[CAP_IPC_LOCK / 32].inheritable &= ~(1U << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0);

	/* Make sure it is gone from the effective set. */
	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapEff:", 7)) {
			unsigned long long eff = strtoull(line + 7, NULL, 16);

			ok = !(eff & (1ULL << CAP_IPC_LOCK));
			break;
		}
	}
	fclose(f);
	return ok ? 0 : -1;
}

/* Set the soft RLIMIT_MEMLOCK to @bytes.  0, or -1. */
static inline int vt_set_memlock(unsigned long bytes)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return -1;
	if (rl.rlim_max != RLIM_INFINITY && bytes > rl.rlim_max)
		return -1;
	rl.rlim_cur = bytes;
	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

#endif /* VFIO_HELPERS_H */
