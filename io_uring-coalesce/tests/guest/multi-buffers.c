// SPDX-License-Identifier: GPL-2.0
/*
 * Several fixed buffers of different kinds in one registration: one whole
 * huge page, an unaligned buffer over three huge pages, two more huge
 * pages, small-page memory, an unaligned part of that small-page memory
 * and a few pages inside the first huge page.  Each buffer is used by its
 * index; reads and writes at many offsets move the right bytes,
 * out-of-range accesses and an out-of-range index fail with -EFAULT,
 * VmPin grows by every huge page once plus every small page of every
 * buffer, and returns to its start value after unregistering; the huge
 * pages are freed on munmap.
 */
#include "iou_coalesce.h"

#define NR_HP		6
#define SMALL_LEN	(256UL << 10)
#define NR_BUFS		6

int main(void)
{
	struct io_uring ring;
	struct iovec iov[NR_BUFS];
	long free0, pin0, expect_kb;
	uint8_t *hp, *small;
	int fd, ret, i;

	fd = nvme_open(128UL << 20);
	free0 = hugepages_setup(NR_HP);
	hp = huge_alloc(NR_HP);
	small = small_alloc(SMALL_LEN);
	memset(small, 1, SMALL_LEN);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov[0].iov_base = hp;
	iov[0].iov_len = HPAGE;
	iov[1].iov_base = hp + HPAGE + 3 * SMALL_PAGE + SECTOR;
	iov[1].iov_len = 2 * HPAGE;
	iov[2].iov_base = small;
	iov[2].iov_len = SMALL_LEN;
	iov[3].iov_base = hp + 4 * HPAGE;
	iov[3].iov_len = 2 * HPAGE;
	iov[4].iov_base = small + SMALL_PAGE + SECTOR;
	iov[4].iov_len = 64UL << 10;
	iov[5].iov_base = hp + 4 * SMALL_PAGE;
	iov[5].iov_len = 2 * SMALL_PAGE;
	ret = io_uring_register_buffers(&ring, iov, NR_BUFS);
	if (ret)
		t_fail("register %d buffers: %s", NR_BUFS, strerror(-ret));
	/* 6 huge pages once; 64 small pages of buffer 2, 17 of buffer 4 */
	expect_kb = NR_HP * (HPAGE >> 10) + (64 + 17) * (SMALL_PAGE >> 10);
	expect_pin(pin0, expect_kb, "6 buffers registered");
	for (i = 0; i < NR_BUFS; i++) {
		char what[64];

		snprintf(what, sizeof(what), "buffer %d of %d", i, NR_BUFS);
		verify_buffer(&ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			      (uint64_t)i << 23, 40 + i, what);
		verify_efault(&ring, fd, i, NR_BUFS, iov[i].iov_base,
			      iov[i].iov_len, what);
	}
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "6 buffers unregistered");

	io_uring_queue_exit(&ring);
	munmap(hp, NR_HP * HPAGE);
	munmap(small, SMALL_LEN);
	expect_hugepages_free(free0, "6 buffers");
	close(fd);
	return T_EXIT_PASS;
}
