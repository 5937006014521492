// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed buffers over a 1 GiB hugetlb page (hugepagesz=1G): a 16 MiB
 * window that starts and ends inside the page, the last 8 MiB of it and
 * the whole page (the largest buffer io_uring takes), all registered
 * together.  The window is checked at many offsets and lengths, the
 * others at spots across the page; VmPin charges the page once, 1 GiB,
 * and is back to its start after unregistering, and the page is free
 * again after munmap.  Skips when the guest has no free 1 GiB page.
 */
#include "iou_coalesce.h"

#define GPAGE		(1UL << 30)
#define GPAGE_DIR	"/sys/kernel/mm/hugepages/hugepages-1048576kB/"
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB	(30 << 26)
#endif

/*
 * WRITE_FIXED @len bytes at @off of buffer @idx and check the disk with
 * pread(), then write the disk and check a READ_FIXED of it.
 */
static void spot(struct io_uring *ring, int fd, int idx, uint8_t *buf,
		 size_t off, size_t len, uint64_t disk, uint32_t seed)
{
	uint8_t *want, *got;
	int ret;

	if (posix_memalign((void **)&want, SMALL_PAGE, len) ||
	    posix_memalign((void **)&got, SMALL_PAGE, len))
		t_fail("out of memory");
	pattern_fill(buf + off, len, seed);
	memcpy(want, buf + off, len);
	ret = fixed_rw(ring, 1, fd, buf + off, len, disk, idx);
	if (ret != (int)len)
		t_fail("buffer %d: WRITE_FIXED off %zu len %zu: %d", idx, off,
		       len, ret);
	if (pread(fd, got, len, disk) != (ssize_t)len)
		t_fail("pread: %s", strerror(errno));
	compare(got, want, len, "1 GiB page: write", off);
	pattern_fill(want, len, seed + 1);
	if (pwrite(fd, want, len, disk) != (ssize_t)len)
		t_fail("pwrite: %s", strerror(errno));
	memset(buf + off, CANARY, len);
	ret = fixed_rw(ring, 0, fd, buf + off, len, disk, idx);
	if (ret != (int)len)
		t_fail("buffer %d: READ_FIXED off %zu len %zu: %d", idx, off,
		       len, ret);
	compare(buf + off, want, len, "1 GiB page: read", off);
	free(want);
	free(got);
}

int main(void)
{
	struct io_uring ring;
	struct iovec iov[3];
	long free0, pin0;
	uint8_t *p;
	size_t i;
	int fd, ret;

	fd = nvme_open(64UL << 20);
	free0 = read_long(GPAGE_DIR "free_hugepages");
	if (free0 < 0)
		t_skip("no 1 GiB hugetlb pages in this kernel");
	if (free0 < 1)
		t_skip("no free 1 GiB page (boot with hugepagesz=1G hugepages=1)");
	p = mmap(NULL, GPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB, -1, 0);
	if (p == MAP_FAILED)
		t_fail("mmap of a 1 GiB page: %s", strerror(errno));
	for (i = 0; i < GPAGE; i += SMALL_PAGE)
		p[i] = 1;
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov[0].iov_base = p + 3 * HPAGE + 7 * SMALL_PAGE + SECTOR;
	iov[0].iov_len = 16UL << 20;
	iov[1].iov_base = p + GPAGE - (8UL << 20);
	iov[1].iov_len = 8UL << 20;
	iov[2].iov_base = p;
	iov[2].iov_len = GPAGE;
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("register: %s", strerror(-ret));
	expect_pin(pin0, GPAGE >> 10, "1 GiB page registered");

	verify_buffer(&ring, fd, 0, iov[0].iov_base, iov[0].iov_len, 0, 500,
		      "16 MiB inside a 1 GiB page");
	verify_efault(&ring, fd, 0, 3, iov[0].iov_base, iov[0].iov_len,
		      "16 MiB inside a 1 GiB page");
	quick_verify(&ring, fd, 1, iov[1].iov_base, iov[1].iov_len, 32 << 20,
		     501, "last 8 MiB of a 1 GiB page");
	spot(&ring, fd, 2, p, 0, SECTOR, 48 << 20, 502);
	spot(&ring, fd, 2, p, GPAGE - SECTOR, SECTOR, 49 << 20, 504);
	spot(&ring, fd, 2, p, GPAGE / 2 + 3 * SECTOR, 1 << 20, 50 << 20, 506);
	spot(&ring, fd, 2, p, GPAGE - HPAGE - SECTOR, HPAGE + SECTOR,
	     52 << 20, 508);
	spot(&ring, fd, 2, p, 5 * HPAGE - SMALL_PAGE, 2 * SMALL_PAGE,
	     56 << 20, 510);
	verify_efault(&ring, fd, 2, 3, p, GPAGE, "whole 1 GiB page");

	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "unregistered");
	io_uring_queue_exit(&ring);
	munmap(p, GPAGE);
	for (i = 0; i < 100 && read_long(GPAGE_DIR "free_hugepages") != free0;
	     i++)
		usleep(10000);
	if (read_long(GPAGE_DIR "free_hugepages") != free0)
		t_fail("the 1 GiB page is not free after munmap: pin leaked");
	close(fd);
	return T_EXIT_PASS;
}
