// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the responder consuming arbitrary bytes as a handshake init. Raw fuzz
 * bytes almost never pass mac1, so a second mode (first input byte odd) recomputes
 * mac1 over the rest: that drives the fuzzer into the X25519, AEAD, lookup and
 * timestamp paths, which an attacker also reaches (mac1's key is public). The
 * initiator side consumes the same bytes as a response.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "fuzz.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

struct ctx {
	struct mpt_noise_local anchor, ue;
	uint8_t last_ts[MPT_TIMESTAMP_LEN];
	struct mpt_noise_initiation ini;	/* our pending init, see below */
};

static int lookup(void *arg, const uint8_t pub[32], void **peer, uint8_t **last,
		  const uint8_t **ss)
{
	struct ctx *c = arg;

	if (memcmp(pub, c->ue.pub, 32))
		return -ENOKEY;
	*peer = c;
	*last = c->last_ts;
	return 0;
}

static void remac(uint8_t *msg, size_t off, const uint8_t pub[32])
{
	uint8_t in[40], key[32], full[32];
	unsigned len = 32;

	memcpy(in, "mac1----", 8);
	memcpy(in + 8, pub, 32);
	SHA256(in, sizeof(in), key);
	HMAC(EVP_sha256(), key, 32, msg, off, full, &len);
	memcpy(msg + off, full, MPT_MAC1_LEN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctx c;
	static int ready;
	struct mpt_noise_responder rsp;
	struct mpt_noise_initiation ini;
	struct mpt_keypair kp;
	uint8_t msg[MPT_HS_INIT_LEN], resp[MPT_HS_RESP_LEN];
	bool fix_mac;
	int why, ret;

	if (!ready) {
		static const uint8_t eph[32] = FUZZ_INIT_EPH;
		static const uint8_t ts[MPT_TIMESTAMP_LEN] = FUZZ_INIT_TS;

		CHECK(fuzz_identity(&c.ue, FUZZ_UE_SEED) == 0);
		CHECK(fuzz_identity(&c.anchor, FUZZ_ANCHOR_SEED) == 0);
		CHECK(mpt_noise_create_init(&c.ini, &c.ue, c.anchor.pub,
					    MPT_CIPHER_CHACHA20_POLY1305, FUZZ_INIT_INDEX, eph,
					    ts, msg) == 0);
		ready = 1;
	}
	if (size < 1)
		return 0;
	fix_mac = data[0] & 1;
	data++;
	size--;
	memset(c.last_ts, 0, sizeof(c.last_ts));

	if (size == MPT_HS_INIT_LEN && fix_mac) {
		memcpy(msg, data, size);
		remac(msg, MPT_OFF_INIT_MAC1, c.anchor.pub);
		ret = mpt_noise_consume_init(&rsp, &c.anchor, msg, size, lookup, &c, &why);
	} else {
		ret = mpt_noise_consume_init(&rsp, &c.anchor, data, size, lookup, &c, &why);
	}
	CHECK(ret == 0 ? why == MPT_WIRE_OK : why > 0 && why < MPT_WIRE_REASON_COUNT);
	if (ret == 0) {
		static const uint8_t eph[32] = { 3 };

		CHECK(mpt_noise_create_response(&rsp, &c.anchor, 7, eph, resp, &kp) == 0);
	}

	/* The same bytes as a response to a pending initiation of ours (made once:
	 * the X25519s of an init would cost more than the rest of the run). */
	{
		uint8_t r[MPT_HS_RESP_LEN];

		ini = c.ini;
		if (size == MPT_HS_RESP_LEN && fix_mac) {
			memcpy(r, data, size);
			remac(r, MPT_OFF_RESP_MAC1, c.ue.pub);
			ret = mpt_noise_consume_response(&ini, &c.ue, r, size, &kp, &why);
		} else {
			ret = mpt_noise_consume_response(&ini, &c.ue, data, size, &kp, &why);
		}
		CHECK(ret == 0 ? why == MPT_WIRE_OK
			       : why > 0 && why < MPT_WIRE_REASON_COUNT);
	}
	return 0;
}
