/* SPDX-License-Identifier: MIT */
/*
 * Description: IORING_OP_SEND_ZC from a fixed buffer of four 2 MiB hugetlb
 * pages to a TCP peer on loopback that reads and discards: 64 KiB sends,
 * each starting at a different place in the buffer (a multiple of 64 KiB
 * plus 100 bytes times a small count, so most start inside a small page),
 * 8 in flight, IOU_BENCH_SENDZC_MB in total (default 2048):
 *
 *	figure sendzc_MBps RATE MB/s higher
 *	figure sendzc_wmem_per_byte RATIO x lower
 *
 * MB = 10^6 bytes.  wmem_per_byte is the socket memory charged for what
 * the socket holds: sk_wmem_queued (SO_MEMINFO) over the bytes not yet
 * acknowledged (SIOCOUTQ), summed over a sample after every completed
 * send.  Sending from a registered buffer charges the pages each fragment
 * spans; skb overhead keeps the ratio above 1.
 *
 * Other lines start with "# ".  Exit 0 success, 1 error, 77 no io_uring,
 * no SEND_ZC, no hugetlb or no IPv4.
 */
#include <arpa/inet.h>
#include <liburing.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "hugemem.h"

#define NR_HP		4
#define BUF_LEN		(NR_HP * HPAGE)
#define CHUNK		(64UL << 10)
#define QD		8
#ifndef SO_MEMINFO
#define SO_MEMINFO	55
#endif

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		die(77, "no IPv4: %s", strerror(errno));
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		die(1, "SIOCGIFFLAGS lo: %s", strerror(errno));
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		die(1, "SIOCSIFFLAGS lo: %s", strerror(errno));
	close(s);
}

int main(void)
{
	const char *env = getenv("IOU_BENCH_SENDZC_MB");
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct iovec iov;
	unsigned long long total, sent = 0, issued = 0, wmem_sum = 0;
	unsigned long long outq_sum = 0;
	long mb = env ? strtol(env, NULL, 10) : 2048;
	int l, tx, rx, one = 1, inflight = 0, notifs = 0, samples = 0;
	uint32_t mi[9];
	socklen_t mlen;
	double t0, t1;
	pid_t pid;
	char *buf;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mb < 1)
		die(1, "IOU_BENCH_SENDZC_MB=%s", env);
	total = (unsigned long long)mb << 20;
	loopback_up();

	reserve_hugepages(NR_HP);
	buf = huge_alloc(BUF_LEN);
	for (i = 0; i < BUF_LEN; i++)
		buf[i] = i * 7;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &alen))
		die(1, "listen: %s", strerror(errno));
	tx = socket(AF_INET, SOCK_STREAM, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&a, sizeof(a)))
		die(1, "connect: %s", strerror(errno));
	setsockopt(tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rx = accept(l, NULL, NULL);
	if (rx < 0)
		die(1, "accept: %s", strerror(errno));
	close(l);

	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (!pid) {
		static char sink[1 << 20];

		close(tx);
		while (read(rx, sink, sizeof(sink)) > 0)
			;
		_exit(0);
	}
	close(rx);

	if (io_uring_queue_init(2 * QD, &ring, 0))
		die(77, "io_uring not available");
	iov.iov_base = buf;
	iov.iov_len = BUF_LEN;
	if (io_uring_register_buffers(&ring, &iov, 1))
		die(1, "register: %s", strerror(errno));

	t0 = now();
	while (sent < total) {
		while (inflight < QD && issued < total) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			size_t k = issued / CHUNK;
			size_t off = (k * CHUNK + 100 * (k % 7)) %
				     (BUF_LEN - CHUNK - 1024);

			io_uring_prep_send_zc_fixed(sqe, tx, buf + off, CHUNK,
						    MSG_WAITALL, 0, 0);
			sqe->user_data = 1;
			issued += CHUNK;
			inflight++;
		}
		if (io_uring_submit_and_wait(&ring, 1) < 0)
			die(1, "submit: %s", strerror(errno));
		while (!io_uring_peek_cqe(&ring, &cqe)) {
			if (cqe->flags & IORING_CQE_F_NOTIF) {
				notifs--;
			} else {
				if (cqe->res == -EINVAL || cqe->res == -EOPNOTSUPP)
					die(77, "no SEND_ZC: %d", cqe->res);
				if (cqe->res != (int)CHUNK)
					die(1, "SEND_ZC: %d", cqe->res);
				if (cqe->flags & IORING_CQE_F_MORE)
					notifs++;
				sent += CHUNK;
				inflight--;
				mlen = sizeof(mi);
				if (!ioctl(tx, SIOCOUTQ, &l) && l > 0 &&
				    !getsockopt(tx, SOL_SOCKET, SO_MEMINFO, mi,
						&mlen)) {
					wmem_sum += mi[5];
					outq_sum += l;
					samples++;
				}
			}
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	t1 = now();
	while (notifs > 0) {
		if (io_uring_wait_cqe(&ring, &cqe))
			die(1, "wait_cqe");
		if (cqe->flags & IORING_CQE_F_NOTIF)
			notifs--;
		io_uring_cqe_seen(&ring, cqe);
	}
	close(tx);
	waitpid(pid, NULL, 0);
	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);

	printf("# %llu MiB in %.3f s, %d samples of the send queue\n",
	       sent >> 20, t1 - t0, samples);
	printf("figure sendzc_MBps %.1f MB/s higher\n", sent / 1e6 / (t1 - t0));
	if (samples && outq_sum)
		printf("figure sendzc_wmem_per_byte %.4f x lower\n",
		       (double)wmem_sum / outq_sum);
	return 0;
}
