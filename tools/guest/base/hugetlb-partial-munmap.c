/* SPDX-License-Identifier: MIT */
/*
 * Base problem reproducer: munmap() of one huge page of a two-page
 * MAP_HUGETLB mapping splits the hugetlb VMA.  On Debian 6.1.192 with
 * lockdep this warns in hugetlb_split(), which __vma_adjust() calls
 * before it takes the i_mmap lock that i_mmap_assert_write_locked()
 * asserts, on the vanilla and the patched kernel alike.
 *
 * Not run by make check (the debug kernel of 6.1 would report it); run
 * it with make vanilla-check BASE=6.1 TEST=base-hugetlb-partial-munmap.
 * The program passes when the kernel does what it should (the kept half
 * stays mapped with its contents, the other half is gone); the report is
 * what the console log shows.  Exit codes as liburing's tests: 0 pass,
 * 1 fail, 77 skip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77
#define HPAGE		(2UL * 1024 * 1024)
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB	0x40000
#endif

static long read_long(const char *path)
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

static int write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok;
}

/* Map two huge pages, touch both, unmap the second (or the first). */
static int split_one(int flags, int keep_first)
{
	char *p, *keep, *gone;

	p = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
		 flags | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap of 2 huge pages: %s\n", strerror(errno));
		return errno == ENOMEM ? T_EXIT_SKIP : T_EXIT_FAIL;
	}
	memset(p, 0x5a, 2 * HPAGE);
	keep = keep_first ? p : p + HPAGE;
	gone = keep_first ? p + HPAGE : p;
	if (munmap(gone, HPAGE)) {
		fprintf(stderr, "munmap of one huge page: %s\n", strerror(errno));
		return T_EXIT_FAIL;
	}
	if (keep[0] != 0x5a || keep[HPAGE - 1] != 0x5a) {
		fprintf(stderr, "the kept huge page lost its contents\n");
		return T_EXIT_FAIL;
	}
	/* The unmapped half is gone: mapping it again at its address works. */
	if (mmap(gone, HPAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0) != gone) {
		fprintf(stderr, "the unmapped half is still mapped: %s\n",
			strerror(errno));
		return T_EXIT_FAIL;
	}
	munmap(gone, HPAGE);
	munmap(keep, HPAGE);
	return T_EXIT_PASS;
}

int main(void)
{
	static const struct {
		const char *what;
		int flags, keep_first;
	} cases[] = {
		{ "private, keep the first", MAP_PRIVATE, 1 },
		{ "private, keep the second", MAP_PRIVATE, 0 },
		{ "shared, keep the first", MAP_SHARED, 1 },
		{ "shared, keep the second", MAP_SHARED, 0 },
	};
	long before = read_long(NR_HUGEPAGES);
	int ret = T_EXIT_PASS;
	size_t i;

	if (before < 0)
		return T_EXIT_SKIP;
	if (before < 2 && !write_long(NR_HUGEPAGES, 2)) {
		fprintf(stderr, "cannot reserve 2 huge pages\n");
		return T_EXIT_SKIP;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = split_one(cases[i].flags, cases[i].keep_first);

		printf("%s: %s\n", cases[i].what,
		       r == T_EXIT_PASS ? "ok" : r == T_EXIT_SKIP ? "skip" : "FAIL");
		if (r == T_EXIT_FAIL || (r == T_EXIT_SKIP && ret == T_EXIT_PASS))
			ret = r;
	}
	if (before < 2)
		write_long(NR_HUGEPAGES, before);
	return ret;
}
