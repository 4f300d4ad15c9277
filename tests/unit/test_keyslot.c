// SPDX-License-Identifier: MIT
/* Hard key lifetimes (keyslot.h) under a fake clock: a keyslot seals and opens until
 * RejectAfterTime or RejectAfterMessages (the cipher's: AES-GCM 2^23), then refuses
 * both and is wiped; the initiator's rekey comes due well before either limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "keyslot.h"

#define SEC 1000000000ULL
#define T0 (1000 * SEC)

static const uint8_t key_ab[32] = { 1, 2, 3 }, key_ba[32] = { 4, 5, 6 };

/* A sender's and a receiver's keyslot of one keypair, made at T0. */
static void pair(struct mpt_keyslot *tx, struct mpt_keyslot *rx, enum mpt_cipher c)
{
	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	assert_int_equal(mpt_aead_init(&tx->tx, c, key_ab), 0);
	assert_int_equal(mpt_aead_init(&tx->rx, c, key_ba), 0);
	assert_int_equal(mpt_aead_init(&rx->tx, c, key_ba), 0);
	assert_int_equal(mpt_aead_init(&rx->rx, c, key_ab), 0);
	tx->valid = rx->valid = true;
	tx->created_ns = rx->created_ns = T0;
}

/* Seal packet number pn under tx at now; open it under rx at now. */
static int roundtrip(struct mpt_keyslot *tx, struct mpt_keyslot *rx, uint64_t pn,
		     uint64_t now, int *open_ret)
{
	struct mpt_hdr h = { .type = MPT_MSG_TRANSPORT, .path_id = 0, .pn = pn };
	uint8_t buf[128] = { 0 };
	int n;

	mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN, &h);
	memcpy(buf + MPT_WIRE_HDR_LEN, "hello", 5);
	n = mpt_keyslot_seal(tx, buf, 5, buf, sizeof(buf), now);
	if (n > 0)
		*open_ret = mpt_keyslot_open(rx, buf, (size_t)n, now);
	return n;
}

static bool wiped(const struct mpt_keyslot *ks)
{
	static const struct mpt_keyslot zero;

	return memcmp(ks, &zero, sizeof(zero)) == 0;
}

static void test_reject_after_time(void **state)
{
	struct mpt_keyslot a, b;
	int o = -1;

	pair(&a, &b, MPT_CIPHER_CHACHA20_POLY1305);
	assert_true(roundtrip(&a, &b, 1, T0 + 179 * SEC, &o) > 0);
	assert_int_equal(o, 5);
	assert_int_equal(a.tx_pkts, 1);
	assert_int_equal(b.rx_pkts, 1);
	assert_int_equal(mpt_keyslot_deadline(&a), T0 + 180 * SEC);
	/* at 180 s: the sender refuses and wipes */
	assert_int_equal(roundtrip(&a, &b, 2, T0 + 180 * SEC, &o), -EKEYEXPIRED);
	assert_true(wiped(&a));
	assert_int_equal(mpt_keyslot_seal(&a, (uint8_t[64]){ 0 }, 1, NULL, 64, T0),
			 -ENOTCONN);
	/* the receiver refuses a packet sealed in time once its own clock is past */
	mpt_keyslot_wipe(&b);
	pair(&a, &b, MPT_CIPHER_CHACHA20_POLY1305);
	{
		struct mpt_hdr h = { .type = MPT_MSG_TRANSPORT, .pn = 7 };
		uint8_t buf[128] = { 0 };
		int n;

		mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN, &h);
		n = mpt_keyslot_seal(&a, buf, 5, buf, sizeof(buf), T0 + 170 * SEC);
		assert_true(n > 0);
		assert_int_equal(mpt_keyslot_open(&b, buf, (size_t)n, T0 + 181 * SEC),
				 -EKEYEXPIRED);
		assert_true(wiped(&b));
	}
	mpt_keyslot_wipe(&a);
}

static void test_reject_after_messages_aes_gcm(void **state)
{
	struct mpt_keyslot a, b;
	int o = -1;

	pair(&a, &b, MPT_CIPHER_AES_256_GCM);
	assert_int_equal(mpt_keyslot_reject_msgs(&a), 1ULL << 23);
	/* skip ahead: 2^23 - 1 packets sealed and opened */
	a.tx_pkts = (1ULL << 23) - 1;
	b.rx_pkts = (1ULL << 23) - 1;
	assert_true(roundtrip(&a, &b, 100, T0 + SEC, &o) > 0);
	assert_int_equal(o, 5);
	/* the 2^23rd was the last: both sides now refuse */
	assert_int_equal(roundtrip(&a, &b, 101, T0 + SEC, &o), -EKEYEXPIRED);
	assert_true(wiped(&a));
	{
		struct mpt_hdr h = { .type = MPT_MSG_TRANSPORT, .pn = 9 };
		uint8_t buf[128] = { 0 };

		mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN, &h);
		assert_int_equal(mpt_keyslot_open(&b, buf, 64, T0 + SEC), -EKEYEXPIRED);
		assert_true(wiped(&b));
	}
}

static void test_reject_after_messages_chacha(void **state)
{
	struct mpt_keyslot a, b;
	int o = -1;

	pair(&a, &b, MPT_CIPHER_CHACHA20_POLY1305);
	assert_int_equal(mpt_keyslot_reject_msgs(&a), 1ULL << 60);
	a.tx_pkts = 1ULL << 23;		/* AES-GCM's limit means nothing here */
	assert_true(roundtrip(&a, &b, 1, T0, &o) > 0);
	a.tx_pkts = 1ULL << 60;
	assert_int_equal(roundtrip(&a, &b, 2, T0, &o), -EKEYEXPIRED);
	mpt_keyslot_wipe(&b);
}

static void test_rekey_before_reject(void **state)
{
	struct mpt_keyslot a, b;

	pair(&a, &b, MPT_CIPHER_AES_256_GCM);
	/* RekeyAfterTime 120 s */
	assert_false(mpt_keyslot_rekey_due(&a, 120 * SEC, 1ULL << 22, T0 + 119 * SEC));
	assert_true(mpt_keyslot_rekey_due(&a, 120 * SEC, 1ULL << 22, T0 + 120 * SEC));
	/* a longer RekeyAfterTime is held to 150 s: 30 s of retries before 180 s */
	assert_false(mpt_keyslot_rekey_due(&a, 3600 * SEC, 1ULL << 22, T0 + 149 * SEC));
	assert_true(mpt_keyslot_rekey_due(&a, 3600 * SEC, 1ULL << 22, T0 + 150 * SEC));
	/* packets: RekeyAfterPackets counts sealed and opened (a downlink-only flow) */
	b.rx_pkts = 1ULL << 22;
	assert_true(mpt_keyslot_rekey_due(&b, 120 * SEC, 1ULL << 22, T0));
	/* at most 7/8 of the cipher's limit whatever RekeyAfterPackets says */
	a.tx_pkts = (1ULL << 23) - (1ULL << 20);
	assert_true(mpt_keyslot_rekey_due(&a, 120 * SEC, 1ULL << 23, T0));
	a.tx_pkts--;
	assert_false(mpt_keyslot_rekey_due(&a, 120 * SEC, 1ULL << 23, T0));
	assert_false(mpt_keyslot_expired(&a, T0 + 179 * SEC));
	mpt_keyslot_wipe(&a);
	mpt_keyslot_wipe(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reject_after_time),
		cmocka_unit_test(test_reject_after_messages_aes_gcm),
		cmocka_unit_test(test_reject_after_messages_chacha),
		cmocka_unit_test(test_rekey_before_reject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
