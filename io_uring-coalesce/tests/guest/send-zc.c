// SPDX-License-Identifier: GPL-2.0
/*
 * IORING_OP_SEND_ZC from a fixed buffer over four 2 MiB hugetlb pages, to
 * a TCP peer on loopback: sends at many offsets and lengths, deep inside
 * the huge pages and across their boundaries, each received and compared
 * byte for byte.  The buffer is unpinned and the huge pages freed at the
 * end.
 */
#include "iou_net.h"

static void bytes(struct io_uring *ring, uint8_t *buf)
{
	static const struct {
		size_t off, len;
	} s[] = {
		{ 0, 1 },
		{ 1, 4096 },
		{ HPAGE - 1, 2 },
		{ HPAGE - 8192 + 100, 4096 },
		{ HPAGE - 8192 + 100, 8192 },
		{ 2 * HPAGE - 3, 70000 },
		{ HPAGE / 2 + 3, HPAGE + 11 },
		{ 3 * HPAGE + 12345, HPAGE - 12345 },
		{ 4097, 3 * HPAGE },
		{ 0, BUF_LEN },
	};
	uint8_t *got = malloc(BUF_LEN);
	int tx, rx, notifs = 0, ret;
	size_t i;

	if (!got)
		t_fail("out of memory");
	tcp_pair(&tx, &rx, 0);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		memset(got, 0, s[i].len);
		send_zc(ring, tx, buf, s[i].off, s[i].len, MSG_WAITALL, i + 1);
		recv_all(rx, got, s[i].len);
		ret = reap(ring, i + 1, &notifs);
		if (ret != (int)s[i].len)
			t_fail("SEND_ZC off %zu len %zu: %d", s[i].off,
			       s[i].len, ret);
		compare(got, buf + s[i].off, s[i].len, "received", s[i].off);
	}
	reap(ring, 0, &notifs);
	close(tx);
	close(rx);
	free(got);
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
	bytes(&ring, p);
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		t_fail("unregister: %s", strerror(-ret));
	expect_pin(pin0, 0, "unregistered");
	io_uring_queue_exit(&ring);
	munmap(p, BUF_LEN);
	expect_hugepages_free(free0, "after munmap");
	return T_EXIT_PASS;
}
