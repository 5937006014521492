/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the io_uring-coalesce guest tests.
 *
 * Every test registers fixed buffers over some kind of memory, writes a
 * known pattern to /dev/nvme0n1 with WRITE_FIXED, reads it back with
 * READ_FIXED at many offsets and lengths inside the buffer and compares
 * every byte.  Exit 0 pass, 1 fail, 77 skip, as in liburing's tests.
 */
#ifndef IOU_COALESCE_H
#define IOU_COALESCE_H

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

#define HPAGE		(2UL << 20)
#define SMALL_PAGE	4096UL
#define SECTOR		512UL
#define NVME_DEV	"/dev/nvme0n1"
/* the guest has about 1 GiB: keep the reserve small */
#define HUGEPAGES_RESERVE	16
#define CANARY		0xa5
#define MARGIN		1024UL
#define MAX_SPANS	160

static inline void t_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static inline void t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	exit(T_EXIT_FAIL);
}

static inline void t_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static inline void t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("SKIP: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	exit(T_EXIT_SKIP);
}

static inline void t_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void t_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

/* Value of "key:" in a /proc file such as /proc/meminfo, or -1. */
static inline long proc_value(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			val = strtol(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/* mm->pinned_vm of this process, which io_uring charges, in KiB. */
static inline long vm_pin_kb(void)
{
	long v = proc_value("/proc/self/status", "VmPin");

	if (v < 0)
		t_fail("no VmPin in /proc/self/status");
	return v;
}

static inline void expect_pin(long start_kb, long delta_kb, const char *what)
{
	long now = vm_pin_kb();

	if (now != start_kb + delta_kb)
		t_fail("%s: VmPin %ld kB, expected %ld + %ld kB", what, now,
		       start_kb, delta_kb);
}

static inline long hugepages_free(void)
{
	return proc_value("/proc/meminfo", "HugePages_Free");
}

/* The number a sysfs or procfs file holds, or -1. */
static inline long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long val = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

static inline int write_long(const char *path, long val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%ld\n", val) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

/*
 * Make sure at least @needed free 2 MiB huge pages exist, reserving up to
 * HUGEPAGES_RESERVE.  Skips when the kernel has no 2 MiB hugetlb pages.
 * Returns HugePages_Free, to compare with once everything is released.
 */
static inline long hugepages_setup(long needed)
{
	long size_kb = proc_value("/proc/meminfo", "Hugepagesize");
	long total = proc_value("/proc/meminfo", "HugePages_Total");
	long free_now;

	if (size_kb != (long)(HPAGE >> 10) || total < 0)
		t_skip("no 2 MiB hugetlb pages (Hugepagesize %ld kB)", size_kb);
	if (total < HUGEPAGES_RESERVE &&
	    write_long("/proc/sys/vm/nr_hugepages", HUGEPAGES_RESERVE) &&
	    write_long("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
		       HUGEPAGES_RESERVE))
		t_skip("cannot reserve huge pages");
	free_now = hugepages_free();
	if (free_now < needed)
		t_skip("only %ld free huge pages, need %ld", free_now, needed);
	return free_now;
}

/* Huge pages freed on munmap mean io_uring dropped all its pins. */
static inline void expect_hugepages_free(long start, const char *what)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (hugepages_free() == start)
			return;
		usleep(10000);
	}
	t_fail("%s: HugePages_Free %ld, expected %ld: pinned huge page leaked",
	       what, hugepages_free(), start);
}

/* @n huge pages of anonymous hugetlb memory, faulted in. */
static inline uint8_t *huge_alloc(size_t n)
{
	uint8_t *p = mmap(NULL, n * HPAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		t_skip("hugetlb mmap of %zu pages: %s", n, strerror(errno));
	for (i = 0; i < n * HPAGE; i += SMALL_PAGE)
		p[i] = 1;
	return p;
}

/*
 * @len bytes of anonymous memory in small pages (MADV_NOHUGEPAGE), not
 * faulted in yet.
 */
static inline uint8_t *small_alloc(size_t len)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_fail("mmap of %zu bytes: %s", len, strerror(errno));
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

/*
 * Reserve @len bytes of address space with a 2 MiB aligned address at
 * @lead bytes into it; returns that aligned address.
 */
static inline uint8_t *reserve_aligned(size_t lead, size_t len)
{
	uint8_t *r = mmap(NULL, len + lead + HPAGE, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (r == MAP_FAILED)
		t_fail("reserve %zu bytes: %s", len, strerror(errno));
	a = ((uintptr_t)r + lead + HPAGE - 1) & ~(HPAGE - 1);
	return (uint8_t *)a;
}

/*
 * Anonymous memory at @addr..@addr+@len (inside a reservation), with
 * [@thp, @thp + @thp_len) made of transparent huge pages.  Skips when the
 * kernel does not back it with THPs.
 */
static inline void thp_map(uint8_t *addr, size_t len, uint8_t *thp,
			   size_t thp_len)
{
	long before = proc_value("/proc/meminfo", "AnonHugePages");
	long after;
	size_t i;

	if (before < 0)
		t_skip("no AnonHugePages in /proc/meminfo: no THP");
	if (mmap(addr, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		t_fail("mmap fixed: %s", strerror(errno));
	if (madvise(addr, len, MADV_NOHUGEPAGE))
		t_fail("MADV_NOHUGEPAGE: %s", strerror(errno));
	if (madvise(thp, thp_len, MADV_HUGEPAGE))
		t_skip("MADV_HUGEPAGE: %s", strerror(errno));
	/* fault the THP range first, one touch per huge page */
	for (i = 0; i < thp_len; i += HPAGE)
		thp[i] = 1;
	for (i = 0; i < len; i += SMALL_PAGE)
		addr[i] = 1;
	after = proc_value("/proc/meminfo", "AnonHugePages");
	if (after - before < (long)(thp_len >> 10))
		t_skip("THP not used: AnonHugePages %ld -> %ld kB", before,
		       after);
}

/*
 * Open the test disk with O_DIRECT.  IOU_COALESCE_DEV may name another
 * device or a preallocated file, to try the tests outside the guest.
 */
static inline int nvme_open(size_t need)
{
	const char *dev = getenv("IOU_COALESCE_DEV");
	off_t size;
	int fd;

	if (!dev)
		dev = NVME_DEV;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			t_skip("%s: %s", dev, strerror(errno));
		t_fail("open %s: %s", dev, strerror(errno));
	}
	size = lseek(fd, 0, SEEK_END);
	if (size < 0 || (size_t)size < need)
		t_skip("%s too small: %lld bytes", dev, (long long)size);
	return fd;
}

static inline void ring_init(struct io_uring *ring)
{
	int ret = io_uring_queue_init(8, ring, 0);

	if (ret == -ENOSYS)
		t_skip("io_uring not available");
	if (ret)
		t_fail("io_uring_queue_init: %s", strerror(-ret));
}

/* The 32-bit pattern word for byte offset @i of a buffer, seeded. */
static inline uint32_t pattern_word(uint32_t seed, size_t i)
{
	uint64_t x = ((uint64_t)seed << 32) ^ (i >> 2);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 29;
	return (uint32_t)x;
}

static inline void pattern_fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i += 4) {
		uint32_t w = pattern_word(seed, i);

		memcpy(p + i, &w, len - i < 4 ? len - i : 4);
	}
}

/* Run one fixed-buffer read or write and return cqe->res. */
static inline int fixed_rw(struct io_uring *ring, int write, int fd,
			   void *addr, size_t len, uint64_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		t_fail("no sqe");
	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret != 1)
		t_fail("submit: %d", ret);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		t_fail("wait_cqe: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static inline void compare(const uint8_t *got, const uint8_t *want,
			   size_t len, const char *what, size_t at)
{
	size_t i;

	if (!memcmp(got, want, len))
		return;
	for (i = 0; i < len && got[i] == want[i]; i++)
		;
	t_fail("%s: byte %zu (buffer offset %zu) is 0x%02x, expected 0x%02x",
	       what, i, at + i, got[i], want[i]);
}

struct span {
	size_t off;
	size_t len;
};

static inline int add_span(struct span *s, int n, size_t len, long off,
			   size_t l)
{
	if (n >= MAX_SPANS || off < 0 || !l || (size_t)off + l > len)
		return n;
	if ((size_t)off % SECTOR || l % SECTOR)
		return n;
	s[n].off = off;
	s[n].len = l;
	return n + 1;
}

/*
 * Offsets and lengths to read at, for a buffer of @len bytes starting
 * @head bytes into a 2 MiB boundary-aligned region: around every huge page
 * boundary, around a few small page boundaries, ending exactly at the end,
 * the whole buffer and pseudo-random ones.
 */
static inline int make_spans(struct span *s, size_t len, size_t head)
{
	size_t b, first = HPAGE - head % HPAGE;
	uint32_t rnd = 12345;
	int n = 0, i;

	n = add_span(s, n, len, 0, SECTOR);
	n = add_span(s, n, len, 0, len);
	n = add_span(s, n, len, len - SECTOR, SECTOR);
	n = add_span(s, n, len, len - SMALL_PAGE, SMALL_PAGE);
	n = add_span(s, n, len, len - 65536 - SECTOR, 65536 + SECTOR);
	n = add_span(s, n, len, len - HPAGE - SMALL_PAGE,
		     HPAGE + SMALL_PAGE);
	n = add_span(s, n, len, SECTOR, len - SECTOR);
	for (b = first; b < len; b += HPAGE) {
		n = add_span(s, n, len, b - SECTOR, 2 * SECTOR);
		n = add_span(s, n, len, b - SECTOR, SECTOR);
		n = add_span(s, n, len, b, SECTOR);
		n = add_span(s, n, len, b - SMALL_PAGE, 2 * SMALL_PAGE);
		n = add_span(s, n, len, b - 3 * SECTOR, 7 * SECTOR);
		n = add_span(s, n, len, b - HPAGE / 2, HPAGE);
		n = add_span(s, n, len, b - SECTOR, HPAGE + 2 * SECTOR);
		n = add_span(s, n, len, b, len - b);
		n = add_span(s, n, len, 0, b + SECTOR);
	}
	b = SMALL_PAGE - head % SMALL_PAGE;
	for (i = 0; i < 3 && b < len; i++, b += SMALL_PAGE) {
		n = add_span(s, n, len, b - SECTOR, 2 * SECTOR);
		n = add_span(s, n, len, b, SMALL_PAGE);
	}
	for (i = 0; i < 24; i++) {
		size_t off, l, maxl;

		rnd = rnd * 1103515245 + 12345;
		off = (rnd >> 4) % (len / SECTOR) * SECTOR;
		rnd = rnd * 1103515245 + 12345;
		maxl = len - off;
		if (maxl > HPAGE + HPAGE / 2)
			maxl = HPAGE + HPAGE / 2;
		l = ((rnd >> 4) % (maxl / SECTOR) + 1) * SECTOR;
		n = add_span(s, n, len, off, l);
	}
	return n;
}

/*
 * Write the pattern of @buf (registered as index @idx, @len bytes, which
 * must be a multiple of 512 and start 512-aligned) to the disk at @disk
 * with WRITE_FIXED in chunks of varying size, check the disk contents
 * with a plain O_DIRECT read, then read it back with READ_FIXED at many
 * offsets and lengths and compare every byte read plus a canary margin
 * around it.
 */
static inline void verify_buffer(struct io_uring *ring, int fd, int idx,
				 uint8_t *buf, size_t len, uint64_t disk,
				 uint32_t seed, const char *what)
{
	static const size_t chunks[] = {
		SECTOR, SMALL_PAGE - SECTOR, 65536, HPAGE + SECTOR,
		3 * SECTOR, HPAGE / 2, HPAGE, 7 * SMALL_PAGE,
	};
	struct span spans[MAX_SPANS];
	uint8_t *want, *bounce;
	size_t off, l, head = (uintptr_t)buf % HPAGE;
	int n, i, ret;
	char msg[160];

	if (len % SECTOR || (uintptr_t)buf % SECTOR)
		t_fail("%s: bad test buffer", what);
	want = malloc(len);
	if (!want || posix_memalign((void **)&bounce, SMALL_PAGE, len))
		t_fail("%s: out of memory", what);
	pattern_fill(want, len, seed);
	memcpy(buf, want, len);

	for (off = 0, i = 0; off < len; off += l, i++) {
		l = chunks[i % (sizeof(chunks) / sizeof(chunks[0]))];
		if (l > len - off)
			l = len - off;
		ret = fixed_rw(ring, 1, fd, buf + off, l, disk + off, idx);
		if (ret != (int)l)
			t_fail("%s: WRITE_FIXED off %zu len %zu: %d", what, off,
			       l, ret);
	}
	memset(bounce, 0, len);
	if (pread(fd, bounce, len, disk) != (ssize_t)len)
		t_fail("%s: pread: %s", what, strerror(errno));
	compare(bounce, want, len, what, 0);
	free(bounce);

	n = make_spans(spans, len, head);
	for (i = 0; i < n; i++) {
		size_t lo, hi;

		off = spans[i].off;
		l = spans[i].len;
		lo = off > MARGIN ? off - MARGIN : 0;
		hi = len - (off + l) > MARGIN ? off + l + MARGIN : len;
		memset(buf + lo, CANARY, hi - lo);
		ret = fixed_rw(ring, 0, fd, buf + off, l, disk + off, idx);
		if (ret != (int)l)
			t_fail("%s: READ_FIXED off %zu len %zu: %d", what, off,
			       l, ret);
		snprintf(msg, sizeof(msg), "%s: READ_FIXED off %zu len %zu",
			 what, off, l);
		compare(buf + off, want + off, l, msg, off);
		for (off = lo; off < hi; off++) {
			if (off >= spans[i].off &&
			    off < spans[i].off + spans[i].len)
				continue;
			if (buf[off] != CANARY)
				t_fail("%s: byte %zu outside the read changed",
				       msg, off);
		}
		memcpy(buf + lo, want + lo, hi - lo);
	}
	free(want);
}

/*
 * A cheaper check for loops: write the whole buffer with one WRITE_FIXED,
 * then read back the whole buffer, a span across the first huge page
 * boundary and the last sector, comparing every byte.
 */
static inline void quick_verify(struct io_uring *ring, int fd, int idx,
				uint8_t *buf, size_t len, uint64_t disk,
				uint32_t seed, const char *what)
{
	size_t b = HPAGE - (uintptr_t)buf % HPAGE;
	struct span spans[3] = {
		{ 0, len }, { b - SECTOR, 2 * SECTOR }, { len - SECTOR, SECTOR },
	};
	uint8_t *want = malloc(len);
	int i, ret;

	if (!want)
		t_fail("%s: out of memory", what);
	pattern_fill(want, len, seed);
	memcpy(buf, want, len);
	ret = fixed_rw(ring, 1, fd, buf, len, disk, idx);
	if (ret != (int)len)
		t_fail("%s: WRITE_FIXED len %zu: %d", what, len, ret);
	for (i = 0; i < 3; i++) {
		if (b + SECTOR > len && i == 1)
			continue;
		memset(buf, 0, len);
		ret = fixed_rw(ring, 0, fd, buf + spans[i].off, spans[i].len,
			       disk + spans[i].off, idx);
		if (ret != (int)spans[i].len)
			t_fail("%s: READ_FIXED off %zu len %zu: %d", what,
			       spans[i].off, spans[i].len, ret);
		compare(buf + spans[i].off, want + spans[i].off, spans[i].len,
			what, spans[i].off);
	}
	free(want);
}

/*
 * Accesses outside the registered range fail with -EFAULT, as
 * io_import_fixed() has always returned for them.
 */
static inline void verify_efault(struct io_uring *ring, int fd, int idx,
				 int nr_bufs, uint8_t *buf, size_t len,
				 const char *what)
{
	struct {
		int write;
		long off;
		size_t len;
	} bad[] = {
		{ 0, -(long)SECTOR, 2 * SECTOR },
		{ 0, -(long)SECTOR, SECTOR },
		{ 0, (long)len - (long)SECTOR, 2 * SECTOR },
		{ 0, (long)len, SECTOR },
		{ 0, 0, len + SECTOR },
		{ 1, (long)len - (long)SMALL_PAGE, 2 * SMALL_PAGE },
		{ 1, -(long)SMALL_PAGE, 2 * SMALL_PAGE },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = fixed_rw(ring, bad[i].write, fd, buf + bad[i].off,
			       bad[i].len, 0, idx);
		if (ret != -EFAULT)
			t_fail("%s: %s at %ld len %zu outside the buffer: %d, expected -EFAULT",
			       what, bad[i].write ? "WRITE_FIXED" : "READ_FIXED",
			       bad[i].off, bad[i].len, ret);
	}
	ret = fixed_rw(ring, 0, fd, buf, SECTOR, 0, nr_bufs);
	if (ret != -EFAULT)
		t_fail("%s: READ_FIXED with buffer index %d of %d: %d, expected -EFAULT",
		       what, nr_bufs, nr_bufs, ret);
}

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_HEAD_BIT	15
#define KPF_COMPOUND_TAIL_BIT	16
#define KPF_HUGE_BIT		17
#define KPF_THP_BIT		22

/* The /proc/self/pagemap entry of @addr (bit 63: present). */
static inline uint64_t pagemap_entry(const void *addr)
{
	uint64_t ent;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		t_skip("/proc/self/pagemap: %s", strerror(errno));
	if (pread(fd, &ent, 8, (uintptr_t)addr / SMALL_PAGE * 8) != 8)
		t_fail("pagemap read: %s", strerror(errno));
	close(fd);
	return ent;
}

static inline int page_present(const void *addr)
{
	return pagemap_entry(addr) >> 63;
}

/*
 * The page frame number of the page mapped at @addr, which must be
 * present.  Skips when the kernel does not show page frames (no
 * CONFIG_PROC_PAGE_MONITOR, or not allowed to read them).
 */
static inline uint64_t pfn_of(const void *addr)
{
	uint64_t ent = pagemap_entry(addr);

	if (!(ent >> 63))
		t_fail("page at %p is not present", addr);
	if (!(ent & ((1ULL << 55) - 1)))
		t_skip("pagemap shows no page frame numbers");
	return ent & ((1ULL << 55) - 1);
}

/* The /proc/kpageflags word of the page mapped at @addr (see pfn_of()). */
static inline uint64_t page_flags(const void *addr)
{
	uint64_t flags;
	int fd;

	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		t_skip("/proc/kpageflags: %s", strerror(errno));
	if (pread(fd, &flags, 8, pfn_of(addr) * 8) != 8)
		t_fail("kpageflags read: %s", strerror(errno));
	close(fd);
	return flags;
}

/* Number of the small pages in [@addr, @addr + @len) that are in a THP. */
static inline size_t thp_pages(const uint8_t *addr, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i += SMALL_PAGE)
		n += (page_flags(addr + i) >> KPF_THP_BIT) & 1;
	return n;
}

/* "AnonHugePages:" of the mapping that holds @addr, in kB, or -1. */
static inline long smaps_anon_huge_kb(const void *addr)
{
	char line[256];
	unsigned long lo, hi;
	int in = 0;
	long val = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && !strncmp(line, "AnonHugePages:", 14)) {
			val = strtol(line + 14, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/*
 * A regular file of @len bytes on the guest's tmpfs, for buffered I/O,
 * which takes any offset and length.
 */
static inline int tmpfile_open(size_t len)
{
	char path[] = "/tmp/iou-coalesce-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		t_fail("mkstemp: %s", strerror(errno));
	unlink(path);
	if (ftruncate(fd, len))
		t_fail("ftruncate: %s", strerror(errno));
	return fd;
}

/*
 * Buffered I/O at offsets and lengths that are not multiples of 512:
 * around every folio boundary of @buf (at @first bytes into it and every
 * @seg bytes from there), around small page boundaries and at odd places.  Each READ_FIXED reads pattern bytes from
 * the file into the buffer and must change exactly those bytes; each
 * WRITE_FIXED writes pattern bytes from the buffer into the file, which
 * pread() then checks.  @fd is a regular file of at least @len bytes.
 */
static inline void verify_buffered(struct io_uring *ring, int fd, int idx,
				   uint8_t *buf, size_t len, size_t first,
				   size_t seg, uint32_t seed, const char *what)
{
	static const long odd[] = { 1, 3, 511, 513, 4095, 4097, 12345 };
	size_t b, off, l;
	uint8_t *want, *got;
	char msg[160];
	long spans[256][2];
	int n = 0, i, j, ret;

	want = malloc(len);
	got = malloc(len);
	if (!want || !got)
		t_fail("%s: out of memory", what);
	pattern_fill(want, len, seed);
	if (pwrite(fd, want, len, 0) != (ssize_t)len)
		t_fail("%s: pwrite: %s", what, strerror(errno));

	spans[n][0] = 1; spans[n++][1] = (long)len - 2;
	spans[n][0] = 0; spans[n++][1] = (long)len;
	spans[n][0] = (long)len - 7; spans[n++][1] = 7;
	for (b = first; b < len && n < 200; b += seg) {
		for (j = 0; j < 7 && n < 200; j++) {
			spans[n][0] = (long)b - odd[j];
			spans[n++][1] = 2 * odd[j];
			spans[n][0] = (long)b - odd[j] + 1;
			spans[n++][1] = odd[(j + 3) % 7];
		}
		spans[n][0] = (long)b - (long)seg / 2 - 1;
		spans[n++][1] = (long)seg + 3;
	}
	b = SMALL_PAGE - (uintptr_t)buf % SMALL_PAGE;
	for (j = 0; j < 4 && b < len; j++, b += SMALL_PAGE) {
		spans[n][0] = (long)b - 3;
		spans[n++][1] = 5;
	}
	for (i = 0; i < n; i++) {
		long o = spans[i][0], ll = spans[i][1];
		size_t lo, hi;

		if (o < 0 || ll <= 0 || (size_t)(o + ll) > len)
			continue;
		off = o;
		l = ll;
		lo = off > MARGIN ? off - MARGIN : 0;
		hi = len - (off + l) > MARGIN ? off + l + MARGIN : len;

		snprintf(msg, sizeof(msg), "%s: buffered READ_FIXED off %zu len %zu",
			 what, off, l);
		memset(buf + lo, CANARY, hi - lo);
		ret = fixed_rw(ring, 0, fd, buf + off, l, off, idx);
		if (ret != (int)l)
			t_fail("%s: %d", msg, ret);
		compare(buf + off, want + off, l, msg, off);
		for (b = lo; b < hi; b++)
			if ((b < off || b >= off + l) && buf[b] != CANARY)
				t_fail("%s: byte %zu outside the read changed",
				       msg, b);

		snprintf(msg, sizeof(msg), "%s: buffered WRITE_FIXED off %zu len %zu",
			 what, off, l);
		pattern_fill(buf + off, l, seed + 1 + i);
		ret = fixed_rw(ring, 1, fd, buf + off, l, off, idx);
		if (ret != (int)l)
			t_fail("%s: %d", msg, ret);
		memcpy(want + off, buf + off, l);
		if (pread(fd, got + lo, hi - lo, lo) != (ssize_t)(hi - lo))
			t_fail("%s: pread: %s", msg, strerror(errno));
		compare(got + lo, want + lo, hi - lo, msg, lo);
	}
	free(want);
	free(got);
}

/* A counter of /proc/vmstat ("name value" lines), or -1. */
static inline long vmstat_value(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long v, val = -1;

	if (!f)
		t_fail("/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %ld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

/*
 * Pages pinned with FOLL_PIN in the whole system: nr_foll_pin_acquired
 * minus nr_foll_pin_released of /proc/vmstat, after vm.stat_refresh has
 * folded the per-cpu counts in.
 */
static inline long foll_pins(void)
{
	long acq, rel;

	write_long("/proc/sys/vm/stat_refresh", 1);
	acq = vmstat_value("nr_foll_pin_acquired");
	rel = vmstat_value("nr_foll_pin_released");
	if (acq < 0 || rel < 0)
		t_skip("no FOLL_PIN counters in /proc/vmstat");
	return acq - rel;
}

#define FAULT_DBG	"/sys/kernel/debug/"

static inline void fault_knob(const char *path, long val)
{
	if (write_long(path, val))
		t_skip("%s: %s (no fault injection in debugfs)", path,
		       strerror(errno));
}

/*
 * Fault injection by fail-nth: the Nth slab or page allocation of this
 * task fails (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC), sleeping,
 * highmem-capable and order-0 allocations included.  Skips without it.
 */
static inline void fault_setup(void)
{
	if (access("/proc/thread-self/fail-nth", W_OK))
		t_skip("no /proc/thread-self/fail-nth: %s", strerror(errno));
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	fault_knob(FAULT_DBG "failslab/ignore-gfp-wait", 0);
	fault_knob(FAULT_DBG "failslab/verbose", 0);
	fault_knob(FAULT_DBG "fail_page_alloc/ignore-gfp-wait", 0);
	fault_knob(FAULT_DBG "fail_page_alloc/ignore-gfp-highmem", 0);
	fault_knob(FAULT_DBG "fail_page_alloc/min-order", 0);
	fault_knob(FAULT_DBG "fail_page_alloc/verbose", 0);
}

/* Drop CAP_IPC_LOCK so that io_uring charges RLIMIT_MEMLOCK. */
static inline void drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		t_fail("capget: %s", strerror(errno));
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &=
		~CAP_TO_MASK(CAP_IPC_LOCK);
	if (syscall(SYS_capset, &hdr, data))
		t_fail("capset: %s", strerror(errno));
}

#endif /* IOU_COALESCE_H */
