// SPDX-License-Identifier: GPL-2.0
/*
 * Pin the huge zero page read-only: an anonymous THP range that was only
 * read maps the huge zero page (checked in /proc/kpageflags).  Pin it
 * through the GUP test interface with pin_user_pages() (no FOLL_WRITE),
 * plain and FOLL_LONGTERM, from its head and from the middle, 512 and 3
 * pages per call.  The kernel checks each page is dma-pinned; the test
 * checks the system's FOLL_PIN count is back after each call, the range
 * still reads zeros and still maps the huge zero page.  Skips when the
 * kernel does not use the huge zero page.
 */
#include "gup_helpers.h"

#define LEN	(2 * HPAGE)

int main(void)
{
	static const uint32_t per_call[] = { 3, 512 };
	static const size_t starts[] = { 0, HPAGE / 2 + 5 * SMALL_PAGE };
	struct gup_test gup;
	uint8_t *p;
	long pins0;
	size_t s, k, i;
	int fd, lt;

	fd = gup_test_open();
	if (read_long("/sys/kernel/mm/transparent_hugepage/use_zero_page") != 1)
		t_skip("huge zero page not in use");
	p = thp_alloc(LEN, 1);
	if (!((page_flags(p) >> KPF_ZERO_PAGE_BIT) & 1))
		t_skip("the read-only THP range does not map the huge zero page");
	pins0 = foll_pins();

	for (lt = 0; lt < 2; lt++)
	for (s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
	for (k = 0; k < sizeof(per_call) / sizeof(per_call[0]); k++) {
		memset(&gup, 0, sizeof(gup));
		gup.addr = (uintptr_t)p + starts[s];
		gup.size = LEN - starts[s];
		gup.nr_pages_per_call = per_call[k];
		if (ioctl(fd, lt ? PIN_LONGTERM_BENCHMARK : PIN_BASIC_TEST,
			  &gup))
			t_fail("%s of the huge zero page at +%zu, %u per call: %s",
			       lt ? "longterm pin" : "pin", starts[s],
			       per_call[k], strerror(errno));
		if (foll_pins() != pins0)
			t_fail("huge zero page: %ld pages left pinned",
			       foll_pins() - pins0);
	}
	for (i = 0; i < LEN; i++)
		if (p[i])
			t_fail("byte %zu of the huge zero page is %d", i, p[i]);
	if (!((page_flags(p + HPAGE) >> KPF_ZERO_PAGE_BIT) & 1))
		t_fail("the range no longer maps the huge zero page");
	close(fd);
	return T_EXIT_PASS;
}
