/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the io_uring-coalesce SEND_ZC tests: a TCP pair on
 * loopback and SEND_ZC from fixed buffer 0 with its completions.
 */
#ifndef IOU_NET_H
#define IOU_NET_H

#include "iou_coalesce.h"
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define NR_HP		4
#define BUF_LEN		(NR_HP * HPAGE)
#ifndef SO_MEMINFO
#define SO_MEMINFO	55
#endif
#define MEMINFO_VARS	9
#define MEMINFO_WMEM_QUEUED	5
#define NR_QUEUED	64

static inline void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0) {
		if (errno == EAFNOSUPPORT)
			t_skip("no IPv4 in this kernel");
		t_fail("socket: %s", strerror(errno));
	}
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		t_fail("SIOCGIFFLAGS lo: %s", strerror(errno));
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		t_fail("SIOCSIFFLAGS lo: %s", strerror(errno));
	close(s);
}

/* A connected pair of TCP sockets on loopback; @rcvbuf sizes the reader. */
static inline void tcp_pair(int *tx, int *rx, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		t_fail("socket: %s", strerror(errno));
	if (rcvbuf && setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				 sizeof(rcvbuf)))
		t_fail("SO_RCVBUF: %s", strerror(errno));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen))
		t_fail("listen: %s", strerror(errno));
	*tx = socket(AF_INET, SOCK_STREAM, 0);
	if (*tx < 0 || connect(*tx, (struct sockaddr *)&a, sizeof(a)))
		t_fail("connect: %s", strerror(errno));
	setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*rx = accept(l, NULL, NULL);
	if (*rx < 0)
		t_fail("accept: %s", strerror(errno));
	close(l);
}

/*
 * Queue one SEND_ZC of @len bytes at @off of fixed buffer 0.  Returns
 * nothing; its completions are reaped by reap().
 */
static inline void send_zc(struct io_uring *ring, int fd, uint8_t *buf, size_t off,
		    size_t len, int flags, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		t_fail("no sqe");
	io_uring_prep_send_zc_fixed(sqe, fd, buf + off, len, flags, 0, 0);
	sqe->user_data = tag;
	if (io_uring_submit(ring) != 1)
		t_fail("submit");
}

/*
 * Reap completions until the send @tag has its result (@tag 0: until no
 * notification is owed); returns the result.  @notifs counts the
 * notifications still owed across calls.
 */
static inline int reap(struct io_uring *ring, uint64_t tag, int *notifs)
{
	struct io_uring_cqe *cqe;
	int res = INT32_MIN, ret;

	while (tag ? res == INT32_MIN : *notifs > 0) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			t_fail("wait_cqe: %s", strerror(-ret));
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			(*notifs)--;
		} else {
			if (cqe->user_data == tag)
				res = cqe->res;
			if (cqe->flags & IORING_CQE_F_MORE)
				(*notifs)++;
		}
		io_uring_cqe_seen(ring, cqe);
	}
	return res;
}

static inline void recv_all(int fd, uint8_t *to, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, to + got, len - got, 0);
		if (n <= 0)
			t_fail("recv: %s", n ? strerror(errno) : "EOF");
		got += n;
	}
}

/* A ring with one fixed buffer over @p; skips without SEND_ZC (6.0). */
static inline void sendzc_ring(struct io_uring *ring, uint8_t *p, size_t len)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct iovec iov = { .iov_base = p, .iov_len = len };
	int ret;

	if (io_uring_queue_init(64, ring, 0))
		t_skip("io_uring not available");
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		t_fail("register: %s", strerror(-ret));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc(sqe, -1, p, 1, 0, 0);
	io_uring_submit_and_wait(ring, 1);
	io_uring_wait_cqe(ring, &cqe);
	ret = cqe->res;
	if (cqe->flags & IORING_CQE_F_MORE) {
		io_uring_cqe_seen(ring, cqe);
		io_uring_wait_cqe(ring, &cqe);
	}
	io_uring_cqe_seen(ring, cqe);
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		t_skip("no IORING_OP_SEND_ZC: %d", ret);
}

#endif /* IOU_NET_H */
