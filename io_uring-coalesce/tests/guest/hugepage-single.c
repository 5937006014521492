// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed buffer of exactly one 2 MiB hugetlb page, and small buffers
 * inside one: data written with WRITE_FIXED reads back byte for byte with
 * READ_FIXED at any offset and length, accesses past either end fail with
 * -EFAULT, the huge page is charged once to VmPin while registered and
 * nothing stays pinned after unregistering.
 */
#include "iou_coalesce.h"

int main(void)
{
	struct io_uring ring;
	struct iovec iov;
	long free0, pin0;
	uint8_t *p;
	int fd, ret;

	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(1);
	p = huge_alloc(1);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov.iov_base = p;
	iov.iov_len = HPAGE;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		t_fail("register one huge page: %s", strerror(-ret));
	expect_pin(pin0, HPAGE >> 10, "one huge page registered");
	verify_buffer(&ring, fd, 0, p, HPAGE, 0, 1, "one huge page");
	verify_efault(&ring, fd, 0, 1, p, HPAGE, "one huge page");
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "one huge page unregistered");

	/* a few pages in the middle of the huge page: still the whole page */
	iov.iov_base = p + 5 * SMALL_PAGE + SECTOR;
	iov.iov_len = 3 * SMALL_PAGE;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		t_fail("register inside a huge page: %s", strerror(-ret));
	expect_pin(pin0, HPAGE >> 10, "part of a huge page registered");
	verify_buffer(&ring, fd, 0, iov.iov_base, iov.iov_len, 4UL << 20, 2,
		      "inside one huge page");
	verify_efault(&ring, fd, 0, 1, iov.iov_base, iov.iov_len,
		      "inside one huge page");
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "part of a huge page unregistered");

	io_uring_queue_exit(&ring);
	munmap(p, HPAGE);
	expect_hugepages_free(free0, "one huge page");
	close(fd);
	return T_EXIT_PASS;
}
