// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the bytes of one datagram as the anchor's admission sees an init (the
 * duplicate cache, the load meter, mac2 under a cookie, the limiters) and as the UE
 * sees a cookie reply (XChaCha20-Poly1305 open against a pending init's mac1). The
 * first byte picks the source family and whether the anchor is under load. A second
 * mode (first byte odd) makes the reply a real one for a fuzzed init, so the open
 * and the mac2 check succeed and their paths are covered too. Invariants: no crash,
 * a verdict from the enum, a reason in range, a stored cookie only from an opened reply.
 */
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include "cookie.h"
#include "hsguard.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t pub[32] = { 7 }, secret[MPT_COOKIE_SECRET_LEN] = { 9 };
	static struct mpt_hs_guard g;
	static bool ready;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = 1 };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = 2 };
	uint8_t init[MPT_HS_INIT_LEN] = { 0 }, reply[MPT_COOKIE_REPLY_LEN] = { 0 }, key[32];
	struct mpt_cookie_slot slot = { 0 };
	const struct sockaddr *from;
	uint64_t now = 1000000000ULL;
	int why = -1, v;

	if (!ready) {
		CHECK(mpt_hs_guard_init(&g, pub, 1, now) == 0);
		CHECK(mpt_cookie_set_secret(&g.cookie, secret, now) == 0);
		ready = true;
	}
	if (size < 1)
		return 0;
	from = data[0] & 2 ? (const struct sockaddr *)&s6 : (const struct sockaddr *)&s4;
	if (data[0] & 4)
		g.loaded_until_ns = now + 1;
	memcpy(init, data + 1, size - 1 < sizeof(init) ? size - 1 : sizeof(init));
	mpt_cookie_enc_key(key, pub);
	if (data[0] & 1) {
		uint8_t nonce[MPT_COOKIE_NONCE_LEN] = { 3 };

		CHECK(mpt_cookie_reply(&g.cookie, reply, init, from, nonce, now) == 0);
		CHECK(mpt_cookie_consume(&slot, key, reply, init + MPT_OFF_INIT_MAC1, now) == 0);
		mpt_cookie_put_mac2(init, &slot, now);
		CHECK(mpt_cookie_mac2_ok(&g.cookie, init, from, now));
	} else if (size > 1 + MPT_HS_INIT_LEN) {
		size_t n = size - 1 - MPT_HS_INIT_LEN;

		memcpy(reply, data + 1 + MPT_HS_INIT_LEN, n < sizeof(reply) ? n : sizeof(reply));
		if (mpt_cookie_consume(&slot, key, reply, init + MPT_OFF_INIT_MAC1, now) < 0)
			CHECK(!slot.valid);
	}
	v = mpt_hs_guard_admit(&g, init, from, now, &why);
	CHECK(v == MPT_HS_ADMIT || v == MPT_HS_SEND_COOKIE || v == MPT_HS_DROP);
	CHECK(why >= 0 && why < MPT_WIRE_REASON_COUNT);
	if (v == MPT_HS_ADMIT && (data[0] & 8))
		mpt_hs_guard_seen(&g, init);
	g.loaded_until_ns = 0;
	return 0;
}
