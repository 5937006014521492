/* SPDX-License-Identifier: MIT */
/*
 * Description: time vfio type1v2 VFIO_IOMMU_MAP_DMA and VFIO_IOMMU_UNMAP_DMA
 * of one large region (default 1 GiB) backed by hugetlbfs 2 MiB pages,
 * transparent huge pages, transparent huge pages with 1% of the 2 MiB
 * blocks in 4 KiB pages, and 4 KiB pages (MAP_POPULATE), in the manner of
 * the reference measurement (16 GiB: MAP 0.047 -> 0.027 s, UNMAP
 * 0.135 -> 0.045 s).  Each call is timed with CLOCK_MONOTONIC; the average
 * over the iterations is printed as
 *
 *	figure map_<backing>_s SECONDS s lower
 *	figure unmap_<backing>_s SECONDS s lower
 *	figure map_<backing>_GBps RATE GB/s higher
 *	figure unmap_<backing>_GBps RATE GB/s higher
 *
 * for <backing> hugetlb, thp, thp-split and 4k (GB = 10^9 bytes).  Other
 * lines start with "# ".
 *
 * thp-split is the memory of a THP-backed guest where a few faults fell
 * back to small pages: one 2 MiB block in every 100 (at least one) is
 * marked MADV_NOHUGEPAGE before the first touch, so it is faulted in as
 * 4 KiB pages, and the others are huge pages.
 *
 * Environment: VFIO_BENCH_MB (region size in MiB, rounded up to 2 MiB,
 * default 1024), VFIO_BENCH_ITERS (MAP+UNMAP pairs per backing, default 3).
 *
 * Build: gcc -static -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
 *		vfio-map-unmap.c -luring
 * Exit 0 success, 1 error, 77 no vfio / no edu device / no IOMMU.
 */
#include "../tests/guest/vfio_helpers.h"

#include <sys/prctl.h>
#include <time.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE	41
#endif

static long hp_old = -1;

static void restore_hugepages(void)
{
	vt_restore_hugepages(hp_old);
	hp_old = -1;
}

/*
 * A getppid() around each timed call: under tools/bench --profile each
 * one closes a window of the instruction profile (tools/plugin).
 */
static void profile_mark(void)
{
	(void)getppid();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max) {
		fprintf(stderr, "%s=%s: want %ld..%ld\n", name, s, min, max);
		exit(T_EXIT_FAIL);
	}
	return v;
}

/* AnonHugePages of this process in kB, or -1 (no THP / old kernel). */
static long anon_huge_kb(void)
{
	return vt_proc_field("/proc/self/smaps_rollup", "AnonHugePages:");
}

static void touch(char *p, size_t size, size_t step)
{
	size_t i;

	for (i = 0; i < size; i += step)
		p[i] = 1;
}

/*
 * MAP_DMA and UNMAP_DMA @size bytes at @p @iters times; print the
 * figures of @name.  Return 0 or -1.
 */
static int bench(struct vt_ctx *ctx, const char *name, void *p, size_t size,
		 int iters)
{
	double tmap = 0, tunmap = 0, t0, t1, t2, gb = size / 1e9;
	uint64_t done;
	int i, ret;

	for (i = 0; i < iters; i++) {
		profile_mark();
		t0 = now();
		ret = vt_map(ctx, IOVA_BASE, p, size);
		t1 = now();
		profile_mark();
		if (ret) {
			fprintf(stderr, "%s: MAP_DMA of %zu bytes: %s\n", name,
				size, strerror(-ret));
			return -1;
		}
		done = 0;
		ret = vt_unmap(ctx, IOVA_BASE, size, &done);
		t2 = now();
		profile_mark();
		if (ret || done != size) {
			fprintf(stderr,
				"%s: UNMAP_DMA: %s, %llu of %zu bytes\n", name,
				ret ? strerror(-ret) : "ok",
				(unsigned long long)done, size);
			return -1;
		}
		printf("# %s iteration %d: map %.6f s unmap %.6f s\n", name,
		       i + 1, t1 - t0, t2 - t1);
		tmap += t1 - t0;
		tunmap += t2 - t1;
	}
	tmap /= iters;
	tunmap /= iters;
	printf("figure map_%s_s %.9f s lower\n", name, tmap);
	printf("figure unmap_%s_s %.9f s lower\n", name, tunmap);
	printf("figure map_%s_GBps %.3f GB/s higher\n", name,
	       tmap > 0 ? gb / tmap : 0);
	printf("figure unmap_%s_GBps %.3f GB/s higher\n", name,
	       tunmap > 0 ? gb / tunmap : 0);
	return 0;
}

static int bench_hugetlb(struct vt_ctx *ctx, size_t size, int iters)
{
	long nr = size / HPAGE;
	char *p;
	int ret;

	if (access("/proc/sys/vm/nr_hugepages", F_OK)) {
		fprintf(stderr, "hugetlb: no /proc/sys/vm/nr_hugepages\n");
		return -1;
	}
	hp_old = vt_reserve_hugepages(nr);
	if (hp_old < 0) {
		fprintf(stderr, "hugetlb: cannot reserve %ld 2 MiB pages\n",
			nr);
		return -1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "hugetlb: mmap %zu bytes: %s\n", size,
			strerror(errno));
		restore_hugepages();
		return -1;
	}
	touch(p, size, HPAGE);
	printf("# hugetlb: %ld pages of 2 MiB\n", nr);
	ret = bench(ctx, "hugetlb", p, size, iters);
	munmap(p, size);
	restore_hugepages();
	return ret;
}

static int bench_thp(struct vt_ctx *ctx, size_t size, int iters)
{
	long before = anon_huge_kb(), after;
	char *p;
	int ret;

	p = vt_alloc_aligned(size, HPAGE, 0);
	if (!p) {
		fprintf(stderr, "thp: mmap %zu bytes: %s\n", size,
			strerror(errno));
		return -1;
	}
	if (madvise(p, size, MADV_HUGEPAGE))
		fprintf(stderr, "thp: MADV_HUGEPAGE: %s\n", strerror(errno));
	touch(p, size, PG);
	after = anon_huge_kb();
	if (before >= 0 && after >= 0) {
		printf("# thp: %ld of %zu MiB in transparent huge pages\n",
		       (after - before) >> 10, size / MIB);
		if ((size_t)(after - before) < (size >> 10))
			fprintf(stderr,
				"thp: only %ld of %zu MiB are huge pages\n",
				(after - before) >> 10, size / MIB);
	}
	ret = bench(ctx, "thp", p, size, iters);
	munmap(p, size);
	return ret;
}

static int bench_thp_split(struct vt_ctx *ctx, size_t size, int iters)
{
	long before = anon_huge_kb(), after;
	size_t nblocks = size / HPAGE, nsplit, i;
	char *p;
	int ret;

	nsplit = nblocks / 100 ? nblocks / 100 : 1;
	p = vt_alloc_aligned(size, HPAGE, 0);
	if (!p) {
		fprintf(stderr, "thp-split: mmap %zu bytes: %s\n", size,
			strerror(errno));
		return -1;
	}
	if (madvise(p, size, MADV_HUGEPAGE))
		fprintf(stderr, "thp-split: MADV_HUGEPAGE: %s\n",
			strerror(errno));
	/* spread over the region, none at its ends */
	for (i = 0; i < nsplit; i++) {
		size_t blk = (2 * i + 1) * nblocks / (2 * nsplit);

		if (madvise(p + blk * HPAGE, HPAGE, MADV_NOHUGEPAGE))
			fprintf(stderr, "thp-split: MADV_NOHUGEPAGE: %s\n",
				strerror(errno));
	}
	touch(p, size, PG);
	after = anon_huge_kb();
	if (before >= 0 && after >= 0)
		printf("# thp-split: %ld of %zu MiB in transparent huge pages, "
		       "%zu of %zu blocks of 2 MiB in 4 KiB pages\n",
		       (after - before) >> 10, size / MIB, nsplit, nblocks);
	ret = bench(ctx, "thp-split", p, size, iters);
	munmap(p, size);
	return ret;
}

static int bench_4k(struct vt_ctx *ctx, size_t size, int iters)
{
	long before = anon_huge_kb(), after;
	char *p;
	int ret;

	/*
	 * With THP "always" MAP_POPULATE could fault in huge pages: disable
	 * THP for the mmap, and keep khugepaged off the range afterwards.
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "4k: mmap %zu bytes: %s\n", size,
			strerror(errno));
		return -1;
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	after = anon_huge_kb();
	if (before >= 0 && after >= 0 && after != before)
		fprintf(stderr, "4k: %ld kB of transparent huge pages\n",
			after - before);
	printf("# 4k: %zu pages of 4 KiB\n", size / PG);
	ret = bench(ctx, "4k", p, size, iters);
	munmap(p, size);
	return ret;
}

int main(void)
{
	struct vt_ctx ctx;
	size_t size;
	long mb;
	int iters, ret, failed = 0;
	char bdf[NAME_MAX + 1];

	setvbuf(stdout, NULL, _IOLBF, 0);
	mb = env_long("VFIO_BENCH_MB", 1024, 2, 65536);
	iters = env_long("VFIO_BENCH_ITERS", 3, 1, 1000);
	size = ((size_t)mb * MIB + HPAGE - 1) & ~(HPAGE - 1);

	if (access("/dev/vfio/vfio", F_OK)) {
		fprintf(stderr, "skip: /dev/vfio/vfio missing\n");
		return T_EXIT_SKIP;
	}
	if (vt_find_edu(bdf, sizeof(bdf))) {
		fprintf(stderr, "skip: no edu PCI device (1234:11e8)\n");
		return T_EXIT_SKIP;
	}
	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		vt_teardown(&ctx);
		return ret;
	}
	if (access("/sys/module/vfio_iommu_type1", F_OK))
		fprintf(stderr, "note: no vfio_iommu_type1 module; the "
			"container may be iommufd's compat one\n");
	atexit(restore_hugepages);
	printf("# vfio type1v2, device %s group %d, %zu MiB, %d iterations, "
	       "iova page sizes %#llx\n", ctx.bdf, ctx.group_nr, size / MIB,
	       iters, (unsigned long long)ctx.iova_pgsizes);

	/* hugetlb first, while memory is least fragmented */
	if (bench_hugetlb(&ctx, size, iters))
		failed = 1;
	if (bench_thp(&ctx, size, iters))
		failed = 1;
	if (bench_thp_split(&ctx, size, iters))
		failed = 1;
	if (bench_4k(&ctx, size, iters))
		failed = 1;

	vt_teardown(&ctx);
	return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
