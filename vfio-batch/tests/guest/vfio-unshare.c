/* SPDX-License-Identifier: MIT */
/*
 * Description: a read-only MAP_DMA of anonymous memory that a live child
 * shares with the process since fork(): THPs (PMD-mapped in both) and 4
 * KiB pages.  A read-only long-term pin of a page that may be shared must
 * unshare it first (GUP's FAULT_FLAG_UNSHARE), so that the page the device
 * reads is the one the process writes to afterwards: the process writes a
 * new pattern after MAP_DMA, and the device must read the new pattern
 * through the iovas (edu DMA), around and inside huge pages, while the
 * child still sees the old one.  A pin that took the shared page (a fill
 * of the page array that skipped the unshare test) leaves the device
 * reading what the child sees.  locked_vm and the pages pinned are back
 * after the unmap.
 */
#include "vfio_edu.h"
#include <sys/wait.h>

#define SIZE	(4 * MIB)

static void unshare(struct vt_ctx *ctx, enum vt_backing b, char *scratch)
{
	const size_t offs[] = { 0, PG, HPAGE - PG, HPAGE, HPAGE + 7 * PG,
				SIZE - PG };
	long l0 = vt_locked_bytes(), p0 = vt_pins_held();
	const char *what = vt_backing_name(b);
	int go[2], status, ret;
	uint64_t done;
	char c = 0;
	size_t i;
	pid_t pid;
	char *p;

	p = vt_alloc(b, SIZE);
	if (!p) {
		printf("# %s: no memory of that kind, skipped\n", what);
		return;
	}
	vt_fill(p, SIZE, 1);
	if (pipe(go)) {
		vt_fail("%s: pipe: %s", what, strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		vt_fail("%s: fork: %s", what, strerror(errno));
		return;
	}
	if (!pid) {
		/* keep the pages shared until the parent is done */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(vt_check_fill(p, SIZE, 1) ? 1 : 0);
	}
	close(go[0]);

	ret = vt_map_prot(ctx, DMA_IOVA, p, SIZE, VFIO_DMA_MAP_FLAG_READ);
	CHECK(!ret, "%s: read-only MAP_DMA: %s", what, strerror(-ret));
	if (!ret) {
		/* the process writes after the pin: the device must see it */
		vt_fill(p, SIZE, 2);
		for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
			dma_check_page(what, DMA_IOVA, p, offs[i], scratch);
		ret = vt_unmap(ctx, DMA_IOVA, SIZE, &done);
		CHECK(!ret && done == SIZE, "%s: unmap: %d", what, ret);
	}
	if (write(go[1], &c, 1) != 1 || waitpid(pid, &status, 0) != pid)
		vt_fail("%s: child: %s", what, strerror(errno));
	else
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
		      "%s: the child's memory changed (status %#x)", what,
		      status);
	close(go[1]);
	munmap(p, SIZE);
	CHECK(vt_locked_bytes() == l0, "%s: locked_vm %ld after unmap, was %ld",
	      what, vt_locked_bytes(), l0);
	CHECK(vt_pins_held() == p0, "%s: %ld pages pinned after unmap, %ld before",
	      what, vt_pins_held(), p0);
}

int main(void)
{
	struct vt_ctx ctx;
	char *scratch;
	int ret;

	ret = vt_setup(&ctx);
	if (ret != T_EXIT_PASS)
		return ret;
	ret = vt_open_device(&ctx);
	if (!ret)
		ret = map_bar(&ctx, NULL);
	if (!ret)
		ret = enable_bus_master(&ctx);
	scratch = vt_alloc(VT_ANON_4K, PG);
	if (ret || !scratch || vt_map(&ctx, SCRATCH_IOVA, scratch, PG)) {
		vt_fail("edu DMA setup: %s", strerror(-ret));
		vt_teardown(&ctx);
		return T_EXIT_FAIL;
	}
	unshare(&ctx, VT_ANON_THP, scratch);
	unshare(&ctx, VT_ANON_4K, scratch);
	vt_unmap(&ctx, SCRATCH_IOVA, PG, NULL);
	return vt_finish(&ctx, "vfio-unshare");
}
