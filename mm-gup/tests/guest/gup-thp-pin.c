// SPDX-License-Identifier: GPL-2.0
/*
 * Pin THPs through the GUP test interface (/sys/kernel/debug/gup_test),
 * which calls pin_user_pages() and get_user_pages() with a page array
 * and no vmas: the path that fills the subpages of a PMD-mapped THP in
 * one step.  Calls start at the head, in the middle and at the last
 * subpage of a THP, take 1, 3, 511, 512, 513 and 1024 pages per call,
 * with and without FOLL_WRITE and FOLL_LONGTERM, over two THPs and a
 * small page behind them.  The kernel checks every pinned page is
 * dma-pinned (and longterm-pinnable) and warns otherwise; the test
 * checks the system's FOLL_PIN count is back after each call and the
 * memory still holds what was written.
 */
#include "gup_helpers.h"

#define LEN	(2 * HPAGE)

int main(void)
{
	static const uint32_t per_call[] = { 1, 3, 511, 512, 513, 1024 };
	static const size_t starts[] = { 0, HPAGE / 2 + SMALL_PAGE,
					 HPAGE - SMALL_PAGE, HPAGE };
	static const struct {
		unsigned long cmd;
		const char *name;
	} cmds[] = {
		{ PIN_BASIC_TEST, "PIN_BASIC_TEST" },
		{ PIN_LONGTERM_BENCHMARK, "PIN_LONGTERM_BENCHMARK" },
		{ GUP_BASIC_TEST, "GUP_BASIC_TEST" },
	};
	struct gup_test gup;
	uint8_t *p, *copy;
	long pins0;
	size_t c, s, k, w, calls = 0;
	int fd;

	fd = gup_test_open();
	p = thp_alloc(LEN, 0);
	pattern(p, LEN, 1);
	copy = malloc(LEN);
	if (!copy)
		t_fail("out of memory");
	memcpy(copy, p, LEN);
	pins0 = foll_pins();

	for (c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
	for (s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
	for (k = 0; k < sizeof(per_call) / sizeof(per_call[0]); k++)
	for (w = 0; w < 2; w++) {
		memset(&gup, 0, sizeof(gup));
		gup.addr = (uintptr_t)p + starts[s];
		gup.size = LEN - starts[s];
		gup.nr_pages_per_call = per_call[k];
		gup.gup_flags = w ? 0x01 /* FOLL_WRITE */ : 0;
		if (ioctl(fd, cmds[c].cmd, &gup))
			t_fail("%s at +%zu, %u pages per call%s: %s",
			       cmds[c].name, starts[s], per_call[k],
			       w ? ", FOLL_WRITE" : "", strerror(errno));
		if (foll_pins() != pins0)
			t_fail("%s at +%zu, %u pages per call: %ld pages left pinned",
			       cmds[c].name, starts[s], per_call[k],
			       foll_pins() - pins0);
		calls++;
	}
	if (memcmp(p, copy, LEN))
		t_fail("the THPs changed while pinned and unpinned");
	if (thp_pages(p, LEN) != LEN / SMALL_PAGE)
		t_fail("the THPs were split by pinning");
	t_log("%zu pin and get calls over two THPs, pins back every time",
	      calls);
	close(fd);
	return T_EXIT_PASS;
}
