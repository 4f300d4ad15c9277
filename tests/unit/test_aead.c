// SPDX-License-Identifier: MIT
/* AEAD over transport packets, both ciphers: round trip, and every tampering (header,
 * ciphertext, tag, key, path id) is rejected. Plus the RFC 8439 sec. 2.8.2 vector. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mptund/wire.h>

#include "aead.h"

#define PAYLOAD 1400

struct pkt {
	uint8_t b[MPT_WIRE_HDR_LEN + PAYLOAD + MPT_WIRE_TAG_LEN];
	size_t len;
};

static const uint8_t key_a[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
static const uint8_t key_b[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 };

static void make_packet(struct mpt_aead *a, struct pkt *p, uint8_t path, uint64_t pn)
{
	struct mpt_hdr h = { .path_id = path, .receiver = 0x11223344, .pn = pn };
	int n;

	assert_int_equal(mpt_hdr_encode(p->b, sizeof(p->b), &h), MPT_WIRE_HDR_LEN);
	for (size_t i = 0; i < PAYLOAD; i++)
		p->b[MPT_WIRE_HDR_LEN + i] = (uint8_t)i;
	n = mpt_aead_seal_packet(a, p->b, PAYLOAD, sizeof(p->b));
	assert_int_equal(n, sizeof(p->b));
	p->len = (size_t)n;
}

static void check_cipher(enum mpt_cipher c)
{
	struct mpt_aead tx, rx, wrong;
	struct pkt p, q;

	assert_int_equal(mpt_aead_init(&tx, c, key_a), 0);
	assert_int_equal(mpt_aead_init(&rx, c, key_a), 0);
	assert_int_equal(mpt_aead_init(&wrong, c, key_b), 0);

	for (uint64_t pn = 0; pn < 3; pn++) {	/* context reuse across packets */
		make_packet(&tx, &p, 2, pn);
		for (size_t i = 0; i < 64; i++)	/* really encrypted */
			assert_true(p.b[MPT_WIRE_HDR_LEN + i] != (uint8_t)i ||
				    p.b[MPT_WIRE_HDR_LEN + i + 1] != (uint8_t)(i + 1));
		assert_int_equal(mpt_aead_open_packet(&rx, p.b, p.len), PAYLOAD);
		for (size_t i = 0; i < PAYLOAD; i++)
			assert_int_equal(p.b[MPT_WIRE_HDR_LEN + i], (uint8_t)i);
	}

	make_packet(&tx, &p, 2, 7);
	q = p;
	q.b[MPT_OFF_RECEIVER] ^= 1;			/* tampered header (AAD) */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len), -EBADMSG);
	q = p;
	q.b[MPT_OFF_PN + 7] ^= 1;			/* tampered pn (nonce and AAD) */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len), -EBADMSG);
	q = p;
	q.b[MPT_OFF_PATH_ID] = 3;			/* wrong path id */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len), -EBADMSG);
	q = p;
	q.b[MPT_WIRE_HDR_LEN + 700] ^= 0x80;		/* tampered ciphertext */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len), -EBADMSG);
	q = p;
	q.b[q.len - 1] ^= 1;				/* tampered tag */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len), -EBADMSG);
	q = p;
	assert_int_equal(mpt_aead_open_packet(&wrong, q.b, q.len), -EBADMSG);
	q = p;
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, q.len - 1), -EBADMSG); /* cut */
	assert_int_equal(mpt_aead_open_packet(&rx, q.b, MPT_WIRE_MIN_TRANSPORT - 1),
			 -EBADMSG);
	/* A failed open does not spoil the context. */
	assert_int_equal(mpt_aead_open_packet(&rx, p.b, p.len), PAYLOAD);

	/* Same pn on another path gives another ciphertext (nonce includes path id). */
	make_packet(&tx, &p, 0, 9);
	make_packet(&tx, &q, 1, 9);
	assert_memory_not_equal(p.b + MPT_WIRE_HDR_LEN, q.b + MPT_WIRE_HDR_LEN, 32);

	/* Empty payload: tag only. */
	assert_int_equal(mpt_aead_seal_packet(&tx, p.b, 0, sizeof(p.b)),
			 MPT_WIRE_MIN_TRANSPORT);
	assert_int_equal(mpt_aead_open_packet(&rx, p.b, MPT_WIRE_MIN_TRANSPORT), 0);
	assert_int_equal(mpt_aead_seal_packet(&tx, p.b, PAYLOAD + 1, sizeof(p.b)), -ENOSPC);

	mpt_aead_free(&tx);
	mpt_aead_free(&rx);
	mpt_aead_free(&wrong);
	mpt_aead_free(&wrong);		/* idempotent */
}

static void test_chacha(void **state)
{
	check_cipher(MPT_CIPHER_CHACHA20_POLY1305);
}

static void test_aes_gcm(void **state)
{
	check_cipher(MPT_CIPHER_AES_256_GCM);
}

static void test_ciphers_differ(void **state)
{
	struct mpt_aead c, g;
	struct pkt p;

	assert_int_equal(mpt_aead_init(&c, MPT_CIPHER_CHACHA20_POLY1305, key_a), 0);
	assert_int_equal(mpt_aead_init(&g, MPT_CIPHER_AES_256_GCM, key_a), 0);
	make_packet(&c, &p, 0, 1);
	assert_int_equal(mpt_aead_open_packet(&g, p.b, p.len), -EBADMSG);
	mpt_aead_free(&c);
	mpt_aead_free(&g);
	assert_int_equal(mpt_aead_init(&c, (enum mpt_cipher)7, key_a), -EINVAL);
}

/* RFC 8439 sec. 2.8.2: the AEAD test vector (first block of text, full tag). */
static void test_rfc8439_vector(void **state)
{
	static const char text[] = "Ladies and Gentlemen of the class of '99: If I could "
		"offer you only one tip for the future, sunscreen would be it.";
	static const uint8_t key[32] = {
		0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b,
		0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
		0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f };
	static const uint8_t nonce[12] = { 0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43,
		0x44, 0x45, 0x46, 0x47 };
	static const uint8_t aad[12] = { 0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3,
		0xc4, 0xc5, 0xc6, 0xc7 };
	static const uint8_t ct16[16] = { 0xd3, 0x1a, 0x8d, 0x34, 0x64, 0x8e, 0x60, 0xdb,
		0x7b, 0x86, 0xaf, 0xbc, 0x53, 0xef, 0x7e, 0xc2 };
	static const uint8_t tag[16] = { 0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a,
		0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60, 0x06, 0x91 };
	uint8_t buf[sizeof(text) - 1 + 16];
	struct mpt_aead a;

	memcpy(buf, text, sizeof(text) - 1);
	assert_int_equal(mpt_aead_init(&a, MPT_CIPHER_CHACHA20_POLY1305, key), 0);
	assert_int_equal(mpt_aead_seal(&a, nonce, aad, sizeof(aad), buf, sizeof(text) - 1),
			 sizeof(buf));
	assert_memory_equal(buf, ct16, 16);
	assert_memory_equal(buf + sizeof(text) - 1, tag, 16);
	assert_int_equal(mpt_aead_open(&a, nonce, aad, sizeof(aad), buf, sizeof(buf)),
			 sizeof(text) - 1);
	assert_memory_equal(buf, text, sizeof(text) - 1);
	mpt_aead_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chacha),
		cmocka_unit_test(test_aes_gcm),
		cmocka_unit_test(test_ciphers_differ),
		cmocka_unit_test(test_rfc8439_vector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
