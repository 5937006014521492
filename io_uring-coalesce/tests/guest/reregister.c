// SPDX-License-Identifier: GPL-2.0
/*
 * Register, use and unregister fixed buffers many times in a row: each
 * round registers a hugetlb buffer with a different start and length
 * (one to three huge pages, aligned or not) next to a small-page buffer,
 * checks VmPin, moves data through both and unregisters; VmPin must
 * return to its start value after every round.  Then one slot of a
 * sparse table is replaced many times with buffer updates, whose old
 * buffers are released in the background, and everything must be
 * released once the table is unregistered.  At the end the huge pages
 * must be freed on munmap, which fails if any pin leaked.
 */
#include "iou_coalesce.h"

#define NR_HP		3
#define ROUNDS		48
#define UPDATES		32
#define SMALL_LEN	(128UL << 10)

/* huge pages touched by [start, start + len) of a huge page aligned area */
static long hpages_of(size_t start, size_t len)
{
	return (long)((start + len - 1) / HPAGE - start / HPAGE + 1);
}

static void pick(int round, size_t *start, size_t *len)
{
	static const size_t starts[] = {
		0, SECTOR, 3 * SMALL_PAGE, HPAGE - SMALL_PAGE + SECTOR,
		HPAGE / 2, 17 * SMALL_PAGE + 5 * SECTOR,
	};
	static const size_t lens[] = {
		HPAGE, 2 * HPAGE, 8 * SMALL_PAGE, HPAGE + SECTOR,
		HPAGE / 2 * 3, 2 * SECTOR,
	};

	*start = starts[round % 6];
	*len = lens[(round / 6 + round) % 6];
	if (*start + *len > NR_HP * HPAGE)
		*len = NR_HP * HPAGE - *start;
}

int main(void)
{
	struct io_uring ring;
	struct iovec iov[2];
	long free0, pin0;
	uint8_t *hp, *small;
	size_t start, len;
	int fd, ret, round;
	char what[96];

	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(NR_HP);
	hp = huge_alloc(NR_HP);
	small = small_alloc(SMALL_LEN);
	memset(small, 1, SMALL_LEN);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	for (round = 0; round < ROUNDS; round++) {
		pick(round, &start, &len);
		snprintf(what, sizeof(what), "round %d: huge buffer +%zu len %zu",
			 round, start, len);
		iov[0].iov_base = hp + start;
		iov[0].iov_len = len;
		iov[1].iov_base = small;
		iov[1].iov_len = SMALL_LEN;
		ret = io_uring_register_buffers(&ring, iov, 2);
		if (ret)
			t_fail("%s: register: %s", what, strerror(-ret));
		expect_pin(pin0, hpages_of(start, len) * (long)(HPAGE >> 10) +
			   (long)(SMALL_LEN >> 10), what);
		if (round % 12 == 0) {
			verify_buffer(&ring, fd, 0, iov[0].iov_base, len, 0,
				      round, what);
			verify_efault(&ring, fd, 0, 2, iov[0].iov_base, len,
				      what);
		} else {
			quick_verify(&ring, fd, 0, iov[0].iov_base, len, 0,
				     round, what);
		}
		quick_verify(&ring, fd, 1, small, SMALL_LEN, 16UL << 20,
			     round + 1000, "small-page buffer");
		ret = io_uring_unregister_buffers(&ring);
		if (ret)
			t_fail("%s: unregister: %s", what, strerror(-ret));
		expect_pin(pin0, 0, what);
	}

	ret = io_uring_register_buffers_sparse(&ring, 2);
	if (ret == -EINVAL)
		t_skip("sparse buffer tables not supported");
	if (ret)
		t_fail("register sparse: %s", strerror(-ret));
	for (round = 0; round < UPDATES; round++) {
		pick(round * 5 + 1, &start, &len);
		snprintf(what, sizeof(what), "update %d: huge buffer +%zu len %zu",
			 round, start, len);
		iov[0].iov_base = hp + start;
		iov[0].iov_len = len;
		ret = io_uring_register_buffers_update_tag(&ring, round & 1,
							   iov, NULL, 1);
		if (ret != 1)
			t_fail("%s: update: %d", what, ret);
		quick_verify(&ring, fd, round & 1, iov[0].iov_base, len,
			     32UL << 20, round + 2000, what);
	}
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister after updates: %s", strerror(-ret));
	expect_pin(pin0, 0, "after updates");

	io_uring_queue_exit(&ring);
	munmap(hp, NR_HP * HPAGE);
	munmap(small, SMALL_LEN);
	expect_hugepages_free(free0, "reregister");
	close(fd);
	return T_EXIT_PASS;
}
