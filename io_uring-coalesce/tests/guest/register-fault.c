// SPDX-License-Identifier: GPL-2.0
/*
 * Every failure of registration unpins what it pinned.  With fault
 * injection (fail-nth: the Nth slab or page allocation of this task
 * fails, CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC told through debugfs
 * to fail sleeping allocations too), a fixed buffer is registered with
 * the 1st, 2nd, 3rd... allocation failing, until registration gets
 * through without reaching the fault.  Buffers: four 2 MiB hugetlb pages
 * (one bvec per folio), two THPs, a THP mixed with small pages and small
 * pages only (one bvec per page).  After every failed try the system's
 * FOLL_PIN count and VmPin are back where they were; after a successful
 * one they are back once the buffer is unregistered; and the huge pages
 * are free again after munmap.  Skips without fault injection.
 */
#include "iou_coalesce.h"

#define MAX_TRIES	400

/* Returns the number of tries that failed at an injected fault. */
static int try_register(struct io_uring *ring, void *addr, size_t len,
			const char *what)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	long pins0 = foll_pins(), pin0 = vm_pin_kb(), left;
	int n, ret, failed = 0;

	for (n = 1; n <= MAX_TRIES; n++) {
		if (write_long("/proc/thread-self/fail-nth", n))
			t_fail("fail-nth: %s", strerror(errno));
		ret = io_uring_register_buffers(ring, &iov, 1);
		left = read_long("/proc/thread-self/fail-nth");
		write_long("/proc/thread-self/fail-nth", 0);
		if (!ret) {
			ret = io_uring_unregister_buffers(ring);
			if (ret)
				t_fail("%s: unregister: %s", what,
				       strerror(-ret));
		} else {
			failed++;
			if (ret != -ENOMEM && ret != -EFAULT && ret != -EAGAIN)
				t_fail("%s: fault %d: register returned %s",
				       what, n, strerror(-ret));
		}
		if (foll_pins() != pins0)
			t_fail("%s: %s with allocation %d failing: %ld pages still pinned",
			       what, ret ? "failed registration" : "registered and unregistered",
			       n, foll_pins() - pins0);
		if (vm_pin_kb() != pin0)
			t_fail("%s: allocation %d failing: VmPin %ld kB, expected %ld kB",
			       what, n, vm_pin_kb(), pin0);
		if (!ret && left > 0)
			break;
	}
	if (n > MAX_TRIES)
		t_fail("%s: still reaching a fault after %d tries", what,
		       MAX_TRIES);
	t_log("%s: %d allocations, %d failed registrations, pins back every time",
	      what, n - 1, failed);
	return failed;
}

int main(void)
{
	struct io_uring ring;
	long free0;
	uint8_t *hp, *a, *small;
	int failed = 0;

	fault_setup();
	free0 = hugepages_setup(4);
	hp = huge_alloc(4);
	a = reserve_aligned(64 << 10, 2 * HPAGE + (64 << 10));
	thp_map(a - (64 << 10), 2 * HPAGE + (128 << 10), a, 2 * HPAGE);
	if (posix_memalign((void **)&small, SMALL_PAGE, 256 << 10))
		t_fail("out of memory");
	memset(small, 1, 256 << 10);
	ring_init(&ring);

	failed += try_register(&ring, hp + SECTOR, 4 * HPAGE - 2 * SECTOR,
			       "hugetlb buffer");
	failed += try_register(&ring, a, 2 * HPAGE, "THP buffer");
	failed += try_register(&ring, a - (64 << 10), HPAGE + (128 << 10),
			       "THP and small pages");
	failed += try_register(&ring, small, 256 << 10, "small pages");
	if (!failed)
		t_fail("no registration failed: fault injection did not reach io_uring");

	io_uring_queue_exit(&ring);
	munmap(hp, 4 * HPAGE);
	expect_hugepages_free(free0, "after munmap");
	return T_EXIT_PASS;
}
