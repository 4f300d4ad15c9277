// SPDX-License-Identifier: MIT
/* Noise IK handshake: both sides derive matching keys that work for transport; wrong
 * responder key, tampered mac1 / ephemeral / static / prologue, replayed init, unknown
 * initiator and forged responses are all rejected with their reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <mptund/wire.h>

#include "aead.h"
#include "keys.h"
#include "noise.h"

struct peer {
	uint8_t pub[32];
	uint8_t last_ts[MPT_TIMESTAMP_LEN];
};

struct world {
	struct mpt_noise_local ue, anchor, stranger;
	struct peer allowed[2];		/* the anchor's allowed-peers list */
	unsigned lookups;
};

static int lookup(void *arg, const uint8_t pub[32], void **peer, uint8_t **last_ts,
		  const uint8_t **ss)
{
	struct world *w = arg;

	w->lookups++;
	for (unsigned i = 0; i < 2; i++)
		if (!memcmp(w->allowed[i].pub, pub, 32)) {
			*peer = &w->allowed[i];
			*last_ts = w->allowed[i].last_ts;
			return 0;
		}
	return -ENOKEY;
}

static void make_local(struct mpt_noise_local *l, uint8_t seed)
{
	uint8_t r[32], priv[32];

	memset(r, seed, sizeof(r));
	mpt_key_private_from_random(priv, r);
	assert_int_equal(mpt_noise_local_init(l, priv), 0);
}

static int setup(void **state)
{
	struct world *w = test_calloc(1, sizeof(*w));

	make_local(&w->ue, 1);
	make_local(&w->anchor, 2);
	make_local(&w->stranger, 3);
	memcpy(w->allowed[0].pub, w->ue.pub, 32);
	memset(w->allowed[1].pub, 0x55, 32);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	mpt_noise_local_free(&w->ue);
	mpt_noise_local_free(&w->anchor);
	mpt_noise_local_free(&w->stranger);
	test_free(*state);
	return 0;
}

/* mac1 computed independently of the library: HMAC-SHA256 keyed with
 * SHA256("mac1----" || receiver's static public), first 16 bytes. */
static void remac(uint8_t *msg, size_t off, const uint8_t pub[32])
{
	uint8_t in[8 + 32], key[32], full[32];
	unsigned len = 32;

	memcpy(in, "mac1----", 8);
	memcpy(in + 8, pub, 32);
	SHA256(in, sizeof(in), key);
	assert_non_null(HMAC(EVP_sha256(), key, 32, msg, off, full, &len));
	memcpy(msg + off, full, MPT_MAC1_LEN);
}

static const uint8_t eph_i[32] = { 10, 11, 12 }, eph_r[32] = { 20, 21, 22 };

static void make_init(struct world *w, const struct mpt_noise_local *from,
		      const uint8_t to[32], uint64_t unix_ns,
		      struct mpt_noise_initiation *st, uint8_t msg[MPT_HS_INIT_LEN])
{
	uint8_t ts[MPT_TIMESTAMP_LEN];

	mpt_noise_tai64n(ts, unix_ns);
	assert_int_equal(mpt_noise_create_init(st, from, to, MPT_CIPHER_AES_256_GCM, 0x1111,
					       eph_i, ts, msg), 0);
}

/* Keys really work: a transport packet sealed by one side opens on the other. */
static void check_transport(const struct mpt_keypair *tx, const struct mpt_keypair *rx)
{
	uint8_t pkt[MPT_WIRE_HDR_LEN + 100 + MPT_WIRE_TAG_LEN] = { 0 };
	struct mpt_hdr h = { .path_id = 1, .receiver = tx->remote_index, .pn = 5 };
	struct mpt_aead a, b;

	assert_int_equal(mpt_aead_init(&a, tx->cipher, tx->send_key), 0);
	assert_int_equal(mpt_aead_init(&b, rx->cipher, rx->recv_key), 0);
	mpt_hdr_encode(pkt, sizeof(pkt), &h);
	assert_int_equal(mpt_aead_seal_packet(&a, pkt, 100, sizeof(pkt)), sizeof(pkt));
	assert_int_equal(mpt_get_u32(pkt + MPT_OFF_RECEIVER), rx->local_index);
	assert_int_equal(mpt_aead_open_packet(&b, pkt, sizeof(pkt)), 100);
	mpt_aead_free(&a);
	mpt_aead_free(&b);
}

static void test_full_handshake(void **state)
{
	struct world *w = *state;
	struct mpt_noise_initiation ini;
	struct mpt_noise_responder rsp;
	struct mpt_keypair ki, kr;
	uint8_t init[MPT_HS_INIT_LEN], resp[MPT_HS_RESP_LEN];
	int why = -1;

	make_init(w, &w->ue, w->anchor.pub, 1000 * MPT_NSEC_PER_SEC, &ini, init);
	assert_true(ini.pending);
	assert_int_equal(mpt_wire_classify(init, sizeof(init), &why), MPT_MSG_HANDSHAKE_INIT);
	assert_true(mpt_noise_mac1_ok(&w->anchor, init, sizeof(init)));
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, init, sizeof(init), lookup,
						w, &why), 0);
	assert_int_equal(why, MPT_WIRE_OK);
	assert_ptr_equal(rsp.peer, &w->allowed[0]);
	assert_memory_equal(rsp.remote_pub, w->ue.pub, 32);
	assert_int_equal(rsp.remote_index, 0x1111);
	assert_int_equal(rsp.cipher, MPT_CIPHER_AES_256_GCM);
	assert_memory_equal(w->allowed[0].last_ts, rsp.timestamp, MPT_TIMESTAMP_LEN);

	assert_int_equal(mpt_noise_create_response(&rsp, &w->anchor, 0x2222, eph_r, resp,
						   &kr), 0);
	assert_true(mpt_noise_mac1_ok(&w->ue, resp, sizeof(resp)));
	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, resp, sizeof(resp), &ki,
						    &why), 0);
	assert_false(ini.pending);

	assert_memory_equal(ki.send_key, kr.recv_key, 32);
	assert_memory_equal(ki.recv_key, kr.send_key, 32);
	assert_memory_not_equal(ki.send_key, ki.recv_key, 32);
	assert_int_equal(ki.local_index, 0x1111);
	assert_int_equal(ki.remote_index, 0x2222);
	assert_int_equal(kr.local_index, 0x2222);
	assert_int_equal(kr.remote_index, 0x1111);
	assert_true(ki.initiator && !kr.initiator);
	assert_int_equal(ki.cipher, MPT_CIPHER_AES_256_GCM);
	check_transport(&ki, &kr);
	check_transport(&kr, &ki);

	/* The same response again: the initiation is over. */
	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, resp, sizeof(resp), &ki,
						    &why), -ESTALE);
	assert_int_equal(why, MPT_WIRE_HS_STATE);

	/* A second handshake (rekey): fresh keys. */
	struct mpt_keypair ki2, kr2;
	static const uint8_t eph_i2[32] = { 99 };
	uint8_t ts[MPT_TIMESTAMP_LEN];

	mpt_noise_tai64n(ts, 1001 * MPT_NSEC_PER_SEC);
	assert_int_equal(mpt_noise_create_init(&ini, &w->ue, w->anchor.pub,
					       MPT_CIPHER_CHACHA20_POLY1305, 0x3333, eph_i2,
					       ts, init), 0);
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, init, sizeof(init), lookup,
						w, &why), 0);
	assert_int_equal(mpt_noise_create_response(&rsp, &w->anchor, 0x4444, eph_r, resp,
						   &kr2), 0);
	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, resp, sizeof(resp), &ki2,
						    &why), 0);
	assert_memory_not_equal(ki2.send_key, ki.send_key, 32);
	assert_int_equal(ki2.cipher, MPT_CIPHER_CHACHA20_POLY1305);
	check_transport(&ki2, &kr2);
	mpt_keypair_wipe(&ki2);
	assert_memory_equal(ki2.send_key, (uint8_t[32]){ 0 }, 32);
}

/* One tampered init and the reason the responder must give. */
static void expect_init_reject(struct world *w, const uint8_t *msg, int err, int reason,
			       bool lookup_allowed)
{
	struct mpt_noise_responder rsp;
	uint8_t before[MPT_TIMESTAMP_LEN];
	unsigned lookups = w->lookups;
	int why = MPT_WIRE_OK;

	memcpy(before, w->allowed[0].last_ts, sizeof(before));
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, msg, MPT_HS_INIT_LEN,
						lookup, w, &why), err);
	assert_int_equal(why, reason);
	if (!lookup_allowed)
		assert_int_equal(w->lookups, lookups);
	assert_memory_equal(before, w->allowed[0].last_ts, sizeof(before));
}

static void test_init_rejects(void **state)
{
	struct world *w = *state;
	struct mpt_noise_initiation ini;
	struct mpt_noise_responder rsp;
	uint8_t good[MPT_HS_INIT_LEN], bad[MPT_HS_INIT_LEN];
	int why;

	make_init(w, &w->ue, w->anchor.pub, 2000 * MPT_NSEC_PER_SEC, &ini, good);

	/* Addressed to another responder: mac1 fails, no DH, no lookup. */
	make_init(w, &w->ue, w->stranger.pub, 2000 * MPT_NSEC_PER_SEC, &ini, bad);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_MAC1, false);
	/* ... and with mac1 made right for the anchor: es fails to decrypt. */
	remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CRYPTO, false);

	memcpy(bad, good, sizeof(bad));
	bad[MPT_OFF_INIT_MAC1 + 3] ^= 1;
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_MAC1, false);

	/* Tampered fields with mac1 recomputed (anyone can: its key is public): the
	 * handshake hash or a DH catches them. */
	static const size_t offs[] = { MPT_OFF_HS_CIPHER, MPT_OFF_INIT_SENDER,
				       MPT_OFF_INIT_EPHEMERAL + 5, MPT_OFF_INIT_STATIC + 1,
				       MPT_OFF_INIT_STATIC + 40, MPT_OFF_INIT_TIMESTAMP + 2,
				       MPT_OFF_INIT_TIMESTAMP + 20 };
	for (size_t i = 0; i < MPT_ARRAY_SIZE(offs); i++) {
		print_message("init byte %zu\n", offs[i]);
		memcpy(bad, good, sizeof(bad));
		bad[offs[i]] ^= offs[i] == MPT_OFF_HS_CIPHER ? 3 : 0x20; /* 1 -> 2: valid */
		remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
		assert_true(mpt_noise_mac1_ok(&w->anchor, bad, sizeof(bad)));
		expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CRYPTO,
				   offs[i] >= MPT_OFF_INIT_TIMESTAMP);
	}

	/* Unknown cipher, unknown flag. */
	memcpy(bad, good, sizeof(bad));
	bad[MPT_OFF_HS_CIPHER] = 9;
	remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CIPHER, false);
	memcpy(bad, good, sizeof(bad));
	bad[MPT_OFF_HS_FLAGS] = 0x02;
	remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CIPHER, false);
	/* The fresh flag is authenticated: set in flight, the handshake hash differs. */
	memcpy(bad, good, sizeof(bad));
	bad[MPT_OFF_HS_FLAGS] = MPT_HS_FLAG_FRESH;
	remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CRYPTO, false);
	/* A low-order ephemeral (all zero): the DH is refused. */
	memcpy(bad, good, sizeof(bad));
	memset(bad + MPT_OFF_INIT_EPHEMERAL, 0, 32);
	remac(bad, MPT_OFF_INIT_MAC1, w->anchor.pub);
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_HS_CRYPTO, false);

	/* Wrong size, wrong version. */
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, good, MPT_HS_INIT_LEN - 1,
						lookup, w, &why), -EBADMSG);
	assert_int_equal(why, MPT_WIRE_BAD_LENGTH);
	memcpy(bad, good, sizeof(bad));
	bad[MPT_OFF_VERSION] = MPT_WIRE_VERSION + 1;
	expect_init_reject(w, bad, -EBADMSG, MPT_WIRE_BAD_VERSION, false);

	/* The good one passes, then its replay (same timestamp) is refused. */
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, good, sizeof(good), lookup,
						w, &why), 0);
	expect_init_reject(w, good, -EALREADY, MPT_WIRE_HS_REPLAY, true);
	/* An older timestamp as well. */
	make_init(w, &w->ue, w->anchor.pub, 1999 * MPT_NSEC_PER_SEC, &ini, bad);
	expect_init_reject(w, bad, -EALREADY, MPT_WIRE_HS_REPLAY, true);

	/* A valid init from a key not in the allowed list. */
	make_init(w, &w->stranger, w->anchor.pub, 3000 * MPT_NSEC_PER_SEC, &ini, bad);
	expect_init_reject(w, bad, -ENOKEY, MPT_WIRE_HS_UNKNOWN_PEER, true);
}

static void test_response_rejects(void **state)
{
	struct world *w = *state;
	struct mpt_noise_initiation ini, saved;
	struct mpt_noise_responder rsp;
	struct mpt_keypair ki, kr;
	uint8_t init[MPT_HS_INIT_LEN], resp[MPT_HS_RESP_LEN], bad[MPT_HS_RESP_LEN];
	int why;

	make_init(w, &w->ue, w->anchor.pub, 4000 * MPT_NSEC_PER_SEC, &ini, init);
	assert_int_equal(mpt_noise_consume_init(&rsp, &w->anchor, init, sizeof(init), lookup,
						w, &why), 0);
	assert_int_equal(mpt_noise_create_response(&rsp, &w->anchor, 0x2222, eph_r, resp,
						   &kr), 0);
	saved = ini;

	memcpy(bad, resp, sizeof(bad));
	bad[MPT_OFF_RESP_MAC1] ^= 1;
	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, bad, sizeof(bad), &ki, &why),
			 -EBADMSG);
	assert_int_equal(why, MPT_WIRE_HS_MAC1);
	assert_true(ini.pending);

	/* A response built by someone without the anchor's static key: the stranger
	 * answers the UE's init as if it were the anchor. */
	{
		struct mpt_noise_responder fake = rsp;
		struct world w2 = *w;

		memcpy(w2.allowed[0].last_ts, (uint8_t[MPT_TIMESTAMP_LEN]){ 0 }, 12);
		/* The stranger cannot even read the init (es uses the anchor's key). */
		assert_int_equal(mpt_noise_consume_init(&fake, &w->stranger, init, sizeof(init),
							lookup, &w2, &why), -EBADMSG);
		assert_int_equal(why, MPT_WIRE_HS_MAC1);
	}

	/* Tampered response fields with mac1 recomputed: the handshake catches them and
	 * the pending initiation survives for the genuine response. */
	static const size_t offs[] = { MPT_OFF_RESP_SENDER, MPT_OFF_RESP_EPHEMERAL + 7,
				       MPT_OFF_RESP_EMPTY + 3, MPT_OFF_HS_CIPHER };
	for (size_t i = 0; i < MPT_ARRAY_SIZE(offs); i++) {
		memcpy(bad, resp, sizeof(bad));
		bad[offs[i]] ^= offs[i] == MPT_OFF_HS_CIPHER ? 3 : 0x10;
		remac(bad, MPT_OFF_RESP_MAC1, w->ue.pub);
		assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, bad, sizeof(bad),
							    &ki, &why), -EBADMSG);
		assert_int_equal(why, offs[i] == MPT_OFF_HS_CIPHER ? MPT_WIRE_HS_CIPHER
								   : MPT_WIRE_HS_CRYPTO);
		assert_true(ini.pending);
	}

	/* Wrong receiver index. */
	memcpy(bad, resp, sizeof(bad));
	ini.local_index ^= 1;
	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, bad, sizeof(bad), &ki, &why),
			 -ESTALE);
	assert_int_equal(why, MPT_WIRE_HS_STATE);
	ini = saved;

	assert_int_equal(mpt_noise_consume_response(&ini, &w->ue, resp, sizeof(resp), &ki,
						    &why), 0);
	assert_memory_equal(ki.send_key, kr.recv_key, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_handshake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_response_rejects, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
