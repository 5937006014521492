// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers that mix a huge page with small pages and so cannot be
 * described with one bvec per folio: a THP followed by 64 KiB of small
 * pages, 64 KiB of small pages followed by the THP, and small pages on
 * both sides of it.  (hugetlb memory cannot be mixed with other memory in
 * one fixed buffer: io_uring refuses buffers spanning different files.)
 * All are registered together; reads and writes at many offsets move the
 * right bytes, out-of-range accesses fail with -EFAULT, VmPin grows by
 * the THP once plus every small page of every buffer, as it always has,
 * and returns to its start after unregistering.  Skips without THP.
 */
#include "iou_coalesce.h"

#define SIDE	(64UL << 10)

int main(void)
{
	struct io_uring ring;
	struct iovec iov[3];
	long pin0, small_kb;
	uint8_t *a;
	int fd, ret, i;

	fd = nvme_open(64UL << 20);
	a = reserve_aligned(SIDE, HPAGE + 2 * SIDE);
	thp_map(a - SIDE, HPAGE + 2 * SIDE, a, HPAGE);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov[0].iov_base = a;
	iov[0].iov_len = HPAGE + SIDE;
	iov[1].iov_base = a - SIDE;
	iov[1].iov_len = SIDE + HPAGE;
	iov[2].iov_base = a - SIDE + SECTOR;
	iov[2].iov_len = HPAGE + 2 * SIDE - 2 * SECTOR;
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("register mixed buffers: %s", strerror(-ret));
	/* small pages are charged per buffer, the THP once */
	small_kb = (SIDE >> 10) * 4;
	expect_pin(pin0, (HPAGE >> 10) + small_kb, "mixed buffers registered");
	for (i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "mixed buffer %d", i);
		verify_buffer(&ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			      (uint64_t)i << 23, 30 + i, what);
		verify_efault(&ring, fd, i, 3, iov[i].iov_base,
			      iov[i].iov_len, what);
	}
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "mixed buffers unregistered");

	io_uring_queue_exit(&ring);
	close(fd);
	return T_EXIT_PASS;
}
