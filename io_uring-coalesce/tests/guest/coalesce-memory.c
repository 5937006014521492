// SPDX-License-Identifier: GPL-2.0
/*
 * Registering a buffer of huge pages costs one bio_vec per huge page, not
 * one per 4 KiB page: 64 buffers over the same 32 MiB of 2 MiB hugetlb
 * pages need 64 x 16 bvecs (16 KiB), where one bvec per page would be
 * 64 x 8192 bvecs (8 MiB).  The test registers them and requires that
 * MemFree drops by less than 2 MiB while they are registered, in three
 * tries (other allocations in the guest can blur one).  Without
 * coalescing it drops by more than 8 MiB, so this fails on a kernel that
 * keeps one bvec per page.  The bytes of a few buffers are checked too.
 */
#include "iou_coalesce.h"

#define NR_HP		16
#define NR_BUFS		64
#define LIMIT_KB	2048L

int main(void)
{
	struct iovec iov[NR_BUFS];
	struct io_uring ring;
	long free0, pin0, before, after, best = -1;
	uint8_t *p;
	int fd, ret, i, try;

	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(NR_HP);
	p = huge_alloc(NR_HP);
	ring_init(&ring);
	pin0 = vm_pin_kb();
	for (i = 0; i < NR_BUFS; i++) {
		iov[i].iov_base = p;
		iov[i].iov_len = NR_HP * HPAGE;
	}

	for (try = 0; try < 3; try++) {
		before = proc_value("/proc/meminfo", "MemFree");
		ret = io_uring_register_buffers(&ring, iov, NR_BUFS);
		if (ret)
			t_fail("register %d buffers: %s", NR_BUFS,
			       strerror(-ret));
		after = proc_value("/proc/meminfo", "MemFree");
		t_log("try %d: MemFree %ld -> %ld kB (%ld kB for %d buffers of %lu MiB)",
		      try, before, after, before - after, NR_BUFS,
		      NR_HP * HPAGE >> 20);
		/* the huge pages are charged once for all buffers */
		expect_pin(pin0, NR_HP * (long)(HPAGE >> 10), "registered");
		if (try == 0) {
			verify_buffer(&ring, fd, 0, p, NR_HP * HPAGE, 0, 1,
				      "buffer 0");
			quick_verify(&ring, fd, NR_BUFS - 1, p, NR_HP * HPAGE,
				     0, 2, "last buffer");
		}
		ret = io_uring_unregister_buffers(&ring);
		if (ret)
			t_fail("unregister: %s", strerror(-ret));
		expect_pin(pin0, 0, "unregistered");
		if (best < 0 || before - after < best)
			best = before - after;
		if (best < LIMIT_KB)
			break;
	}
	if (best >= LIMIT_KB)
		t_fail("registering %d buffers of %d huge pages took %ld kB: one bvec per 4 KiB page, not per huge page",
		       NR_BUFS, NR_HP, best);

	io_uring_queue_exit(&ring);
	munmap(p, NR_HP * HPAGE);
	expect_hugepages_free(free0, "after munmap");
	close(fd);
	return T_EXIT_PASS;
}
