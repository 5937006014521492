// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed buffers over hugetlb pages that start at an unaligned offset
 * inside the first huge page (past its first small page) and end inside
 * the last one, including one that starts in the last small page of a
 * huge page and one that covers only the two sides of a single huge page
 * boundary.  Every read and write at any offset must hit the right bytes,
 * out-of-range accesses fail with -EFAULT, every huge page touched is
 * charged once, and all of it is released after unregistering.
 */
#include "iou_coalesce.h"

#define NR_HP	4

struct layout {
	size_t start;
	size_t len;
	long hpages;
	const char *what;
};

static const struct layout layouts[] = {
	{ 5 * SMALL_PAGE + 3 * SECTOR, 2 * HPAGE + 7 * SMALL_PAGE, 3,
	  "start in page 5 of huge page 0, end in huge page 2" },
	{ HPAGE - SMALL_PAGE + SECTOR, HPAGE + 2 * SMALL_PAGE, 3,
	  "start in the last page of huge page 0, end in huge page 2" },
	{ HPAGE - 2 * SECTOR, 4 * SECTOR, 2,
	  "1 KiB on each side of a huge page boundary" },
	{ 123 * SMALL_PAGE, 4 * HPAGE - 123 * SMALL_PAGE - SECTOR, 4,
	  "unaligned start, end one sector before the last huge page ends" },
	{ 77 * SMALL_PAGE + SECTOR, 3 * HPAGE, 4,
	  "three huge pages worth, spanning four" },
};

int main(void)
{
	struct io_uring ring;
	struct iovec iov;
	long free0, pin0;
	uint8_t *p;
	size_t i;
	int fd, ret;

	fd = nvme_open(128UL << 20);
	free0 = hugepages_setup(NR_HP);
	p = huge_alloc(NR_HP);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout *l = &layouts[i];

		iov.iov_base = p + l->start;
		iov.iov_len = l->len;
		ret = io_uring_register_buffers(&ring, &iov, 1);
		if (ret)
			t_fail("%s: register: %s", l->what, strerror(-ret));
		expect_pin(pin0, l->hpages * (long)(HPAGE >> 10), l->what);
		verify_buffer(&ring, fd, 0, iov.iov_base, l->len,
			      (uint64_t)i << 24, 10 + i, l->what);
		verify_efault(&ring, fd, 0, 1, iov.iov_base, l->len, l->what);
		ret = io_uring_unregister_buffers(&ring);
		if (ret)
			t_fail("%s: unregister: %s", l->what, strerror(-ret));
		expect_pin(pin0, 0, l->what);
	}

	io_uring_queue_exit(&ring);
	munmap(p, NR_HP * HPAGE);
	expect_hugepages_free(free0, "unaligned hugetlb buffers");
	close(fd);
	return T_EXIT_PASS;
}
