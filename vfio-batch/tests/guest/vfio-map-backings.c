/* SPDX-License-Identifier: MIT */
/*
 * Description: vfio type1v2 MAP_DMA / UNMAP_DMA of anonymous 4 KiB pages,
 * THP, MAP_POPULATE and hugetlbfs memory, from one page to 256 MiB, at
 * offsets that split huge pages; mm->locked_vm grows by exactly the
 * mapped size and goes back after every unmap.  Also: the same memory at
 * two iovas, read-only maps of untouched memory (zero page), the
 * alignment, overlap and partial unmap rules of type1v2, and that the
 * memory content survives pinning and unpinning.
 */
#include "vfio_helpers.h"

static const size_t sizes[] = {
	PG, 16 * KIB, 64 * KIB, 2 * MIB - PG, 2 * MIB, 2 * MIB + PG,
	6 * MIB, 64 * MIB, 256 * MIB,
};

static int test_backing(struct vt_ctx *ctx, enum vt_backing b, size_t max)
{
	char what[96];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i], alloc;
		char *p;

		if (size > max)
			continue;
		alloc = b == VT_HUGETLB ? (size + HPAGE - 1) & ~(HPAGE - 1) :
					  size;
		p = vt_alloc(b, alloc);
		if (!p) {
			vt_fail("%s: allocating %zu bytes", vt_backing_name(b),
				alloc);
			return -1;
		}
		snprintf(what, sizeof(what), "%s %zu", vt_backing_name(b),
			 size);
		vt_map_unmap_check(ctx, what, IOVA_BASE, p, size, size);
		CHECK(!vt_check_fill(p, alloc, alloc),
		      "%s: memory changed by map/unmap", what);

		/* Start inside the first huge page: runs of 511, 512, ... */
		if (alloc >= HPAGE) {
			size_t off = PG, len = alloc - off;

			if (len > HPAGE + PG)
				len = HPAGE + PG;
			snprintf(what, sizeof(what), "%s %zu +4k len %zu",
				 vt_backing_name(b), size, len);
			vt_map_unmap_check(ctx, what, IOVA_BASE + off, p + off,
					   len, len);
			off = HPAGE / 2;
			len = alloc - off;
			snprintf(what, sizeof(what), "%s %zu +1m len %zu",
				 vt_backing_name(b), size, len);
			vt_map_unmap_check(ctx, what, IOVA_BASE + 16 * MIB,
					   p + off, len, len);
		}
		munmap(p, alloc);
		if (vt_failed)
			return -1;
	}
	return 0;
}

/* The same memory mapped at two iovas is pinned and accounted twice. */
static int test_two_iovas(struct vt_ctx *ctx, enum vt_backing b)
{
	const size_t size = 4 * MIB;
	const uint64_t a = IOVA_BASE, c = IOVA_BASE + 64 * MIB;
	long l0 = vt_locked_bytes();
	uint64_t done;
	char *p = vt_alloc(b, size);
	int ret;

	if (!p) {
		vt_fail("two iovas: alloc");
		return -1;
	}
	ret = vt_map(ctx, a, p, size);
	CHECK(!ret, "two iovas: first map: %s", strerror(-ret));
	ret = vt_map(ctx, c, p, size);
	CHECK(!ret, "two iovas: second map: %s", strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)(2 * size),
	      "two iovas %s: locked grew by %ld, expected %zu",
	      vt_backing_name(b), vt_locked_bytes() - l0, 2 * size);
	ret = vt_unmap(ctx, a, size, &done);
	CHECK(!ret && done == size, "two iovas: unmap first");
	CHECK(vt_locked_bytes() - l0 == (long)size,
	      "two iovas: locked %ld after first unmap, expected %zu",
	      vt_locked_bytes() - l0, size);
	ret = vt_unmap(ctx, c, size, &done);
	CHECK(!ret && done == size, "two iovas: unmap second");
	CHECK(vt_locked_bytes() == l0, "two iovas: locked not back");
	CHECK(!vt_check_fill(p, size, size), "two iovas: memory changed");
	munmap(p, size);
	return vt_failed ? -1 : 0;
}

/*
 * Read-only maps of memory never written map the zero page (a reserved
 * pfn, not accounted) or fresh pages, depending on the base; either way
 * at most the size is accounted and all of it goes away on unmap, and no
 * page stays pinned (6.1 pins the zero page and must unpin it at once).
 * Half touched memory interleaves the zero page with pinned pages.
 */
static int test_readonly(struct vt_ctx *ctx)
{
	const size_t size = 4 * MIB;
	long l0 = vt_locked_bytes(), pins = vt_pins_held(), d;
	uint64_t done;
	size_t i;
	char *p;
	int ret, pass;

	for (pass = 0; pass < 2; pass++) {
		p = vt_alloc_aligned(size, HPAGE, 0);
		if (!p) {
			vt_fail("readonly: alloc");
			return -1;
		}
		madvise(p, size, MADV_NOHUGEPAGE);
		if (pass)
			for (i = 0; i < size; i += 2 * PG)
				p[i] = 1;
		ret = vt_map_prot(ctx, IOVA_BASE, p, size,
				  VFIO_DMA_MAP_FLAG_READ);
		CHECK(!ret, "readonly pass %d: map: %s", pass, strerror(-ret));
		d = vt_locked_bytes() - l0;
		CHECK(d >= (pass ? (long)size / 2 : 0) && d <= (long)size,
		      "readonly pass %d: locked grew by %ld", pass, d);
		ret = vt_unmap(ctx, IOVA_BASE, size, &done);
		CHECK(!ret && done == size, "readonly pass %d: unmap", pass);
		CHECK(vt_locked_bytes() == l0, "readonly pass %d: locked %ld",
		      pass, vt_locked_bytes() - l0);
		/* no pin left, the zero page's included */
		CHECK(pins != LONG_MIN && vt_pins_held() == pins,
		      "readonly pass %d: %ld pages pinned after unmap, %ld before",
		      pass, vt_pins_held(), pins);
		/* The memory is still usable after unpinning. */
		for (i = 0; i < size; i += PG)
			p[i] = 2;
		munmap(p, size);
	}
	return vt_failed ? -1 : 0;
}

/* What type1v2 accepts and refuses, identical on 6.1 and 6.12. */
static int test_rules(struct vt_ctx *ctx)
{
	const size_t size = 4 * MIB;
	const uint64_t iova = IOVA_BASE;
	char *p = vt_alloc(VT_ANON_THP, size);
	char *q = vt_alloc(VT_ANON_4K, 2 * MIB);
	long l0 = vt_locked_bytes();
	uint64_t done;
	int ret;

	if (!p || !q) {
		vt_fail("rules: alloc");
		return -1;
	}

	/* Unaligned vaddr, iova or size, and size 0, are refused. */
	ret = vt_map(ctx, iova, p + 16, size - PG);
	CHECK(ret == -EINVAL, "map unaligned vaddr: %d", ret);
	ret = vt_map(ctx, iova + 512, p, size);
	CHECK(ret == -EINVAL, "map unaligned iova: %d", ret);
	ret = vt_map(ctx, iova, p, size - 100);
	CHECK(ret == -EINVAL, "map unaligned size: %d", ret);
	ret = vt_map(ctx, iova, p, 0);
	CHECK(ret == -EINVAL, "map size 0: %d", ret);
	CHECK(vt_locked_bytes() == l0, "refused maps changed locked_vm");

	ret = vt_map(ctx, iova, p, size);
	CHECK(!ret, "rules: map: %s", strerror(-ret));

	/* Any overlap with an existing mapping is refused. */
	ret = vt_map(ctx, iova + size - PG, q, 2 * MIB);
	CHECK(ret == -EEXIST, "map overlapping end: %d", ret);
	ret = vt_map(ctx, iova - PG, q, 2 * PG);
	CHECK(ret == -EEXIST, "map overlapping start: %d", ret);

	/*
	 * Unmaps that bisect a mapping fail and unmap nothing.  A failing
	 * UNMAP_DMA does not write its argument back, so "nothing" is
	 * checked through locked_vm below and through the covering unmap,
	 * which must still find all of the mapping.
	 */
	ret = vt_unmap(ctx, iova + PG, PG, &done);
	CHECK(ret == -EINVAL, "unmap inside: %d", ret);
	ret = vt_unmap(ctx, iova, size - PG, &done);
	CHECK(ret == -EINVAL, "unmap head: %d", ret);
	ret = vt_unmap(ctx, iova + HPAGE, size - HPAGE, &done);
	CHECK(ret == -EINVAL, "unmap tail: %d", ret);
	ret = vt_unmap(ctx, iova - PG, 2 * PG, &done);
	CHECK(ret == -EINVAL, "unmap across start: %d", ret);
	ret = vt_unmap(ctx, iova + size - PG, 2 * PG, &done);
	CHECK(ret == -EINVAL, "unmap across end: %d", ret);
	/* Unaligned or empty unmap requests are refused. */
	ret = vt_unmap(ctx, iova + 2048, size, &done);
	CHECK(ret == -EINVAL, "unmap unaligned iova: %d", ret);
	ret = vt_unmap(ctx, iova, size + 2048, &done);
	CHECK(ret == -EINVAL, "unmap unaligned size: %d", ret);
	ret = vt_unmap(ctx, iova, 0, &done);
	CHECK(ret == -EINVAL, "unmap size 0: %d", ret);
	/* A range without mappings succeeds and unmaps nothing. */
	done = 1;
	ret = vt_unmap(ctx, iova + 1024 * MIB, 64 * MIB, &done);
	CHECK(!ret && done == 0, "unmap empty range: %d %llu", ret,
	      (unsigned long long)done);
	CHECK(vt_locked_bytes() - l0 == (long)size,
	      "failed unmaps changed locked_vm: %ld", vt_locked_bytes() - l0);

	/* A range covering two whole mappings and gaps unmaps both. */
	ret = vt_map(ctx, iova + 16 * MIB, q, 2 * MIB);
	CHECK(!ret, "rules: second map: %s", strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)(size + 2 * MIB),
	      "two mappings: locked %ld", vt_locked_bytes() - l0);
	ret = vt_unmap(ctx, iova - 4 * MIB, 64 * MIB, &done);
	CHECK(!ret && done == size + 2 * MIB, "unmap covering both: %d %llu",
	      ret, (unsigned long long)done);
	CHECK(vt_locked_bytes() == l0, "covering unmap: locked %ld",
	      vt_locked_bytes() - l0);

	/* Unmapping it again finds nothing. */
	ret = vt_unmap(ctx, iova, size, &done);
	CHECK(!ret && done == 0, "second unmap: %d %llu", ret,
	      (unsigned long long)done);

	CHECK(!vt_check_fill(p, size, size), "rules: memory changed");
	munmap(p, size);
	munmap(q, 2 * MIB);
	return vt_failed ? -1 : 0;
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

	test_backing(&ctx, VT_ANON_4K, 256 * MIB);
	test_backing(&ctx, VT_ANON_THP, 256 * MIB);
	test_backing(&ctx, VT_ANON_POPULATE, 64 * MIB);

	old_huge = vt_reserve_hugepages(40);
	if (old_huge < 0) {
		printf("hugetlb: cannot reserve 40 huge pages, cases skipped\n");
	} else {
		test_backing(&ctx, VT_HUGETLB, 64 * MIB);
		test_two_iovas(&ctx, VT_HUGETLB);
		vt_restore_hugepages(old_huge);
	}

	test_two_iovas(&ctx, VT_ANON_4K);
	test_two_iovas(&ctx, VT_ANON_THP);
	test_readonly(&ctx);
	test_rules(&ctx);

	return vt_finish(&ctx, "vfio-map-backings");
}
