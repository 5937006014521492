/* SPDX-License-Identifier: MIT */
/*
 * Description: RLIMIT_MEMLOCK is exact for vfio type1 pinning.  Without
 * CAP_IPC_LOCK (which makes type1 skip the limit, see dma->lock_cap), a
 * MAP_DMA succeeds when the limit is exactly the memory already locked
 * plus the size mapped and fails with ENOMEM when it is one page less,
 * for 4 KiB pages, THP and hugetlbfs, where the page that crosses the
 * limit sits inside a huge page; a failed map leaves locked_vm as it was.
 */
#include "vfio_helpers.h"

/*
 * With @locked bytes locked already, map @size bytes at @p: with the
 * limit one page short it must fail with ENOMEM and change nothing, with
 * the exact limit it must succeed.  Leaves the mapping in place at @iova
 * when @keep, else unmaps it.
 */
static void limit_case(struct vt_ctx *ctx, const char *what, uint64_t iova,
		       void *p, size_t size, int keep)
{
	long l0 = vt_locked_bytes();
	uint64_t done;
	int ret;

	if (vt_set_memlock(l0 + size - PG)) {
		vt_fail("%s: setrlimit", what);
		return;
	}
	ret = vt_map(ctx, iova, p, size);
	CHECK(ret == -ENOMEM, "%s: map with limit one page short: %d", what,
	      ret);
	if (!ret)
		vt_unmap(ctx, iova, size, NULL);
	CHECK(vt_locked_bytes() == l0,
	      "%s: failed map left locked_vm at %+ld", what,
	      vt_locked_bytes() - l0);
	/* Nothing may be left mapped at the iova after a failed map. */
	ret = vt_unmap(ctx, iova, size, &done);
	CHECK(!ret && done == 0, "%s: failed map left a mapping (%d, %llu)",
	      what, ret, (unsigned long long)done);

	if (vt_set_memlock(l0 + size)) {
		vt_fail("%s: setrlimit", what);
		return;
	}
	ret = vt_map(ctx, iova, p, size);
	CHECK(!ret, "%s: map with exact limit: %s", what, strerror(-ret));
	CHECK(vt_locked_bytes() - l0 == (long)size,
	      "%s: locked_vm grew by %ld, expected %zu", what,
	      vt_locked_bytes() - l0, size);
	if (!ret && !keep) {
		ret = vt_unmap(ctx, iova, size, &done);
		CHECK(!ret && done == size, "%s: unmap: %d", what, ret);
		CHECK(vt_locked_bytes() == l0, "%s: locked_vm not back", what);
	}
	vt_set_memlock(RLIM_INFINITY);
}

int main(void)
{
	struct vt_ctx ctx;
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	char *a, *t;
	long old_huge, l0;
	uint64_t done;
	int ret;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		vt_teardown(&ctx);
		return ret;
	}
	/* Raise the hard limit while CAP_SYS_RESOURCE allows it. */
	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		vt_fail("raising RLIMIT_MEMLOCK: %s", strerror(errno));
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}
	if (vt_drop_cap_ipc_lock()) {
		vt_fail("cannot drop CAP_IPC_LOCK");
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}
	l0 = vt_locked_bytes();

	a = vt_alloc(VT_ANON_4K, 1 * MIB);
	t = vt_alloc(VT_ANON_THP, 4 * MIB);
	if (!a || !t) {
		vt_fail("alloc");
		goto out;
	}

	/* A limit of 0 refuses even one page. */
	vt_set_memlock(l0);
	ret = vt_map(&ctx, IOVA_BASE, a, PG);
	CHECK(ret == -ENOMEM, "one page over a full limit: %d", ret);
	vt_set_memlock(RLIM_INFINITY);

	limit_case(&ctx, "anon-4k 1m", IOVA_BASE, a, 1 * MIB, 0);
	limit_case(&ctx, "anon-4k 4k", IOVA_BASE, a, PG, 0);
	limit_case(&ctx, "thp 4m", IOVA_BASE, t, 4 * MIB, 0);
	/* Crossing page in the middle of a huge page. */
	limit_case(&ctx, "thp 3m at +512k", IOVA_BASE, t + 512 * KIB,
		   3 * MIB, 0);

	/* On top of an existing mapping: the limit counts both. */
	limit_case(&ctx, "anon-4k base", IOVA_BASE, a, 1 * MIB, 1);
	limit_case(&ctx, "thp over base", IOVA_BASE + 64 * MIB, t, 4 * MIB, 1);
	/* The same memory again at another iova is counted again. */
	limit_case(&ctx, "thp again", IOVA_BASE + 128 * MIB, t, 4 * MIB, 1);
	ret = vt_unmap(&ctx, 0, 1ULL << 39, &done);
	CHECK(!ret && done == 9 * MIB, "unmap all: %d %llu", ret,
	      (unsigned long long)done);
	CHECK(vt_locked_bytes() == l0, "locked_vm not back after unmap all");

	old_huge = vt_reserve_hugepages(4);
	if (old_huge < 0) {
		printf("hugetlb: cannot reserve 4 huge pages, cases skipped\n");
	} else {
		char *h = vt_alloc(VT_HUGETLB, 4 * MIB);

		if (!h) {
			vt_fail("hugetlb alloc");
		} else {
			limit_case(&ctx, "hugetlb 4m", IOVA_BASE, h, 4 * MIB,
				   0);
			limit_case(&ctx, "hugetlb 2m+4k at +1m", IOVA_BASE,
				   h + 1 * MIB, 2 * MIB + PG, 0);
			munmap(h, 4 * MIB);
		}
		vt_restore_hugepages(old_huge);
	}

	/* Pinning stopped at the limit must not have damaged the memory. */
	CHECK(!vt_check_fill(a, 1 * MIB, 1 * MIB), "anon memory changed");
	CHECK(!vt_check_fill(t, 4 * MIB, 4 * MIB), "thp memory changed");
out:
	return vt_finish(&ctx, "vfio-rlimit");
}
