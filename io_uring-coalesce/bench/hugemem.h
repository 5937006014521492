/* SPDX-License-Identifier: MIT */
/*
 * What the io_uring-coalesce benchmarks share: errors and skips, the
 * clock, knobs from the environment, sysctl and /proc/meminfo figures,
 * and buffers of 2 MiB hugetlb pages and of transparent huge pages,
 * faulted in.
 */
#ifndef IOU_BENCH_HUGEMEM_H
#define IOU_BENCH_HUGEMEM_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

#define MIB		(1024UL * 1024UL)
#define HPAGE		(2 * MIB)
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"
#define FREE_HUGEPAGES	\
	"/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

static long hp_old = -1;

/*
 * A getppid() around each timed call: under tools/bench --profile each
 * one closes a window of the instruction profile (tools/plugin).
 */
static inline void profile_mark(void)
{
	(void)getppid();
}

static inline void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static inline void die(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(code == T_EXIT_SKIP ? "skip: " : "error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static inline long env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max)
		die(T_EXIT_FAIL, "%s=%s: want %ld..%ld", name, s, min, max);
	return v;
}

static inline long read_long(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static inline int write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -1 : 0;
}

static inline int write_long(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", val);
	return write_str(path, buf);
}

static inline void restore_hugepages(void)
{
	if (hp_old >= 0)
		write_long(NR_HUGEPAGES, hp_old);
	hp_old = -1;
}

/* Make sure @nr free 2 MiB huge pages exist; restored at exit. */
static inline void reserve_hugepages(long nr)
{
	long old = read_long(NR_HUGEPAGES), freenr = read_long(FREE_HUGEPAGES);

	if (old < 0 || freenr < 0)
		die(T_EXIT_SKIP, "no 2 MiB hugetlb pages (%s, %s)",
		    NR_HUGEPAGES, FREE_HUGEPAGES);
	if (freenr >= nr)
		return;
	hp_old = old;
	atexit(restore_hugepages);
	if (write_long(NR_HUGEPAGES, old + nr - freenr))
		die(T_EXIT_FAIL, "writing %s: %s", NR_HUGEPAGES,
		    strerror(errno));
	freenr = read_long(FREE_HUGEPAGES);
	if (freenr < nr)
		die(T_EXIT_FAIL, "only %ld of %ld huge pages could be reserved",
		    freenr, nr);
}

/* @size bytes of hugetlb memory, faulted in. */
static inline char *huge_alloc(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		die(T_EXIT_FAIL, "hugetlb mmap of %zu bytes: %s", size,
		    strerror(errno));
	for (i = 0; i < size; i += HPAGE)
		p[i] = 1;
	return p;
}

/* The @field line of /proc/meminfo in KiB, -1 if there is none. */
static inline long meminfo_kib(const char *field)
{
	size_t len = strlen(field);
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * @size bytes of anonymous memory at a 2 MiB aligned address, asked to be
 * THPs (MADV_HUGEPAGE) and faulted in; *@map and *@map_len get the whole
 * mapping, for munmap().  NULL when the kernel gave fewer THPs than that.
 */
static inline char *thp_alloc(size_t size, char **map, size_t *map_len)
{
	long before = meminfo_kib("AnonHugePages"), after;
	char *r, *p;
	size_t i;

	*map_len = size + HPAGE;
	r = mmap(NULL, *map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		die(T_EXIT_FAIL, "mmap of %zu bytes: %s", size,
		    strerror(errno));
	*map = r;
	p = (char *)(((uintptr_t)r + HPAGE - 1) & ~(HPAGE - 1));
	if (before < 0 || madvise(p, size, MADV_HUGEPAGE)) {
		printf("# no THP: %s\n", before < 0 ?
		       "no AnonHugePages in /proc/meminfo" : strerror(errno));
		munmap(r, *map_len);
		return NULL;
	}
	for (i = 0; i < size; i += 4096)
		p[i] = 1;
	after = meminfo_kib("AnonHugePages");
	if (after - before < (long)(size >> 10)) {
		printf("# only %ld of %zu KiB in THPs: THP figures left out\n",
		       after - before, size >> 10);
		munmap(r, *map_len);
		return NULL;
	}
	return p;
}

#endif
