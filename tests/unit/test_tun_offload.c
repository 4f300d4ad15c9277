// SPDX-License-Identifier: MIT
/*
 * The TUN device's offloads against the real kernel (skipped unless root with
 * /dev/net/tun), in a private network namespace of this test process:
 *
 *   [ test process, fresh netns ]
 *     TCP socket 10.79.0.1 --connect--> 10.79.0.2:5201
 *        gsot0 (TUN, MTU 1400, 10.79.0.1/24)
 *     the test plays 10.79.0.2: reads the SYN, writes the SYN-ACK (MSS 1000)
 *
 * With offload the socket's first flight (cwnd 10 x 1000 bytes) must come out of one
 * read as a TSO super-packet larger than the MTU behind a virtio-net header, and its
 * segments (proto/gso) must carry exactly the bytes sent with checksums right by an
 * independent RFC 1071 sum (support/csumtest.c). The SYN-ACK written with the zero
 * header must be taken (the connect completes). Without offload every read is one
 * packet of at most the MTU with a complete checksum. The other way, three segments from the peer coalesced
 * by proto/gro and written as one super-packet (a partial checksum behind the header)
 * must reach the socket intact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "csumtest.h"
#include "gro.h"
#include "gso.h"
#include "tun.h"

#define TUN_NAME	"gsot0"
#define MTU		1400
#define MSS		1000
#define SENT		20000

/* 0xffff when both the IPv4 header and the TCP checksums of pkt are right. */
static bool checksums_ok(const uint8_t *p, size_t len)
{
	size_t ihl = (size_t)(p[0] & 15) * 4;

	return csumtest_sum(p, ihl) == 0xffff && csumtest_l4(p, len, 4, ihl, 6) == 0xffff;
}

static struct mpt_prefix pfx(const char *a, uint8_t plen)
{
	struct mpt_prefix p = { .family = AF_INET, .plen = plen };

	assert_int_equal(inet_pton(AF_INET, a, p.addr.bytes), 1);
	return p;
}

/* The next IPv4 TCP packet from the TUN within 2 s, whole (segment 0 when it is a
 * super-packet: *vh says so); its length. */
static size_t read_tcp(struct mpt_tun *t, struct mpt_vnet_hdr *vh, uint8_t *buf,
		       size_t cap)
{
	for (int tries = 0; tries < 200; tries++) {
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		n = mpt_tun_read(t, vh, buf, cap);
		if (n >= 40 && (buf[0] >> 4) == 4 && buf[9] == 6)
			return (size_t)n;
	}
	fail_msg("no TCP packet from the TUN");
	return 0;
}

/* Open the device, address it, connect a socket through it; the test answers the SYN.
 * Returns the socket; *isn is the client's initial sequence number. */
static int connect_through(struct mpt_tun *t, bool offload, uint32_t *isn)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(5201) };
	struct mpt_prefix a = pfx("10.79.0.1", 24);
	static uint8_t buf[65536], seg[MTU], synack[44];
	struct mpt_vnet_hdr vh;
	struct mpt_gso g;
	const char *why;
	size_t n;
	int fd;

	assert_int_equal(mpt_tun_open(t, TUN_NAME, MTU, offload), 0);
	assert_int_equal(mpt_tun_add_addr(t, &a), 0);
	assert_int_equal(mpt_tun_up(t), 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	inet_pton(AF_INET, "10.79.0.2", &to.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), -1);
	assert_int_equal(errno, EINPROGRESS);

	n = read_tcp(t, &vh, buf, sizeof(buf));
	assert_int_equal(mpt_gso_prepare(&g, &vh, buf, (uint32_t)n, MTU, &why), 0);
	assert_int_equal(g.nsegs, 1);
	assert_int_equal(mpt_gso_segment(&g, 0, seg), n);
	assert_true(checksums_ok(seg, n));
	assert_int_equal(seg[33], 0x02);			/* SYN */
	*isn = mpt_get_u32(seg + 24);

	/* SYN-ACK from 10.79.0.2: MSS 1000, window 65535 << 7 */
	memcpy(synack, seg, 20);
	synack[0] = 0x45;
	mpt_put_u16(synack + 2, sizeof(synack));
	synack[10] = synack[11] = 0;
	memcpy(synack + 12, seg + 16, 4);
	memcpy(synack + 16, seg + 12, 4);
	mpt_put_u16(synack + 10, (uint16_t)~csumtest_sum(synack, 20));
	memset(synack + 20, 0, 24);
	mpt_put_u16(synack + 20, 5201);
	memcpy(synack + 22, seg + 20, 2);
	mpt_put_u32(synack + 24, 7000);
	mpt_put_u32(synack + 28, *isn + 1);
	synack[32] = 6 << 4;
	synack[33] = 0x12;
	mpt_put_u16(synack + 34, 65535);
	memcpy(synack + 40, "\x02\x04\x03\xe8", 4);		/* MSS 1000 */
	/* no room for wscale in 24 bytes of header: the window stays 65535 */
	mpt_put_u16(synack + 36, (uint16_t)~csumtest_l4(synack, sizeof(synack), 4, 20, 6));
	assert_int_equal(mpt_tun_write(t, synack, sizeof(synack)), sizeof(synack));
	for (int i = 0; i < 200; i++) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (poll(&pfd, 1, 10) == 1)
			break;
	}
	{
		int err = -1;
		socklen_t len = sizeof(err);

		assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len), 0);
		assert_int_equal(err, 0);			/* connected */
	}
	return fd;
}

static uint8_t sent_byte(size_t i)
{
	return (uint8_t)(i * 13 + (i >> 9));
}

static void send_data(int fd)
{
	static uint8_t data[SENT];

	for (size_t i = 0; i < SENT; i++)
		data[i] = sent_byte(i);
	assert_int_equal(send(fd, data, SENT, 0), SENT);
}

/* The peer's segment k of 3 (1000 bytes each, PSH on the last) to the client's port,
 * with a right checksum; its length. */
static size_t peer_segment(uint8_t *p, const uint8_t *syn, uint32_t isn, int k)
{
	size_t len = 40 + MSS;

	memset(p, 0, 40);
	p[0] = 0x45;
	mpt_put_u16(p + 2, (uint16_t)len);
	mpt_put_u16(p + 4, (uint16_t)(500 + k));
	p[6] = 0x40;
	p[8] = 64;
	p[9] = 6;
	memcpy(p + 12, syn + 16, 4);
	memcpy(p + 16, syn + 12, 4);
	mpt_put_u16(p + 10, (uint16_t)~csumtest_sum(p, 20));
	mpt_put_u16(p + 20, 5201);
	memcpy(p + 22, syn + 20, 2);
	mpt_put_u32(p + 24, 7001 + (uint32_t)k * MSS);
	mpt_put_u32(p + 28, isn + 1);
	p[32] = 5 << 4;
	p[33] = k == 2 ? 0x18 : 0x10;
	mpt_put_u16(p + 34, 65535);
	for (size_t i = 0; i < MSS; i++)
		p[40 + i] = sent_byte(k * MSS + i + 7);
	mpt_put_u16(p + 36, (uint16_t)~csumtest_l4(p, len, 4, 20, 6));
	return len;
}

/* Three peer segments, coalesced into one write: the socket reads their bytes. */
static void check_coalesced_write(struct mpt_tun *t, int fd, const uint8_t *hdr,
				  uint32_t isn)
{
	static uint8_t seg[3][MTU], run[MPT_GRO_MAX], got[3 * MSS + 1];
	struct mpt_gro g = { .buf = run };
	struct mpt_vnet_hdr vh;
	size_t have = 0;
	uint32_t len;

	for (int k = 0; k < 3; k++) {
		size_t n = peer_segment(seg[k], hdr, isn, k);

		assert_true(k ? mpt_gro_add(&g, seg[k], (uint32_t)n) :
				mpt_gro_start(&g, seg[k], (uint32_t)n));
	}
	len = mpt_gro_finish(&g, &vh);
	assert_int_equal(len, 40 + 3 * MSS);
	assert_int_equal(vh.gso_type, MPT_VNET_GSO_TCPV4);
	assert_int_equal(mpt_tun_write_vnet(t, &vh, run, len), len);
	for (int i = 0; i < 200 && have < 3 * MSS; i++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 10) != 1)
			continue;
		n = recv(fd, got + have, sizeof(got) - have, 0);
		if (n > 0)
			have += (size_t)n;
	}
	assert_int_equal(have, 3 * MSS);
	for (size_t i = 0; i < have; i++)
		assert_int_equal(got[i], sent_byte(i + 7));
}

static void test_offload_tso(void **state)
{
	static uint8_t buf[65536], seg[MTU];
	struct mpt_tun t;
	uint32_t isn, got = 0;
	bool super = false;
	int fd;

	(void)state;
	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0 ||
	    unshare(CLONE_NEWNET) != 0)
		skip();
	fd = connect_through(&t, true, &isn);
	assert_true(t.vnet);
	assert_true(t.offload & TUN_F_TSO4);
	send_data(fd);
	/* the first flight: 10 segments of cwnd, in order */
	while (got < 10 * MSS) {
		struct mpt_vnet_hdr vh;
		const char *why;
		struct mpt_gso g;
		size_t n = read_tcp(&t, &vh, buf, sizeof(buf));

		assert_int_equal(mpt_gso_prepare(&g, &vh, buf, (uint32_t)n, MTU, &why), 0);
		if (n - 40 == 0)
			continue;				/* the pure ACK */
		if (vh.gso_type == MPT_VNET_GSO_TCPV4 && n > MTU && g.nsegs > 1)
			super = true;
		for (uint32_t i = 0; i < g.nsegs; i++) {
			uint32_t len = mpt_gso_segment(&g, i, seg), off;

			assert_true(len <= MTU);
			assert_true(checksums_ok(seg, len));
			off = mpt_get_u32(seg + 24) - isn - 1;
			assert_int_equal(off, got);
			for (uint32_t k = 40; k < len; k++)
				assert_int_equal(seg[k], sent_byte(off + k - 40));
			assert_true(len - 40 <= MSS);
			got += len - 40;
		}
	}
	assert_true(super);
	check_coalesced_write(&t, fd, seg, isn);
	close(fd);
	mpt_tun_close(&t);
}

static void test_no_offload(void **state)
{
	static uint8_t buf[65536];
	struct mpt_tun t;
	uint32_t isn, got = 0;
	int fd;

	(void)state;
	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0 ||
	    unshare(CLONE_NEWNET) != 0)
		skip();
	fd = connect_through(&t, false, &isn);
	assert_false(t.vnet);
	assert_int_equal(t.offload, 0);
	send_data(fd);
	while (got < 10 * MSS) {
		struct mpt_vnet_hdr vh;
		size_t n = read_tcp(&t, &vh, buf, sizeof(buf));

		assert_true(n <= MTU);
		assert_int_equal(vh.gso_type, 0);
		assert_int_equal(vh.flags, 0);
		assert_true(checksums_ok(buf, n));
		got += (uint32_t)n - 40;
	}
	close(fd);
	mpt_tun_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offload_tso),
		cmocka_unit_test(test_no_offload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
