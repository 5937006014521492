// SPDX-License-Identifier: GPL-2.0
/*
 * The same 2 MiB huge page inside several fixed buffers: overlapping
 * buffers [0, 1.5M), [0.5M, 2M) and [0, 2M) of one huge page registered
 * together, and the same two buffers installed one at a time with
 * buffer updates into a sparse table.  The data is right through each
 * buffer, the huge page is charged to VmPin once in both cases, and with
 * CAP_IPC_LOCK dropped the charge against RLIMIT_MEMLOCK is also once: a
 * 3 MiB limit admits the three buffers but not a buffer of two huge
 * pages, which fails with -ENOMEM.  Everything is released at the end.
 */
#include "iou_coalesce.h"

/*
 * In a child, so that the parent keeps CAP_IPC_LOCK and its limit.  The
 * child maps its own huge pages rather than write-faulting copies of the
 * parent's private ones.
 */
static void rlimit_child(void)
{
	struct rlimit rl = { 3UL << 20, 3UL << 20 };
	struct io_uring ring;
	struct iovec iov[3], two;
	uint8_t *hp = huge_alloc(2);
	int ret;

	iov[0].iov_base = hp;
	iov[0].iov_len = HPAGE / 4 * 3;
	iov[1].iov_base = hp + HPAGE / 4;
	iov[1].iov_len = HPAGE / 4 * 3;
	iov[2].iov_base = hp;
	iov[2].iov_len = HPAGE;
	drop_cap_ipc_lock();
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		t_fail("setrlimit: %s", strerror(errno));
	ring_init(&ring);
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("3 buffers on one huge page under a 3 MiB memlock limit: %s",
		       strerror(-ret));
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	two.iov_base = hp;
	two.iov_len = 2 * HPAGE;
	ret = io_uring_register_buffers(&ring, &two, 1);
	if (ret != -ENOMEM)
		t_fail("2 huge pages under a 3 MiB memlock limit: %d, expected -ENOMEM",
		       ret);
	/* after the failure the charge must be gone again */
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("3 buffers after a failed registration: %s",
		       strerror(-ret));
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	io_uring_queue_exit(&ring);
	munmap(hp, 2 * HPAGE);
	exit(T_EXIT_PASS);
}

int main(void)
{
	struct io_uring ring;
	struct iovec iov[3];
	long free0, pin0;
	uint8_t *hp;
	int fd, ret, i, status;
	pid_t pid;

	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(4);
	hp = huge_alloc(2);
	ring_init(&ring);
	pin0 = vm_pin_kb();

	iov[0].iov_base = hp;
	iov[0].iov_len = HPAGE / 4 * 3;
	iov[1].iov_base = hp + HPAGE / 4;
	iov[1].iov_len = HPAGE / 4 * 3;
	iov[2].iov_base = hp;
	iov[2].iov_len = HPAGE;
	ret = io_uring_register_buffers(&ring, iov, 3);
	if (ret)
		t_fail("register 3 buffers on one huge page: %s",
		       strerror(-ret));
	expect_pin(pin0, HPAGE >> 10, "3 buffers on one huge page");
	for (i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "shared buffer %d", i);
		verify_buffer(&ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			      (uint64_t)i << 22, 50 + i, what);
		verify_efault(&ring, fd, i, 3, iov[i].iov_base,
			      iov[i].iov_len, what);
	}
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "3 buffers on one huge page unregistered");

	/* one at a time: the second finds the page in the first's bvecs */
	ret = io_uring_register_buffers_sparse(&ring, 2);
	if (ret == -EINVAL)
		t_skip("sparse buffer tables not supported");
	if (ret)
		t_fail("register sparse: %s", strerror(-ret));
	for (i = 0; i < 2; i++) {
		ret = io_uring_register_buffers_update_tag(&ring, i, &iov[i],
							   NULL, 1);
		if (ret != 1)
			t_fail("update slot %d: %d", i, ret);
		expect_pin(pin0, HPAGE >> 10, "huge page shared by updates");
	}
	for (i = 0; i < 2; i++)
		quick_verify(&ring, fd, i, iov[i].iov_base, iov[i].iov_len,
			     (uint64_t)i << 22, 60 + i, "updated slot");
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "updated slots unregistered");
	io_uring_queue_exit(&ring);

	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid)
		rlimit_child();
	if (waitpid(pid, &status, 0) != pid)
		t_fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != T_EXIT_PASS)
		t_fail("memlock limit child failed (status 0x%x)", status);

	munmap(hp, 2 * HPAGE);
	expect_hugepages_free(free0, "shared huge page");
	close(fd);
	return T_EXIT_PASS;
}
