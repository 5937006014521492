// SPDX-License-Identifier: GPL-2.0
/*
 * Which page lands in which slot: pin 1024 pages of THPs and of hugetlb
 * pages through the GUP test interface (DUMP_USER_PAGES_TEST, with
 * pin_user_pages() and with get_user_pages(), no vmas), 512 pages per
 * call, starting in the middle of the first huge page, so that calls fill
 * from a head page and from a middle subpage and stop in the middle of
 * one.  The kernel dumps eight slots of the array (dump_page()); each
 * dumped pfn must be the pfn /proc/self/pagemap gave for that address
 * before the pin: the first and the last slot each fill wrote (the slot
 * after the one follow_page_mask() returned, and the slot before the next
 * huge page or the call's end), and the last one.  An array that holds a
 * wrong subpage of the right folio keeps every reference count balanced,
 * so only this catches it.  The THPs must be PMD-mapped (AnonHugePages),
 * else the fill never runs.  The FOLL_PIN count must be back after each
 * call, and the hugetlb pool is restored however the test ends.
 */
#include "gup_helpers.h"

#define DUMP_USER_PAGES_TEST	_IOWR('g', 6, struct gup_test)
#define NR			1024	/* pages pinned per ioctl */
#define START			(HPAGE / 2)	/* subpage 256 of the first */

/*
 * 1-based slots of the page array that the kernel dumps: 0-based 1 and
 * 255 (the fill after subpage 256 of the first huge page), 257 and 511
 * (the fill after the second one's head, cut by the end of the call),
 * 513 and 767 (the second call's fill from the middle), 769 and 1023 (the
 * fill after the third one's head).
 */
static const uint32_t slots[GUP_TEST_MAX_PAGES_TO_DUMP] = {
	2, 256, 258, 512, 514, 768, 770, 1024,
};

static long huge0 = -1;

static void restore_pool(void)
{
	char buf[32];

	if (huge0 < 0)
		return;
	snprintf(buf, sizeof(buf), "%ld", huge0);
	if (write_str("/proc/sys/vm/nr_hugepages", buf))
		fprintf(stderr, "gup-pin-slots: cannot restore nr_hugepages to %ld\n",
			huge0);
}

/*
 * Read the kernel log from @fd (positioned before the ioctl) into
 * @pfns[slot - 1]: "---- page #N, ..." then dump_page()'s "page:... pfn:X".
 */
static void read_dumps(int fd, uint64_t *pfns)
{
	char rec[1024], *msg, *s;
	long slot = -1;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			t_fail("/dev/kmsg: %s", n ? strerror(errno) : "EOF");
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		if (!strncmp(msg, "---- page #", 11)) {
			slot = strtol(msg + 11, NULL, 10);
			continue;
		}
		s = strstr(msg, " pfn:0x");
		if (!strncmp(msg, "page:", 5) && s && slot >= 0 && slot < NR) {
			pfns[slot] = strtoull(s + 7, NULL, 16);
			slot = -1;
		}
	}
}

static void check(int gupfd, uint8_t *p, const char *what, int pin)
{
	uint64_t pfns[NR], want[GUP_TEST_MAX_PAGES_TO_DUMP];
	struct gup_test gup;
	long pins0 = foll_pins();
	size_t i;
	int kmsg;

	for (i = 0; i < GUP_TEST_MAX_PAGES_TO_DUMP; i++)
		want[i] = pfn_of(p + START + (slots[i] - 1) * SMALL_PAGE);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		t_skip("/dev/kmsg: %s", strerror(errno));
	lseek(kmsg, 0, SEEK_END);

	memset(&gup, 0, sizeof(gup));
	gup.addr = (uintptr_t)p + START;
	gup.size = NR * SMALL_PAGE;
	gup.nr_pages_per_call = 512;
	gup.gup_flags = 0x01;	/* FOLL_WRITE */
	gup.test_flags = pin ? GUP_TEST_FLAG_DUMP_PAGES_USE_PIN : 0;
	memcpy(gup.which_pages, slots, sizeof(slots));
	if (ioctl(gupfd, DUMP_USER_PAGES_TEST, &gup))
		t_fail("%s: DUMP_USER_PAGES_TEST (%s): %s", what,
		       pin ? "pin" : "get", strerror(errno));
	memset(pfns, 0, sizeof(pfns));
	read_dumps(kmsg, pfns);
	close(kmsg);

	for (i = 0; i < GUP_TEST_MAX_PAGES_TO_DUMP; i++) {
		uint32_t slot = slots[i] - 1;

		if (!pfns[slot])
			t_fail("%s (%s): slot %u was not dumped", what,
			       pin ? "pin" : "get", slot);
		if (pfns[slot] != want[i])
			t_fail("%s (%s): slot %u holds pfn %#llx, the address maps %#llx",
			       what, pin ? "pin" : "get", slot,
			       (unsigned long long)pfns[slot],
			       (unsigned long long)want[i]);
	}
	if (foll_pins() != pins0)
		t_fail("%s (%s): %ld pages left pinned", what,
		       pin ? "pin" : "get", foll_pins() - pins0);
}

static uint8_t *hugetlb_alloc(size_t len)
{
	uint8_t *r, *p;
	size_t i;

	r = mmap(NULL, len + HPAGE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	p = (uint8_t *)(((uintptr_t)r + HPAGE - 1) & ~(HPAGE - 1));
	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return NULL;
	for (i = 0; i < len; i += HPAGE)
		p[i] = 1;
	return p;
}

int main(void)
{
	const char *nr_huge = "/proc/sys/vm/nr_hugepages";
	const size_t len = 3 * HPAGE;
	long anon_huge_kb;
	uint8_t *p;
	char buf[32];
	int fd;

	fd = gup_test_open();
	p = thp_alloc(len, 0);
	pattern(p, len, 2);
	anon_huge_kb = 0;
	{
		FILE *f = fopen("/proc/self/smaps_rollup", "r");
		char line[128];

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "AnonHugePages: %ld", &anon_huge_kb) == 1)
				break;
		if (f)
			fclose(f);
	}
	if (anon_huge_kb < (long)(len >> 10))
		t_skip("the THPs are not PMD-mapped (AnonHugePages %ld kB)",
		       anon_huge_kb);
	check(fd, p, "THP", 1);
	check(fd, p, "THP", 0);
	if (thp_pages(p, len) != len / SMALL_PAGE)
		t_fail("the THPs were split by pinning");
	munmap(p, len);

	if (read_long(nr_huge) < 0)
		t_skip("no %s (CONFIG_HUGETLBFS)", nr_huge);
	huge0 = read_long(nr_huge);
	atexit(restore_pool);
	snprintf(buf, sizeof(buf), "%ld", huge0 + 3);
	if (write_str(nr_huge, buf) || read_long(nr_huge) < huge0 + 3)
		t_fail("hugetlb: cannot reserve 3 huge pages");
	p = hugetlb_alloc(len);
	if (!p)
		t_fail("hugetlb mmap: %s", strerror(errno));
	pattern(p, len, 3);
	check(fd, p, "hugetlb", 1);
	check(fd, p, "hugetlb", 0);
	munmap(p, len);
	t_log("slots of THP and hugetlb pins hold the pages their addresses map");
	close(fd);
	return T_EXIT_PASS;
}
