/* SPDX-License-Identifier: MIT */
/*
 * Description: vfio type1 with reserved pfns and the real data path.
 *
 * - BAR0 of the edu device, mmap'd through the vfio device fd, is a
 *   VM_PFNMAP range of MMIO pfns: MAP_DMA of it succeeds, accounts
 *   nothing to locked_vm, and UNMAP_DMA removes all of it.
 * - Anonymous memory and the BAR side by side in one MAP_DMA (a mapping
 *   that holds pinned pages and reserved pfns): only the anonymous part
 *   is accounted and all of it is returned on unmap.
 * - The edu DMA engine copies pages of 4 KiB, THP and hugetlbfs mappings
 *   (at offsets around huge page boundaries) into the device and back to
 *   a scratch mapping, proving that each iova reaches the page it should.
 *   The edu device masks DMA addresses to 28 bits, so these iovas stay
 *   below 256 MiB.
 */
#include "vfio_edu.h"

static void test_dma_backing(struct vt_ctx *ctx, enum vt_backing b,
			     size_t size, size_t start, char *scratch)
{
	size_t offs[] = { 0, PG, HPAGE - PG, HPAGE, HPAGE + PG,
			  3 * HPAGE / 2, size - start - PG };
	char what[64];
	size_t i;
	char *p;
	int ret;

	p = vt_alloc(b, size);
	if (!p) {
		vt_fail("dma %s: alloc", vt_backing_name(b));
		return;
	}
	snprintf(what, sizeof(what), "dma %s +%zu", vt_backing_name(b), start);
	ret = vt_map(ctx, DMA_IOVA, p + start, size - start);
	if (ret) {
		vt_fail("%s: map: %s", what, strerror(-ret));
		munmap(p, size);
		return;
	}
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] + PG <= size - start)
			dma_check_page(what, DMA_IOVA, p + start, offs[i],
				       scratch);
	ret = vt_unmap(ctx, DMA_IOVA, size - start, NULL);
	CHECK(!ret, "%s: unmap: %d", what, ret);
	munmap(p, size);
}

static void test_dma(struct vt_ctx *ctx)
{
	long l0 = vt_locked_bytes(), old_huge;
	char *scratch = vt_alloc(VT_ANON_4K, PG);
	int ret;

	if (!scratch) {
		vt_fail("scratch alloc");
		return;
	}
	if (enable_bus_master(ctx)) {
		vt_fail("enabling bus mastering");
		return;
	}
	ret = vt_map(ctx, SCRATCH_IOVA, scratch, PG);
	if (ret) {
		vt_fail("scratch map: %s", strerror(-ret));
		return;
	}
	test_dma_backing(ctx, VT_ANON_4K, 8 * MIB, 0, scratch);
	test_dma_backing(ctx, VT_ANON_THP, 8 * MIB, 0, scratch);
	test_dma_backing(ctx, VT_ANON_THP, 8 * MIB, PG, scratch);
	test_dma_backing(ctx, VT_ANON_POPULATE, 8 * MIB, 0, scratch);
	old_huge = vt_reserve_hugepages(4);
	if (old_huge >= 0) {
		test_dma_backing(ctx, VT_HUGETLB, 8 * MIB, 0, scratch);
		test_dma_backing(ctx, VT_HUGETLB, 8 * MIB, 3 * PG, scratch);
		vt_restore_hugepages(old_huge);
	} else {
		printf("hugetlb: cannot reserve huge pages, DMA case skipped\n");
	}
	vt_unmap(ctx, SCRATCH_IOVA, PG, NULL);
	CHECK(vt_locked_bytes() == l0, "dma: locked_vm not back");
	munmap(scratch, PG);
}

static void test_bar_map(struct vt_ctx *ctx)
{
	long l0 = vt_locked_bytes();
	uint64_t done;
	int ret;

	ret = vt_map(ctx, IOVA_BASE, (void *)bar, bar_size);
	CHECK(!ret, "bar: map %zu bytes: %s", bar_size, strerror(-ret));
	CHECK(vt_locked_bytes() == l0, "bar: MMIO accounted: %+ld",
	      vt_locked_bytes() - l0);
	ret = vt_unmap(ctx, IOVA_BASE, bar_size, &done);
	CHECK(!ret && done == bar_size, "bar: unmap %d %llu", ret,
	      (unsigned long long)done);
	CHECK(vt_locked_bytes() == l0, "bar: locked_vm changed");

	/* A page of it, and the same BAR at two iovas. */
	ret = vt_map(ctx, IOVA_BASE, (void *)(bar + PG), PG);
	CHECK(!ret, "bar: map one page: %s", strerror(-ret));
	ret = vt_map(ctx, IOVA_BASE + 64 * MIB, (void *)bar, bar_size);
	CHECK(!ret, "bar: map again: %s", strerror(-ret));
	ret = vt_unmap(ctx, IOVA_BASE, 128 * MIB, &done);
	CHECK(!ret && done == PG + bar_size, "bar: unmap both: %d %llu", ret,
	      (unsigned long long)done);
	CHECK(vt_locked_bytes() == l0, "bar: locked_vm changed");
}

/*
 * Anonymous memory of @anon bytes and the BAR next to each other in one
 * virtual range; @bar_first puts the BAR below.
 */
static void test_mixed(struct vt_ctx *ctx, size_t anon, int bar_first,
		       int thp)
{
	size_t total = anon + bar_size;
	char *r = vt_alloc_aligned(total, HPAGE, 0), *a, *b;
	volatile uint8_t *saved = bar;
	size_t saved_size = bar_size;
	long l0 = vt_locked_bytes();
	uint64_t done;
	int ret;

	if (!r) {
		vt_fail("mixed: alloc");
		return;
	}
	a = bar_first ? r + bar_size : r;
	b = bar_first ? r : r + anon;
	madvise(a, anon, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	vt_fill(a, anon, anon);
	ret = map_bar(ctx, b);
	if (ret) {
		vt_fail("mixed: mmap BAR at %p: %s", b, strerror(-ret));
		goto out;
	}
	ret = vt_map(ctx, IOVA_BASE, r, total);
	CHECK(!ret, "mixed %zu %d: map: %s", anon, bar_first, strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)anon,
	      "mixed %zu %d: locked grew by %ld, expected %zu", anon,
	      bar_first, vt_locked_bytes() - l0, anon);
	ret = vt_unmap(ctx, IOVA_BASE, total, &done);
	CHECK(!ret && done == total, "mixed: unmap %d %llu", ret,
	      (unsigned long long)done);
	CHECK(vt_locked_bytes() == l0, "mixed %zu %d: locked_vm %+ld", anon,
	      bar_first, vt_locked_bytes() - l0);
	CHECK(!vt_check_fill(a, anon, anon), "mixed: memory changed");
out:
	munmap(r, total);
	bar = saved;
	bar_size = saved_size;
}

int main(void)
{
	struct vt_ctx ctx;
	int ret;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		vt_teardown(&ctx);
		return ret;
	}
	ret = vt_open_device(&ctx);
	if (ret) {
		vt_fail("VFIO_GROUP_GET_DEVICE_FD %s: %s", ctx.bdf,
			strerror(-ret));
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}
	ret = map_bar(&ctx, NULL);
	if (ret == -ENOTSUP) {
		printf("SKIP: BAR0 cannot be mmap'd\n");
		vt_teardown(&ctx);
		return T_EXIT_SKIP;
	}
	if (ret) {
		vt_fail("mmap BAR0: %s", strerror(-ret));
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}
	if ((rd32(EDU_ID) & 0xff) != 0xed) {
		vt_fail("BAR0 does not look like edu: id %#x", rd32(EDU_ID));
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}

	test_bar_map(&ctx);
	test_mixed(&ctx, 2 * MIB, 0, 1);
	test_mixed(&ctx, 2 * MIB, 1, 1);
	test_mixed(&ctx, 64 * KIB, 0, 0);
	test_mixed(&ctx, 64 * KIB, 1, 0);
	test_dma(&ctx);

	munmap((void *)bar, bar_size);
	return vt_finish(&ctx, "vfio-bar");
}
