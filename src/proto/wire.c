// SPDX-License-Identifier: MIT
/*
 * Wire protocol v2 codecs (include/mptund/wire.h, mptund-proto(7)). Pure functions
 * over buffers: encoders check room and return -ENOSPC, decoders check every length
 * and field before reading it and name the reason of a rejection. Nothing here
 * allocates, reads a clock or touches keys; sealing is aead.c's job.
 */
#include <errno.h>
#include <string.h>

#include <mptund/wire.h>

static const char *const reason_names[MPT_WIRE_REASON_COUNT] = {
	[MPT_WIRE_OK]			= "ok",
	[MPT_WIRE_SHORT]		= "short",
	[MPT_WIRE_BAD_VERSION]		= "bad-version",
	[MPT_WIRE_BAD_TYPE]		= "bad-type",
	[MPT_WIRE_BAD_LENGTH]		= "bad-length",
	[MPT_WIRE_BAD_FLAGS]		= "bad-flags",
	[MPT_WIRE_BAD_PATH_ID]		= "bad-path-id",
	[MPT_WIRE_FRAME_TRUNCATED]	= "frame-truncated",
	[MPT_WIRE_FRAME_OVERFLOW]	= "frame-overflow",
	[MPT_WIRE_FRAME_UNKNOWN]	= "frame-unknown",
	[MPT_WIRE_DATA_SHORT]		= "data-short",
	[MPT_WIRE_DATA_NOT_IP]		= "data-not-ip",
	[MPT_WIRE_ACK_LENGTH]		= "ack-length",
	[MPT_WIRE_ACK_NO_RANGES]	= "ack-no-ranges",
	[MPT_WIRE_ACK_TOO_MANY]		= "ack-too-many-ranges",
	[MPT_WIRE_ACK_BAD_PATH]		= "ack-bad-path",
	[MPT_WIRE_ACK_BAD_RANGE]	= "ack-bad-range",
	[MPT_WIRE_ACK_UNORDERED]	= "ack-unordered",
	[MPT_WIRE_PROBE_LENGTH]		= "probe-length",
	[MPT_WIRE_PROBE_BAD_NAME]	= "probe-bad-name",
	[MPT_WIRE_PROBE_ACK_LENGTH]	= "probe-ack-length",
	[MPT_WIRE_ACKF_BAD]		= "ack-frequency-bad",
	[MPT_WIRE_PSTAT_BAD]		= "path-status-bad",
	[MPT_WIRE_RULES_BAD]		= "rules-bad",
	[MPT_WIRE_DECRYPT]		= "decrypt",
	[MPT_WIRE_REPLAY]		= "replay",
	[MPT_WIRE_UNKNOWN_INDEX]	= "unknown-index",
	[MPT_WIRE_HS_MAC1]		= "hs-mac1",
	[MPT_WIRE_HS_CIPHER]		= "hs-cipher",
	[MPT_WIRE_HS_CRYPTO]		= "hs-crypto",
	[MPT_WIRE_HS_UNKNOWN_PEER]	= "hs-unknown-peer",
	[MPT_WIRE_HS_REPLAY]		= "hs-replay",
	[MPT_WIRE_HS_STATE]		= "hs-state",
	[MPT_WIRE_HS_RATELIMIT]		= "hs-ratelimit",
	[MPT_WIRE_HS_DUPLICATE]		= "hs-duplicate",
	[MPT_WIRE_HS_BUSY]		= "hs-busy",
	[MPT_WIRE_HS_COOKIE]		= "hs-cookie",
	[MPT_WIRE_COOKIE_BAD]		= "cookie-bad",
	[MPT_WIRE_KEY_EXPIRED]		= "key-expired",
};

const char *mpt_wire_strerror(int reason)
{
	if (reason < 0 || reason >= MPT_WIRE_REASON_COUNT || !reason_names[reason])
		return "unknown";
	return reason_names[reason];
}

static int reject(int *reason, int why)
{
	if (reason)
		*reason = why;
	return -EBADMSG;
}

int mpt_wire_classify(const uint8_t *buf, size_t len, int *reason)
{
	if (len < 2)
		return reject(reason, MPT_WIRE_SHORT);
	if (buf[MPT_OFF_VERSION] != MPT_WIRE_VERSION)
		return reject(reason, MPT_WIRE_BAD_VERSION);
	switch (buf[MPT_OFF_TYPE]) {
	case MPT_MSG_HANDSHAKE_INIT:
		if (len != MPT_HS_INIT_LEN)
			return reject(reason, MPT_WIRE_BAD_LENGTH);
		break;
	case MPT_MSG_HANDSHAKE_RESP:
		if (len != MPT_HS_RESP_LEN)
			return reject(reason, MPT_WIRE_BAD_LENGTH);
		break;
	case MPT_MSG_COOKIE_REPLY:
		if (len != MPT_COOKIE_REPLY_LEN)
			return reject(reason, MPT_WIRE_BAD_LENGTH);
		break;
	case MPT_MSG_TRANSPORT:
		if (len < MPT_WIRE_MIN_TRANSPORT)
			return reject(reason, MPT_WIRE_SHORT);
		break;
	default:
		return reject(reason, MPT_WIRE_BAD_TYPE);
	}
	if (reason)
		*reason = MPT_WIRE_OK;
	return buf[MPT_OFF_TYPE];
}

int mpt_hdr_encode(uint8_t *buf, size_t cap, const struct mpt_hdr *h)
{
	if (cap < MPT_WIRE_HDR_LEN)
		return -ENOSPC;
	if (h->path_id >= MPT_MAX_PATHS)
		return -EINVAL;
	buf[MPT_OFF_TYPE] = MPT_MSG_TRANSPORT;
	buf[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	buf[MPT_OFF_PATH_ID] = h->path_id;
	buf[MPT_OFF_FLAGS] = 0;
	mpt_put_u32(buf + MPT_OFF_RECEIVER, h->receiver);
	mpt_put_u64(buf + MPT_OFF_PN, h->pn);
	return MPT_WIRE_HDR_LEN;
}

int mpt_hdr_decode(const uint8_t *buf, size_t len, struct mpt_hdr *h, int *reason)
{
	if (len < MPT_WIRE_HDR_LEN)
		return reject(reason, MPT_WIRE_SHORT);
	if (buf[MPT_OFF_VERSION] != MPT_WIRE_VERSION)
		return reject(reason, MPT_WIRE_BAD_VERSION);
	if (buf[MPT_OFF_TYPE] != MPT_MSG_TRANSPORT)
		return reject(reason, MPT_WIRE_BAD_TYPE);
	if (len < MPT_WIRE_MIN_TRANSPORT)
		return reject(reason, MPT_WIRE_SHORT);
	if (buf[MPT_OFF_FLAGS] != 0)
		return reject(reason, MPT_WIRE_BAD_FLAGS);
	if (buf[MPT_OFF_PATH_ID] >= MPT_MAX_PATHS)
		return reject(reason, MPT_WIRE_BAD_PATH_ID);
	h->type = MPT_MSG_TRANSPORT;
	h->path_id = buf[MPT_OFF_PATH_ID];
	h->flags = 0;
	h->receiver = mpt_get_u32(buf + MPT_OFF_RECEIVER);
	h->pn = mpt_get_u64(buf + MPT_OFF_PN);
	if (reason)
		*reason = MPT_WIRE_OK;
	return 0;
}

void mpt_wire_nonce(uint8_t nonce[MPT_WIRE_NONCE_LEN], uint8_t path_id, uint64_t pn)
{
	nonce[0] = nonce[1] = nonce[2] = 0;
	nonce[3] = path_id;
	mpt_put_u64(nonce + 4, pn);
}

/* Frame header; the caller has checked cap >= MPT_FRAME_HDR_LEN + body. */
static void put_frame_hdr(uint8_t *buf, uint8_t type, size_t body)
{
	buf[0] = type;
	mpt_put_u16(buf + 1, (uint16_t)body);
}

static int frame_room(size_t cap, size_t body)
{
	if (body > MPT_FRAME_MAX_BODY)
		return -EINVAL;
	if (cap < MPT_FRAME_HDR_LEN + body)
		return -ENOSPC;
	return 0;
}

int mpt_frame_data_encode(uint8_t *buf, size_t cap, uint64_t dsn, const uint8_t *pkt,
			  size_t pkt_len)
{
	return mpt_frame_data_encode_as(buf, cap, MPT_FRAME_DATA, dsn, pkt, pkt_len);
}

int mpt_frame_data_encode_as(uint8_t *buf, size_t cap, uint8_t type, uint64_t dsn,
			     const uint8_t *pkt, size_t pkt_len)
{
	size_t body = MPT_DATA_HDR_LEN + pkt_len;
	uint8_t *dst = buf + MPT_FRAME_HDR_LEN + MPT_DATA_OFF_PACKET;
	int err = frame_room(cap, body);

	if (err)
		return err;
	if (pkt != dst)
		memmove(dst, pkt, pkt_len);
	if (type != MPT_FRAME_DATA && type != MPT_FRAME_DATA_UNORDERED &&
	    type != MPT_FRAME_DATA_RESENT)
		return -EINVAL;
	put_frame_hdr(buf, type, body);
	mpt_put_u64(buf + MPT_FRAME_HDR_LEN + MPT_DATA_OFF_DSN, dsn);
	return (int)(MPT_FRAME_HDR_LEN + body);
}

int mpt_frame_ack_encode(uint8_t *buf, size_t cap, const struct mpt_ack_info *ack)
{
	size_t body = MPT_ACK_LEN(ack->nranges);
	uint64_t delay_us = ack->ack_delay_ns / MPT_NSEC_PER_USEC;
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err;

	if (ack->nranges < 1 || ack->nranges > MPT_ACK_MAX_RANGES ||
	    ack->path_id >= MPT_MAX_PATHS)
		return -EINVAL;
	err = frame_room(cap, body);
	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_ACK, body);
	b[MPT_ACK_OFF_PATH] = ack->path_id;
	mpt_put_u32(b + MPT_ACK_OFF_DELAY, delay_us > UINT32_MAX ? UINT32_MAX
							    : (uint32_t)delay_us);
	b[MPT_ACK_OFF_COUNT] = (uint8_t)ack->nranges;
	for (unsigned i = 0; i < ack->nranges; i++) {
		uint8_t *r = b + MPT_ACK_OFF_RANGES + i * MPT_ACK_RANGE_LEN;

		mpt_put_u64(r, ack->r[i].lo);
		mpt_put_u64(r + 8, ack->r[i].hi);
	}
	return (int)(MPT_FRAME_HDR_LEN + body);
}

int mpt_frame_probe_encode(uint8_t *buf, size_t cap, const struct mpt_probe *p)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	size_t nlen = strnlen(p->name, MPT_NAME_LEN);
	int err;

	if (nlen >= MPT_NAME_LEN)
		return -EINVAL;
	err = frame_room(cap, MPT_PROBE_LEN);
	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_PROBE, MPT_PROBE_LEN);
	mpt_put_u32(b + MPT_PROBE_OFF_ID, p->id);
	mpt_put_u64(b + MPT_PROBE_OFF_TS, p->timestamp);
	memset(b + MPT_PROBE_OFF_NAME, 0, MPT_NAME_LEN);
	memcpy(b + MPT_PROBE_OFF_NAME, p->name, nlen);
	mpt_put_u32(b + MPT_PROBE_OFF_COST, p->cost);
	mpt_put_u32(b + MPT_PROBE_OFF_WEIGHT, p->weight);
	mpt_put_u64(b + MPT_PROBE_OFF_CAPACITY, p->capacity);
	return MPT_FRAME_HDR_LEN + MPT_PROBE_LEN;
}

int mpt_frame_probe_ack_encode(uint8_t *buf, size_t cap, uint32_t id, uint64_t timestamp)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err = frame_room(cap, MPT_PROBE_ACK_LEN);

	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_PROBE_ACK, MPT_PROBE_ACK_LEN);
	mpt_put_u32(b + MPT_PROBE_ACK_OFF_ID, id);
	mpt_put_u64(b + MPT_PROBE_ACK_OFF_TS, timestamp);
	return MPT_FRAME_HDR_LEN + MPT_PROBE_ACK_LEN;
}

int mpt_frame_ackf_encode(uint8_t *buf, size_t cap, const struct mpt_ack_frequency *a)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err = frame_room(cap, MPT_ACKF_LEN);

	if (err)
		return err;
	if (a->path_id >= MPT_MAX_PATHS || !a->threshold)
		return -EINVAL;
	put_frame_hdr(buf, MPT_FRAME_ACK_FREQUENCY, MPT_ACKF_LEN);
	b[MPT_ACKF_OFF_PATH] = a->path_id;
	mpt_put_u32(b + MPT_ACKF_OFF_SEQ, a->seq);
	mpt_put_u16(b + MPT_ACKF_OFF_THRESHOLD, a->threshold);
	mpt_put_u32(b + MPT_ACKF_OFF_DELAY, a->max_delay_us);
	return MPT_FRAME_HDR_LEN + MPT_ACKF_LEN;
}

int mpt_frame_pstat_encode(uint8_t *buf, size_t cap, const struct mpt_path_status *ps)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err = frame_room(cap, MPT_PSTAT_LEN);

	if (err)
		return err;
	if (ps->path_id >= MPT_MAX_PATHS || ps->in_use > 1)
		return -EINVAL;
	put_frame_hdr(buf, MPT_FRAME_PATH_STATUS, MPT_PSTAT_LEN);
	b[MPT_PSTAT_OFF_PATH] = ps->path_id;
	mpt_put_u32(b + MPT_PSTAT_OFF_SEQ, ps->seq);
	b[MPT_PSTAT_OFF_STATUS] = ps->in_use;
	return MPT_FRAME_HDR_LEN + MPT_PSTAT_LEN;
}

int mpt_frame_padding_encode(uint8_t *buf, size_t cap, size_t total)
{
	int err;

	if (total < MPT_FRAME_HDR_LEN)
		return -EINVAL;
	err = frame_room(cap, total - MPT_FRAME_HDR_LEN);
	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_PADDING, total - MPT_FRAME_HDR_LEN);
	memset(buf + MPT_FRAME_HDR_LEN, 0, total - MPT_FRAME_HDR_LEN);
	return (int)total;
}

int mpt_frame_idle_hint_encode(uint8_t *buf, size_t cap, uint32_t ms)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err = frame_room(cap, MPT_PAD_IDLE_LEN);

	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_PADDING, MPT_PAD_IDLE_LEN);
	mpt_put_u32(b, MPT_PAD_IDLE_MAGIC);
	mpt_put_u32(b + 4, ms);
	return MPT_FRAME_HDR_LEN + MPT_PAD_IDLE_LEN;
}

bool mpt_frame_idle_hint(const struct mpt_frame *f, uint32_t *ms)
{
	if (f->type != MPT_FRAME_PADDING || f->len != MPT_PAD_IDLE_LEN ||
	    mpt_get_u32(f->body) != MPT_PAD_IDLE_MAGIC)
		return false;
	*ms = mpt_get_u32(f->body + 4);
	return true;
}

/* ---- Decoding ---- */

static int decode_data(struct mpt_frame *f)
{
	const uint8_t *pkt = f->body + MPT_DATA_OFF_PACKET;
	size_t plen;

	if (f->len < MPT_DATA_HDR_LEN + 1)
		return MPT_WIRE_DATA_SHORT;
	plen = f->len - MPT_DATA_HDR_LEN;
	switch (pkt[0] >> 4) {
	case 4:
		if (plen < 20)		/* RFC 791 minimum header */
			return MPT_WIRE_DATA_SHORT;
		break;
	case 6:
		if (plen < 40)		/* RFC 8200 fixed header */
			return MPT_WIRE_DATA_SHORT;
		break;
	default:
		return MPT_WIRE_DATA_NOT_IP;
	}
	f->u.data.dsn = mpt_get_u64(f->body + MPT_DATA_OFF_DSN);
	f->u.data.pkt = pkt;
	f->u.data.pkt_len = plen;
	return MPT_WIRE_OK;
}

static int decode_ack(struct mpt_frame *f)
{
	struct mpt_ack_info *a = &f->u.ack;
	unsigned n;

	if (f->len < MPT_ACK_OFF_RANGES)
		return MPT_WIRE_ACK_LENGTH;
	n = f->body[MPT_ACK_OFF_COUNT];
	if (n == 0)
		return MPT_WIRE_ACK_NO_RANGES;
	if (n > MPT_ACK_MAX_RANGES)
		return MPT_WIRE_ACK_TOO_MANY;
	if (f->len != MPT_ACK_LEN(n))
		return MPT_WIRE_ACK_LENGTH;
	a->path_id = f->body[MPT_ACK_OFF_PATH];
	if (a->path_id >= MPT_MAX_PATHS)
		return MPT_WIRE_ACK_BAD_PATH;
	a->ack_delay_ns = (uint64_t)mpt_get_u32(f->body + MPT_ACK_OFF_DELAY) *
			  MPT_NSEC_PER_USEC;
	a->nranges = n;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *r = f->body + MPT_ACK_OFF_RANGES + i * MPT_ACK_RANGE_LEN;

		a->r[i].lo = mpt_get_u64(r);
		a->r[i].hi = mpt_get_u64(r + 8);
		if (a->r[i].lo > a->r[i].hi)
			return MPT_WIRE_ACK_BAD_RANGE;
		/* Largest first and disjoint: each range lies wholly below the last. */
		if (i > 0 && a->r[i].hi >= a->r[i - 1].lo)
			return MPT_WIRE_ACK_UNORDERED;
	}
	return MPT_WIRE_OK;
}

static int decode_probe(struct mpt_frame *f)
{
	struct mpt_probe *p = &f->u.probe;
	const uint8_t *name = f->body + MPT_PROBE_OFF_NAME;
	size_t nlen;

	if (f->len != MPT_PROBE_LEN)
		return MPT_WIRE_PROBE_LENGTH;
	nlen = strnlen((const char *)name, MPT_NAME_LEN);
	if (nlen == MPT_NAME_LEN)
		return MPT_WIRE_PROBE_BAD_NAME;
	for (size_t i = nlen; i < MPT_NAME_LEN; i++)
		if (name[i])
			return MPT_WIRE_PROBE_BAD_NAME;
	for (size_t i = 0; i < nlen; i++)
		if (name[i] < 0x21 || name[i] > 0x7e)	/* printable, no space */
			return MPT_WIRE_PROBE_BAD_NAME;
	p->id = mpt_get_u32(f->body + MPT_PROBE_OFF_ID);
	p->timestamp = mpt_get_u64(f->body + MPT_PROBE_OFF_TS);
	memcpy(p->name, name, MPT_NAME_LEN);
	p->cost = mpt_get_u32(f->body + MPT_PROBE_OFF_COST);
	p->weight = mpt_get_u32(f->body + MPT_PROBE_OFF_WEIGHT);
	p->capacity = mpt_get_u64(f->body + MPT_PROBE_OFF_CAPACITY);
	return MPT_WIRE_OK;
}

static int decode_probe_ack(struct mpt_frame *f)
{
	if (f->len != MPT_PROBE_ACK_LEN)
		return MPT_WIRE_PROBE_ACK_LENGTH;
	f->u.probe_ack.id = mpt_get_u32(f->body + MPT_PROBE_ACK_OFF_ID);
	f->u.probe_ack.timestamp = mpt_get_u64(f->body + MPT_PROBE_ACK_OFF_TS);
	return MPT_WIRE_OK;
}

static int decode_ackf(struct mpt_frame *f)
{
	struct mpt_ack_frequency *a = &f->u.ackf;

	if (f->len != MPT_ACKF_LEN)
		return MPT_WIRE_ACKF_BAD;
	a->path_id = f->body[MPT_ACKF_OFF_PATH];
	a->seq = mpt_get_u32(f->body + MPT_ACKF_OFF_SEQ);
	a->threshold = mpt_get_u16(f->body + MPT_ACKF_OFF_THRESHOLD);
	a->max_delay_us = mpt_get_u32(f->body + MPT_ACKF_OFF_DELAY);
	if (a->path_id >= MPT_MAX_PATHS || !a->threshold || a->max_delay_us > 1000000)
		return MPT_WIRE_ACKF_BAD;
	return MPT_WIRE_OK;
}

static int decode_rules(struct mpt_frame *f)
{
	struct mpt_rules_frag *r = &f->u.rules;

	if (f->len < MPT_RULES_HDR_LEN || f->len > MPT_RULES_HDR_LEN + MPT_RULES_FRAG_MAX)
		return MPT_WIRE_RULES_BAD;
	r->seq = mpt_get_u32(f->body + MPT_RULES_OFF_SEQ);
	r->index = f->body[MPT_RULES_OFF_INDEX];
	r->count = f->body[MPT_RULES_OFF_COUNT];
	r->text = f->body + MPT_RULES_OFF_TEXT;
	r->len = (uint16_t)(f->len - MPT_RULES_HDR_LEN);
	if (!r->seq || r->count > MPT_RULES_FRAGS || (r->count && r->index >= r->count) ||
	    (!r->count && (r->index || r->len)))
		return MPT_WIRE_RULES_BAD;
	return MPT_WIRE_OK;
}

int mpt_frame_rules_encode(uint8_t *buf, size_t cap, const struct mpt_rules_frag *r)
{
	uint8_t *b = buf + MPT_FRAME_HDR_LEN;
	int err;

	if (!r->seq || r->count > MPT_RULES_FRAGS || r->len > MPT_RULES_FRAG_MAX ||
	    (r->count && r->index >= r->count) || (!r->count && (r->index || r->len)))
		return -EINVAL;
	err = frame_room(cap, MPT_RULES_HDR_LEN + r->len);
	if (err)
		return err;
	put_frame_hdr(buf, MPT_FRAME_RULES, (uint16_t)(MPT_RULES_HDR_LEN + r->len));
	mpt_put_u32(b + MPT_RULES_OFF_SEQ, r->seq);
	b[MPT_RULES_OFF_INDEX] = r->index;
	b[MPT_RULES_OFF_COUNT] = r->count;
	if (r->len)
		memcpy(b + MPT_RULES_OFF_TEXT, r->text, r->len);
	return MPT_FRAME_HDR_LEN + MPT_RULES_HDR_LEN + r->len;
}

static int decode_pstat(struct mpt_frame *f)
{
	struct mpt_path_status *ps = &f->u.pstat;

	if (f->len != MPT_PSTAT_LEN)
		return MPT_WIRE_PSTAT_BAD;
	ps->path_id = f->body[MPT_PSTAT_OFF_PATH];
	ps->seq = mpt_get_u32(f->body + MPT_PSTAT_OFF_SEQ);
	ps->in_use = f->body[MPT_PSTAT_OFF_STATUS];
	if (ps->path_id >= MPT_MAX_PATHS || ps->in_use > 1)
		return MPT_WIRE_PSTAT_BAD;
	return MPT_WIRE_OK;
}

int mpt_frame_next(const uint8_t **pos, const uint8_t *end, struct mpt_frame *f)
{
	const uint8_t *p = *pos;
	size_t left;
	int why;

	f->reason = MPT_WIRE_OK;
	if (p >= end)
		return 0;
	left = (size_t)(end - p);
	if (left < MPT_FRAME_HDR_LEN) {
		f->reason = MPT_WIRE_FRAME_TRUNCATED;
		return -EBADMSG;
	}
	f->type = p[0];
	f->len = mpt_get_u16(p + 1);
	f->body = p + MPT_FRAME_HDR_LEN;
	if (f->len > left - MPT_FRAME_HDR_LEN) {
		f->reason = MPT_WIRE_FRAME_OVERFLOW;
		return -EBADMSG;
	}
	switch (f->type) {
	case MPT_FRAME_PADDING:
		why = MPT_WIRE_OK;
		break;
	case MPT_FRAME_DATA:
	case MPT_FRAME_DATA_UNORDERED:
	case MPT_FRAME_DATA_RESENT:
		why = decode_data(f);
		break;
	case MPT_FRAME_ACK:
		why = decode_ack(f);
		break;
	case MPT_FRAME_PROBE:
		why = decode_probe(f);
		break;
	case MPT_FRAME_PROBE_ACK:
		why = decode_probe_ack(f);
		break;
	case MPT_FRAME_ACK_FREQUENCY:
		why = decode_ackf(f);
		break;
	case MPT_FRAME_PATH_STATUS:
		why = decode_pstat(f);
		break;
	case MPT_FRAME_RULES:
		why = decode_rules(f);
		break;
	default:
		why = MPT_WIRE_FRAME_UNKNOWN;
		break;
	}
	if (why != MPT_WIRE_OK) {
		f->reason = why;
		return -EBADMSG;
	}
	*pos = f->body + f->len;
	return 1;
}
