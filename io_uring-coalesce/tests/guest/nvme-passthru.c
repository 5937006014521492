// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe passthrough (IORING_OP_URING_CMD on /dev/ng0n1) with a fixed
 * buffer (IORING_URING_CMD_FIXED): the block layer maps the buffer's
 * bvecs as they are (blk_rq_map_user_bvec()), so a coalesced buffer hands
 * it bvecs of a whole huge page.  Writes from and reads into a buffer of
 * four 2 MiB hugetlb pages at offsets inside and across the huge pages,
 * each checked byte for byte against a plain O_DIRECT read or write of
 * /dev/nvme0n1, and the same over 64 KiB of small pages.
 */
#include "iou_coalesce.h"
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>

#define NR_HP		4
#define NG_DEV		"/dev/ng0n1"
#define NVME_WRITE	0x01
#define NVME_READ	0x02

static unsigned int nsid;

/* One NVMe read or write of @len bytes at disk byte @off from @addr. */
static int passthru(struct io_uring *ring, int ng, int write, void *addr,
		    size_t len, uint64_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct nvme_uring_cmd *cmd;
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		t_fail("no sqe");
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ng;
	sqe->cmd_op = NVME_URING_CMD_IO;
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = idx;
	cmd = (struct nvme_uring_cmd *)sqe->cmd;
	cmd->opcode = write ? NVME_WRITE : NVME_READ;
	cmd->nsid = nsid;
	cmd->addr = (uintptr_t)addr;
	cmd->data_len = len;
	cmd->cdw10 = (off / SECTOR) & 0xffffffff;
	cmd->cdw11 = (off / SECTOR) >> 32;
	cmd->cdw12 = len / SECTOR - 1;
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret != 1)
		t_fail("submit: %d", ret);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		t_fail("wait_cqe: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static void check(struct io_uring *ring, int ng, int fd, int idx,
		  uint8_t *buf, size_t off, size_t len, uint64_t disk,
		  uint32_t seed, const char *what)
{
	uint8_t *want, *got;
	char msg[128];
	int ret;

	snprintf(msg, sizeof(msg), "%s: off %zu len %zu", what, off, len);
	if (posix_memalign((void **)&want, SMALL_PAGE, len) ||
	    posix_memalign((void **)&got, SMALL_PAGE, len))
		t_fail("out of memory");

	/* write from the buffer, check the disk */
	pattern_fill(buf + off, len, seed);
	memcpy(want, buf + off, len);
	ret = passthru(ring, ng, 1, buf + off, len, disk, idx);
	if (ret)
		t_fail("%s: passthrough write: %d", msg, ret);
	if (pread(fd, got, len, disk) != (ssize_t)len)
		t_fail("%s: pread: %s", msg, strerror(errno));
	compare(got, want, len, msg, off);

	/* write the disk, read into the buffer */
	pattern_fill(want, len, seed + 1);
	if (pwrite(fd, want, len, disk) != (ssize_t)len)
		t_fail("%s: pwrite: %s", msg, strerror(errno));
	memset(buf + off, CANARY, len);
	ret = passthru(ring, ng, 0, buf + off, len, disk, idx);
	if (ret)
		t_fail("%s: passthrough read: %d", msg, ret);
	compare(buf + off, want, len, msg, off);
	free(want);
	free(got);
}

int main(void)
{
	static const struct {
		size_t off, len;
	} s[] = {
		{ 0, SECTOR },
		{ HPAGE - 64 * 1024, 128 * 1024 },
		{ HPAGE - SECTOR, 2 * SECTOR },
		{ 3 * HPAGE - SMALL_PAGE - SECTOR, 3 * SMALL_PAGE },
		{ HPAGE + 3 * SMALL_PAGE, 64 * 1024 },
		{ NR_HP * HPAGE - 32 * 1024, 32 * 1024 },
	};
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
	};
	struct io_uring ring;
	struct iovec iov[2];
	long free0, pin0, maxkb;
	uint8_t *hp, *small;
	size_t i, len;
	char msg[64];
	int ng, fd, ret;

	ng = open(NG_DEV, O_RDWR);
	if (ng < 0)
		t_skip("%s: %s", NG_DEV, strerror(errno));
	ret = ioctl(ng, NVME_IOCTL_ID);
	if (ret <= 0)
		t_fail("NVME_IOCTL_ID: %s", strerror(errno));
	nsid = ret;
	maxkb = read_long("/sys/block/nvme0n1/queue/max_hw_sectors_kb");
	fd = nvme_open(64UL << 20);
	free0 = hugepages_setup(NR_HP);
	hp = huge_alloc(NR_HP);
	if (posix_memalign((void **)&small, SMALL_PAGE, 64 * 1024))
		t_fail("out of memory");
	ret = io_uring_queue_init_params(8, &ring, &p);
	if (ret)
		t_skip("no SQE128/CQE32 rings: %s", strerror(-ret));
	pin0 = vm_pin_kb();
	iov[0].iov_base = hp;
	iov[0].iov_len = NR_HP * HPAGE;
	iov[1].iov_base = small;
	iov[1].iov_len = 64 * 1024;
	ret = io_uring_register_buffers(&ring, iov, 2);
	if (ret)
		t_fail("register: %s", strerror(-ret));

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		len = s[i].len;
		if (maxkb > 0 && len > (size_t)maxkb << 10)
			len = (size_t)maxkb << 10;
		snprintf(msg, sizeof(msg), "huge page buffer, case %zu", i);
		check(&ring, ng, fd, 0, hp, s[i].off, len, (uint64_t)i << 22,
		      300 + i, msg);
	}
	check(&ring, ng, fd, 1, small, 0, 64 * 1024, 40 << 20, 400,
	      "small page buffer");
	check(&ring, ng, fd, 1, small, SMALL_PAGE + SECTOR, 8 * SECTOR,
	      41 << 20, 401, "small page buffer");

	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "unregistered");
	io_uring_queue_exit(&ring);
	munmap(hp, NR_HP * HPAGE);
	expect_hugepages_free(free0, "after munmap");
	close(fd);
	close(ng);
	return T_EXIT_PASS;
}
