/* SPDX-License-Identifier: MIT */
/*
 * Description: many vfio type1 MAP_DMA / UNMAP_DMA cycles in a row: small
 * and huge page backed mappings mapped and unmapped over and over, and
 * rounds of up to 32 live mappings of random size, offset and backing
 * (fixed seed) unmapped in random order or all at once with
 * VFIO_DMA_UNMAP_FLAG_ALL.  locked_vm must be back at its starting
 * value after every round and the memory content must be unchanged.
 */
#include "vfio_helpers.h"

#define NR_LIVE		32

static uint64_t rnd_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void repeat(struct vt_ctx *ctx, enum vt_backing b, size_t size,
		   int cycles)
{
	char *p = vt_alloc(b, size);
	long l0 = vt_locked_bytes();
	uint64_t done;
	int i, ret;

	if (!p) {
		vt_fail("repeat %s: alloc", vt_backing_name(b));
		return;
	}
	for (i = 0; i < cycles && !vt_failed; i++) {
		ret = vt_map(ctx, IOVA_BASE, p, size);
		CHECK(!ret, "repeat %s %zu cycle %d: map: %s",
		      vt_backing_name(b), size, i, strerror(-ret));
		ret = vt_unmap(ctx, IOVA_BASE, size, &done);
		CHECK(!ret && done == size, "repeat %s %zu cycle %d: unmap",
		      vt_backing_name(b), size, i);
		CHECK(vt_locked_bytes() == l0,
		      "repeat %s %zu cycle %d: locked_vm %+ld",
		      vt_backing_name(b), size, i, vt_locked_bytes() - l0);
	}
	CHECK(!vt_check_fill(p, size, size), "repeat %s: memory changed",
	      vt_backing_name(b));
	munmap(p, size);
}

struct live {
	uint64_t iova;
	uint64_t size;
	int mapped;
};

/*
 * One round: map up to NR_LIVE random slices of three buffers (4 KiB,
 * THP and, when available, hugetlb) at distinct iovas, then unmap them in
 * random order or all at once.
 */
static void round_random(struct vt_ctx *ctx, char **bufs, int nbufs,
			 size_t bufsize, int unmap_all)
{
	struct live live[NR_LIVE];
	long l0 = vt_locked_bytes();
	uint64_t done, total = 0;
	int i, n, ret;

	for (i = 0; i < NR_LIVE; i++) {
		char *buf = bufs[rnd() % nbufs];
		size_t off = (rnd() % (bufsize / PG)) * PG;
		size_t len = (1 + rnd() % 1024) * PG;

		if (off + len > bufsize)
			len = bufsize - off;
		live[i].iova = IOVA_BASE + (uint64_t)i * 64 * MIB;
		live[i].size = len;
		ret = vt_map(ctx, live[i].iova, buf + off, len);
		CHECK(!ret, "random: map %zu at +%zu: %s", len, off,
		      strerror(-ret));
		live[i].mapped = !ret;
		if (!ret)
			total += len;
	}
	CHECK(vt_locked_bytes() - l0 == (long)total,
	      "random: locked grew by %ld, expected %llu",
	      vt_locked_bytes() - l0, (unsigned long long)total);

	if (unmap_all) {
		struct vfio_iommu_type1_dma_unmap unmap = {
			.argsz = sizeof(unmap),
			.flags = VFIO_DMA_UNMAP_FLAG_ALL,
		};

		ret = ioctl(ctx->container, VFIO_IOMMU_UNMAP_DMA, &unmap);
		CHECK(!ret && unmap.size == total,
		      "random: unmap all: %d, %llu of %llu", ret,
		      (unsigned long long)unmap.size,
		      (unsigned long long)total);
	} else {
		for (n = NR_LIVE; n > 0; n--) {
			int k = rnd() % n, j;

			/* Find the k-th still mapped entry. */
			for (j = 0; j < NR_LIVE; j++)
				if (live[j].mapped && !k--)
					break;
			if (j == NR_LIVE)
				break;
			ret = vt_unmap(ctx, live[j].iova, live[j].size, &done);
			CHECK(!ret && done == live[j].size,
			      "random: unmap %llu: %d",
			      (unsigned long long)live[j].size, ret);
			live[j].mapped = 0;
		}
	}
	CHECK(vt_locked_bytes() == l0, "random: locked_vm %+ld after round",
	      vt_locked_bytes() - l0);
}

int main(void)
{
	const size_t bufsize = 8 * MIB;
	char *bufs[3] = { NULL, NULL, NULL };
	struct vt_ctx ctx;
	int nbufs = 2, ret, i;
	long old_huge;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		vt_teardown(&ctx);
		return ret;
	}
	if (ioctl(ctx.container, VFIO_CHECK_EXTENSION, VFIO_UNMAP_ALL) <= 0) {
		vt_fail("type1 lacks VFIO_UNMAP_ALL");
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}

	repeat(&ctx, VT_ANON_4K, PG, 1000);
	repeat(&ctx, VT_ANON_4K, 64 * KIB, 500);
	repeat(&ctx, VT_ANON_4K, 8 * MIB, 50);
	repeat(&ctx, VT_ANON_THP, 8 * MIB, 100);
	repeat(&ctx, VT_ANON_POPULATE, 8 * MIB, 50);

	old_huge = vt_reserve_hugepages(4);
	bufs[0] = vt_alloc(VT_ANON_4K, bufsize);
	bufs[1] = vt_alloc(VT_ANON_THP, bufsize);
	if (old_huge >= 0) {
		repeat(&ctx, VT_HUGETLB, 8 * MIB, 100);
		bufs[2] = vt_alloc(VT_HUGETLB, bufsize);
		if (bufs[2])
			nbufs = 3;
	} else {
		printf("hugetlb: cannot reserve huge pages, cases skipped\n");
	}
	if (!bufs[0] || !bufs[1]) {
		vt_fail("random: alloc");
	} else {
		for (i = 0; i < 40 && !vt_failed; i++)
			round_random(&ctx, bufs, nbufs, bufsize, i % 4 == 3);
		for (i = 0; i < nbufs; i++)
			CHECK(!vt_check_fill(bufs[i], bufsize, bufsize),
			      "random: buffer %d changed", i);
	}
	for (i = 0; i < nbufs; i++)
		if (bufs[i])
			munmap(bufs[i], bufsize);
	if (old_huge >= 0)
		vt_restore_hugepages(old_huge);

	return vt_finish(&ctx, "vfio-cycles");
}
