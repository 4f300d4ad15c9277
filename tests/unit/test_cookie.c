// SPDX-License-Identifier: MIT
/* XChaCha20-Poly1305 against draft-irtf-cfrg-xchacha-03 (HChaCha20, section 2.2.1;
 * the AEAD, appendix A.3.1); cookie replies: only the sender of the init can open
 * one, tampering is caught, the UE's mac2 is what the anchor expects for that
 * address, and a kept cookie expires after MPT_COOKIE_KEEP_NS. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <mptund/common.h>
#include <mptund/wire.h>

#include "cookie.h"
#include "xchacha.h"

static void unhex(uint8_t *out, const char *hex, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void test_hchacha20_vector(void **state)
{
	uint8_t key[32], in[16], want[32], out[32];

	for (unsigned i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	unhex(in, "000000090000004a0000000031415927", 16);
	unhex(want, "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc", 32);
	mpt_hchacha20(out, key, in);
	assert_memory_equal(out, want, 32);
}

static const char sunscreen[] = "Ladies and Gentlemen of the class of '99: If I could "
				"offer you only one tip for the future, sunscreen would be it.";

static void test_xchacha_aead_vector(void **state)
{
	const size_t len = sizeof(sunscreen) - 1;	/* 114 */
	uint8_t key[32], nonce[24], ad[12], want[114 + 16], out[114 + 16], back[114 + 16];

	for (unsigned i = 0; i < 32; i++)
		key[i] = (uint8_t)(0x80 + i);
	for (unsigned i = 0; i < 24; i++)
		nonce[i] = (uint8_t)(0x40 + i);
	unhex(ad, "50515253c0c1c2c3c4c5c6c7", 12);
	unhex(want, "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
		    "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
		    "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
		    "21f9664c97637da9768812f615c68b13b52e"
		    "c0875924c1c7987947deafd8780acf49", len + 16);
	assert_int_equal(mpt_xchacha_seal(out, (const uint8_t *)sunscreen, len, ad, sizeof(ad),
					  nonce, key), (int)(len + 16));
	assert_memory_equal(out, want, len + 16);
	assert_int_equal(mpt_xchacha_open(back, out, len + 16, ad, sizeof(ad), nonce, key),
			 (int)len);
	assert_memory_equal(back, sunscreen, len);
	/* in place, and a flipped bit anywhere (ciphertext, tag, ad, nonce) fails */
	assert_int_equal(mpt_xchacha_open(out, out, len + 16, ad, sizeof(ad), nonce, key),
			 (int)len);
	memcpy(out, want, len + 16);
	out[len + 3] ^= 1;
	assert_int_equal(mpt_xchacha_open(back, out, len + 16, ad, sizeof(ad), nonce, key),
			 -EBADMSG);
	ad[0] ^= 1;
	assert_int_equal(mpt_xchacha_open(back, want, len + 16, ad, sizeof(ad), nonce, key),
			 -EBADMSG);
	ad[0] ^= 1;
	nonce[20] ^= 1;		/* the part that is not in HChaCha20's input */
	assert_int_equal(mpt_xchacha_open(back, want, len + 16, ad, sizeof(ad), nonce, key),
			 -EBADMSG);
	assert_int_equal(mpt_xchacha_open(back, want, 15, ad, sizeof(ad), nonce, key), -EBADMSG);
}

static void make_init(uint8_t msg[MPT_HS_INIT_LEN], uint32_t sender)
{
	for (unsigned i = 0; i < MPT_HS_INIT_LEN; i++)
		msg[i] = (uint8_t)(i * 13 + sender);
	msg[MPT_OFF_TYPE] = MPT_MSG_HANDSHAKE_INIT;
	msg[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	mpt_put_u32(msg + MPT_OFF_INIT_SENDER, sender);
	memset(msg + MPT_OFF_INIT_MAC2, 0, MPT_MAC2_LEN);
}

static void test_cookie_round_trip(void **state)
{
	const uint8_t anchor_pub[32] = { 1, 2, 3 }, other_pub[32] = { 4 };
	const uint8_t nonce[MPT_COOKIE_NONCE_LEN] = { 5, 6 };
	struct sockaddr_in6 ue = { .sin6_family = AF_INET6, .sin6_port = htons(5000) };
	struct mpt_cookie_checker c;
	struct mpt_cookie_slot slot = { 0 };
	uint8_t init[MPT_HS_INIT_LEN], reply[MPT_COOKIE_REPLY_LEN], bad[MPT_COOKIE_REPLY_LEN];
	uint8_t key[32], wrong_key[32];
	uint64_t now = 10 * MPT_NSEC_PER_SEC;
	int why;

	inet_pton(AF_INET6, "2001:db8::7", &ue.sin6_addr);
	assert_int_equal(mpt_cookie_checker_init(&c, anchor_pub), 0);
	assert_true(mpt_cookie_secret_stale(&c, now));
	assert_int_equal(mpt_cookie_reply(&c, reply, init, (struct sockaddr *)&ue, nonce, now),
			 -EIO);		/* no secret yet */
	mpt_cookie_set_secret(&c, (const uint8_t[32]){ 42 }, now);
	assert_false(mpt_cookie_secret_stale(&c, now + MPT_COOKIE_SECRET_NS - 1));
	assert_true(mpt_cookie_secret_stale(&c, now + MPT_COOKIE_SECRET_NS));

	make_init(init, 0x01020304);
	assert_false(mpt_cookie_mac2_ok(&c, init, (struct sockaddr *)&ue, now));
	assert_int_equal(mpt_cookie_reply(&c, reply, init, (struct sockaddr *)&ue, nonce, now),
			 0);
	/* the layout: type, version, zero, receiver = the init's sender, nonce */
	assert_int_equal(mpt_wire_classify(reply, sizeof(reply), &why), MPT_MSG_COOKIE_REPLY);
	assert_int_equal(reply[2] | reply[3], 0);
	assert_int_equal(mpt_get_u32(reply + MPT_OFF_COOKIE_RECEIVER), 0x01020304);
	assert_memory_equal(reply + MPT_OFF_COOKIE_NONCE, nonce, MPT_COOKIE_NONCE_LEN);

	mpt_cookie_enc_key(key, anchor_pub);
	mpt_cookie_enc_key(wrong_key, other_pub);
	/* another anchor's key, another init's mac1, a flipped bit: refused */
	assert_int_equal(mpt_cookie_consume(&slot, wrong_key, reply, init + MPT_OFF_INIT_MAC1,
					    now), -EBADMSG);
	assert_int_equal(mpt_cookie_consume(&slot, key, reply, init + MPT_OFF_INIT_MAC1 + 1,
					    now), -EBADMSG);
	for (size_t off = MPT_OFF_COOKIE_NONCE; off < MPT_COOKIE_REPLY_LEN; off += 7) {
		memcpy(bad, reply, sizeof(bad));
		bad[off] ^= 0x10;
		assert_int_equal(mpt_cookie_consume(&slot, key, bad, init + MPT_OFF_INIT_MAC1,
						    now), -EBADMSG);
	}
	assert_false(slot.valid);
	assert_int_equal(mpt_cookie_consume(&slot, key, reply, init + MPT_OFF_INIT_MAC1, now),
			 0);

	/* mac2 from the cookie passes for this address only */
	mpt_cookie_put_mac2(init, &slot, now);
	assert_true(mpt_cookie_mac2_ok(&c, init, (struct sockaddr *)&ue, now));
	ue.sin6_addr.s6_addr[15] ^= 1;
	assert_false(mpt_cookie_mac2_ok(&c, init, (struct sockaddr *)&ue, now));
	ue.sin6_addr.s6_addr[15] ^= 1;
	/* mac2 covers mac1 and everything before it */
	init[MPT_OFF_INIT_MAC1] ^= 1;
	assert_false(mpt_cookie_mac2_ok(&c, init, (struct sockaddr *)&ue, now));
	init[MPT_OFF_INIT_MAC1] ^= 1;
	/* the UE stops using its cookie after MPT_COOKIE_KEEP_NS: zeros */
	mpt_cookie_put_mac2(init, &slot, now + MPT_COOKIE_KEEP_NS);
	assert_memory_equal(init + MPT_OFF_INIT_MAC2, (uint8_t[MPT_MAC2_LEN]){ 0 },
			    MPT_MAC2_LEN);
	mpt_cookie_put_mac2(init, NULL, now);
	assert_memory_equal(init + MPT_OFF_INIT_MAC2, (uint8_t[MPT_MAC2_LEN]){ 0 },
			    MPT_MAC2_LEN);
	/* the anchor's secret expired: no mac2 passes */
	mpt_cookie_put_mac2(init, &slot, now);
	assert_false(mpt_cookie_mac2_ok(&c, init, (struct sockaddr *)&ue,
					now + MPT_COOKIE_SECRET_NS));
	mpt_cookie_checker_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hchacha20_vector),
		cmocka_unit_test(test_xchacha_aead_vector),
		cmocka_unit_test(test_cookie_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
