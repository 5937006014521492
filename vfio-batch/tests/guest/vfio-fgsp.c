/* SPDX-License-Identifier: MIT */
/*
 * Description: the iommu_unmap() calls of vfio type1 UNMAP_DMA, seen
 * through the iommu "unmap" trace event, on a domain with fine-grained
 * superpages (fgsp: the AMD IOMMU, qemu -device amd-iommu) and on one
 * without (the Intel IOMMU).
 *
 * When a group attaches, type1 maps two pages and unmaps the first: a
 * domain that unmaps both in that call (unmapped_size 8192) has
 * fine-grained superpages.  The AMD IOMMU must have them, the Intel one
 * must not (upstream dropped the probe later, 7.3 has none).  UNMAP_DMA then unmaps:
 *  - without fgsp, each physically contiguous run in one call;
 *  - with fgsp, one aligned block per call (the step that the iovas and
 *    sizes of the mapped runs allow), the superpage under it going in the
 *    same call: a 2 MiB huge page mapped at a 2 MiB aligned iova in one
 *    call of 2 MiB, the same page mapped from its second 4 KiB page in
 *    calls of 4 KiB that unmap up to the superpages the IOMMU made.
 *    (Before "look up one address per aligned block when unmapping" every
 *    call asked for 4 KiB.)
 * The calls unmap exactly the mapping, and locked_vm and the pinned
 * pages go back to where they were.
 */
#include <sys/mount.h>
#include "vfio_helpers.h"

#define TRACING		"/sys/kernel/tracing"
#define MAX_EV		1024

struct unmap_ev {
	uint64_t iova;
	uint64_t size;
	uint64_t unmapped;
};

static struct unmap_ev ev[MAX_EV];

static int trace_setup(void)
{
	const char *en = TRACING "/events/iommu/unmap/enable";

	if (access(en, F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (access(en, F_OK))
		return -1;
	if (vt_write_str(TRACING "/tracing_on", "1") || vt_write_str(en, "1"))
		return -1;
	return 0;
}

static void trace_stop(void)
{
	vt_write_str(TRACING "/events/iommu/unmap/enable", "0");
}

static void trace_clear(void)
{
	int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
}

/* The unmap events since the last trace_clear(), oldest first; or -1. */
static int trace_read(void)
{
	unsigned long long iova, end;
	size_t size, unmapped;
	char line[512], *p;
	FILE *f;
	int n = 0;

	f = fopen(TRACING "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, " unmap: "))
			continue;
		p = strstr(line, "iova=0x");
		if (!p || sscanf(p, "iova=0x%llx - 0x%llx size=%zu unmapped_size=%zu",
				 &iova, &end, &size, &unmapped) != 4)
			continue;
		if (n == MAX_EV) {
			n = -1;
			break;
		}
		ev[n].iova = iova;
		ev[n].size = size;
		ev[n].unmapped = unmapped;
		n++;
	}
	fclose(f);
	trace_clear();
	return n;
}

/* 1 for an AMD IOMMU, 0 for an Intel one, -1 for neither. */
static int iommu_is_amd(void)
{
	struct dirent *de;
	int amd = -1;
	DIR *dir;

	dir = opendir("/sys/class/iommu");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, "ivhd", 4))
			amd = 1;
		else if (!strncmp(de->d_name, "dmar", 4) && amd < 0)
			amd = 0;
	}
	closedir(dir);
	return amd;
}

/*
 * The probe of type1 at attach: the first unmap of one page at an iova
 * aligned to two.  1 if it took both pages (fgsp), 0 if not, -1 if the
 * trace has no such call.
 */
static int probe_fgsp(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (ev[i].size != PG || ev[i].iova % (2 * PG))
			continue;
		return ev[i].unmapped == 2 * PG;
	}
	return -1;
}

/*
 * Map @size bytes at @p to @iova, unmap them with the trace on, and check
 * the calls: exactly @calls of @step bytes each when @calls is not 0,
 * each of @step bytes and fewer than size / step when it is; together
 * they unmap @size bytes from @iova on, in order.
 */
static void unmap_calls(struct vt_ctx *ctx, const char *what, uint64_t iova,
			char *p, size_t size, uint64_t step, int calls)
{
	uint64_t at = iova;
	int i, n;

	trace_clear();
	if (vt_map_unmap_check(ctx, what, iova, p, size, size))
		return;
	n = trace_read();
	if (n < 0) {
		vt_fail("%s: cannot read the trace", what);
		return;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].iova != at) {
			vt_fail("%s: call %d unmaps from %#llx, expected %#llx",
				what, i, (unsigned long long)ev[i].iova,
				(unsigned long long)at);
			return;
		}
		CHECK(ev[i].size == step,
		      "%s: call %d asks for %llu bytes, expected %llu", what,
		      i, (unsigned long long)ev[i].size,
		      (unsigned long long)step);
		CHECK(ev[i].unmapped >= ev[i].size,
		      "%s: call %d unmapped %llu of %llu bytes", what, i,
		      (unsigned long long)ev[i].unmapped,
		      (unsigned long long)ev[i].size);
		at += ev[i].unmapped;
	}
	printf("%s: %d unmap calls, %zu bytes\n", what, n, size);
	CHECK(at == iova + size, "%s: %d calls unmapped %llu of %zu bytes",
	      what, n, (unsigned long long)(at - iova), size);
	if (calls)
		CHECK(n == calls, "%s: %d unmap calls, expected %d", what, n,
		      calls);
	else
		CHECK(n < (int)(size / step),
		      "%s: %d unmap calls of %llu bytes, no superpage went in one",
		      what, n, (unsigned long long)step);
}

int main(void)
{
	const size_t off = PG, len = HPAGE - PG;
	struct vt_ctx ctx;
	int amd, fgsp, n, ret;
	long old_huge;
	char *p;

	amd = iommu_is_amd();
	if (amd < 0) {
		printf("SKIP: neither an AMD nor an Intel IOMMU\n");
		return T_EXIT_SKIP;
	}
	if (trace_setup()) {
		printf("SKIP: no iommu trace events (CONFIG_FTRACE)\n");
		return T_EXIT_SKIP;
	}
	trace_clear();
	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS) {
		trace_stop();
		vt_teardown(&ctx);
		return ret;
	}
	n = trace_read();
	fgsp = n < 0 ? -1 : probe_fgsp(n);
	printf("%s IOMMU, fgsp probe: %s\n", amd ? "AMD" : "Intel",
	       fgsp < 0 ? "not seen" : fgsp ? "two pages in one call" :
	       "one page per call");
	/* Upstream dropped the probe (7.3 has none): no fgsp there. */
	if (fgsp < 0 && !amd)
		fgsp = 0;
	CHECK(fgsp == amd, "%s IOMMU: domain %s fine-grained superpages",
	      amd ? "AMD" : "Intel", fgsp < 0 ? "probe not seen, so no" :
	      fgsp ? "with" : "without");

	old_huge = vt_reserve_hugepages(1);
	if (old_huge < 0) {
		printf("hugetlb: cannot reserve a huge page, cases skipped\n");
		trace_stop();
		return vt_finish(&ctx, "vfio-fgsp");
	}
	p = vt_alloc(VT_HUGETLB, HPAGE);
	if (!p) {
		vt_fail("hugetlb mmap: %s", strerror(errno));
	} else if (fgsp > 0) {
		/* One block: the whole 2 MiB page, in one call. */
		unmap_calls(&ctx, "fgsp: 2 MiB page at 2 MiB iova",
			    IOVA_BASE, p, HPAGE, HPAGE, 1);
		/* Blocks of 4 KiB; the superpages under them go in one. */
		unmap_calls(&ctx, "fgsp: 2 MiB page from its second 4 KiB",
			    IOVA_BASE + off, p + off, len, PG, 0);
	} else if (!fgsp) {
		/* One physically contiguous run each, one call. */
		unmap_calls(&ctx, "2 MiB page at 2 MiB iova", IOVA_BASE, p,
			    HPAGE, HPAGE, 1);
		unmap_calls(&ctx, "2 MiB page from its second 4 KiB",
			    IOVA_BASE + off, p + off, len, len, 1);
	}
	if (p) {
		CHECK(!vt_check_fill(p, HPAGE, HPAGE), "memory changed");
		munmap(p, HPAGE);
	}
	vt_restore_hugepages(old_huge);
	trace_stop();
	return vt_finish(&ctx, "vfio-fgsp");
}
