// SPDX-License-Identifier: MIT
/*
 * libFuzzer: a received datagram through the transport header decoder, then the
 * bytes after it through the frame iterator as if they were a decrypted payload
 * (the tag is not checked here, so every frame path is reachable). Invariants: the
 * iterator always advances and stays inside the buffer, decoded fields respect the
 * limits the decoder promises, and re-encoding a decoded frame gives the same bytes.
 * A datagram that decodes as a transport packet also goes through the AEAD open (a
 * fixed key, the one the seed corpus was sealed with: a forged tag fails cleanly at any
 * length, a seed opens).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mptund/wire.h>

#include "aead.h"
#include "fuzz.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void reencode(const struct mpt_frame *f, const uint8_t *start)
{
	uint8_t out[MPT_FRAME_HDR_LEN + MPT_FRAME_MAX_BODY];
	int n = -1;

	switch (f->type) {
	case MPT_FRAME_DATA:
	case MPT_FRAME_DATA_UNORDERED:
	case MPT_FRAME_DATA_RESENT:
		n = mpt_frame_data_encode_as(out, sizeof(out), f->type, f->u.data.dsn,
					     f->u.data.pkt, f->u.data.pkt_len);
		break;
	case MPT_FRAME_ACK:
		n = mpt_frame_ack_encode(out, sizeof(out), &f->u.ack);
		break;
	case MPT_FRAME_PROBE:
		n = mpt_frame_probe_encode(out, sizeof(out), &f->u.probe);
		break;
	case MPT_FRAME_PROBE_ACK:
		n = mpt_frame_probe_ack_encode(out, sizeof(out), f->u.probe_ack.id,
					       f->u.probe_ack.timestamp);
		break;
	default:
		return;
	}
	CHECK(n == MPT_FRAME_HDR_LEN + f->len);
	/* ACK delay has microsecond resolution: compare all but that field. */
	if (f->type == MPT_FRAME_ACK)
		memcpy(out + MPT_FRAME_HDR_LEN + MPT_ACK_OFF_DELAY,
		       start + MPT_FRAME_HDR_LEN + MPT_ACK_OFF_DELAY, 4);
	CHECK(memcmp(out, start, (size_t)n) == 0);
}

static void open_packet(const uint8_t *data, size_t size)
{
	static const uint8_t key[MPT_AEAD_KEY_LEN] = FUZZ_AEAD_KEY;
	static struct mpt_aead aead;
	static uint8_t buf[65536];
	int n;

	if (!aead.open)
		CHECK(mpt_aead_init(&aead, MPT_CIPHER_CHACHA20_POLY1305, key) == 0);
	if (size > sizeof(buf))
		return;
	memcpy(buf, data, size);
	n = mpt_aead_open_packet(&aead, buf, size);
	CHECK(n == -EBADMSG || (size_t)n == size - MPT_WIRE_MIN_TRANSPORT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *pos, *end = data + size;
	struct mpt_hdr h;
	struct mpt_frame f;
	int why, ret;

	why = -1;
	ret = mpt_wire_classify(data, size, &why);
	CHECK(ret > 0 ? why == MPT_WIRE_OK : why > 0 && why < MPT_WIRE_REASON_COUNT);
	why = -1;
	if (mpt_hdr_decode(data, size, &h, &why) == 0) {
		CHECK(h.path_id < MPT_MAX_PATHS && size >= MPT_WIRE_MIN_TRANSPORT);
		open_packet(data, size);
	} else
		CHECK(why > 0 && why < MPT_WIRE_REASON_COUNT);

	pos = size >= MPT_WIRE_HDR_LEN ? data + MPT_WIRE_HDR_LEN : data;
	for (;;) {
		const uint8_t *start = pos;

		ret = mpt_frame_next(&pos, end, &f);
		if (ret <= 0) {
			CHECK(ret == 0 || (f.reason > 0 && f.reason < MPT_WIRE_REASON_COUNT));
			break;
		}
		CHECK(pos > start && pos <= end);
		CHECK(pos == start + MPT_FRAME_HDR_LEN + f.len);
		if (f.type == MPT_FRAME_ACK) {
			CHECK(f.u.ack.nranges >= 1 && f.u.ack.nranges <= MPT_ACK_MAX_RANGES);
			for (unsigned i = 0; i < f.u.ack.nranges; i++)
				CHECK(f.u.ack.r[i].lo <= f.u.ack.r[i].hi &&
				      (i == 0 || f.u.ack.r[i].hi < f.u.ack.r[i - 1].lo));
		}
		if (f.type == MPT_FRAME_PROBE)
			CHECK(strnlen(f.u.probe.name, MPT_NAME_LEN) < MPT_NAME_LEN);
		reencode(&f, start);
	}
	return 0;
}
