/* SPDX-License-Identifier: MIT */
/*
 * What the io_uring-coalesce benchmarks share: errors and skips, knobs
 * from the environment, sysctl files, and buffers of 2 MiB hugetlb
 * pages and of transparent huge pages, faulted in.
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

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(int code, const char *fmt, ...)
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

static long env_long(const char *name, long def, long min, long max)
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

static long read_long(const char *path)
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

static int write_long(const char *path, long val)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%ld\n", val);
	n = write(fd, buf, strlen(buf));
	close(fd);
	return n < 0 ? -1 : 0;
}

static void restore_hugepages(void)
{
	if (hp_old >= 0)
		write_long(NR_HUGEPAGES, hp_old);
	hp_old = -1;
}

/* Make sure @nr free 2 MiB huge pages exist; restored at exit. */
static void reserve_hugepages(long nr)
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
static char *huge_alloc(size_t size)
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

/* "AnonHugePages:" of /proc/meminfo in KiB, -1 if there is none. */
static long anon_huge_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * @size bytes of anonymous memory at a 2 MiB aligned address, asked to be
 * THPs (MADV_HUGEPAGE) and faulted in; *@map and *@map_len get the whole
 * mapping, for munmap().  NULL when the kernel gave fewer THPs than that.
 */
static char *thp_alloc(size_t size, char **map, size_t *map_len)
{
	long before = anon_huge_kib(), after;
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
	after = anon_huge_kib();
	if (after - before < (long)(size >> 10)) {
		printf("# only %ld of %zu KiB in THPs: THP figures left out\n",
		       after - before, size >> 10);
		munmap(r, *map_len);
		return NULL;
	}
	return p;
}

#endif
