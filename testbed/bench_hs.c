// SPDX-License-Identifier: MIT
/*
 * Benchmark: what one handshake init costs the anchor, through the daemon's own
 * functions in the anchor's order (mac1, admission, the Noise IK responder), per kind:
 *   valid   a fresh init of a configured peer: consume + response (a keypair made)
 *   junk    mac1 right (anyone can compute it), the rest random
 *   replay  one of the last 512 valid inits again (the duplicate cache drops it)
 *   cookie  junk under load: answered with a cookie reply (built, not sent)
 * Prints microseconds per init and the inits per second one core completes.
 * The admission's limits are opened wide (10^9/s): this is the cost of the work they
 * bound, not their policy.
 * Usage: bench_hs [N]   (N inits of each kind, default 2000)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netinet/in.h>

#include <openssl/rand.h>

#include <mptund/wire.h>

#include "hsguard.h"
#include "keys.h"
#include "noise.h"

struct peer {
	uint8_t pub[MPT_KEY_BYTES];
	uint8_t last_ts[MPT_TIMESTAMP_LEN];
	uint8_t ss[MPT_KEY_BYTES];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int lookup(void *arg, const uint8_t pub[MPT_KEY_BYTES], void **peer,
		  uint8_t **last_ts, const uint8_t **ss)
{
	struct peer *p = arg;

	if (memcmp(p->pub, pub, MPT_KEY_BYTES))
		return -ENOKEY;
	*peer = p;
	*last_ts = p->last_ts;
	*ss = p->ss;		/* precomputed, as the daemon's sessions do */
	return 0;
}

/* The anchor's work for one init; returns the Noise result (0 = keypair made). */
static int anchor_init(const struct mpt_noise_local *anchor, struct mpt_hs_guard *g,
		       struct peer *p, const uint8_t *msg)
{
	static const struct sockaddr_in from = { .sin_family = AF_INET };
	struct mpt_noise_responder rsp;
	uint8_t eph[MPT_KEY_BYTES], out[MPT_HS_RESP_LEN];
	struct mpt_keypair kp;
	int reason, err;

	if (!mpt_noise_mac1_ok(anchor, msg, MPT_HS_INIT_LEN))
		return -EBADMSG;
	if (mpt_hs_guard_admit(g, msg, (const struct sockaddr *)&from, now_ns(), &reason) !=
	    MPT_HS_ADMIT)
		return reason == MPT_WIRE_HS_DUPLICATE ? -EALREADY : -EBUSY;
	err = mpt_noise_consume_init_mac1ok(&rsp, anchor, msg, lookup, p, &reason);
	if (err == 0 || err == -EALREADY)
		mpt_hs_guard_seen(g, msg);
	if (err)
		return err;
	RAND_bytes(eph, sizeof(eph));
	err = mpt_noise_create_response(&rsp, anchor, 7, eph, out, &kp);
	mpt_keypair_wipe(&kp);
	return err;
}

/* Under load: mac1, admission, the cookie reply as the daemon builds it. */
static int cookie_init(const struct mpt_noise_local *anchor, struct mpt_hs_guard *g,
		       const uint8_t *msg)
{
	static const struct sockaddr_in from = { .sin_family = AF_INET };
	uint8_t nonce[MPT_COOKIE_NONCE_LEN], out[MPT_COOKIE_REPLY_LEN];
	int reason;

	if (!mpt_noise_mac1_ok(anchor, msg, MPT_HS_INIT_LEN))
		return -EBADMSG;
	if (mpt_hs_guard_admit(g, msg, (const struct sockaddr *)&from, now_ns(), &reason) !=
	    MPT_HS_SEND_COOKIE)
		return -EINVAL;
	RAND_bytes(nonce, sizeof(nonce));
	return mpt_cookie_reply(&g->cookie, out, msg, (const struct sockaddr *)&from, nonce,
				now_ns());
}

static void make_local(struct mpt_noise_local *l, uint8_t seed)
{
	uint8_t r[MPT_KEY_BYTES], priv[MPT_KEY_BYTES];

	memset(r, seed, sizeof(r));
	mpt_key_private_from_random(priv, r);
	if (mpt_noise_local_init(l, priv)) {
		fprintf(stderr, "bench_hs: key set-up failed\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
	struct mpt_noise_local ue, anchor;
	struct mpt_noise_initiation st;
	struct peer p = { 0 };
	static struct mpt_hs_guard g;
	uint8_t (*inits)[MPT_HS_INIT_LEN], (*junk)[MPT_HS_INIT_LEN];
	uint64_t t0, t_valid, t_junk, t_replay, t_cookie;
	unsigned long bad = 0, recent;

	if (!n)
		n = 1;
	recent = n < MPT_HS_SEEN / 2 ? n : MPT_HS_SEEN / 2;
	inits = calloc(n, MPT_HS_INIT_LEN);
	junk = calloc(n, MPT_HS_INIT_LEN);
	if (!inits || !junk)
		return 1;
	make_local(&ue, 1);
	make_local(&anchor, 2);
	memcpy(p.pub, ue.pub, MPT_KEY_BYTES);
	if (mpt_noise_static_dh(&anchor, p.pub, p.ss) ||
	    mpt_hs_guard_init(&g, anchor.pub, 1, now_ns()) ||
	    mpt_ratelimit_init(&g.per_src, 1000000000, 1000000000, 1) ||
	    mpt_bucket_init(&g.budget, 1000000000, 1000000000, now_ns()) ||
	    mpt_bucket_init(&g.load, 1000000000, 1000000000, now_ns()))
		return 1;

	/* Built outside the timed loops: the UE's cost is not the anchor's. */
	for (unsigned long i = 0; i < n; i++) {
		uint8_t eph[MPT_KEY_BYTES], ts[MPT_TIMESTAMP_LEN];

		RAND_bytes(eph, sizeof(eph));
		mpt_noise_tai64n(ts, 1700000000ULL * 1000000000ULL + i * 1000);
		if (mpt_noise_create_init(&st, &ue, anchor.pub, MPT_CIPHER_CHACHA20_POLY1305,
					  (uint32_t)i, eph, ts, inits[i]))
			return 1;
		memcpy(junk[i], inits[i], MPT_HS_INIT_LEN);
		RAND_bytes(junk[i] + MPT_OFF_INIT_EPHEMERAL,
			   MPT_OFF_INIT_MAC1 - MPT_OFF_INIT_EPHEMERAL);
		mpt_noise_mac1_fill(&anchor, junk[i], MPT_HS_INIT_LEN);
	}

	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		bad += anchor_init(&anchor, &g, &p, inits[i]) != 0;
	t_valid = now_ns() - t0;
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		bad += anchor_init(&anchor, &g, &p, junk[i]) != -EBADMSG;
	t_junk = now_ns() - t0;
	t0 = now_ns();
	/* replays of recent inits (those the duplicate cache can hold) */
	for (unsigned long i = 0; i < n; i++)
		bad += anchor_init(&anchor, &g, &p, inits[n - 1 - i % recent]) != -EALREADY;
	t_replay = now_ns() - t0;

	/* under load: the load meter empty for the next second */
	mpt_bucket_init(&g.load, 1, 1, now_ns());
	mpt_bucket_take(&g.load, now_ns());
	g.loaded_until_ns = now_ns() + 3600 * 1000000000ULL;
	{
		uint8_t secret[MPT_COOKIE_SECRET_LEN] = { 1 };

		mpt_cookie_set_secret(&g.cookie, secret, now_ns());
	}
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		bad += cookie_init(&anchor, &g, junk[i]) != 0;
	t_cookie = now_ns() - t0;

	printf("bench_hs: %lu inits of each kind, one core\n", n);
	printf("  valid init      %8.1f us  (%6.0f/s)\n", t_valid / 1e3 / n, n * 1e9 / t_valid);
	printf("  mac1-valid junk %8.1f us  (%6.0f/s)\n", t_junk / 1e3 / n, n * 1e9 / t_junk);
	printf("  replay          %8.1f us  (%6.0f/s)\n", t_replay / 1e3 / n,
	       n * 1e9 / t_replay);
	printf("  cookie reply    %8.1f us  (%6.0f/s)\n", t_cookie / 1e3 / n,
	       n * 1e9 / t_cookie);
	if (bad)
		fprintf(stderr, "bench_hs: %lu inits had an unexpected result\n", bad);
	mpt_hs_guard_free(&g);
	mpt_noise_local_free(&ue);
	mpt_noise_local_free(&anchor);
	free(inits);
	free(junk);
	return bad != 0;
}
