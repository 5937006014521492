// SPDX-License-Identifier: GPL-2.0
/*
 * A huge page that something else holds pinned is charged exactly as
 * vanilla 6.1 charges it: the shortcut that skips the search for an
 * earlier charge of a huge page applies only when the entry's own pin is
 * the folio's one pin.  Each ring charges the huge pages of its buffers
 * once, whoever else pins them:
 *
 * - two rings of one process register the same four hugetlb pages: each
 *   charges 8 MiB to VmPin;
 * - the same with four PMD-mapped THPs;
 * - a forked child's ring holds a buffer on four pages of a shared
 *   MFD_HUGETLB memfd; the parent's ring, registering the same pages,
 *   charges all of them;
 * - with CAP_IPC_LOCK dropped and RLIMIT_MEMLOCK of 8 MiB, a second ring
 *   registering the huge pages the first ring holds fails with -ENOMEM,
 *   and succeeds once the limit is 16 MiB.
 *
 * Everything is released at the end: VmPin and the free huge pages back.
 */
#include "iou_coalesce.h"

#define NHP	4
#define LEN	(NHP * HPAGE)

/* Register @p as one buffer in @ring; VmPin must grow by @charge_kb. */
static void register_charged(struct io_uring *ring, uint8_t *p,
			     long charge_kb, const char *what)
{
	struct iovec iov = { .iov_base = p, .iov_len = LEN };
	long pin0 = vm_pin_kb();
	int ret;

	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		t_fail("%s: register: %s", what, strerror(-ret));
	expect_pin(pin0, charge_kb, what);
}

static void unregister(struct io_uring *ring, const char *what)
{
	int ret = io_uring_unregister_buffers(ring);

	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
}

/* Two rings of this process on the same huge pages at @p. */
static void two_rings(uint8_t *p, const char *what)
{
	struct io_uring a, b;
	long pin0 = vm_pin_kb();
	char w[96];

	ring_init(&a);
	ring_init(&b);
	snprintf(w, sizeof(w), "%s, first ring", what);
	register_charged(&a, p, LEN >> 10, w);
	snprintf(w, sizeof(w), "%s, second ring, pages pinned by the first",
		 what);
	register_charged(&b, p, LEN >> 10, w);
	unregister(&a, what);
	expect_pin(pin0, LEN >> 10, "the first ring's buffer unregistered");
	unregister(&b, what);
	expect_pin(pin0, 0, "both rings' buffers unregistered");
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
}

/*
 * A child's ring pins the memfd's pages at @p (a shared mapping both
 * processes have) while the parent registers them.
 */
static void pinned_by_child(uint8_t *p)
{
	int go[2], ready[2], status;
	struct io_uring ring;
	char c = 0;
	pid_t pid;

	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid) {
		struct iovec iov = { .iov_base = p, .iov_len = LEN };

		ring_init(&ring);
		if (io_uring_register_buffers(&ring, &iov, 1))
			_exit(T_EXIT_FAIL);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(T_EXIT_FAIL);
		io_uring_unregister_buffers(&ring);
		io_uring_queue_exit(&ring);
		_exit(T_EXIT_PASS);
	}
	if (read(ready[0], &c, 1) != 1)
		t_fail("the child could not register the memfd's huge pages");
	ring_init(&ring);
	register_charged(&ring, p, LEN >> 10,
			 "memfd huge pages a child's ring holds");
	unregister(&ring, "memfd");
	io_uring_queue_exit(&ring);
	if (write(go[1], &c, 1) != 1 || waitpid(pid, &status, 0) != pid)
		t_fail("child: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != T_EXIT_PASS)
		t_fail("child failed (status 0x%x)", status);
}

/*
 * In a child, so that the parent keeps CAP_IPC_LOCK and its limit.  The
 * child maps its own huge pages rather than write-faulting copies of the
 * parent's private ones.
 */
static void rlimit_child(void)
{
	struct rlimit rl = { LEN, 2 * LEN };
	uint8_t *p = huge_alloc(NHP);
	struct iovec iov = { .iov_base = p, .iov_len = LEN };
	struct io_uring a, b;
	int ret;

	drop_cap_ipc_lock();
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		t_fail("setrlimit: %s", strerror(errno));
	ring_init(&a);
	ring_init(&b);
	ret = io_uring_register_buffers(&a, &iov, 1);
	if (ret)
		t_fail("8 MiB of huge pages under an 8 MiB limit: %s",
		       strerror(-ret));
	ret = io_uring_register_buffers(&b, &iov, 1);
	if (ret != -ENOMEM)
		t_fail("a second ring on the first ring's 8 MiB under an 8 MiB limit: %d, expected -ENOMEM",
		       ret);
	rl.rlim_cur = 2 * LEN;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		t_fail("setrlimit: %s", strerror(errno));
	ret = io_uring_register_buffers(&b, &iov, 1);
	if (ret)
		t_fail("a second ring on the first ring's 8 MiB under a 16 MiB limit: %s",
		       strerror(-ret));
	unregister(&a, "rlimit");
	unregister(&b, "rlimit");
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
	munmap(p, LEN);
	exit(T_EXIT_PASS);
}

int main(void)
{
	long free0, pin0;
	uint8_t *hp, *thp, *mp;
	int mfd, status;
	size_t i;
	pid_t pid;

	free0 = hugepages_setup(2 * NHP);
	pin0 = vm_pin_kb();

	hp = huge_alloc(NHP);
	two_rings(hp, "hugetlb");
	munmap(hp, LEN);

	mfd = memfd_create("pinned-elsewhere", MFD_HUGETLB);
	if (mfd < 0)
		t_skip("memfd_create(MFD_HUGETLB): %s", strerror(errno));
	if (ftruncate(mfd, LEN))
		t_fail("ftruncate: %s", strerror(errno));
	mp = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (mp == MAP_FAILED)
		t_fail("mmap memfd: %s", strerror(errno));
	for (i = 0; i < LEN; i += SMALL_PAGE)
		mp[i] = 1;
	pinned_by_child(mp);
	munmap(mp, LEN);
	close(mfd);

	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid)
		rlimit_child();
	if (waitpid(pid, &status, 0) != pid)
		t_fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != T_EXIT_PASS)
		t_fail("memlock limit child failed (status 0x%x)", status);
	expect_pin(pin0, 0, "hugetlb cases done");
	expect_hugepages_free(free0, "pinned elsewhere");

	/* last: thp_map() skips the whole test where THPs are not used */
	thp = reserve_aligned(0, LEN);
	thp_map(thp, LEN, thp, LEN);
	two_rings(thp, "THP");
	munmap(thp, LEN);
	expect_pin(pin0, 0, "everything unregistered");
	return T_EXIT_PASS;
}
