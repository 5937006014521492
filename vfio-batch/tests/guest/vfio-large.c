/* SPDX-License-Identifier: MIT */
/*
 * Description: vfio type1 MAP_DMA / UNMAP_DMA of mappings of several GiB
 * in a guest of 1 GiB: a 64 MiB memfd (4 KiB pages, and hugetlbfs 2 MiB
 * pages when they can be had) is mapped over and over, back to back, into
 * one range of 4 GiB of address space, which is then mapped with a single
 * MAP_DMA.  Each page is pinned once per view and accounted each time:
 * locked_vm grows by the whole 4 GiB and goes back, the pages pinned
 * system wide go back, and a partial unmap is refused.
 */
#include "vfio_helpers.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	0x0004U
#endif

#define GIB		(1024UL * MIB)
#define VIEW		(64 * MIB)
#define TOTAL		(4 * GIB)

/*
 * Map a memfd of VIEW bytes TOTAL / VIEW times, back to back; return the
 * start of the range or NULL.
 */
static char *views(int huge)
{
	char *base, *p;
	size_t off;
	int fd;

	fd = memfd_create("vfio-large", huge ? MFD_HUGETLB : 0);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, VIEW)) {
		close(fd);
		return NULL;
	}
	/* Reserve the range, 2 MiB aligned for hugetlbfs. */
	base = mmap(NULL, TOTAL + HPAGE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	p = (char *)(((uintptr_t)base + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	if (p > base)
		munmap(base, p - base);
	munmap(p + TOTAL, base + HPAGE - p);
	for (off = 0; off < TOTAL; off += VIEW) {
		if (mmap(p + off, VIEW, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
			munmap(p, TOTAL);
			close(fd);
			return NULL;
		}
	}
	close(fd);
	vt_fill(p, VIEW, VIEW);
	return p;
}

static void large(struct vt_ctx *ctx, int huge)
{
	const char *name = huge ? "hugetlb 4 GiB" : "4k 4 GiB";
	uint64_t done = 0;
	char *p = views(huge);
	int ret;

	if (!p) {
		vt_fail("%s: cannot lay out the views: %s", name,
			strerror(errno));
		return;
	}
	vt_map_unmap_check(ctx, name, IOVA_BASE, p, TOTAL, TOTAL);

	/* type1v2 refuses to unmap part of a mapping. */
	ret = vt_map(ctx, IOVA_BASE, p, TOTAL);
	CHECK(!ret, "%s: map again: %s", name, strerror(-ret));
	ret = vt_unmap(ctx, IOVA_BASE, TOTAL / 2, &done);
	CHECK(ret == -EINVAL, "%s: partial unmap returned %d", name, ret);
	ret = vt_unmap(ctx, IOVA_BASE, TOTAL, &done);
	CHECK(!ret && done == TOTAL, "%s: unmap: %d", name, ret);

	CHECK(!vt_check_fill(p + TOTAL - VIEW, VIEW, VIEW),
	      "%s: memory changed", name);
	munmap(p, TOTAL);
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

	large(&ctx, 0);
	old_huge = vt_reserve_hugepages(VIEW / HPAGE);
	if (old_huge >= 0) {
		large(&ctx, 1);
		vt_restore_hugepages(old_huge);
	} else {
		printf("hugetlb: cannot reserve huge pages, case skipped\n");
	}

	return vt_finish(&ctx, "vfio-large");
}
