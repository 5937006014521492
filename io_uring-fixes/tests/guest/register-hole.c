// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed buffer with a hole fails to register, and leaves nothing pinned,
 * wherever the hole lies against the batches the pinning walks in.
 *
 * io_pin_user_pages() ("pin a buffer in batches of the lockless page
 * walk") asks pin_user_pages_fast() for 64 pages at a time.  A batch that
 * meets a page it cannot pin returns the pages before it (a short count),
 * or an error when the page is the batch's first: the pages of the earlier
 * batches are pinned already, and must be returned as the count, or the
 * caller, which unpins what the count says, leaves them pinned.  Line
 * coverage (tools/linecov) showed that no test took that return.
 *
 * A buffer of 192 small pages, every one faulted in, has one page made
 * unpinnable for FOLL_WRITE | FOLL_LONGTERM: unmapped, or read-only, at
 * page 0 (the first batch's first), 63 (its last), 64 and 128 (a later
 * batch's first: the case above), 100 (inside a batch) and 191 (the
 * last).  Every registration must fail with -EFAULT, as one call over the
 * whole buffer fails on vanilla 7.3, with the system's FOLL_PIN count and
 * the task's VmPin back where they were.  The whole buffer, without a
 * hole, then registers and unregisters, pins back again.
 *
 * Exit 0 pass, 1 fail, 77 no io_uring or no FOLL_PIN counters.
 */
#include "../../../io_uring-coalesce/tests/guest/iou_coalesce.h"

#define NR_PAGES	192
#define LEN		(NR_PAGES * SMALL_PAGE)

static const int holes[] = { 0, 63, 64, 100, 128, NR_PAGES - 1 };
#define NR_HOLES	(sizeof(holes) / sizeof(holes[0]))

static uint8_t *buffer(void)
{
	uint8_t *buf = small_alloc(LEN);

	memset(buf, 0x5a, LEN);
	return buf;
}

/* Register @buf, expecting @want; pins and VmPin back where they were. */
static void try_register(struct io_uring *ring, uint8_t *buf, int want,
			 const char *what)
{
	struct iovec iov = { .iov_base = buf, .iov_len = LEN };
	long pins0 = foll_pins(), pin0 = vm_pin_kb();
	int ret;

	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret != want)
		t_fail("%s: register returned %s, expected %s", what,
		       ret ? strerror(-ret) : "success",
		       want ? strerror(-want) : "success");
	if (!ret) {
		ret = io_uring_unregister_buffers(ring);
		if (ret)
			t_fail("%s: unregister: %s", what, strerror(-ret));
	}
	if (foll_pins() != pins0)
		t_fail("%s: %ld pages left pinned", what, foll_pins() - pins0);
	if (vm_pin_kb() != pin0)
		t_fail("%s: VmPin %ld kB, expected %ld kB", what, vm_pin_kb(),
		       pin0);
}

int main(void)
{
	struct io_uring ring;
	char what[64];
	uint8_t *buf;
	unsigned int i;

	ring_init(&ring);
	foll_pins();	/* skips without the counters */

	for (i = 0; i < NR_HOLES; i++) {
		buf = buffer();
		if (munmap(buf + holes[i] * SMALL_PAGE, SMALL_PAGE))
			t_fail("munmap: %s", strerror(errno));
		snprintf(what, sizeof(what), "page %d unmapped", holes[i]);
		try_register(&ring, buf, -EFAULT, what);
		munmap(buf, LEN);

		buf = buffer();
		if (mprotect(buf + holes[i] * SMALL_PAGE, SMALL_PAGE,
			     PROT_READ))
			t_fail("mprotect: %s", strerror(errno));
		snprintf(what, sizeof(what), "page %d read-only", holes[i]);
		try_register(&ring, buf, -EFAULT, what);
		munmap(buf, LEN);
	}
	t_log("%zu holes, unmapped and read-only: -EFAULT, pins back",
	      NR_HOLES);

	buf = buffer();
	try_register(&ring, buf, 0, "no hole");
	munmap(buf, LEN);

	io_uring_queue_exit(&ring);
	return T_EXIT_PASS;
}
