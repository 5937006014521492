// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed buffer of four 2 MiB hugetlb pages: reads and writes at many
 * offsets and lengths, including ones that cross every huge page boundary
 * and ones that end exactly at the end of the buffer, move the right
 * bytes; accesses past the ends fail with -EFAULT; VmPin grows by exactly
 * the four huge pages and returns to its start value after unregistering,
 * and the huge pages are freed on munmap.
 */
#include "iou_coalesce.h"

#define NR_HP	4

int main(void)
{
	struct io_uring ring;
	struct iovec iov;
	long free0, pin0;
	uint8_t *p;
	int fd, ret;

	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(NR_HP);
	p = huge_alloc(NR_HP);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov.iov_base = p;
	iov.iov_len = NR_HP * HPAGE;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		t_fail("register 4 huge pages: %s", strerror(-ret));
	expect_pin(pin0, NR_HP * HPAGE >> 10, "4 huge pages registered");
	verify_buffer(&ring, fd, 0, p, NR_HP * HPAGE, 0, 3, "4 huge pages");
	verify_efault(&ring, fd, 0, 1, p, NR_HP * HPAGE, "4 huge pages");
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "4 huge pages unregistered");

	io_uring_queue_exit(&ring);
	munmap(p, NR_HP * HPAGE);
	expect_hugepages_free(free0, "4 huge pages");
	close(fd);
	return T_EXIT_PASS;
}
