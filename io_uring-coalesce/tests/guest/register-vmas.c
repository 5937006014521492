// SPDX-License-Identifier: GPL-2.0
/*
 * What registration pins, and what it refuses, by the VMAs and page
 * tables behind a buffer:
 * - a buffer of small pages whose first part is faulted in for writing,
 *   whose middle is mapped read-only to the zero page (read, never
 *   written) and whose end was never touched: the lockless page table
 *   walk stops at the zero page and the regular walk pins the rest; every
 *   byte lands where it should;
 * - a buffer whose first part is faulted in and whose end is PROT_NONE:
 *   refused with -EFAULT, and the pins of the first part are dropped;
 * both with parts of 64 KiB and of 3 MiB: a part of 3 MiB, starting a
 * sector into a page, takes the lockless walk over a dozen of its batches
 * (of 64 pages on 6.1) and stops it inside one;
 * - one memfd mapped as two VMAs, not in file order: one file, accepted;
 * - anonymous memory followed by a memfd, and two memfds: before v6.5 a
 *   buffer spanning different files is refused with -EINVAL (since v6.5,
 *   34ed8d0dcd69, GUP checks the VMAs and such a buffer is taken);
 * - a file on ext2 (a ram disk), MAP_SHARED: refused, -EOPNOTSUPP before
 *   v6.5, -EFAULT from GUP since.
 * After every refusal the system's FOLL_PIN count and VmPin are where they
 * were.  The ext2 case is skipped without a ram disk or ext2.
 */
#include "iou_coalesce.h"
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#define PART	(64UL << 10)
#define BIG_PART	(3UL << 20)
#define MNT	"/tmp/register-vmas"

static int old_rules;

static void expect_register(struct io_uring *ring, void *addr, size_t len,
			   int old_err, int new_err, const char *what)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	long pins0 = foll_pins(), pin0 = vm_pin_kb();
	int want = old_rules ? old_err : new_err;
	int ret;

	ret = io_uring_register_buffers(ring, &iov, 1);
	if (!ret)
		io_uring_unregister_buffers(ring);
	if (ret != -want)
		t_fail("%s: register returned %d (%s), expected %s", what, ret,
		       ret ? strerror(-ret) : "taken",
		       want ? strerror(want) : "taken");
	if (foll_pins() != pins0)
		t_fail("%s: %ld FOLL_PIN pins left", what, foll_pins() - pins0);
	expect_pin(pin0, 0, what);
}

/* Register @len bytes at @addr, verify every byte through it, unregister. */
static void register_verify(struct io_uring *ring, int fd, uint8_t *addr,
			    size_t len, uint32_t seed, const char *what)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	int ret;

	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		t_fail("register %s: %s", what, strerror(-ret));
	verify_buffer(ring, fd, 0, addr, len, 0, seed, what);
	ret = io_uring_unregister_buffers(ring);
	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
}

/* Parts of @part bytes: faulted in for writing, read only, untouched. */
static void partly_faulted(struct io_uring *ring, int fd, size_t part)
{
	size_t len = 3 * part;
	volatile uint8_t sink;
	char what[64];
	uint8_t *a;
	size_t i;

	a = small_alloc(len);
	memset(a, 0x11, part);
	for (i = part; i < 2 * part; i += SMALL_PAGE)
		sink = a[i];
	(void)sink;

	snprintf(what, sizeof(what), "partly faulted buffer, parts of %zu KiB",
		 part >> 10);
	register_verify(ring, fd, a + SECTOR, len - 2 * SECTOR, 41, what);
	munmap(a, len);
}

/* A part of @part bytes faulted in, then one as large of PROT_NONE. */
static void faulted_then_hole(struct io_uring *ring, size_t part)
{
	char what[64];
	uint8_t *a;

	a = small_alloc(2 * part);
	memset(a, 0x44, part);
	if (mprotect(a + part, part, PROT_NONE))
		t_fail("mprotect: %s", strerror(errno));
	snprintf(what, sizeof(what), "%zu KiB faulted in, then PROT_NONE",
		 part >> 10);
	expect_register(ring, a + SECTOR, 2 * part - SECTOR, EFAULT, EFAULT,
			what);
	munmap(a, 2 * part);
}

/* A new memfd of @len bytes. */
static int memfd_of(size_t len)
{
	int mfd = memfd_create("register-vmas", 0);

	if (mfd < 0)
		t_fail("memfd_create: %s", strerror(errno));
	if (ftruncate(mfd, len))
		t_fail("ftruncate: %s", strerror(errno));
	return mfd;
}

static uint8_t *map_at(uint8_t *addr, size_t len, int mfd, off_t off)
{
	int flags = MAP_SHARED | MAP_FIXED;
	uint8_t *p;

	if (mfd < 0)
		flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	p = mmap(addr, len, PROT_READ | PROT_WRITE, flags, mfd, off);
	if (p != addr)
		t_fail("mmap at %p: %s", (void *)addr, strerror(errno));
	memset(p, 0x22, len);
	return p;
}

static void file_rules(struct io_uring *ring, int fd)
{
	int m1 = memfd_of(2 * PART), m2 = memfd_of(PART);
	uint8_t *a;

	a = mmap(NULL, 2 * PART, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (a == MAP_FAILED)
		t_fail("mmap: %s", strerror(errno));

	/* one file in two VMAs, the second half of the file first */
	map_at(a, PART, m1, PART);
	map_at(a + PART, PART, m1, 0);
	register_verify(ring, fd, a + 3 * SECTOR, 2 * PART - 5 * SECTOR, 42,
			"one memfd in two VMAs");

	/* anonymous memory, then a memfd */
	map_at(a, PART, -1, 0);
	expect_register(ring, a + SECTOR, 2 * PART - SECTOR, EINVAL, 0,
		       "anonymous memory, then a memfd");

	/* two memfds */
	map_at(a, PART, m2, 0);
	expect_register(ring, a, 2 * PART, EINVAL, 0, "two memfds");

	munmap(a, 2 * PART);
	close(m1);
	close(m2);
}

static void ext2_file(struct io_uring *ring)
{
	uint8_t *a;
	int ffd;

	if (access("/dev/ram0", R_OK | W_OK) ||
	    system("mke2fs -q /dev/ram0 >/dev/null 2>&1")) {
		t_log("ext2 file: skipped, no /dev/ram0 or mke2fs");
		return;
	}
	mkdir(MNT, 0755);
	if (mount("/dev/ram0", MNT, "ext2", 0, NULL)) {
		t_log("ext2 file: skipped, mount: %s", strerror(errno));
		return;
	}
	ffd = open(MNT "/buf", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (ffd < 0 || ftruncate(ffd, PART))
		t_fail("ext2 file: %s", strerror(errno));
	a = mmap(NULL, PART, PROT_READ | PROT_WRITE, MAP_SHARED, ffd, 0);
	if (a == MAP_FAILED)
		t_fail("mmap ext2 file: %s", strerror(errno));
	memset(a, 0x33, PART);
	expect_register(ring, a, PART, EOPNOTSUPP, EFAULT, "ext2 file");
	munmap(a, PART);
	close(ffd);
	umount(MNT);
}

int main(void)
{
	struct io_uring ring;
	struct utsname u;
	int fd, major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		t_fail("uname");
	old_rules = major < 6 || (major == 6 && minor < 5);
	fd = nvme_open(64UL << 20);
	ring_init(&ring);

	partly_faulted(&ring, fd, PART);
	partly_faulted(&ring, fd, BIG_PART);
	faulted_then_hole(&ring, PART);
	faulted_then_hole(&ring, BIG_PART);
	file_rules(&ring, fd);
	ext2_file(&ring);

	io_uring_queue_exit(&ring);
	close(fd);
	return T_EXIT_PASS;
}
