// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed buffers over transparent huge pages (MADV_HUGEPAGE, 2 MiB
 * aligned, faulted in by touching): the whole 4 MiB, an unaligned part
 * that starts past the first small page and ends inside the second THP,
 * and 8 KiB across the THP boundary, registered together.  Every read
 * and write at many offsets moves the right bytes, out-of-range accesses
 * fail with -EFAULT, the two THPs are charged once to VmPin although
 * three buffers use them, and the charge is gone after unregistering.
 * Skips when the kernel does not hand out THPs.
 */
#include "iou_coalesce.h"

int main(void)
{
	struct io_uring ring;
	struct iovec iov[3];
	long pin0;
	uint8_t *a;
	int fd, ret, i;

	fd = nvme_open(64UL << 20);
	a = reserve_aligned(0, 2 * HPAGE);
	thp_map(a, 2 * HPAGE, a, 2 * HPAGE);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov[0].iov_base = a;
	iov[0].iov_len = 2 * HPAGE;
	iov[1].iov_base = a + 3 * SMALL_PAGE + SECTOR;
	iov[1].iov_len = HPAGE + HPAGE / 2 - 3 * SMALL_PAGE - SECTOR;
	iov[2].iov_base = a + HPAGE - SMALL_PAGE;
	iov[2].iov_len = 2 * SMALL_PAGE;
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("register THP buffers: %s", strerror(-ret));
	expect_pin(pin0, 2 * HPAGE >> 10, "THP buffers registered");
	for (i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "THP buffer %d", i);
		verify_buffer(&ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			      (uint64_t)i << 23, 20 + i, what);
		verify_efault(&ring, fd, i, 3, iov[i].iov_base,
			      iov[i].iov_len, what);
	}
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "THP buffers unregistered");

	io_uring_queue_exit(&ring);
	close(fd);
	return T_EXIT_PASS;
}
