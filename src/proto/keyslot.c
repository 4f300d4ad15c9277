// SPDX-License-Identifier: MIT
/* A session's keypair and its hard lifetime: keyslot.h. */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>

#include "keyslot.h"

uint64_t mpt_keyslot_reject_msgs(const struct mpt_keyslot *ks)
{
	return ks->tx.cipher == MPT_CIPHER_AES_256_GCM ? MPT_REJECT_AFTER_MESSAGES_AES_GCM
						       : MPT_REJECT_AFTER_MESSAGES;
}

bool mpt_keyslot_expired(const struct mpt_keyslot *ks, uint64_t now)
{
	uint64_t max = mpt_keyslot_reject_msgs(ks);

	return now >= ks->created_ns + MPT_REJECT_AFTER_TIME_NS || ks->tx_pkts >= max ||
	       ks->rx_pkts >= max;
}

uint64_t mpt_keyslot_deadline(const struct mpt_keyslot *ks)
{
	return ks->valid ? ks->created_ns + MPT_REJECT_AFTER_TIME_NS : 0;
}

bool mpt_keyslot_rekey_due(const struct mpt_keyslot *ks, uint64_t rekey_after_ns,
			   uint64_t rekey_after_packets, uint64_t now)
{
	uint64_t max = mpt_keyslot_reject_msgs(ks);
	uint64_t pkts = max - max / 8;

	if (rekey_after_ns > MPT_REKEY_AFTER_TIME_MAX_NS)
		rekey_after_ns = MPT_REKEY_AFTER_TIME_MAX_NS;
	if (rekey_after_packets < pkts)
		pkts = rekey_after_packets;
	return now >= ks->created_ns + rekey_after_ns || ks->tx_pkts >= pkts ||
	       ks->rx_pkts >= pkts;
}

void mpt_keyslot_wipe(struct mpt_keyslot *ks)
{
	mpt_aead_free(&ks->tx);
	mpt_aead_free(&ks->rx);
	OPENSSL_cleanse(ks, sizeof(*ks));
}

static int usable(struct mpt_keyslot *ks, uint64_t now)
{
	if (!ks->valid)
		return -ENOTCONN;
	if (mpt_keyslot_expired(ks, now)) {
		mpt_keyslot_wipe(ks);
		return -EKEYEXPIRED;
	}
	return 0;
}

int mpt_keyslot_seal(struct mpt_keyslot *ks, uint8_t *pkt, size_t frames_len,
		     uint8_t *out, size_t cap, uint64_t now)
{
	int ret = usable(ks, now);

	if (ret < 0)
		return ret;
	ret = out == pkt ? mpt_aead_seal_packet(&ks->tx, pkt, frames_len, cap)
			 : mpt_aead_seal_packet_to(&ks->tx, pkt, frames_len, out, cap);
	if (ret >= 0)
		ks->tx_pkts++;
	return ret;
}

int mpt_keyslot_open(struct mpt_keyslot *ks, uint8_t *pkt, size_t len, uint64_t now)
{
	int ret = usable(ks, now);

	if (ret < 0)
		return ret;
	ret = mpt_aead_open_packet(&ks->rx, pkt, len);
	if (ret >= 0)
		ks->rx_pkts++;
	return ret;
}
