// SPDX-License-Identifier: MIT
/* Key text form and X25519: base64 round trip and strictness, RFC 7748 sec. 6.1. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "keys.h"

static void hex(uint8_t *out, const char *s)
{
	for (size_t i = 0; i < 32; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void test_base64_round_trip(void **state)
{
	uint8_t k[32], back[32];
	char text[MPT_KEY_B64_LEN + 1];

	for (unsigned seed = 0; seed < 64; seed++) {
		for (unsigned i = 0; i < 32; i++)
			k[i] = (uint8_t)(seed * 37 + i * 11 + (i == 31 ? seed : 0));
		mpt_key_to_base64(text, k);
		assert_int_equal(strlen(text), MPT_KEY_B64_LEN);
		assert_int_equal(text[43], '=');
		assert_int_equal(mpt_key_from_base64(back, text), 0);
		assert_memory_equal(k, back, 32);
	}
	memset(k, 0, 32);
	mpt_key_to_base64(text, k);
	assert_string_equal(text, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
	memset(k, 0xff, 32);
	mpt_key_to_base64(text, k);
	assert_string_equal(text, "//////////////////////////////////////////8=");
}

static void test_base64_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",	/* 43, no pad */
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",	/* 45 */
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",	/* no '=' */
		"AAAAAAAAAAAAAAAAAAAA AAAAAAAAAAAAAAAAAAAAAA=",	/* space */
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-=",	/* url alphabet */
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=",	/* non-canonical tail */
	};
	uint8_t k[32] = { 7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("'%s'\n", bad[i]);
		assert_int_equal(mpt_key_from_base64(k, bad[i]), -EINVAL);
	}
	assert_int_equal(k[0], 7);	/* untouched on error */
}

/* RFC 7748 sec. 6.1 */
static void test_rfc7748_vector(void **state)
{
	uint8_t a[32], ap[32], b[32], bp[32], k[32], out[32], s1[32], s2[32];

	hex(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	hex(ap, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
	hex(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	hex(bp, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
	hex(k, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

	assert_int_equal(mpt_key_public(out, a), 0);
	assert_memory_equal(out, ap, 32);
	assert_int_equal(mpt_key_public(out, b), 0);
	assert_memory_equal(out, bp, 32);
	assert_int_equal(mpt_x25519(s1, a, bp), 0);
	assert_int_equal(mpt_x25519(s2, b, ap), 0);
	assert_memory_equal(s1, k, 32);
	assert_memory_equal(s2, k, 32);

	/* A low-order public key (zero) gives an all-zero secret: refused. */
	memset(out, 0, 32);
	assert_int_equal(mpt_x25519(s1, a, out), -EINVAL);
}

static void test_private_clamped(void **state)
{
	uint8_t r[32], priv[32], pub[32];

	memset(r, 0xff, 32);
	mpt_key_private_from_random(priv, r);
	assert_int_equal(priv[0] & 7, 0);
	assert_int_equal(priv[31] & 0x80, 0);
	assert_int_equal(priv[31] & 0x40, 0x40);
	assert_int_equal(mpt_key_public(pub, priv), 0);
	assert_memory_not_equal(pub, priv, 32);
	assert_int_equal(mpt_memcmp_ct(pub, pub, 32), 0);
	assert_int_not_equal(mpt_memcmp_ct(pub, priv, 32), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64_round_trip),
		cmocka_unit_test(test_base64_rejects),
		cmocka_unit_test(test_rfc7748_vector),
		cmocka_unit_test(test_private_clamped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
