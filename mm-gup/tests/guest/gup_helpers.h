/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the mm-gup guest tests: liburing-style exits (0 pass,
 * 1 fail, 77 skip), THP memory, page flags, FOLL_PIN counters and the
 * GUP test interface of CONFIG_GUP_TEST.
 */
#ifndef GUP_HELPERS_H
#define GUP_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

#define HPAGE		(2UL << 20)
#define SMALL_PAGE	4096UL

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_THP_BIT		22
#define KPF_ZERO_PAGE_BIT	24

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

static inline long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static inline int write_str(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

/* The value of a "name value" line of /proc/vmstat, or -1. */
static inline long vmstat(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char n[64];
	long v, val = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", n, &v) == 2) {
		if (!strcmp(n, name)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

/* Pages pinned with FOLL_PIN in the whole system, exact. */
static inline long foll_pins(void)
{
	long acq, rel;

	write_str("/proc/sys/vm/stat_refresh", "1");
	acq = vmstat("nr_foll_pin_acquired");
	rel = vmstat("nr_foll_pin_released");
	if (acq < 0 || rel < 0)
		t_skip("no FOLL_PIN counters in /proc/vmstat");
	return acq - rel;
}

/* The page frame number mapped at @addr (which must be present). */
static inline uint64_t pfn_of(const void *addr)
{
	uint64_t ent;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		t_skip("/proc/self/pagemap: %s", strerror(errno));
	if (pread(fd, &ent, 8, (uintptr_t)addr / SMALL_PAGE * 8) != 8)
		t_fail("pagemap: %s", strerror(errno));
	close(fd);
	if (!(ent >> 63))
		t_fail("page at %p is not present", addr);
	ent &= (1ULL << 55) - 1;
	if (!ent)
		t_skip("pagemap shows no page frame numbers");
	return ent;
}

static inline uint64_t page_flags(const void *addr)
{
	uint64_t flags;
	int fd = open("/proc/kpageflags", O_RDONLY);

	if (fd < 0)
		t_skip("/proc/kpageflags: %s", strerror(errno));
	if (pread(fd, &flags, 8, pfn_of(addr) * 8) != 8)
		t_fail("kpageflags: %s", strerror(errno));
	close(fd);
	return flags;
}

/* Number of small pages in [@addr, @addr + @len) that are in a THP. */
static inline size_t thp_pages(const uint8_t *addr, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i += SMALL_PAGE)
		n += (page_flags(addr + i) >> KPF_THP_BIT) & 1;
	return n;
}

/*
 * @len bytes of anonymous memory at a 2 MiB aligned address, asked to be
 * THPs; faulted in by writing unless @read_only, which maps the huge zero
 * page instead.  Skips unless every page is in a THP.
 */
static inline uint8_t *thp_alloc(size_t len, int read_only)
{
	uint8_t *r, *p;
	volatile uint8_t sink;
	size_t i;

	r = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	p = (uint8_t *)(((uintptr_t)r + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, len, MADV_HUGEPAGE))
		t_skip("MADV_HUGEPAGE: %s", strerror(errno));
	for (i = 0; i < len; i += HPAGE) {
		if (read_only)
			sink = p[i];
		else
			p[i] = 1;
	}
	(void)sink;
	if (thp_pages(p, len) != len / SMALL_PAGE)
		t_skip("the kernel did not give THPs (%zu of %zu pages)",
		       thp_pages(p, len), len / SMALL_PAGE);
	return p;
}

static inline void pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i += 8)
		*(uint64_t *)(p + i) = (i * 0x9e3779b97f4a7c15ULL) ^ seed;
}

/*
 * The GUP test interface of CONFIG_GUP_TEST (mm/gup_test.h of the base:
 * the ioctl numbers and the layout of struct gup_test).
 */
#define GUP_TEST_MAX_PAGES_TO_DUMP	8
struct gup_test {
	uint64_t get_delta_usec;
	uint64_t put_delta_usec;
	uint64_t addr;
	uint64_t size;
	uint32_t nr_pages_per_call;
	uint32_t gup_flags;
	uint32_t test_flags;
	uint32_t which_pages[GUP_TEST_MAX_PAGES_TO_DUMP];
};
#define PIN_FAST_BENCHMARK	_IOWR('g', 2, struct gup_test)
#define PIN_LONGTERM_BENCHMARK	_IOWR('g', 3, struct gup_test)
#define GUP_BASIC_TEST		_IOWR('g', 4, struct gup_test)
#define PIN_BASIC_TEST		_IOWR('g', 5, struct gup_test)
#define GUP_TEST_FLAG_DUMP_PAGES_USE_PIN	0x1

static inline int gup_test_open(void)
{
	int fd;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	fd = open("/sys/kernel/debug/gup_test", O_RDWR);
	if (fd < 0)
		t_skip("/sys/kernel/debug/gup_test: %s (CONFIG_GUP_TEST)",
		       strerror(errno));
	return fd;
}

#endif /* GUP_HELPERS_H */
