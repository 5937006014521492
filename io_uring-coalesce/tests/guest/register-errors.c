// SPDX-License-Identifier: GPL-2.0
/*
 * Registration fails with the error one pin_user_pages() over the whole
 * buffer gave, also where the lockless walk has pinned the first part of
 * it.  Fault injection (fail-nth, as in register-fault) fails the 1st,
 * 2nd, 3rd... allocation of a registration of 32 small pages whose first
 * 16 are faulted in:
 *
 * - fault: the other 16 are never touched (mapped afresh before every
 *   try).  Where the fault of one of them fails, the pin is short:
 *   -EFAULT, for the first of them too, since one call from the start of
 *   the buffer had pinned the pages before it.  Seen as a try that fails
 *   with none of them faulted in and returns -EFAULT, in one of up to
 *   three passes on one CPU (the count of allocations can shift).
 * - migration: the other 16 are faulted, afresh before every try, into a
 *   memory block onlined as ZONE_MOVABLE (memory hotplug; the first 16
 *   were faulted in before it existed), which a longterm pin moves out
 *   first.  Registration fails with -ENOMEM, never -EFAULT, also where
 *   the migration fails (seen as a try after which fewer, but not none,
 *   of those pages are in the block: the allocation for the next page
 *   failed).  Afresh, because a failing allocation may have a fallback
 *   (kvmalloc() falls back to vmalloc()) and a try can move them all.
 *
 * After every try the FOLL_PIN count and VmPin are back where they were.
 * The migration part skips (after the fault part passed) without memory
 * hotplug or a block that can be onlined movable.
 */
#include "iou_coalesce.h"
#include <dirent.h>
#include <sched.h>

#define HALF		(16 * SMALL_PAGE)
#define MAX_TRIES	400
#define MEMDIR		"/sys/devices/system/memory/"

static char block[128];
static uint64_t block_lo, block_hi;

/*
 * One registration of [@buf, @buf + 2 * HALF) with allocation @n failing.
 * Returns its result; *@reached tells whether the fault was injected.
 */
static int try_once(struct io_uring *ring, uint8_t *buf, int n, int *reached)
{
	struct iovec iov = { .iov_base = buf, .iov_len = 2 * HALF };
	long pins0 = foll_pins(), pin0 = vm_pin_kb();
	int ret, unreg;

	if (write_long("/proc/thread-self/fail-nth", n))
		t_fail("fail-nth: %s", strerror(errno));
	ret = io_uring_register_buffers(ring, &iov, 1);
	*reached = read_long("/proc/thread-self/fail-nth") <= 0;
	write_long("/proc/thread-self/fail-nth", 0);
	if (!ret) {
		unreg = io_uring_unregister_buffers(ring);
		if (unreg)
			t_fail("unregister: %s", strerror(-unreg));
	}
	if (foll_pins() != pins0)
		t_fail("allocation %d failing: %ld pages left pinned (register: %d)",
		       n, foll_pins() - pins0, ret);
	if (vm_pin_kb() != pin0)
		t_fail("allocation %d failing: VmPin %ld kB, expected %ld kB",
		       n, vm_pin_kb(), pin0);
	return ret;
}

static size_t present_pages(const uint8_t *p, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i += SMALL_PAGE)
		n += page_present(p + i);
	return n;
}

/*
 * One pass over the allocations of the registration; returns how many
 * tries failed -EFAULT in the fault of the first page not faulted in.
 */
static int fault_pass(struct io_uring *ring, uint8_t *buf, int pass)
{
	int n, ret, reached, first_efault = 0, efault = 0, enomem = 0;
	size_t faulted;

	for (n = 1; n <= MAX_TRIES; n++) {
		if (mmap(buf + HALF, HALF, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			t_fail("mmap: %s", strerror(errno));
		madvise(buf + HALF, HALF, MADV_NOHUGEPAGE);
		ret = try_once(ring, buf, n, &reached);
		faulted = present_pages(buf + HALF, HALF);
		if (!ret && !reached)
			break;
		if (ret == -EFAULT) {
			efault++;
			if (!faulted)
				first_efault++;
			if (faulted == HALF / SMALL_PAGE)
				t_fail("allocation %d failing: -EFAULT with every page faulted in",
				       n);
		} else if (ret == -ENOMEM) {
			enomem++;
		} else if (ret) {
			t_fail("allocation %d failing: register returned %s",
			       n, strerror(-ret));
		}
	}
	if (n > MAX_TRIES)
		t_fail("fault: still reaching a fault after %d tries",
		       MAX_TRIES);
	t_log("fault, pass %d: %d allocations: %d failed with -ENOMEM, %d with -EFAULT (%d in the fault of the first page not faulted in)",
	      pass, n - 1, enomem, efault, first_efault);
	return first_efault;
}

/*
 * fail-nth counts every allocation the task makes, a new slab page behind
 * a kmalloc too, so the place of the first page's fault in the count can
 * move by one from a try to the next and be skipped in a pass: up to three
 * passes, on one CPU.
 */
static void fault_part(struct io_uring *ring, uint8_t *buf)
{
	cpu_set_t one;
	int pass;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		t_fail("sched_setaffinity: %s", strerror(errno));
	for (pass = 1; pass <= 3; pass++)
		if (fault_pass(ring, buf, pass))
			return;
	t_fail("no try failed with -EFAULT in the fault of the first page the lockless walk left (one pin_user_pages() over the buffer returned a short count there)");
}

/* The first page frame past the block at @path's phys_index. */
static void block_range(const char *dir)
{
	char path[256];
	unsigned long bsz, idx;
	FILE *f;

	f = fopen(MEMDIR "block_size_bytes", "r");
	if (!f || fscanf(f, "%lx", &bsz) != 1)
		t_fail(MEMDIR "block_size_bytes");
	fclose(f);
	snprintf(path, sizeof(path), "%s/phys_index", dir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lx", &idx) != 1)
		t_fail("%s", path);
	fclose(f);
	block_lo = idx * (bsz / SMALL_PAGE);
	block_hi = block_lo + bsz / SMALL_PAGE;
}

static int write_state(const char *state)
{
	FILE *f = fopen(block, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(state, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

/* Back into a kernel zone; a block left movable would hold later tests. */
static void block_restore(void)
{
	int i;

	if (!block[0])
		return;
	for (i = 0; i < 50 && write_state("offline"); i++) {
		write_long("/proc/sys/vm/drop_caches", 3);
		usleep(100000);
	}
	if (write_state("online_kernel") && write_state("online"))
		t_log("memory block left offline: %s", strerror(errno));
	block[0] = 0;
}

/* Offline the highest block that allows it and online it ZONE_MOVABLE. */
static int block_movable(void)
{
	char dir[64];
	long top = -1, idx;
	struct dirent *e;
	DIR *d = opendir(MEMDIR);

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "memory%ld", &idx) == 1 && idx > top)
			top = idx;
	closedir(d);
	for (idx = top; idx > 0; idx--) {
		snprintf(dir, sizeof(dir), MEMDIR "memory%ld", idx);
		snprintf(block, sizeof(block), "%s/state", dir);
		if (write_state("offline"))
			continue;
		if (!write_state("online_movable")) {
			atexit(block_restore);
			block_range(dir);
			return 1;
		}
		write_state("online");
	}
	block[0] = 0;
	return 0;
}

static size_t in_block(const uint8_t *p, size_t len)
{
	size_t i, n = 0;
	uint64_t pfn;

	for (i = 0; i < len; i += SMALL_PAGE) {
		pfn = pfn_of(p + i);
		n += pfn >= block_lo && pfn < block_hi;
	}
	return n;
}

/* Map the second half afresh and fault it in (into the block). */
static size_t second_half_movable(uint8_t *buf)
{
	uint8_t *half = buf + HALF;

	if (mmap(half, HALF, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	madvise(half, HALF, MADV_NOHUGEPAGE);
	memset(half, 2, HALF);
	return in_block(half, HALF);
}

static void migration_part(struct io_uring *ring, uint8_t *buf)
{
	int n, ret, reached, mig_failed = 0, enomem = 0;
	size_t before, after;

	/* the first half is faulted in while there is no ZONE_MOVABLE */
	memset(buf, 1, HALF);
	if (!block_movable())
		t_skip("no memory block could be onlined movable (the fault part passed)");
	if (in_block(buf, HALF))
		t_fail("the first half is in the block onlined just now");
	if (!second_half_movable(buf))
		t_skip("the second half did not land in ZONE_MOVABLE (the fault part passed)");
	for (n = 1; n <= MAX_TRIES; n++) {
		before = second_half_movable(buf);
		if (!before)
			t_fail("migration: try %d: the second half did not land in ZONE_MOVABLE",
			       n);
		ret = try_once(ring, buf, n, &reached);
		after = in_block(buf + HALF, HALF);
		if (!ret && !reached)
			break;
		if (ret == -ENOMEM) {
			enomem++;
			/* some pages moved, then the allocation for the next failed */
			mig_failed += after < before && after;
		} else if (ret) {
			t_fail("migration: allocation %d failing: register returned %s, where one pin_user_pages() over the buffer returned the migration's -ENOMEM",
			       n, strerror(-ret));
		}
	}
	if (n > MAX_TRIES)
		t_fail("migration: still reaching a fault after %d tries",
		       MAX_TRIES);
	t_log("migration: %d allocations: %d failed with -ENOMEM, %d of them after the migration had moved some pages",
	      n - 1, enomem, mig_failed);
	if (!mig_failed)
		t_fail("no try failed in the migration out of ZONE_MOVABLE");
	if (in_block(buf, 2 * HALF))
		t_fail("pages still in ZONE_MOVABLE after a longterm pin");
	for (n = 0; n < (int)HALF; n++)
		if (buf[n] != 1 || buf[HALF + n] != 2)
			t_fail("the memory changed when it was moved (byte %d)",
			       n);
}

int main(void)
{
	struct io_uring ring;
	uint8_t *buf;

	fault_setup();
	buf = mmap(NULL, 2 * HALF, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	madvise(buf, 2 * HALF, MADV_NOHUGEPAGE);
	memset(buf, 1, HALF);
	ring_init(&ring);

	fault_part(&ring, buf);
	munmap(buf, 2 * HALF);

	buf = mmap(NULL, 2 * HALF, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));
	madvise(buf, 2 * HALF, MADV_NOHUGEPAGE);
	migration_part(&ring, buf);
	block_restore();

	io_uring_queue_exit(&ring);
	munmap(buf, 2 * HALF);
	return T_EXIT_PASS;
}
