/* SPDX-License-Identifier: MIT */
/*
 * Description: vfio type1 UNMAP_DMA of mappings whose physically
 * contiguous runs do not follow the alignment of their iova: 4 KiB pages
 * at a 1 GiB aligned iova, THP with a single 4 KiB page taken out of
 * each huge page, and one mapping across three VMAs (THP, 4 KiB pages,
 * hugetlbfs), and THP of which a few huge pages were split into 4 KiB
 * pages, read back by the device.  Unmap must release exactly the pages
 * that map pinned:
 * locked_vm and the pages pinned (FOLL_PIN counters of /proc/vmstat) go
 * back to their starting values, the memory content is unchanged, freed
 * huge pages go back to the pool and freed small pages to the free
 * memory.  An unmap that took a block of a misaligned run for contiguous
 * would unpin pages it never pinned and leave the pinned ones behind, with
 * the counts balanced: after each unmap of anonymous memory, no page of it
 * may still be pinned (vt_pinned_pages(): fork() copies pinned pages), and
 * the last mapping of the fragmented THP checks the probe itself, every
 * page pinned while mapped.
 */
#include "vfio_edu.h"

#define GIB		(1024UL * MIB)

/* MemFree in KiB. */
static long mem_free_kb(void)
{
	return vt_proc_field("/proc/meminfo", "MemFree:");
}

/* Map, unmap and check; @p is private anonymous memory. */
static void map_unmap(struct vt_ctx *ctx, const char *what, uint64_t iova,
		      char *p, size_t size)
{
	vt_map_unmap_check(ctx, what, iova, p, size, size);
	vt_check_pinned(what, p, size, 0);
}

/*
 * 4 KiB pages at iovas aligned to 1 GiB and to 2 MiB: runs as long as the
 * pages happen to be physically contiguous, often a single page.
 */
static void small_pages_aligned_iova(struct vt_ctx *ctx)
{
	const size_t size = 64 * MIB;
	long free0 = mem_free_kb(), free1;
	char *p = vt_alloc(VT_ANON_4K, size);
	int i;

	if (!p) {
		vt_fail("4k at aligned iova: alloc");
		return;
	}
	for (i = 0; i < 4 && !vt_failed; i++)
		map_unmap(ctx, "4k at 1 GiB aligned iova", 4 * GIB + i * GIB,
			  p, size);
	map_unmap(ctx, "4k at 2 MiB aligned iova", IOVA_BASE + HPAGE, p,
		  size);
	CHECK(!vt_check_fill(p, size, size),
	      "4k at aligned iova: memory changed");
	munmap(p, size);

	/*
	 * Pins left on the buffer would keep all of it allocated; allow
	 * for half of it to be in use by others meanwhile (a cold run
	 * measured a quarter and 56 KiB: per-cpu lists, KASAN's quarantine).
	 */
	free1 = mem_free_kb();
	CHECK(free0 - free1 < (long)(size / KIB / 2),
	      "4k at aligned iova: %ld KiB not freed after munmap",
	      free0 - free1);
}

/*
 * THP with one small page replaced in each huge page: runs of 511 pages
 * and single pages, so a 2 MiB block of the iova is never one run.
 */
static void thp_with_holes(struct vt_ctx *ctx)
{
	const size_t size = 16 * MIB;
	char *p = vt_alloc(VT_ANON_THP, size);
	size_t off;

	if (!p) {
		vt_fail("thp with holes: alloc");
		return;
	}
	for (off = 0; off < size; off += HPAGE) {
		char *q = p + off + (off / HPAGE % 8 + 1) * 16 * PG;

		/* Split the huge page and put a new page at q. */
		if (madvise(q, PG, MADV_DONTNEED)) {
			vt_fail("thp with holes: MADV_DONTNEED: %s",
				strerror(errno));
			break;
		}
	}
	vt_fill(p, size, size);
	map_unmap(ctx, "thp with holes", 4 * GIB, p, size);
	map_unmap(ctx, "thp with holes +4k", 4 * GIB + PG, p + PG, size - PG);
	CHECK(!vt_check_fill(p, size, size), "thp with holes: memory changed");
	munmap(p, size);
}

/*
 * THP of which a few 2 MiB blocks were split into 4 KiB pages, as when
 * some faults of a THP-backed guest fall back to small pages: one block
 * faulted in as small pages (MADV_NOHUGEPAGE before the first touch), and
 * three where one page was replaced: the first, one in the middle, the
 * last.  The blocks around them stay whole huge pages.  An unmap that
 * steps over whole blocks must tell the split ones apart: a split block
 * taken for whole unpins pages of the old huge page and leaves the new
 * small page pinned.
 */
#define FRAG_SIZE	(32 * MIB)

static const struct {
	unsigned int block;	/* 2 MiB block of the buffer */
	int page;		/* page replaced in it, -1: all small pages */
} frag_splits[] = {
	{ 3, -1 }, { 8, 0 }, { 13, 255 }, { 14, 511 },
};

/* Read back through the device pages at the edges of the split blocks. */
static void frag_dma_check(const char *what, uint64_t iova, const char *p,
			   size_t start, size_t size, char *scratch)
{
	size_t i, j, blk, offs[4];

	for (i = 0; i < sizeof(frag_splits) / sizeof(frag_splits[0]); i++) {
		blk = frag_splits[i].block * HPAGE;
		offs[0] = blk - PG;
		offs[1] = blk;
		offs[2] = blk + (frag_splits[i].page < 0 ? 100 :
				 frag_splits[i].page) * PG;
		offs[3] = blk + HPAGE - PG;
		for (j = 0; j < 4 && !vt_failed; j++) {
			if (offs[j] < start || offs[j] - start >= size)
				continue;
			dma_check_page(what, iova, p, offs[j] - start,
				       scratch);
		}
	}
}

/*
 * Map @size bytes at @buf + @start to @iova, read them back through the
 * device, unmap, and check locked_vm and the pages pinned as
 * vt_map_unmap_check() does, and which pages are pinned: none after the
 * unmap, and with @probe every page while mapped (which splits the huge
 * pages' PMDs: fork() copies a pinned THP page by page).
 */
static void frag_map_unmap(struct vt_ctx *ctx, const char *what,
			   uint64_t iova, char *buf, size_t start,
			   size_t size, char *scratch, int probe)
{
	long before = vt_locked_bytes(), pins = vt_pins_held();
	uint64_t done = 0;
	int ret;

	ret = vt_map(ctx, iova, buf + start, size);
	if (ret) {
		vt_fail("%s: MAP_DMA of %zu bytes: %s", what, size,
			strerror(-ret));
		return;
	}
	CHECK(vt_locked_bytes() - before == (long)size,
	      "%s: locked_vm grew by %ld, expected %zu", what,
	      vt_locked_bytes() - before, size);
	if (scratch)
		frag_dma_check(what, iova, buf + start, start, size, scratch);
	if (probe)
		vt_check_pinned(what, buf + start, size, size / PG);
	ret = vt_unmap(ctx, iova, size, &done);
	CHECK(!ret && done == size, "%s: UNMAP_DMA ret %d size %llu of %zu",
	      what, ret, (unsigned long long)done, size);
	CHECK(vt_locked_bytes() == before,
	      "%s: locked_vm %ld after unmap, was %ld", what,
	      vt_locked_bytes(), before);
	CHECK(pins != LONG_MIN, "%s: cannot read the FOLL_PIN counters", what);
	CHECK(vt_pins_held() == pins,
	      "%s: %ld pages pinned after unmap, %ld before", what,
	      vt_pins_held(), pins);
	vt_check_pinned(what, buf + start, size, 0);
}

static void thp_fragmented(struct vt_ctx *ctx)
{
	char *buf, *scratch = NULL;
	size_t i, blk;
	int ret;

	buf = vt_alloc_aligned(FRAG_SIZE, HPAGE, 0);
	if (!buf) {
		vt_fail("thp fragmented: alloc");
		return;
	}
	madvise(buf, FRAG_SIZE, MADV_HUGEPAGE);
	for (i = 0; i < sizeof(frag_splits) / sizeof(frag_splits[0]); i++)
		if (frag_splits[i].page < 0)
			madvise(buf + frag_splits[i].block * HPAGE, HPAGE,
				MADV_NOHUGEPAGE);
	vt_fill(buf, FRAG_SIZE, FRAG_SIZE);
	for (i = 0; i < sizeof(frag_splits) / sizeof(frag_splits[0]); i++) {
		if (frag_splits[i].page < 0)
			continue;
		blk = frag_splits[i].block * HPAGE;
		/* Split the huge page and put a new page there. */
		if (madvise(buf + blk + frag_splits[i].page * PG, PG,
			    MADV_DONTNEED)) {
			vt_fail("thp fragmented: MADV_DONTNEED: %s",
				strerror(errno));
			break;
		}
	}
	vt_fill(buf, FRAG_SIZE, FRAG_SIZE);

	/* The device reads through the mapping if it can be set up. */
	ret = vt_open_device(ctx);
	if (!ret)
		ret = map_bar(ctx, NULL);
	if (!ret)
		ret = enable_bus_master(ctx);
	if (!ret) {
		scratch = vt_alloc(VT_ANON_4K, PG);
		if (scratch && vt_map(ctx, SCRATCH_IOVA, scratch, PG)) {
			munmap(scratch, PG);
			scratch = NULL;
		}
	}
	if (!scratch)
		printf("thp fragmented: no device reads (edu setup: %s)\n",
		       ret ? strerror(-ret) : "scratch");

	frag_map_unmap(ctx, "thp fragmented", DMA_IOVA, buf, 0, FRAG_SIZE,
		       scratch, 0);
	frag_map_unmap(ctx, "thp fragmented +4k", DMA_IOVA + PG, buf, PG,
		       FRAG_SIZE - 2 * PG, scratch, 1);
	CHECK(!vt_check_fill(buf, FRAG_SIZE, FRAG_SIZE),
	      "thp fragmented: memory changed");
	if (scratch) {
		vt_unmap(ctx, SCRATCH_IOVA, PG, NULL);
		munmap(scratch, PG);
	}
	munmap(buf, FRAG_SIZE);
}

/*
 * One mapping over three VMAs side by side: 4 MiB of THP, 2 MiB of small
 * pages, 4 MiB of hugetlbfs, mapped from 4 KiB into the first huge page
 * to a 1 GiB aligned iova.  Its runs are 2 MiB - 4 KiB, then 2 MiB and
 * 4 KiB long, all at a 4 KiB offset from 2 MiB alignment in the iova.
 */
static void three_vmas(struct vt_ctx *ctx)
{
	const size_t thp = 4 * MIB, small = 2 * MIB, huge = 4 * MIB;
	const size_t size = thp + small + huge;
	const char *freep =
		"/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";
	long hfree0, hfree1;
	char *p, *h;

	/* Reserve the range, then put hugetlbfs in its last 4 MiB. */
	p = vt_alloc_aligned(size, HPAGE, 0);
	if (!p) {
		vt_fail("three vmas: reserve");
		return;
	}
	madvise(p, thp, MADV_HUGEPAGE);
	madvise(p + thp, small, MADV_NOHUGEPAGE);
	hfree0 = vt_read_long(freep);
	h = mmap(p + thp + small, huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);
	if (h == MAP_FAILED) {
		vt_fail("three vmas: hugetlbfs mmap: %s", strerror(errno));
		munmap(p, size);
		return;
	}
	vt_fill(p + PG, size - PG, size - PG);
	map_unmap(ctx, "thp + 4k + hugetlb vmas", 4 * GIB, p + PG, size - PG);
	CHECK(!vt_check_fill(p + PG, size - PG, size - PG),
	      "three vmas: memory changed");
	munmap(p, size);
	hfree1 = vt_read_long(freep);
	CHECK(hfree1 == hfree0, "three vmas: %ld free huge pages, %ld before",
	      hfree1, hfree0);
}

int main(void)
{
	struct vt_ctx ctx;
	long old_huge;
	int ret;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		vt_teardown(&ctx);
		return ret;
	}

	small_pages_aligned_iova(&ctx);
	thp_with_holes(&ctx);
	thp_fragmented(&ctx);
	old_huge = vt_reserve_hugepages(2);
	if (old_huge >= 0) {
		three_vmas(&ctx);
		vt_restore_hugepages(old_huge);
	} else {
		printf("hugetlb: cannot reserve huge pages, case skipped\n");
	}

	return vt_finish(&ctx, "vfio-unmap-layout");
}
