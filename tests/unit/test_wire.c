// SPDX-License-Identifier: MIT
/* Wire v1 codecs: every frame round-trips; each malformed input is rejected with its
 * own reason (table-driven, OpenBGPD-regress style). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

static void test_header_round_trip(void **state)
{
	struct mpt_hdr h = { .path_id = 7, .receiver = 0xdeadbeef, .pn = 0x0102030405060708ULL };
	struct mpt_hdr d;
	uint8_t buf[MPT_WIRE_MIN_TRANSPORT] = { 0 };
	int why = -1;

	assert_int_equal(mpt_hdr_encode(buf, sizeof(buf), &h), MPT_WIRE_HDR_LEN);
	assert_int_equal(buf[0], MPT_MSG_TRANSPORT);
	assert_int_equal(buf[1], MPT_WIRE_VERSION);
	assert_int_equal(buf[MPT_OFF_PN], 0x01);	/* big-endian */
	assert_int_equal(buf[MPT_OFF_PN + 7], 0x08);
	assert_int_equal(mpt_hdr_decode(buf, sizeof(buf), &d, &why), 0);
	assert_int_equal(why, MPT_WIRE_OK);
	assert_int_equal(d.path_id, 7);
	assert_int_equal(d.receiver, 0xdeadbeef);
	assert_true(d.pn == h.pn);
	assert_int_equal(mpt_wire_classify(buf, sizeof(buf), &why), MPT_MSG_TRANSPORT);

	assert_int_equal(mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN - 1, &h), -ENOSPC);
	h.path_id = MPT_MAX_PATHS;
	assert_int_equal(mpt_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	uint8_t nonce[MPT_WIRE_NONCE_LEN];
	const uint8_t want[MPT_WIRE_NONCE_LEN] = { 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 1, 2 };

	mpt_wire_nonce(nonce, 5, 0x102);
	assert_memory_equal(nonce, want, sizeof(want));
}

struct hdr_case {
	const char *what;
	uint8_t bytes[MPT_WIRE_MIN_TRANSPORT];
	size_t len;
	int reason;
};

static void test_header_rejects(void **state)
{
	static const struct hdr_case cases[] = {
		{ "empty", { 0 }, 0, MPT_WIRE_SHORT },
		{ "truncated header", { 3, MPT_WIRE_VERSION, 0, 0, 0, 0, 0, 1 }, 8, MPT_WIRE_SHORT },
		{ "no room for tag", { 3, MPT_WIRE_VERSION }, MPT_WIRE_HDR_LEN + 15, MPT_WIRE_SHORT },
		{ "bad version", { 3, MPT_WIRE_VERSION + 1 }, MPT_WIRE_MIN_TRANSPORT, MPT_WIRE_BAD_VERSION },
		{ "unknown type", { 9, MPT_WIRE_VERSION }, MPT_WIRE_MIN_TRANSPORT, MPT_WIRE_BAD_TYPE },
		{ "handshake type", { 1, MPT_WIRE_VERSION }, MPT_WIRE_MIN_TRANSPORT, MPT_WIRE_BAD_TYPE },
		{ "flags set", { 3, MPT_WIRE_VERSION, 0, 0x80 }, MPT_WIRE_MIN_TRANSPORT, MPT_WIRE_BAD_FLAGS },
		{ "path id 8", { 3, MPT_WIRE_VERSION, MPT_MAX_PATHS }, MPT_WIRE_MIN_TRANSPORT,
		  MPT_WIRE_BAD_PATH_ID },
	};
	struct mpt_hdr h;

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		int why = MPT_WIRE_OK;

		print_message("%s\n", cases[i].what);
		assert_int_equal(mpt_hdr_decode(cases[i].bytes, cases[i].len, &h, &why),
				 -EBADMSG);
		assert_int_equal(why, cases[i].reason);
	}
}

static void test_classify(void **state)
{
	uint8_t buf[MPT_HS_INIT_LEN] = { MPT_MSG_HANDSHAKE_INIT, MPT_WIRE_VERSION };
	int why;

	assert_int_equal(mpt_wire_classify(buf, MPT_HS_INIT_LEN, &why), MPT_MSG_HANDSHAKE_INIT);
	assert_int_equal(mpt_wire_classify(buf, MPT_HS_INIT_LEN - 1, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_BAD_LENGTH);
	buf[0] = MPT_MSG_HANDSHAKE_RESP;
	assert_int_equal(mpt_wire_classify(buf, MPT_HS_RESP_LEN, &why), MPT_MSG_HANDSHAKE_RESP);
	assert_int_equal(mpt_wire_classify(buf, MPT_HS_INIT_LEN, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_BAD_LENGTH);
	assert_int_equal(mpt_wire_classify(buf, 1, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_SHORT);
	buf[0] = MPT_MSG_COOKIE_REPLY;
	assert_int_equal(mpt_wire_classify(buf, MPT_COOKIE_REPLY_LEN, &why),
			 MPT_MSG_COOKIE_REPLY);
	assert_int_equal(mpt_wire_classify(buf, MPT_COOKIE_REPLY_LEN + 1, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_BAD_LENGTH);
	buf[0] = 0;
	assert_int_equal(mpt_wire_classify(buf, 40, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_BAD_TYPE);
}

static void fake_ipv4(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7);
	p[0] = 0x45;
}

static void test_frames_round_trip(void **state)
{
	uint8_t buf[2048], pkt[1400];
	struct mpt_ack_info ack = { .path_id = 3, .ack_delay_ns = 1234567, .nranges = 3,
		.r = { { 90, 100 }, { 50, 60 }, { 0, 0 } } };
	struct mpt_probe probe = { .id = 77, .timestamp = 0x1122334455667788ULL,
		.name = "wifi", .cost = 2, .weight = 30, .capacity = 12500000 };
	struct mpt_frame f;
	const uint8_t *pos = buf, *end;
	size_t off = 0;
	int n;

	fake_ipv4(pkt, sizeof(pkt));
	n = mpt_frame_data_encode(buf + off, sizeof(buf) - off, 42, pkt, sizeof(pkt));
	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN + sizeof(pkt));
	off += (size_t)n;
	n = mpt_frame_ack_encode(buf + off, sizeof(buf) - off, &ack);
	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_ACK_LEN(3));
	off += (size_t)n;
	n = mpt_frame_probe_encode(buf + off, sizeof(buf) - off, &probe);
	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_PROBE_LEN);
	off += (size_t)n;
	n = mpt_frame_probe_ack_encode(buf + off, sizeof(buf) - off, 77, 99);
	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_PROBE_ACK_LEN);
	off += (size_t)n;
	n = mpt_frame_padding_encode(buf + off, sizeof(buf) - off, 20);
	assert_int_equal(n, 20);
	off += (size_t)n;
	end = buf + off;
	{	/* DATA_UNORDERED: DATA's body under type 8; no other type is taken */
		uint8_t u[64], ip[40];
		const uint8_t *up = u;
		struct mpt_frame uf;

		fake_ipv4(ip, sizeof(ip));
		assert_int_equal(mpt_frame_data_encode_as(u, sizeof(u), MPT_FRAME_PROBE, 1,
							  ip, sizeof(ip)), -EINVAL);
		n = mpt_frame_data_encode_as(u, sizeof(u), MPT_FRAME_DATA_UNORDERED, 7, ip,
					     sizeof(ip));
		assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN + sizeof(ip));
		assert_int_equal(mpt_frame_next(&up, u + n, &uf), 1);
		assert_int_equal(uf.type, MPT_FRAME_DATA_UNORDERED);
		assert_true(uf.u.data.dsn == 7);
		assert_int_equal(uf.u.data.pkt_len, sizeof(ip));
		/* DATA_RESENT (a repair): DATA's body under type 9 */
		up = u;
		n = mpt_frame_data_encode_as(u, sizeof(u), MPT_FRAME_DATA_RESENT, 8, ip,
					     sizeof(ip));
		assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN + sizeof(ip));
		assert_int_equal(u[0], 9);
		assert_int_equal(mpt_frame_next(&up, u + n, &uf), 1);
		assert_int_equal(uf.type, MPT_FRAME_DATA_RESENT);
		assert_true(uf.u.data.dsn == 8);
		assert_int_equal(uf.u.data.pkt_len, sizeof(ip));
	}

	assert_int_equal(mpt_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_DATA);
	assert_true(f.u.data.dsn == 42);
	assert_int_equal(f.u.data.pkt_len, sizeof(pkt));
	assert_memory_equal(f.u.data.pkt, pkt, sizeof(pkt));

	assert_int_equal(mpt_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_ACK);
	assert_int_equal(f.u.ack.path_id, 3);
	assert_true(f.u.ack.ack_delay_ns == 1234000);	/* microsecond resolution */
	assert_int_equal(f.u.ack.nranges, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_true(f.u.ack.r[i].lo == ack.r[i].lo);
		assert_true(f.u.ack.r[i].hi == ack.r[i].hi);
	}

	assert_int_equal(mpt_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_PROBE);
	assert_int_equal(f.u.probe.id, 77);
	assert_true(f.u.probe.timestamp == probe.timestamp);
	assert_string_equal(f.u.probe.name, "wifi");
	assert_int_equal(f.u.probe.cost, 2);
	assert_int_equal(f.u.probe.weight, 30);
	assert_true(f.u.probe.capacity == 12500000);

	assert_int_equal(mpt_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_PROBE_ACK);
	assert_int_equal(f.u.probe_ack.id, 77);
	assert_true(f.u.probe_ack.timestamp == 99);

	assert_int_equal(mpt_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_PADDING);
	assert_int_equal(f.len, 17);
	assert_int_equal(mpt_frame_next(&pos, end, &f), 0);
	assert_ptr_equal(pos, end);
}

static void test_encode_limits(void **state)
{
	uint8_t buf[MPT_WIRE_DATA_PREFIX + 100], pkt[100];
	struct mpt_ack_info ack = { .nranges = MPT_ACK_MAX_RANGES };
	struct mpt_probe probe = { .name = "x" };
	int n;

	for (unsigned i = 0; i < MPT_ACK_MAX_RANGES; i++)
		ack.r[i].lo = ack.r[i].hi = 1000 - 2 * i;
	fake_ipv4(pkt, sizeof(pkt));
	assert_int_equal(mpt_frame_data_encode(buf, 110, 1, pkt, 100), -ENOSPC);
	assert_int_equal(mpt_frame_ack_encode(buf, sizeof(buf), &ack), -ENOSPC);
	ack.nranges = 0;
	assert_int_equal(mpt_frame_ack_encode(buf, sizeof(buf), &ack), -EINVAL);
	ack.nranges = MPT_ACK_MAX_RANGES + 1;
	assert_int_equal(mpt_frame_ack_encode(buf, sizeof(buf), &ack), -EINVAL);
	assert_int_equal(mpt_frame_probe_encode(buf, MPT_PROBE_LEN, &probe), -ENOSPC);
	assert_int_equal(mpt_frame_probe_ack_encode(buf, 14, 1, 1), -ENOSPC);
	assert_int_equal(mpt_frame_padding_encode(buf, sizeof(buf), 2), -EINVAL);

	/* Zero copy: the packet already sits where the DATA body wants it. */
	uint8_t *inner = buf + MPT_WIRE_DATA_PREFIX;
	const uint8_t *pos = buf + MPT_WIRE_HDR_LEN;
	struct mpt_frame f;

	memcpy(inner, pkt, sizeof(pkt));
	n = mpt_frame_data_encode(buf + MPT_WIRE_HDR_LEN, sizeof(buf) - MPT_WIRE_HDR_LEN, 9,
				  inner, sizeof(pkt));
	assert_int_equal(n, MPT_WIRE_DATA_PREFIX - MPT_WIRE_HDR_LEN + (int)sizeof(pkt));
	assert_int_equal(mpt_frame_next(&pos, buf + sizeof(buf), &f), 1);
	assert_memory_equal(f.u.data.pkt, pkt, sizeof(pkt));
	assert_int_equal(MPT_WIRE_DATA_OVERHEAD, 16 + 3 + 8 + 16);
}

/* A malformed frame sequence and the reason it must be rejected with. */
struct frame_case {
	const char *what;
	uint8_t bytes[96];
	size_t len;
	int reason;
};

#define R(lo, hi) 0, 0, 0, 0, 0, 0, 0, lo, 0, 0, 0, 0, 0, 0, 0, hi

static void test_frame_rejects(void **state)
{
	static const struct frame_case cases[] = {
		{ "1 byte left", { 0 }, 1, MPT_WIRE_FRAME_TRUNCATED },
		{ "2 bytes left", { 1, 0 }, 2, MPT_WIRE_FRAME_TRUNCATED },
		{ "length past end", { 0, 0, 10, 0, 0 }, 5, MPT_WIRE_FRAME_OVERFLOW },
		{ "length 0xffff", { 1, 0xff, 0xff, 0 }, 4, MPT_WIRE_FRAME_OVERFLOW },
		{ "unknown frame type", { 0x42, 0, 0 }, 3, MPT_WIRE_FRAME_UNKNOWN },
		{ "data without dsn", { 1, 0, 4, 0, 0, 0, 0 }, 7, MPT_WIRE_DATA_SHORT },
		{ "data empty packet", { 1, 0, 8 }, 11, MPT_WIRE_DATA_SHORT },
		{ "data ipv4 short", { 1, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0x45 }, 15,
		  MPT_WIRE_DATA_SHORT },
		{ "data ipv6 short", { 1, 0, 28, [11] = 0x60 }, 31, MPT_WIRE_DATA_SHORT },
		{ "data not ip", { 1, 0, 28, [11] = 0x20 }, 31, MPT_WIRE_DATA_NOT_IP },
		{ "ack too short", { 2, 0, 3, 0, 0, 0 }, 6, MPT_WIRE_ACK_LENGTH },
		{ "ack 0 ranges", { 2, 0, 6, 0, 0, 0, 0, 0, 0 }, 9, MPT_WIRE_ACK_NO_RANGES },
		{ "ack 33 ranges", { 2, 0, 6, 0, 0, 0, 0, 0, 33 }, 9, MPT_WIRE_ACK_TOO_MANY },
		{ "ack count/length mismatch", { 2, 0, 22, 0, 0, 0, 0, 0, 2, R(1, 2) }, 25,
		  MPT_WIRE_ACK_LENGTH },
		{ "ack bad path", { 2, 0, 22, 9, 0, 0, 0, 0, 1, R(1, 2) }, 25,
		  MPT_WIRE_ACK_BAD_PATH },
		{ "ack lo > hi", { 2, 0, 22, 0, 0, 0, 0, 0, 1, R(5, 2) }, 25,
		  MPT_WIRE_ACK_BAD_RANGE },
		{ "ack overlapping", { 2, 0, 38, 0, 0, 0, 0, 0, 2, R(10, 20), R(5, 10) }, 41,
		  MPT_WIRE_ACK_UNORDERED },
		{ "ack unordered", { 2, 0, 38, 0, 0, 0, 0, 0, 2, R(1, 2), R(5, 9) }, 41,
		  MPT_WIRE_ACK_UNORDERED },
		{ "probe too short", { 3, 0, 43 }, 46, MPT_WIRE_PROBE_LENGTH },
		{ "probe too long", { 3, 0, 45 }, 48, MPT_WIRE_PROBE_LENGTH },
		{ "probe name unterminated", { 3, 0, 44, [15] = 'a', 'a', 'a', 'a', 'a', 'a',
		  'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a' }, 47,
		  MPT_WIRE_PROBE_BAD_NAME },
		{ "probe name garbage after NUL", { 3, 0, 44, [15] = 'a', 0, 'b' }, 47,
		  MPT_WIRE_PROBE_BAD_NAME },
		{ "probe name control char", { 3, 0, 44, [15] = 'a', '\n' }, 47,
		  MPT_WIRE_PROBE_BAD_NAME },
		{ "probe ack short", { 4, 0, 11 }, 14, MPT_WIRE_PROBE_ACK_LENGTH },
		{ "ack frequency short", { 5, 0, 10 }, 13, MPT_WIRE_ACKF_BAD },
		{ "path status long", { 6, 0, 7 }, 10, MPT_WIRE_PSTAT_BAD },
		{ "path status bad path", { 6, 0, 6, 9, 0, 0, 0, 1, 1 }, 9, MPT_WIRE_PSTAT_BAD },
		{ "path status bad value", { 6, 0, 6, 1, 0, 0, 0, 1, 2 }, 9, MPT_WIRE_PSTAT_BAD },
		{ "ack frequency bad path", { 5, 0, 11, 200, 0, 0, 0, 1, 0, 4, 0, 0, 3, 0 }, 14,
		  MPT_WIRE_ACKF_BAD },
		{ "ack frequency zero threshold", { 5, 0, 11, 0, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0 },
		  14, MPT_WIRE_ACKF_BAD },
		{ "ack frequency delay over 1 s", { 5, 0, 11, 0, 0, 0, 0, 1, 0, 4, 0, 0x10, 0, 0 },
		  14, MPT_WIRE_ACKF_BAD },
		{ "good padding then junk", { 0, 0, 1, 0, 0x42 }, 5, MPT_WIRE_FRAME_TRUNCATED },
	};

	for (size_t i = 0; i < MPT_ARRAY_SIZE(cases); i++) {
		const uint8_t *pos = cases[i].bytes, *end = pos + cases[i].len;
		struct mpt_frame f;
		int ret;

		print_message("%s\n", cases[i].what);
		while ((ret = mpt_frame_next(&pos, end, &f)) == 1)
			;
		assert_int_equal(ret, -EBADMSG);
		assert_int_equal(f.reason, cases[i].reason);
		assert_string_not_equal(mpt_wire_strerror(f.reason), "unknown");
	}
}

static void test_strerror(void **state)
{
	for (int r = 0; r < MPT_WIRE_REASON_COUNT; r++)
		assert_string_not_equal(mpt_wire_strerror(r), "unknown");
	assert_string_equal(mpt_wire_strerror(MPT_WIRE_FRAME_OVERFLOW), "frame-overflow");
	assert_string_equal(mpt_wire_strerror(-1), "unknown");
	assert_string_equal(mpt_wire_strerror(MPT_WIRE_REASON_COUNT), "unknown");
}

static void test_ack_frequency_roundtrip(void **state)
{
	struct mpt_ack_frequency a = { .path_id = 3, .seq = 0x01020304, .threshold = 8,
				       .max_delay_us = 6000 };
	uint8_t buf[32];
	const uint8_t *pos = buf;
	struct mpt_frame f;
	int n = mpt_frame_ackf_encode(buf, sizeof(buf), &a);

	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_ACKF_LEN);
	assert_int_equal(mpt_frame_ackf_encode(buf, 10, &a), -ENOSPC);
	assert_int_equal(mpt_frame_next(&pos, buf + n, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_ACK_FREQUENCY);
	assert_int_equal(f.u.ackf.path_id, 3);
	assert_int_equal(f.u.ackf.seq, 0x01020304);
	assert_int_equal(f.u.ackf.threshold, 8);
	assert_int_equal(f.u.ackf.max_delay_us, 6000);
	a.threshold = 0;
	assert_int_equal(mpt_frame_ackf_encode(buf, sizeof(buf), &a), -EINVAL);
}

static void test_path_status_roundtrip(void **state)
{
	struct mpt_path_status ps = { .path_id = 2, .seq = 7, .in_use = 0 };
	uint8_t buf[16];
	const uint8_t *pos = buf;
	struct mpt_frame f;
	int n = mpt_frame_pstat_encode(buf, sizeof(buf), &ps);

	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_PSTAT_LEN);
	assert_int_equal(mpt_frame_next(&pos, buf + n, &f), 1);
	assert_int_equal(f.type, MPT_FRAME_PATH_STATUS);
	assert_int_equal(f.u.pstat.path_id, 2);
	assert_int_equal(f.u.pstat.seq, 7);
	assert_int_equal(f.u.pstat.in_use, 0);
	ps.in_use = 3;
	assert_int_equal(mpt_frame_pstat_encode(buf, sizeof(buf), &ps), -EINVAL);
}

/* The idle hint is a PADDING frame (old receivers skip it); zeros are no hint. */
static void test_idle_hint(void **state)
{
	uint8_t buf[64];
	const uint8_t *pos = buf;
	struct mpt_frame f;
	uint32_t ms = 0;
	int n, m;

	(void)state;
	n = mpt_frame_idle_hint_encode(buf, sizeof(buf), 15000);
	assert_int_equal(n, MPT_FRAME_HDR_LEN + MPT_PAD_IDLE_LEN);
	assert_int_equal(buf[0], MPT_FRAME_PADDING);
	assert_int_equal(memcmp(buf + MPT_FRAME_HDR_LEN, "IDLE", 4), 0);
	m = mpt_frame_padding_encode(buf + n, sizeof(buf) - (size_t)n,
				     MPT_FRAME_HDR_LEN + MPT_PAD_IDLE_LEN);
	assert_int_equal(m, MPT_FRAME_HDR_LEN + MPT_PAD_IDLE_LEN);
	assert_int_equal(mpt_frame_next(&pos, buf + n + m, &f), 1);
	assert_true(mpt_frame_idle_hint(&f, &ms));
	assert_int_equal(ms, 15000);
	assert_int_equal(mpt_frame_next(&pos, buf + n + m, &f), 1);	/* zeros */
	assert_int_equal(f.type, MPT_FRAME_PADDING);
	assert_false(mpt_frame_idle_hint(&f, &ms));
	assert_int_equal(mpt_frame_idle_hint_encode(buf, MPT_FRAME_HDR_LEN + 7, 1), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ack_frequency_roundtrip),
		cmocka_unit_test(test_path_status_roundtrip),
		cmocka_unit_test(test_header_round_trip),
		cmocka_unit_test(test_idle_hint),
		cmocka_unit_test(test_header_rejects),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_frames_round_trip),
		cmocka_unit_test(test_encode_limits),
		cmocka_unit_test(test_frame_rejects),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
