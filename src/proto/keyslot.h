/* SPDX-License-Identifier: MIT */
/*
 * One keypair of a session (a keyslot: cur, prev or next) and its hard lifetime
 * (mptund-proto(7) "KEY LIFETIMES", WireGuard's RejectAfterTime and
 * RejectAfterMessages): after MPT_REJECT_AFTER_TIME_NS, or once as many packets as
 * the cipher allows were sealed or opened under it, a keyslot neither seals nor opens;
 * its keys are wiped (the OpenSSL contexts freed, which cleanses them, the slot
 * zeroed). The initiator rekeys well before (mpt_keyslot_rekey_due). Time is passed
 * in, so all of it runs under a fake clock in tests/unit/test_keyslot.c.
 */
#ifndef MPTUND_KEYSLOT_H
#define MPTUND_KEYSLOT_H

#include <stdbool.h>
#include <stdint.h>

#include <mptund/wire.h>

#include "aead.h"
#include "replay.h"

#define MPT_REJECT_AFTER_TIME_NS	(180ULL * 1000000000ULL)
/* RekeyAfterTime may be at most this: 30 s of handshake retries before the reject */
#define MPT_REKEY_AFTER_TIME_MAX_NS	(150ULL * 1000000000ULL)
#define MPT_REJECT_AFTER_MESSAGES	(1ULL << 60)
/* AES-GCM: its confidentiality limit (RFC 9001 section 6.6) */
#define MPT_REJECT_AFTER_MESSAGES_AES_GCM	(1ULL << 23)

struct mpt_keyslot {
	bool valid;
	struct mpt_aead tx, rx;		/* seal with tx, open with rx */
	uint32_t local_index, remote_index;
	uint64_t created_ns;
	uint64_t tx_pkts;		/* sealed under it */
	uint64_t rx_pkts;		/* opened under it */
	bool confirmed;			/* a packet was received under it */
	struct mpt_replay replay[MPT_MAX_PATHS];
};

/* How many packets the slot's cipher may seal, or open, under one key. */
uint64_t mpt_keyslot_reject_msgs(const struct mpt_keyslot *ks);
/* Past its hard lifetime (time, or packets sealed or opened)? */
bool mpt_keyslot_expired(const struct mpt_keyslot *ks, uint64_t now);
/* When it expires by time (0: not valid). */
uint64_t mpt_keyslot_deadline(const struct mpt_keyslot *ks);
/* Should the initiator rekey now: RekeyAfterTime (at most 150 s) or RekeyAfterPackets
 * (at most 7/8 of the cipher's limit) sealed or opened under it? */
bool mpt_keyslot_rekey_due(const struct mpt_keyslot *ks, uint64_t rekey_after_ns,
			   uint64_t rekey_after_packets, uint64_t now);
/* Free the contexts (cleansing their keys) and zero the slot. */
void mpt_keyslot_wipe(struct mpt_keyslot *ks);

/*
 * mpt_aead_seal_packet(_to) / mpt_aead_open_packet under the slot, counted, refused
 * with -EKEYEXPIRED (the slot wiped) past its lifetime; -ENOTCONN on a wiped slot.
 * seal: out == pkt seals in place (cap bytes of room), otherwise out of place.
 */
int mpt_keyslot_seal(struct mpt_keyslot *ks, uint8_t *pkt, size_t frames_len,
		     uint8_t *out, size_t cap, uint64_t now);
int mpt_keyslot_open(struct mpt_keyslot *ks, uint8_t *pkt, size_t len, uint64_t now);

#endif
