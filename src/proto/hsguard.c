// SPDX-License-Identifier: MIT
/*
 * Handshake admission (hsguard.h): the duplicate cache, the load meter, the per-source
 * limiters and the global budget, in the order that keeps an attacker's cost above
 * the anchor's. Only authenticated inits enter the duplicate cache, so an attacker
 * cannot fill it; its set index is mac1's first bytes (an HMAC output).
 */
#include <errno.h>
#include <string.h>

#include <mptund/common.h>

#include "hsguard.h"

int mpt_hs_guard_init(struct mpt_hs_guard *g, const uint8_t local_pub[MPT_KEY_BYTES],
		      uint64_t seed, uint64_t now_ns)
{
	memset(g, 0, sizeof(*g));
	if (mpt_cookie_checker_init(&g->cookie, local_pub))
		return -EIO;
	if (mpt_ratelimit_init(&g->per_src, MPT_RL_DEFAULT_RATE, MPT_RL_DEFAULT_BURST, seed) ||
	    mpt_ratelimit_init(&g->per_src_proven, MPT_RL_DEFAULT_RATE, MPT_RL_DEFAULT_BURST,
			       seed ^ 0x5bd1e995u) ||
	    mpt_bucket_init(&g->budget, MPT_HS_BUDGET_RATE, MPT_HS_BUDGET_BURST, now_ns) ||
	    mpt_bucket_init(&g->load, MPT_HS_LOAD_RATE, MPT_HS_LOAD_BURST, now_ns))
		return -EINVAL;
	return 0;
}

void mpt_hs_guard_free(struct mpt_hs_guard *g)
{
	mpt_cookie_checker_free(&g->cookie);
}

static struct mpt_hs_seen_entry *seen_set(struct mpt_hs_guard *g, const uint8_t *mac1)
{
	return g->seen[((unsigned)mac1[0] << 8 | mac1[1]) % MPT_HS_SEEN_SETS];
}

static bool seen_has(struct mpt_hs_guard *g, const uint8_t *mac1)
{
	struct mpt_hs_seen_entry *set = seen_set(g, mac1);

	for (unsigned w = 0; w < MPT_HS_SEEN_WAYS; w++)
		if (set[w].seq && !memcmp(set[w].mac1, mac1, MPT_MAC1_LEN))
			return true;
	return false;
}

void mpt_hs_guard_seen(struct mpt_hs_guard *g, const uint8_t *msg)
{
	const uint8_t *mac1 = msg + MPT_OFF_INIT_MAC1;
	struct mpt_hs_seen_entry *set = seen_set(g, mac1), *victim = &set[0];

	if (seen_has(g, mac1))
		return;
	for (unsigned w = 1; w < MPT_HS_SEEN_WAYS; w++)	/* the oldest goes */
		if ((int32_t)(set[w].seq - victim->seq) < 0 || !set[w].seq)
			victim = &set[w];
	memcpy(victim->mac1, mac1, MPT_MAC1_LEN);
	if (++g->seen_seq == 0)
		g->seen_seq = 1;
	victim->seq = g->seen_seq;
}

bool mpt_hs_guard_loaded(const struct mpt_hs_guard *g, uint64_t now_ns)
{
	return now_ns < g->loaded_until_ns;
}

static enum mpt_hs_verdict drop(int *reason, int why)
{
	*reason = why;
	return MPT_HS_DROP;
}

enum mpt_hs_verdict mpt_hs_guard_admit(struct mpt_hs_guard *g, const uint8_t *msg,
				       const struct sockaddr *from, uint64_t now_ns,
				       int *reason)
{
	uint8_t key[MPT_RL_ADDR_LEN];

	*reason = MPT_WIRE_OK;
	if (seen_has(g, msg + MPT_OFF_INIT_MAC1))
		return drop(reason, MPT_WIRE_HS_DUPLICATE);
	/* every mac1-valid init that is not a known copy counts as load */
	if (!mpt_bucket_take(&g->load, now_ns))
		g->loaded_until_ns = now_ns + MPT_HS_LOAD_HOLD_NS;
	if (mpt_ratelimit_key(key, from) < 0)
		return drop(reason, MPT_WIRE_HS_RATELIMIT);
	if (mpt_cookie_mac2_ok(&g->cookie, msg, from, now_ns)) {
		/* the source proved its address: its own bucket, which spoofed inits
		 * in its name cannot drain */
		if (!mpt_ratelimit_allow(&g->per_src_proven, key, now_ns))
			return drop(reason, MPT_WIRE_HS_RATELIMIT);
	} else if (mpt_hs_guard_loaded(g, now_ns) ||
		   !mpt_ratelimit_peek(&g->per_src, key, now_ns)) {
		/* no X25519 and no token for an address that may be spoofed */
		*reason = MPT_WIRE_HS_COOKIE;
		return MPT_HS_SEND_COOKIE;
	} else {
		mpt_ratelimit_allow(&g->per_src, key, now_ns);
	}
	if (!mpt_bucket_take(&g->budget, now_ns))
		return drop(reason, MPT_WIRE_HS_BUSY);
	return MPT_HS_ADMIT;
}
