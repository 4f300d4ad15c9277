// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the state a peer's authenticated packets drive, as session_rx.c drives
 * it. An authenticated peer may still be broken or hostile, so every value it sends is
 * fuzzed: packet numbers into the anti-replay windows and the ACK tracker, DSNs into
 * the reorder buffer, ACK frames into the sender's recovery (RTT, delivery rate, loss
 * detection). The input is a little program of operations:
 *
 *   0 send:     path u8, count u8      the sender puts count packets on path
 *   1 datagram: len u16, len bytes     a decrypted transport packet (header + frames)
 *   2 time:     delta u32 (us)         the clock moves; every timer that is due fires
 *   3 misc:     what u8, arg u32       hold time, flush, path reset, app-limited
 *
 * Invariants: every packet the reorder buffer took comes back exactly once; the
 * sender's in-flight bytes never exceed what it sent and drop to zero on reset; ACK
 * frames built by the tracker re-encode; accepted packet numbers are never accepted
 * twice.
 */
#include <stdlib.h>
#include <string.h>

#include <mptund/wire.h>

#include "acktrack.h"
#include "recovery.h"
#include "reorder.h"
#include "replay.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define PATHS		4		/* enough for cross-path cases, cheap to reset */
#define RING		64		/* small rings: wrap-around is reachable */
#define REORDER_CAP	32
#define PKT_BYTES	1200

struct in {
	const uint8_t *p, *end;
};

struct rx {
	struct mpt_replay replay[MPT_MAX_PATHS];
	struct mpt_acktrack ackt[MPT_MAX_PATHS];
	struct mpt_recovery rec[PATHS];
	uint64_t next_pn[PATHS];
	struct mpt_reorder rb;
	uint64_t taken, released, sent_bytes[PATHS];
	uint8_t tokens[REORDER_CAP * 4];	/* distinct non-NULL packet pointers */
	unsigned next_token;
	uint64_t now;
};

static uint64_t get(struct in *in, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes-- && in->p < in->end)
		v = v << 8 | *in->p++;
	return v;
}

static void on_release(void *arg, uint64_t dsn, void *pkt, uint32_t len,
		       enum mpt_reorder_why why)
{
	struct rx *rx = arg;

	CHECK(pkt && len == PKT_BYTES);
	rx->released++;
	CHECK(rx->released <= rx->taken);
}

static void check_rec(const struct rx *rx, unsigned i)
{
	const struct mpt_recovery *r = &rx->rec[i];

	CHECK(r->in_flight <= rx->sent_bytes[i]);
	CHECK(r->acked_bytes + r->lost_bytes <= rx->sent_bytes[i]);
}

static void on_ack(struct rx *rx, const struct mpt_ack_info *ack)
{
	struct mpt_recovery_event ev;
	struct mpt_rate_sample rs;

	if (ack->path_id >= PATHS)
		return;
	memset(&ev, 0, sizeof(ev));
	if (mpt_recovery_on_ack(&rx->rec[ack->path_id], ack, rx->now, &rs, &ev) == 0 &&
	    ev.acked_pkts)
		CHECK(rs.acked_bytes == ev.acked_bytes);
	check_rec(rx, ack->path_id);
}

static void datagram(struct rx *rx, uint8_t *buf, size_t len)
{
	const uint8_t *pos, *end = buf + len;
	bool eliciting = false;
	struct mpt_frame f;
	struct mpt_hdr h;
	int why;

	if (mpt_hdr_decode(buf, len, &h, &why) < 0)
		return;
	if (!mpt_replay_check(&rx->replay[h.path_id], h.pn))
		return;
	CHECK(mpt_replay_update(&rx->replay[h.path_id], h.pn) == 0);
	CHECK(!mpt_replay_check(&rx->replay[h.path_id], h.pn));
	pos = buf + MPT_WIRE_HDR_LEN;
	end -= MPT_WIRE_TAG_LEN;	/* as after mpt_aead_open_packet */
	while (mpt_frame_next(&pos, end, &f) == 1) {
		switch (f.type) {
		case MPT_FRAME_DATA:
			eliciting = true;
			rx->taken++;	/* before: the insert may release it at once */
			if (mpt_reorder_insert(&rx->rb, f.u.data.dsn,
					       &rx->tokens[rx->next_token++ % sizeof(rx->tokens)],
					       PKT_BYTES, rx->now) < 0)
				rx->taken--;
			break;
		case MPT_FRAME_ACK:
			on_ack(rx, &f.u.ack);
			break;
		case MPT_FRAME_PROBE:
			eliciting = true;
			break;
		default:
			break;
		}
	}
	mpt_acktrack_on_packet(&rx->ackt[h.path_id], h.pn, eliciting, rx->now);
}

static void send_ack(struct rx *rx, unsigned i)
{
	uint8_t out[MPT_FRAME_HDR_LEN + MPT_ACK_LEN(MPT_ACK_MAX_RANGES)];
	struct mpt_ack_info ack;

	if (mpt_acktrack_build(&rx->ackt[i], rx->now, &ack) < 0)
		return;
	CHECK(ack.nranges >= 1 && ack.nranges <= MPT_ACK_MAX_RANGES);
	CHECK(mpt_frame_ack_encode(out, sizeof(out), &ack) > 0);
	mpt_acktrack_on_ack_sent(&rx->ackt[i], rx->now);
}

static void timers(struct rx *rx)
{
	uint64_t at = mpt_reorder_next_deadline(&rx->rb);

	if (at && at <= rx->now)
		mpt_reorder_on_timeout(&rx->rb, rx->now);
	for (unsigned i = 0; i < PATHS; i++) {
		struct mpt_recovery_event ev;

		at = mpt_recovery_loss_deadline(&rx->rec[i]);
		if (at && at <= rx->now) {
			memset(&ev, 0, sizeof(ev));
			mpt_recovery_on_loss_timeout(&rx->rec[i], rx->now, &ev);
			check_rec(rx, i);
		}
	}
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++)
		if (mpt_acktrack_should_ack_now(&rx->ackt[i], rx->now))
			send_ack(rx, i);
}

static void misc(struct rx *rx, unsigned what, uint32_t arg)
{
	struct mpt_recovery_event ev;
	unsigned i = arg % PATHS;

	switch (what % 5) {
	case 0:
		mpt_reorder_set_hold(&rx->rb, (uint64_t)arg * 1000);
		break;
	case 1:
		mpt_reorder_flush(&rx->rb);
		CHECK(rx->released == rx->taken);
		break;
	case 2:
		mpt_recovery_reset(&rx->rec[i]);
		CHECK(rx->rec[i].in_flight == 0);
		break;
	case 3:
		memset(&ev, 0, sizeof(ev));
		mpt_recovery_declare_all_lost(&rx->rec[i], &ev);
		CHECK(rx->rec[i].in_flight == 0);
		break;
	default:
		mpt_recovery_on_app_limited(&rx->rec[i]);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536];
	struct in in = { data, data + size };
	struct rx *rx = calloc(1, sizeof(*rx));

	CHECK(rx);
	rx->now = 1000000000ULL;
	for (unsigned i = 0; i < MPT_MAX_PATHS; i++) {
		mpt_replay_init(&rx->replay[i]);
		mpt_acktrack_init(&rx->ackt[i], (uint8_t)i, MPT_ACK_DEFAULT_MAX_DELAY_NS, 4);
	}
	for (unsigned i = 0; i < PATHS; i++) {
		CHECK(mpt_recovery_init(&rx->rec[i], NULL, RING) == 0);
		rx->next_pn[i] = 1;
	}
	CHECK(mpt_reorder_init(&rx->rb, REORDER_CAP, 250000000ULL, 2000000ULL, on_release,
			       rx) == 0);

	while (in.p < in.end) {
		unsigned op = (unsigned)get(&in, 1), i, n;
		size_t len;

		switch (op % 4) {
		case 0:
			i = (unsigned)get(&in, 1) % PATHS;
			n = (unsigned)get(&in, 1);
			while (n-- && mpt_recovery_can_send(&rx->rec[i])) {
				mpt_recovery_on_sent(&rx->rec[i], rx->next_pn[i]++, PKT_BYTES,
						     rx->now);
				rx->sent_bytes[i] += PKT_BYTES;
			}
			break;
		case 1:
			len = (size_t)get(&in, 2);
			if (len > (size_t)(in.end - in.p))
				len = (size_t)(in.end - in.p);
			memcpy(buf, in.p, len);	/* a private copy, as after decryption */
			in.p += len;
			datagram(rx, buf, len);
			break;
		case 2:
			rx->now += get(&in, 4) * 1000;
			timers(rx);
			break;
		default:
			n = (unsigned)get(&in, 1);
			misc(rx, n, (uint32_t)get(&in, 4));
			break;
		}
	}
	mpt_reorder_free(&rx->rb);
	CHECK(rx->released == rx->taken);
	for (unsigned i = 0; i < PATHS; i++)
		mpt_recovery_free(&rx->rec[i]);
	free(rx);
	return 0;
}
