// SPDX-License-Identifier: GPL-2.0
/*
 * A longterm pin of memory in ZONE_MOVABLE moves it out first.  A free
 * memory block is offlined and onlined again as ZONE_MOVABLE (memory
 * hotplug), four THPs and 64 KiB of small pages are faulted in there (the
 * page allocator prefers ZONE_MOVABLE for user memory), and the range is
 * registered as an io_uring fixed buffer (FOLL_LONGTERM).  Afterwards no
 * page of the range may be in that block, the memory must hold what it
 * held, and WRITE_FIXED must send it: the pin is on the pages that are
 * mapped now.  At the end the block is offlined and onlined back into the
 * kernel zone.  Skips without memory hotplug or a block that can be
 * offlined, or when the memory did not land in the block.
 */
#include "gup_helpers.h"
#include <dirent.h>

#define MEMDIR	"/sys/devices/system/memory/"
#define THP_LEN	(4 * HPAGE)
#define SMALL	(64UL << 10)

static char block_state[256];
static uint64_t pfn_lo, pfn_hi;

/*
 * Give the block back to the kernel zone.  Offlining fails while pages of
 * the test are still on their way out (per-cpu lists, page cache): retry,
 * since a block left in ZONE_MOVABLE would take the huge pages of later
 * tests, which a longterm pin then refuses.
 */
static void restore_block(void)
{
	int i;

	if (!block_state[0])
		return;
	for (i = 0; i < 50; i++) {
		if (!write_str(block_state, "offline"))
			break;
		write_str("/proc/sys/vm/drop_caches", "3");
		usleep(100000);
	}
	if (i == 50)
		t_log("cannot offline the block again: %s", strerror(errno));
	if (write_str(block_state, "online_kernel") &&
	    write_str(block_state, "online"))
		t_log("cannot online the block again: %s", strerror(errno));
	block_state[0] = 0;
}

/* Offline the highest block that lets itself be, online it movable. */
static void movable_block(void)
{
	unsigned long bsz = 0;
	long best = -1, n, idx;
	char path[256];
	FILE *f;
	DIR *d;
	struct dirent *e;

	f = fopen(MEMDIR "block_size_bytes", "r");
	if (!f || fscanf(f, "%lx", &bsz) != 1)
		t_skip("no memory hotplug (%s)", MEMDIR "block_size_bytes");
	fclose(f);
	for (;;) {
		d = opendir(MEMDIR);
		if (!d)
			t_skip("no %s", MEMDIR);
		n = -1;
		while ((e = readdir(d))) {
			if (sscanf(e->d_name, "memory%ld", &idx) == 1 &&
			    idx > n && (best < 0 || idx < best))
				n = idx;
		}
		closedir(d);
		if (n < 0)
			t_skip("no memory block could be offlined");
		best = n;
		snprintf(path, sizeof(path), MEMDIR "memory%ld/state", n);
		if (write_str(path, "offline"))
			continue;
		if (write_str(path, "online_movable")) {
			write_str(path, "online");
			t_skip("memory%ld cannot be onlined movable: %s", n,
			       strerror(errno));
		}
		break;
	}
	snprintf(block_state, sizeof(block_state), "%s", path);
	atexit(restore_block);
	snprintf(path, sizeof(path), MEMDIR "memory%ld/phys_index", best);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lx", &n) != 1)
		t_fail("%s", path);
	fclose(f);
	pfn_lo = (uint64_t)n * bsz / SMALL_PAGE;
	pfn_hi = pfn_lo + bsz / SMALL_PAGE;
	t_log("memory%ld (pfn 0x%llx-0x%llx) is ZONE_MOVABLE", best,
	      (unsigned long long)pfn_lo, (unsigned long long)pfn_hi);
}

static size_t in_block(const uint8_t *p, size_t len)
{
	size_t i, n = 0;
	uint64_t pfn;

	for (i = 0; i < len; i += SMALL_PAGE) {
		pfn = pfn_of(p + i);
		n += pfn >= pfn_lo && pfn < pfn_hi;
	}
	return n;
}

int main(void)
{
	char path[] = "/tmp/gup-movable-XXXXXX";
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct iovec iov;
	uint8_t *r, *p, *copy, *got;
	size_t len = THP_LEN + SMALL, before, after, i;
	int fd, ret;

	movable_block();
	r = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	p = (uint8_t *)(((uintptr_t)r + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, THP_LEN, MADV_HUGEPAGE) ||
	    madvise(p + THP_LEN, SMALL, MADV_NOHUGEPAGE))
		t_skip("madvise: %s", strerror(errno));
	for (i = 0; i < len; i += SMALL_PAGE)
		p[i] = 1;
	pattern(p, len, 7);
	before = in_block(p, len);
	if (before < len / SMALL_PAGE / 2)
		t_skip("only %zu of %zu pages landed in the movable block",
		       before, len / SMALL_PAGE);
	copy = malloc(len);
	got = malloc(len);
	if (!copy || !got)
		t_fail("out of memory");
	memcpy(copy, p, len);

	if (io_uring_queue_init(4, &ring, 0))
		t_skip("io_uring not available");
	iov.iov_base = p;
	iov.iov_len = len;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		t_fail("register (longterm pin): %s", strerror(-ret));
	after = in_block(p, len);
	t_log("%zu pages in ZONE_MOVABLE before the longterm pin, %zu after, %zu of %zu in THPs",
	      before, after, thp_pages(p, len), len / SMALL_PAGE);
	if (after)
		t_fail("%zu pages still in ZONE_MOVABLE after a longterm pin",
		       after);
	if (memcmp(p, copy, len))
		t_fail("the memory changed when it was moved");

	fd = mkstemp(path);
	if (fd < 0)
		t_fail("mkstemp: %s", strerror(errno));
	unlink(path);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write_fixed(sqe, fd, p, len, 0, 0);
	if (io_uring_submit_and_wait(&ring, 1) != 1 ||
	    io_uring_wait_cqe(&ring, &cqe))
		t_fail("submit");
	if (cqe->res != (int)len)
		t_fail("WRITE_FIXED: %d", cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	if (pread(fd, got, len, 0) != (ssize_t)len || memcmp(got, copy, len))
		t_fail("WRITE_FIXED did not send the memory: the pin is not on the mapped pages");

	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	munmap(r, len + HPAGE);
	close(fd);
	restore_block();
	return T_EXIT_PASS;
}
