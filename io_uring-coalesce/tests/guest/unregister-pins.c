// SPDX-License-Identifier: GPL-2.0
/*
 * Unregistering gives back every pin and counts every pin it gives back.
 * Buffers of 1, 31, 32, 33, 64, 65 and 97 small pages (each page its own
 * folio: as many bvecs, around the 32 pages a batch of unpins takes), the
 * same again one sector off the page boundary (one page more), several
 * such buffers in one registration, and buffers over hugetlb pages and
 * THPs with small pages at both ends.  While a small-page buffer is
 * registered the system holds one FOLL_PIN pin per page more
 * (nr_foll_pin_acquired - nr_foll_pin_released of /proc/vmstat); after
 * unregistering, that count and VmPin are back where they started, and
 * the huge pages are freed on munmap.
 */
#include "iou_coalesce.h"

#define SMALL_PAGES	112
#define NR_HP		3

static long pins0, pin0;

/* Back to the start: no FOLL_PIN pin and no VmPin left after @what. */
static void expect_none_left(const char *what)
{
	long left = foll_pins() - pins0;

	if (left)
		t_fail("%s: %ld FOLL_PIN pins left after unregistering", what,
		       left);
	expect_pin(pin0, 0, what);
}

static void register_iovs(struct io_uring *ring, struct iovec *iov, int nr,
			  long pinned, const char *what)
{
	int ret = io_uring_register_buffers(ring, iov, nr);

	if (ret)
		t_fail("%s: register: %s", what, strerror(-ret));
	if (pinned >= 0 && foll_pins() - pins0 != pinned)
		t_fail("%s: %ld FOLL_PIN pins while registered, expected %ld",
		       what, foll_pins() - pins0, pinned);
	ret = io_uring_unregister_buffers(ring);
	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
	expect_none_left(what);
}

int main(void)
{
	static const int sizes[] = { 1, 31, 32, 33, 64, 65, 97 };
	struct io_uring ring;
	struct iovec iov[3];
	uint8_t *small, *hp, *thp, *area;
	char what[96];
	long free0;
	size_t i, len;

	ring_init(&ring);
	small = small_alloc(SMALL_PAGES * SMALL_PAGE);
	memset(small, 1, SMALL_PAGES * SMALL_PAGE);
	pins0 = foll_pins();
	pin0 = vm_pin_kb();

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		len = sizes[i] * SMALL_PAGE;
		iov[0].iov_base = small;
		iov[0].iov_len = len;
		snprintf(what, sizeof(what), "%d small pages", sizes[i]);
		register_iovs(&ring, iov, 1, sizes[i], what);
		iov[0].iov_base = small + SECTOR;
		snprintf(what, sizeof(what), "%d small pages, a sector in",
			 sizes[i]);
		register_iovs(&ring, iov, 1, sizes[i] + 1, what);
	}

	/* 33 + 1 + 32 pages in one registration, three tables entries */
	iov[0].iov_base = small;
	iov[0].iov_len = 33 * SMALL_PAGE;
	iov[1].iov_base = small + 40 * SMALL_PAGE;
	iov[1].iov_len = SMALL_PAGE;
	iov[2].iov_base = small + 50 * SMALL_PAGE;
	iov[2].iov_len = 32 * SMALL_PAGE;
	register_iovs(&ring, iov, 3, 66, "three small-page buffers");

	/* hugetlb: whole pages, then one sector in over all three */
	free0 = hugepages_setup(NR_HP);
	hp = huge_alloc(NR_HP);
	iov[0].iov_base = hp;
	iov[0].iov_len = NR_HP * HPAGE;
	register_iovs(&ring, iov, 1, -1, "3 hugetlb pages");
	iov[0].iov_base = hp + SECTOR;
	iov[0].iov_len = NR_HP * HPAGE - 2 * SECTOR;
	iov[1].iov_base = small;
	iov[1].iov_len = 65 * SMALL_PAGE;
	register_iovs(&ring, iov, 2, -1, "3 hugetlb pages and 65 small pages");
	munmap(hp, NR_HP * HPAGE);
	expect_hugepages_free(free0, "hugetlb buffers");

	/* 2 THPs between 3 small pages before and 5 after */
	thp = reserve_aligned(3 * SMALL_PAGE, 2 * HPAGE + 8 * SMALL_PAGE);
	area = thp - 3 * SMALL_PAGE;
	thp_map(area, 2 * HPAGE + 8 * SMALL_PAGE, thp, 2 * HPAGE);
	iov[0].iov_base = area;
	iov[0].iov_len = 2 * HPAGE + 8 * SMALL_PAGE;
	register_iovs(&ring, iov, 1, -1, "2 THPs between small pages");

	io_uring_queue_exit(&ring);
	munmap(small, SMALL_PAGES * SMALL_PAGE);
	munmap(area, 2 * HPAGE + 8 * SMALL_PAGE);
	expect_none_left("the ring closed");
	return T_EXIT_PASS;
}
