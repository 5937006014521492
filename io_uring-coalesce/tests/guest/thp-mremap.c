// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed buffers over transparent huge pages that no PMD maps:
 *
 * - two THPs moved with mremap() to 4 KiB past a 2 MiB boundary: their
 *   pages are mapped by PTEs at an address that is not folio-aligned, and
 *   they stay 2 MiB folios (checked in /proc/kpageflags);
 * - a THP with one small page zapped (MADV_DONTNEED) and faulted in
 *   again: 511 pages of the THP and one other page, which cannot be one
 *   bvec per folio.
 *
 * Each is registered whole and as an unaligned part.  Every buffer is
 * checked with O_DIRECT on the NVMe disk (offsets and lengths in 512-byte
 * units) and with buffered I/O on a tmpfs file at offsets and lengths that
 * are not multiples of 512, around the real folio boundaries.  VmPin
 * charges each THP once and each small page per buffer, and is back to
 * its start after unregistering.  Skips without THP.
 */
#include "iou_coalesce.h"

static void check_buffers(struct io_uring *ring, int fd, int tfd,
			  struct iovec *iov, const size_t *first, int n,
			  uint32_t seed, const char *what)
{
	char msg[96];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "%s, buffer %d", what, i);
		verify_buffer(ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			      (uint64_t)i << 23, seed + i, msg);
		verify_buffered(ring, tfd, i, iov[i].iov_base, iov[i].iov_len,
				first[i], HPAGE, seed + 10 + i, msg);
		verify_efault(ring, fd, i, n, iov[i].iov_base, iov[i].iov_len,
			      msg);
	}
}

static void moved_thp(struct io_uring *ring, int fd, int tfd)
{
	const char *what = "THPs moved to a 4 KiB offset";
	struct iovec iov[2];
	size_t first[2];
	uint8_t *src, *dst;
	long pin0;
	int ret;

	src = reserve_aligned(0, 2 * HPAGE);
	thp_map(src, 2 * HPAGE, src, 2 * HPAGE);
	if (thp_pages(src, 2 * HPAGE) != 2 * HPAGE / SMALL_PAGE)
		t_skip("%s: the memory is not in THPs", what);
	/* keep khugepaged from collapsing the moved range into a new THP */
	if (madvise(src, 2 * HPAGE, MADV_NOHUGEPAGE))
		t_fail("%s: MADV_NOHUGEPAGE: %s", what, strerror(errno));
	dst = reserve_aligned(0, 3 * HPAGE) + SMALL_PAGE;
	if (mremap(src, 2 * HPAGE, 2 * HPAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		   dst) != dst)
		t_fail("%s: mremap: %s", what, strerror(errno));
	if (thp_pages(dst, 2 * HPAGE) != 2 * HPAGE / SMALL_PAGE)
		t_fail("%s: the THPs were split by mremap()", what);
	if (smaps_anon_huge_kb(dst))
		t_fail("%s: still mapped by PMDs (AnonHugePages %ld kB)", what,
		       smaps_anon_huge_kb(dst));

	pin0 = vm_pin_kb();
	iov[0].iov_base = dst;
	iov[0].iov_len = 2 * HPAGE;
	first[0] = HPAGE;
	iov[1].iov_base = dst + 3 * SMALL_PAGE + SECTOR;
	iov[1].iov_len = 2 * HPAGE - 5 * SMALL_PAGE;
	first[1] = HPAGE - 3 * SMALL_PAGE - SECTOR;
	ret = io_uring_register_buffers(ring, iov, 2);
	if (ret)
		t_fail("%s: register: %s", what, strerror(-ret));
	expect_pin(pin0, 2 * HPAGE >> 10, what);
	check_buffers(ring, fd, tfd, iov, first, 2, 100, what);
	ret = io_uring_unregister_buffers(ring);
	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
	expect_pin(pin0, 0, what);
	munmap(dst, 2 * HPAGE);
}

static void zapped_thp(struct io_uring *ring, int fd, int tfd)
{
	const char *what = "THP with one small page zapped and refaulted";
	const size_t hole = 5 * SMALL_PAGE;
	struct iovec iov[2];
	size_t first[2];
	uint8_t *c;
	long pin0;
	int ret;

	c = reserve_aligned(0, HPAGE);
	thp_map(c, HPAGE, c, HPAGE);
	if (thp_pages(c, HPAGE) != HPAGE / SMALL_PAGE)
		t_skip("%s: the memory is not in a THP", what);
	/* keep khugepaged from collapsing it back after the refault */
	if (madvise(c, HPAGE, MADV_NOHUGEPAGE))
		t_fail("%s: MADV_NOHUGEPAGE: %s", what, strerror(errno));
	if (madvise(c + hole, SMALL_PAGE, MADV_DONTNEED))
		t_fail("%s: MADV_DONTNEED: %s", what, strerror(errno));
	c[hole] = 1;
	if (thp_pages(c, HPAGE) != HPAGE / SMALL_PAGE - 1 ||
	    (page_flags(c + hole) >> KPF_THP_BIT) & 1)
		t_skip("%s: not 511 THP pages and a small one (%zu)", what,
		       thp_pages(c, HPAGE));

	pin0 = vm_pin_kb();
	iov[0].iov_base = c;
	iov[0].iov_len = HPAGE;
	first[0] = hole;
	iov[1].iov_base = c + 3 * SECTOR;
	iov[1].iov_len = HPAGE - 4 * SECTOR;
	first[1] = hole - 3 * SECTOR;
	ret = io_uring_register_buffers(ring, iov, 2);
	if (ret)
		t_fail("%s: register: %s", what, strerror(-ret));
	/* the THP once, the small page once per buffer */
	expect_pin(pin0, (HPAGE >> 10) + 2 * (SMALL_PAGE >> 10), what);
	check_buffers(ring, fd, tfd, iov, first, 2, 200, what);
	ret = io_uring_unregister_buffers(ring);
	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
	expect_pin(pin0, 0, what);
	munmap(c, HPAGE);
}

int main(void)
{
	struct io_uring ring;
	int fd, tfd;

	fd = nvme_open(64UL << 20);
	tfd = tmpfile_open(2 * HPAGE);
	ring_init(&ring);
	moved_thp(&ring, fd, tfd);
	zapped_thp(&ring, fd, tfd);
	io_uring_queue_exit(&ring);
	close(tfd);
	close(fd);
	return T_EXIT_PASS;
}
