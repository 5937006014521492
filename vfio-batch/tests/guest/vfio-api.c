/* SPDX-License-Identifier: MIT */
/*
 * Description: the other ways into type1's pin and unpin paths.
 *
 * - VFIO_DMA_UNMAP_FLAG_VADDR then VFIO_DMA_MAP_FLAG_VADDR (a new vaddr
 *   for a live mapping, as QEMU's live update does): the pages stay
 *   pinned and charged while the vaddr is invalid, the mapping follows the
 *   new vaddr (a second mapping of the same memfd), and unmapping it
 *   releases everything.
 * - The type1 v1 interface: map and unmap THP and 4 KiB memory, and an
 *   unmap that starts inside a mapping, which v1 answers by unmapping the
 *   whole mapping.
 * - MAP_DMA over a range with a hole partway (THP before it, 4 KiB pages
 *   after, and a hole inside a THP-sized stretch): EFAULT, and the unwind
 *   leaves locked_vm and the system's FOLL_PIN count as they were.
 */
#include "vfio_helpers.h"

#define SIZE	(8 * MIB)

static void test_vaddr(struct vt_ctx *ctx)
{
	long l0 = vt_locked_bytes(), p0 = vt_pins_held();
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap), .flags = VFIO_DMA_UNMAP_FLAG_VADDR,
		.iova = IOVA_BASE, .size = SIZE,
	};
	char *a, *b;
	uint64_t done;
	int fd, ret;

	if (ioctl(ctx->container, VFIO_CHECK_EXTENSION, VFIO_UPDATE_VADDR) <= 0) {
		printf("# vaddr: no VFIO_UPDATE_VADDR, skipped\n");
		return;
	}
	fd = memfd_create("vfio-api", 0);
	CHECK(fd >= 0 && !ftruncate(fd, SIZE), "vaddr: memfd: %s", strerror(errno));
	a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED, "vaddr: mmap: %s", strerror(errno));
	if (vt_failed)
		return;
	vt_fill(a, SIZE, 7);
	ret = vt_map(ctx, IOVA_BASE, a, SIZE);
	CHECK(!ret, "vaddr: map: %s", strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)SIZE, "vaddr: locked_vm grew by %ld",
	      vt_locked_bytes() - l0);
	ret = ioctl(ctx->container, VFIO_IOMMU_UNMAP_DMA, &unmap) ? -errno : 0;
	CHECK(!ret && unmap.size == SIZE, "vaddr: invalidate the vaddr: %s",
	      strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)SIZE,
	      "vaddr: locked_vm %ld with the vaddr invalid", vt_locked_bytes() - l0);
	CHECK(vt_pins_held() - p0 == (long)(SIZE / PG),
	      "vaddr: %ld pages pinned with the vaddr invalid, expected %lu",
	      vt_pins_held() - p0, SIZE / PG);
	munmap(a, SIZE);
	ret = vt_map_prot(ctx, IOVA_BASE, b, SIZE, VFIO_DMA_MAP_FLAG_VADDR);
	CHECK(!ret, "vaddr: new vaddr: %s", strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)SIZE,
	      "vaddr: locked_vm %ld after the update", vt_locked_bytes() - l0);
	ret = vt_unmap(ctx, IOVA_BASE, SIZE, &done);
	CHECK(!ret && done == SIZE, "vaddr: unmap: %s", strerror(-ret));
	CHECK(vt_locked_bytes() == l0, "vaddr: locked_vm %ld after unmap, was %ld",
	      vt_locked_bytes(), l0);
	CHECK(vt_pins_held() == p0, "vaddr: %ld pages pinned after unmap, %ld before",
	      vt_pins_held(), p0);
	munmap(b, SIZE);
	close(fd);
}

static void test_hole(struct vt_ctx *ctx, const char *what, size_t hole_at,
		      size_t hole)
{
	long l0 = vt_locked_bytes(), p0 = vt_pins_held();
	char *p = vt_alloc(VT_ANON_THP, SIZE);
	int ret;

	CHECK(p != NULL, "%s: alloc", what);
	if (!p)
		return;
	/* 4 KiB pages after the hole */
	madvise(p + hole_at + hole, SIZE - hole_at - hole, MADV_NOHUGEPAGE);
	CHECK(!munmap(p + hole_at, hole), "%s: punch the hole", what);
	ret = vt_map(ctx, IOVA_BASE, p, SIZE);
	CHECK(ret == -EFAULT, "%s: map over the hole: %s, expected EFAULT", what,
	      strerror(-ret));
	CHECK(vt_locked_bytes() == l0, "%s: locked_vm %ld after the failed map, was %ld",
	      what, vt_locked_bytes(), l0);
	CHECK(vt_pins_held() == p0, "%s: %ld pages pinned after the failed map, %ld before",
	      what, vt_pins_held(), p0);
	/* nothing is left mapped: the whole range maps again where it can */
	ret = vt_map(ctx, IOVA_BASE, p, hole_at);
	CHECK(!ret, "%s: map before the hole: %s", what, strerror(-ret));
	if (!ret)
		vt_unmap(ctx, IOVA_BASE, hole_at, NULL);
	munmap(p, hole_at);
	munmap(p + hole_at + hole, SIZE - hole_at - hole);
}

static void test_v1(struct vt_ctx *ctx)
{
	long l0 = vt_locked_bytes(), p0 = vt_pins_held();
	enum vt_backing bs[] = { VT_ANON_THP, VT_ANON_4K };
	uint64_t done;
	size_t i;
	char *p;
	int c, ret;

	ioctl(ctx->group, VFIO_GROUP_UNSET_CONTAINER);
	close(ctx->container);
	ctx->container = -1;
	c = open("/dev/vfio/vfio", O_RDWR);
	if (ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) <= 0) {
		printf("# v1: no VFIO_TYPE1_IOMMU, skipped\n");
		close(c);
		return;
	}
	CHECK(!ioctl(ctx->group, VFIO_GROUP_SET_CONTAINER, &c) &&
	      !ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU),
	      "v1: container: %s", strerror(errno));
	if (vt_failed) {
		close(c);
		return;
	}
	ctx->container = c;
	for (i = 0; i < 2; i++) {
		p = vt_alloc(bs[i], SIZE);
		CHECK(p != NULL, "v1: alloc");
		if (!p)
			continue;
		vt_map_unmap_check(ctx, "v1", IOVA_BASE, p, SIZE, SIZE);
		/* v1: an unmap inside a mapping takes the whole mapping */
		ret = vt_map(ctx, IOVA_BASE, p, SIZE);
		CHECK(!ret, "v1: map: %s", strerror(-ret));
		ret = vt_unmap(ctx, IOVA_BASE + HPAGE, PG, &done);
		printf("# v1 %s: unmap of one page inside: %s, %llu bytes unmapped\n",
		       vt_backing_name(bs[i]), ret ? strerror(-ret) : "ok",
		       (unsigned long long)done);
		if (vt_locked_bytes() != l0)
			vt_unmap(ctx, IOVA_BASE, SIZE, &done);
		CHECK(vt_locked_bytes() == l0, "v1 %s: locked_vm %ld after unmap, was %ld",
		      vt_backing_name(bs[i]), vt_locked_bytes(), l0);
		CHECK(vt_pins_held() == p0, "v1 %s: %ld pages pinned after unmap, %ld before",
		      vt_backing_name(bs[i]), vt_pins_held(), p0);
		munmap(p, SIZE);
	}
}

int main(void)
{
	struct vt_ctx ctx;
	int ret;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS)
		return ret;
	test_vaddr(&ctx);
	test_hole(&ctx, "hole after 3 THPs", 3 * HPAGE, HPAGE);
	test_hole(&ctx, "hole inside a THP stretch", HPAGE + 5 * PG, 3 * PG);
	test_hole(&ctx, "hole at the last page", SIZE - PG, PG);
	test_v1(&ctx);
	return vt_finish(&ctx, "vfio-api");
}
