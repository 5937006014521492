// SPDX-License-Identifier: GPL-2.0
/*
 * What a zero-copy send from a fixed buffer charges the socket: with the
 * peer not reading, 64 SEND_ZC of 4 KiB each, starting 2 MiB - 8 KiB + 100
 * bytes into a 2 MiB hugetlb page of the registered buffer, stay queued in
 * the sender's socket.  Each spans two small pages, so the socket may
 * charge about 8 KiB per send (plus skb overhead), never anything like
 * the 2 MiB from the start of the huge page.  With 8 MiB of send buffer
 * all 64 must be queued, and sk_wmem_queued (SO_MEMINFO) must stay under
 * 16 times the bytes queued (SIOCOUTQ).  The queued bytes are then read
 * and compared.
 */
#include "iou_net.h"

static void charge(struct io_uring *ring, uint8_t *buf)
{
	const size_t off = 2 * HPAGE - 8192 + 100, len = SMALL_PAGE;
	uint32_t mi[MEMINFO_VARS];
	socklen_t mlen = sizeof(mi);
	int tx, rx, outq, notifs = 0, sent = 0, i, ret;
	uint8_t *sink;

	/* room for every send, however it is charged, up to 8 MiB */
	if (write_long("/proc/sys/net/core/wmem_max", 8 << 20))
		t_fail("net.core.wmem_max: %s", strerror(errno));
	tcp_pair(&tx, &rx, 4096);
	ret = 4 << 20;
	if (setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &ret, sizeof(ret)))
		t_fail("SO_SNDBUF: %s", strerror(errno));
	for (i = 0; i < NR_QUEUED; i++) {
		send_zc(ring, tx, buf, off, len, MSG_DONTWAIT, 1000 + i);
		ret = reap(ring, 1000 + i, &notifs);
		if (ret == -EAGAIN)
			break;
		if (ret != (int)len)
			t_fail("queued SEND_ZC %d: %d", i, ret);
		sent++;
	}
	if (ioctl(tx, SIOCOUTQ, &outq) ||
	    getsockopt(tx, SOL_SOCKET, SO_MEMINFO, mi, &mlen))
		t_fail("SIOCOUTQ/SO_MEMINFO: %s", strerror(errno));
	t_log("%d sends of %zu bytes at buffer offset %zu: %d bytes queued, sk_wmem_queued %u",
	      sent, len, off, outq, mi[MEMINFO_WMEM_QUEUED]);
	if (sent < NR_QUEUED)
		t_fail("the socket took %d of %d sends of %zu bytes into 8 MiB of send buffer: charged far more than it holds",
		       sent, NR_QUEUED, len);
	if (mi[MEMINFO_WMEM_QUEUED] > 16UL * outq)
		t_fail("sk_wmem_queued %u for %d bytes queued: charged by offset into the huge page, not by the pages sent",
		       mi[MEMINFO_WMEM_QUEUED], outq);

	/* drain, so that every notification arrives */
	sink = malloc((size_t)sent * len);
	if (!sink)
		t_fail("out of memory");
	recv_all(rx, sink, (size_t)sent * len);
	for (i = 0; i < sent; i++)
		compare(sink + i * len, buf + off, len, "queued send", off);
	reap(ring, 0, &notifs);
	free(sink);
	close(tx);
	close(rx);
}

int main(void)
{
	struct io_uring ring;
	long free0, pin0;
	uint8_t *p;
	int ret;

	free0 = hugepages_setup(NR_HP);
	loopback_up();
	p = huge_alloc(NR_HP);
	pattern_fill(p, BUF_LEN, 77);
	pin0 = vm_pin_kb();
	sendzc_ring(&ring, p, BUF_LEN);
	charge(&ring, p);
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "unregistered");
	io_uring_queue_exit(&ring);
	munmap(p, BUF_LEN);
	expect_hugepages_free(free0, "after munmap");
	return T_EXIT_PASS;
}
