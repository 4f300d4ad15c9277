/* SPDX-License-Identifier: MIT */
/*
 * The mptund wire protocol, version 2 (mptund-proto(7)). Every field is fixed-width
 * and big-endian, addressed by the offset/length constants below; nothing is sent as
 * a raw C struct. Four message types share the first two bytes (type, version):
 *
 *   handshake init      initiator (UE) -> responder (anchor), Noise IK message 1
 *   handshake response  responder -> initiator, Noise IK message 2
 *   cookie reply        responder -> initiator under load, instead of a response
 *   transport           16-byte clear header (the AEAD's associated data), then the
 *                       AEAD ciphertext of a sequence of frames, then a 16-byte tag
 *
 * The decoders are pure functions over buffers; every length and field is checked
 * and a failure names its reason (enum mpt_wire_reason) so the daemon can count
 * drops by reason.
 */
#ifndef MPTUND_WIRE_H
#define MPTUND_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mptund/ack.h>
#include <mptund/common.h>

#define MPT_WIRE_VERSION	2	/* 2: init with mac2, cookie reply */

enum mpt_msg_type {
	MPT_MSG_HANDSHAKE_INIT	= 1,
	MPT_MSG_HANDSHAKE_RESP	= 2,
	MPT_MSG_TRANSPORT	= 3,
	MPT_MSG_COOKIE_REPLY	= 4,
};

/* ---- Common prefix of every message ---- */
#define MPT_OFF_TYPE		0	/* u8, enum mpt_msg_type */
#define MPT_OFF_VERSION		1	/* u8, MPT_WIRE_VERSION */

/* ---- Handshake messages (sizes are exact) ---- */
#define MPT_KEY_BYTES		32	/* X25519 public/private, symmetric keys */
#define MPT_TAG_LEN		16	/* AEAD tag (both ciphers) */
#define MPT_MAC1_LEN		16
#define MPT_MAC2_LEN		16
#define MPT_TIMESTAMP_LEN	12	/* TAI64N: u64 seconds (2^62 + unix), u32 ns */
#define MPT_OFF_HS_CIPHER	2	/* u8, transport cipher (MPT_WIRE_CIPHER_*) */
#define MPT_OFF_HS_FLAGS	3	/* u8, init: MPT_HS_FLAG_*; response: zero */
#define MPT_HS_FLAG_FRESH	0x01	/* the initiator has no transport state (it started,
					 * or found the peer silent): the responder starts the
					 * session's paths afresh too (mptund-proto(7)) */

#define MPT_WIRE_CIPHER_CHACHA20_POLY1305	1
#define MPT_WIRE_CIPHER_AES_256_GCM		2

/* Init: 148 bytes. */
#define MPT_OFF_INIT_SENDER	4	/* u32 initiator's index */
#define MPT_OFF_INIT_EPHEMERAL	8	/* 32 bytes */
#define MPT_OFF_INIT_STATIC	40	/* 32 + tag: encrypted initiator static */
#define MPT_OFF_INIT_TIMESTAMP	88	/* 12 + tag: encrypted TAI64N */
#define MPT_OFF_INIT_MAC1	116	/* 16 bytes, over bytes 0..115 */
#define MPT_OFF_INIT_MAC2	132	/* 16 bytes, over bytes 0..131; zero: no cookie */
#define MPT_HS_INIT_LEN		148
#define MPT_HS_INIT_PROLOGUE	8	/* clear bytes mixed into the handshake hash */

/* Response: 76 bytes. */
#define MPT_OFF_RESP_SENDER	4	/* u32 responder's index */
#define MPT_OFF_RESP_RECEIVER	8	/* u32 initiator's index (echo) */
#define MPT_OFF_RESP_EPHEMERAL	12	/* 32 bytes */
#define MPT_OFF_RESP_EMPTY	44	/* tag only: encrypted empty payload */
#define MPT_OFF_RESP_MAC1	60	/* 16 bytes */
#define MPT_HS_RESP_LEN		76
#define MPT_HS_RESP_PROLOGUE	12	/* clear bytes mixed into the handshake hash */

/* Cookie reply: 64 bytes (cookie.h). */
#define MPT_OFF_COOKIE_RECEIVER	4	/* u32 initiator's index (the init's sender) */
#define MPT_OFF_COOKIE_NONCE	8	/* 24 bytes, random */
#define MPT_OFF_COOKIE_ENCRYPTED 32	/* 16 + tag: XChaCha20-Poly1305 of the cookie */
#define MPT_COOKIE_NONCE_LEN	24
#define MPT_COOKIE_REPLY_LEN	64

/* ---- Transport header (16 bytes, authenticated as AAD) ---- */
#define MPT_OFF_PATH_ID		2	/* u8, < MPT_MAX_PATHS */
#define MPT_OFF_FLAGS		3	/* u8, zero in v1 */
#define MPT_OFF_RECEIVER	4	/* u32, the receiver's keypair index */
#define MPT_OFF_PN		8	/* u64, packet number, per path and keypair */
#define MPT_WIRE_HDR_LEN	16
#define MPT_WIRE_TAG_LEN	MPT_TAG_LEN
#define MPT_WIRE_NONCE_LEN	12	/* 0,0,0,path_id || pn (BE) */
#define MPT_WIRE_MIN_TRANSPORT	(MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN)

/* ---- Frames inside the ciphertext: type u8, length u16 (body), body ---- */
enum mpt_frame_type {
	MPT_FRAME_PADDING	= 0,	/* body ignored */
	MPT_FRAME_DATA		= 1,	/* dsn u64, inner IP packet */
	MPT_FRAME_ACK		= 2,	/* see below */
	MPT_FRAME_PROBE		= 3,	/* path liveness, carries the sender's path info */
	MPT_FRAME_PROBE_ACK	= 4,	/* echoes probe id and timestamp */
	MPT_FRAME_ACK_FREQUENCY	= 5,	/* how often the peer should ACK a path */
	MPT_FRAME_PATH_STATUS	= 6,	/* the UE takes a path out of or into use */
	MPT_FRAME_RULES		= 7,	/* anchor -> UE: steering rules; UE -> anchor: ack */
	MPT_FRAME_DATA_UNORDERED = 8,	/* as DATA, but numbered in a space of its own and
					 * delivered at once (a rule with Ordered = no) */
	MPT_FRAME_DATA_RESENT	= 9,	/* as DATA, a tunnel repair: its first copy was
					 * declared lost (Recovery = retransmit) */
};
#define MPT_FRAME_HDR_LEN	3
#define MPT_FRAME_MAX_BODY	65535

/* DATA body */
#define MPT_DATA_OFF_DSN	0	/* u64 session-wide data sequence number */
#define MPT_DATA_OFF_PACKET	8	/* inner IPv4/IPv6 packet, rest of the body */
#define MPT_DATA_HDR_LEN	8

/* ACK body: 7 + 16 x nranges */
#define MPT_ACK_OFF_PATH	0	/* u8 path whose packet numbers are acked */
#define MPT_ACK_OFF_DELAY	1	/* u32 ack delay, microseconds */
#define MPT_ACK_OFF_COUNT	5	/* u8 number of ranges, 1..MPT_ACK_MAX_RANGES */
#define MPT_ACK_OFF_RANGES	6	/* ranges, largest first: lo u64, hi u64 */
#define MPT_ACK_RANGE_LEN	16
#define MPT_ACK_LEN(n)		(MPT_ACK_OFF_RANGES + MPT_ACK_RANGE_LEN * (n))

/* PROBE body: 44 bytes */
#define MPT_PROBE_OFF_ID	0	/* u32 */
#define MPT_PROBE_OFF_TS	4	/* u64 sender's timestamp (opaque to the peer) */
#define MPT_PROBE_OFF_NAME	12	/* 16 bytes, NUL-padded path name */
#define MPT_PROBE_OFF_COST	28	/* u32 */
#define MPT_PROBE_OFF_WEIGHT	32	/* u32 */
#define MPT_PROBE_OFF_CAPACITY	36	/* u64 bytes/s, 0 = unset */
#define MPT_PROBE_LEN		44

/* PROBE_ACK body: 12 bytes */
#define MPT_PROBE_ACK_OFF_ID	0	/* u32 */
#define MPT_PROBE_ACK_OFF_TS	4	/* u64 */
#define MPT_PROBE_ACK_LEN	12

/* ACK_FREQUENCY body: 11 bytes (draft-ietf-quic-ack-frequency's frame, per path): the
 * receiver of path's packets ACKs after threshold ack-eliciting packets or max_delay,
 * whichever first; a higher seq replaces a lower one (frames may be reordered). */
#define MPT_ACKF_OFF_PATH	0	/* u8 path whose packets the ACKs are for */
#define MPT_ACKF_OFF_SEQ	1	/* u32 sequence number */
#define MPT_ACKF_OFF_THRESHOLD	5	/* u16 ack-eliciting packets per ACK, >= 1 */
#define MPT_ACKF_OFF_DELAY	7	/* u32 max ACK delay, microseconds */
#define MPT_ACKF_LEN		11

/* PATH_STATUS body: 6 bytes. The UE says a path is out of use (mptund-ctl path X down,
 * its device down) or in use again; the anchor stops or resumes sending on it. Sent on
 * the other paths at once, and with every PROBE while the path is out of use. */
#define MPT_PSTAT_OFF_PATH	0	/* u8 path id */
#define MPT_PSTAT_OFF_SEQ	1	/* u32 sequence number: a higher one replaces */
#define MPT_PSTAT_OFF_STATUS	5	/* u8 0 = out of use, 1 = in use */
#define MPT_PSTAT_LEN		6

/* RULES body: 6 bytes + text. The anchor's steering rules for the UE (ATSSS rules),
 * as text: one rule a line, each the Key=value tokens of a [Rule] (mptund.conf(5)),
 * split into count fragments of at most MPT_RULES_FRAG_MAX bytes sent in packets of
 * their own. seq names the rule set: a new one replaces the set being reassembled and,
 * once whole and valid, the UE's pushed rules. count 0 (no text): the UE's
 * acknowledgment that it holds the set seq (or refused it: it will not change). */
#define MPT_RULES_OFF_SEQ	0	/* u32 rule set number, never 0 */
#define MPT_RULES_OFF_INDEX	4	/* u8 fragment index, < count */
#define MPT_RULES_OFF_COUNT	5	/* u8 fragments in the set, 0..MPT_RULES_FRAGS */
#define MPT_RULES_OFF_TEXT	6
#define MPT_RULES_HDR_LEN	6
#define MPT_RULES_FRAGS		16
#define MPT_RULES_FRAG_MAX	1024

struct mpt_rules_frag {
	uint32_t seq;
	uint8_t index, count;		/* count 0: an acknowledgment of seq */
	const uint8_t *text;		/* into the packet; len bytes */
	uint16_t len;
};

struct mpt_path_status {
	uint8_t path_id;
	uint32_t seq;
	uint8_t in_use;
};

struct mpt_ack_frequency {
	uint8_t path_id;
	uint32_t seq;
	uint16_t threshold;
	uint32_t max_delay_us;
};

/*
 * Bytes added to an inner packet sent alone in a transport packet: header, DATA frame
 * header, DSN, tag. Inner MTU = outer MTU - IP - UDP - MPT_WIRE_DATA_OVERHEAD.
 * A zero-copy sender reads the inner packet at MPT_WIRE_DATA_PREFIX.
 */
#define MPT_WIRE_DATA_PREFIX	(MPT_WIRE_HDR_LEN + MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN)
#define MPT_WIRE_DATA_OVERHEAD	(MPT_WIRE_DATA_PREFIX + MPT_WIRE_TAG_LEN)

/* Why a message was dropped: decoders report these, the daemon counts them. */
enum mpt_wire_reason {
	MPT_WIRE_OK = 0,
	MPT_WIRE_SHORT,			/* shorter than its fixed header */
	MPT_WIRE_BAD_VERSION,
	MPT_WIRE_BAD_TYPE,		/* unknown message type */
	MPT_WIRE_BAD_LENGTH,		/* handshake message of the wrong size */
	MPT_WIRE_BAD_FLAGS,		/* reserved bits set */
	MPT_WIRE_BAD_PATH_ID,		/* path_id >= MPT_MAX_PATHS */
	MPT_WIRE_FRAME_TRUNCATED,	/* fewer than 3 bytes for a frame header */
	MPT_WIRE_FRAME_OVERFLOW,	/* frame length runs past the packet */
	MPT_WIRE_FRAME_UNKNOWN,
	MPT_WIRE_DATA_SHORT,		/* no room for dsn + an IP header */
	MPT_WIRE_DATA_NOT_IP,		/* inner packet is neither IPv4 nor IPv6 */
	MPT_WIRE_ACK_LENGTH,		/* length does not match the range count */
	MPT_WIRE_ACK_NO_RANGES,
	MPT_WIRE_ACK_TOO_MANY,		/* more than MPT_ACK_MAX_RANGES */
	MPT_WIRE_ACK_BAD_PATH,
	MPT_WIRE_ACK_BAD_RANGE,		/* lo > hi */
	MPT_WIRE_ACK_UNORDERED,		/* not largest-first or overlapping */
	MPT_WIRE_PROBE_LENGTH,
	MPT_WIRE_PROBE_BAD_NAME,	/* not NUL-terminated / NUL-padded */
	MPT_WIRE_PROBE_ACK_LENGTH,
	MPT_WIRE_ACKF_BAD,		/* ACK_FREQUENCY of a bad length, path or value */
	MPT_WIRE_PSTAT_BAD,		/* PATH_STATUS of a bad length, path or value */
	MPT_WIRE_RULES_BAD,		/* RULES: seq 0, index past count, too long */
	/* Reasons found by the crypto layers, listed here so there is one table. */
	MPT_WIRE_DECRYPT,		/* AEAD tag check failed */
	MPT_WIRE_REPLAY,		/* packet number seen or too old */
	MPT_WIRE_UNKNOWN_INDEX,		/* receiver index matches no keypair */
	MPT_WIRE_HS_MAC1,		/* handshake mac1 wrong: junk, dropped cheaply */
	MPT_WIRE_HS_CIPHER,		/* unknown cipher in an init */
	MPT_WIRE_HS_CRYPTO,		/* handshake decryption / DH failed */
	MPT_WIRE_HS_UNKNOWN_PEER,	/* initiator's static key not allowed */
	MPT_WIRE_HS_REPLAY,		/* init timestamp not newer than the last */
	MPT_WIRE_HS_STATE,		/* response with no matching pending init */
	MPT_WIRE_HS_RATELIMIT,		/* init rate limit for this source */
	MPT_WIRE_HS_DUPLICATE,		/* init equal to a recently authenticated one */
	MPT_WIRE_HS_BUSY,		/* global budget for handshake work spent */
	MPT_WIRE_HS_COOKIE,		/* under load without a valid mac2: answered with
					 * a cookie reply instead */
	MPT_WIRE_COOKIE_BAD,		/* cookie reply that does not open or matches no
					 * pending init */
	MPT_WIRE_KEY_EXPIRED,		/* keypair past its hard lifetime (wiped) */
	MPT_WIRE_REASON_COUNT
};

/* Short stable name ("frame-overflow"), for counters and logs; "unknown" if bad. */
const char *mpt_wire_strerror(int reason);

/* The decoded transport header. */
struct mpt_hdr {
	uint8_t type;			/* MPT_MSG_TRANSPORT */
	uint8_t path_id;
	uint8_t flags;
	uint32_t receiver;
	uint64_t pn;
};

/* Path info a PROBE carries. */
struct mpt_probe {
	uint32_t id;
	uint64_t timestamp;
	char name[MPT_NAME_LEN];	/* NUL-terminated */
	uint32_t cost;
	uint32_t weight;
	uint64_t capacity;
};

/* One decoded frame. Pointers point into the decrypted packet. */
struct mpt_frame {
	uint8_t type;			/* enum mpt_frame_type */
	uint16_t len;			/* body length */
	const uint8_t *body;
	int reason;			/* enum mpt_wire_reason when mpt_frame_next fails */
	union {
		struct {
			uint64_t dsn;
			const uint8_t *pkt;
			size_t pkt_len;
		} data;
		struct mpt_ack_info ack;
		struct mpt_probe probe;
		struct {
			uint32_t id;
			uint64_t timestamp;
		} probe_ack;
		struct mpt_ack_frequency ackf;
		struct mpt_path_status pstat;
		struct mpt_rules_frag rules;
	} u;
};

/*
 * Classify a received datagram: returns its enum mpt_msg_type, or -EBADMSG with
 * *reason set (short, bad version, unknown type, handshake of the wrong size,
 * transport shorter than header + tag).
 */
int mpt_wire_classify(const uint8_t *buf, size_t len, int *reason);

/* Transport header. encode returns MPT_WIRE_HDR_LEN or -ENOSPC (or -EINVAL for a
 * path_id out of range); decode returns 0 or -EBADMSG with *reason. */
int mpt_hdr_encode(uint8_t *buf, size_t cap, const struct mpt_hdr *h);
int mpt_hdr_decode(const uint8_t *buf, size_t len, struct mpt_hdr *h, int *reason);
/* The AEAD nonce of a transport packet: 0,0,0,path_id || pn (BE). */
void mpt_wire_nonce(uint8_t nonce[MPT_WIRE_NONCE_LEN], uint8_t path_id, uint64_t pn);

/*
 * Frame encoders: write one whole frame at buf, return the bytes written or -ENOSPC
 * (or -EINVAL for a value the format cannot carry).
 * mpt_frame_data_encode copies pkt with memmove, so pkt may already sit at
 * buf + MPT_FRAME_HDR_LEN + MPT_DATA_HDR_LEN (zero copy: nothing is moved).
 */
int mpt_frame_data_encode(uint8_t *buf, size_t cap, uint64_t dsn, const uint8_t *pkt,
			  size_t pkt_len);
/* The same body under another type: MPT_FRAME_DATA or MPT_FRAME_DATA_UNORDERED. */
int mpt_frame_data_encode_as(uint8_t *buf, size_t cap, uint8_t type, uint64_t dsn,
			     const uint8_t *pkt, size_t pkt_len);
int mpt_frame_ack_encode(uint8_t *buf, size_t cap, const struct mpt_ack_info *ack);
int mpt_frame_probe_encode(uint8_t *buf, size_t cap, const struct mpt_probe *p);
int mpt_frame_probe_ack_encode(uint8_t *buf, size_t cap, uint32_t id, uint64_t timestamp);
int mpt_frame_ackf_encode(uint8_t *buf, size_t cap, const struct mpt_ack_frequency *a);
int mpt_frame_pstat_encode(uint8_t *buf, size_t cap, const struct mpt_path_status *ps);
int mpt_frame_rules_encode(uint8_t *buf, size_t cap, const struct mpt_rules_frag *r);
/* A padding frame of exactly total bytes (>= MPT_FRAME_HDR_LEN), zero body. */
int mpt_frame_padding_encode(uint8_t *buf, size_t cap, size_t total);
/*
 * The idle hint: a PADDING frame whose body is "IDLE" and a u32, the anchor's
 * IdleProbeInterval in milliseconds, sent with its PROBE_ACKs: how long the UE's idle
 * PROBEs may be apart on a path before the anchor wakes to probe it itself
 * (mptund-proto(7)). A receiver that does not know it ignores it as any padding,
 * so an anchor older than the hint never says it, and a UE older than it never looks.
 */
#define MPT_PAD_IDLE_MAGIC	0x49444c45u	/* "IDLE" */
#define MPT_PAD_IDLE_LEN	8
int mpt_frame_idle_hint_encode(uint8_t *buf, size_t cap, uint32_t ms);
/* A decoded PADDING frame that is an idle hint: true and *ms. */
bool mpt_frame_idle_hint(const struct mpt_frame *f, uint32_t *ms);

/*
 * Frame iterator over a decrypted payload: returns 1 and fills *f (advancing *pos),
 * 0 at the end, -EBADMSG with f->reason on a malformed frame (stop processing the
 * packet then: the frames before it were authentic but the sender is broken).
 */
int mpt_frame_next(const uint8_t **pos, const uint8_t *end, struct mpt_frame *f);

/* Big-endian helpers, for the codecs in src/ that follow this format. */
static inline void mpt_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void mpt_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void mpt_put_u64(uint8_t *p, uint64_t v)
{
	mpt_put_u32(p, (uint32_t)(v >> 32));
	mpt_put_u32(p + 4, (uint32_t)v);
}

static inline uint16_t mpt_get_u16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t mpt_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t mpt_get_u64(const uint8_t *p)
{
	return (uint64_t)mpt_get_u32(p) << 32 | mpt_get_u32(p + 4);
}

#endif
