// SPDX-License-Identifier: GPL-2.0
/*
 * A THP pinned for writing (an io_uring fixed buffer: FOLL_WRITE |
 * FOLL_LONGTERM, pinned by pin_user_pages() into a page array) and then
 * fork(): the child must not share the pinned pages.  The child writes
 * its own pattern over the whole range and exits; the parent's memory
 * must be unchanged, and WRITE_FIXED from the buffer must send the
 * parent's bytes, not the child's.  Then the parent writes new bytes
 * and WRITE_FIXED must send those: the pin still points at the parent's
 * pages.  Done for a buffer that covers two THPs from their heads and for
 * one that starts in the middle of the first THP.
 */
#include "gup_helpers.h"

#define LEN	(2 * HPAGE)

static void sendfile_check(struct io_uring *ring, int fd, int idx,
			   uint8_t *buf, size_t len, const char *what)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	uint8_t *got = malloc(len);
	int ret;

	if (!sqe || !got)
		t_fail("no sqe or memory");
	io_uring_prep_write_fixed(sqe, fd, buf, len, 0, idx);
	if (io_uring_submit_and_wait(ring, 1) != 1 ||
	    io_uring_wait_cqe(ring, &cqe))
		t_fail("%s: submit", what);
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	if (ret != (int)len)
		t_fail("%s: WRITE_FIXED: %d", what, ret);
	if (pread(fd, got, len, 0) != (ssize_t)len)
		t_fail("%s: pread: %s", what, strerror(errno));
	if (memcmp(got, buf, len))
		t_fail("%s: the pinned pages are not the parent's pages", what);
	free(got);
}

static void one(struct io_uring *ring, int fd, uint8_t *p, size_t off,
		const char *what)
{
	struct iovec iov = { .iov_base = p + off, .iov_len = LEN - off };
	uint8_t *copy = malloc(LEN);
	long pins0 = foll_pins();
	pid_t pid;
	int st, ret;

	if (!copy)
		t_fail("out of memory");
	pattern(p, LEN, 11);
	memcpy(copy, p, LEN);
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		t_fail("%s: register: %s", what, strerror(-ret));
	/* io_uring may keep one pin per folio (io_uring-coalesce) */
	if (foll_pins() - pins0 <= 0)
		t_fail("%s: nothing pinned", what);

	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (!pid) {
		pattern(p, LEN, 22);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		t_fail("%s: child", what);
	if (memcmp(p, copy, LEN))
		t_fail("%s: the child's writes reached the parent", what);
	sendfile_check(ring, fd, 0, p + off, LEN - off, what);

	pattern(p, LEN, 33);
	sendfile_check(ring, fd, 0, p + off, LEN - off, what);

	ret = io_uring_unregister_buffers(ring);
	if (ret)
		t_fail("%s: unregister: %s", what, strerror(-ret));
	if (foll_pins() != pins0)
		t_fail("%s: %ld pages still pinned", what, foll_pins() - pins0);
	free(copy);
}

int main(void)
{
	char path[] = "/tmp/gup-fork-XXXXXX";
	struct io_uring ring;
	uint8_t *p;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		t_fail("mkstemp: %s", strerror(errno));
	unlink(path);
	if (io_uring_queue_init(4, &ring, 0))
		t_skip("io_uring not available");
	p = thp_alloc(LEN, 0);
	one(&ring, fd, p, 0, "two THPs");
	p = thp_alloc(LEN, 0);
	one(&ring, fd, p, HPAGE / 2 + 3 * SMALL_PAGE, "from the middle of a THP");
	io_uring_queue_exit(&ring);
	close(fd);
	return T_EXIT_PASS;
}
