// SPDX-License-Identifier: MIT
/* Handshake admission: a copy of an authenticated init is dropped before any work,
 * a source gets one token then a cookie reply, the global budget caps the inits that
 * reach X25519 whatever the number of sources, the load meter trips under a flood and
 * clears a second after it, and under load only inits with a valid mac2 get through,
 * from a bucket that spoofed inits cannot drain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <mptund/common.h>
#include <mptund/wire.h>

#include "hsguard.h"

static void v4(struct sockaddr_in *sin, uint32_t addr)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(4000);
	sin->sin_addr.s_addr = htonl(addr);
}

static void init_msg(uint8_t msg[MPT_HS_INIT_LEN], uint32_t n)
{
	memset(msg, 0, MPT_HS_INIT_LEN);
	msg[MPT_OFF_TYPE] = MPT_MSG_HANDSHAKE_INIT;
	msg[MPT_OFF_VERSION] = MPT_WIRE_VERSION;
	/* a distinct mac1 per n, spread over the sets */
	mpt_put_u32(msg + MPT_OFF_INIT_MAC1, n * 2654435761u);
	mpt_put_u32(msg + MPT_OFF_INIT_MAC1 + 4, n);
}

static const uint8_t anchor_pub[32] = { 9 };

/* mac2 as the UE makes it: through a cookie reply from the guard for this source. */
static void with_mac2(struct mpt_hs_guard *g, uint8_t *msg, const struct sockaddr_in *from,
		      uint64_t now)
{
	uint8_t reply[MPT_COOKIE_REPLY_LEN], key[32], nonce[MPT_COOKIE_NONCE_LEN] = { 1 };
	struct mpt_cookie_slot slot = { 0 };

	assert_int_equal(mpt_cookie_reply(&g->cookie, reply, msg, (const struct sockaddr *)from,
					  nonce, now), 0);
	mpt_cookie_enc_key(key, anchor_pub);
	assert_int_equal(mpt_cookie_consume(&slot, key, reply, msg + MPT_OFF_INIT_MAC1, now), 0);
	mpt_cookie_put_mac2(msg, &slot, now);
}

static int setup(void **state)
{
	struct mpt_hs_guard *g = test_malloc(sizeof(*g));

	assert_int_equal(mpt_hs_guard_init(g, anchor_pub, 42, MPT_NSEC_PER_SEC), 0);
	mpt_cookie_set_secret(&g->cookie, (const uint8_t[32]){ 7, 7 }, MPT_NSEC_PER_SEC);
	*state = g;
	return 0;
}

static int teardown(void **state)
{
	mpt_hs_guard_free(*state);
	test_free(*state);
	return 0;
}

static void test_duplicate(void **state)
{
	struct mpt_hs_guard *g = *state;
	uint64_t now = 2 * MPT_NSEC_PER_SEC;
	uint8_t msg[MPT_HS_INIT_LEN];
	struct sockaddr_in a, b;
	int why;

	v4(&a, 0x0a000001);
	v4(&b, 0x0a000002);
	init_msg(msg, 1);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a, now, &why),
			 MPT_HS_ADMIT);
	mpt_hs_guard_seen(g, msg);
	/* the same init from anywhere: dropped without a token or a DH */
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&b, now, &why),
			 MPT_HS_DROP);
	assert_int_equal(why, MPT_WIRE_HS_DUPLICATE);
	/* b's token is intact */
	init_msg(msg, 2);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&b, now, &why),
			 MPT_HS_ADMIT);
	/* the cache keeps the last MPT_HS_SEEN: an old one falls out eventually */
	for (uint32_t i = 10; i < 10 + 4 * MPT_HS_SEEN; i++) {
		init_msg(msg, i);
		mpt_hs_guard_seen(g, msg);
	}
	init_msg(msg, 10 + 4 * MPT_HS_SEEN - 1);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&b, now, &why),
			 MPT_HS_DROP);
	assert_int_equal(why, MPT_WIRE_HS_DUPLICATE);
	init_msg(msg, 1);
	v4(&a, 0x0a000009);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a, now, &why),
			 MPT_HS_ADMIT);
}

static void test_per_source(void **state)
{
	struct mpt_hs_guard *g = *state;
	uint64_t now = 2 * MPT_NSEC_PER_SEC;
	uint8_t msg[MPT_HS_INIT_LEN];
	struct sockaddr_in a;
	unsigned ok = 0;
	int why;

	v4(&a, 0x0a000001);
	for (uint32_t i = 0; i < 10; i++) {
		init_msg(msg, i);
		ok += mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a, now, &why) ==
		      MPT_HS_ADMIT;
	}
	assert_int_equal(ok, 1);		/* a new source: one token */
	assert_int_equal(why, MPT_WIRE_HS_COOKIE);	/* then a cookie, no work */
}

static void test_cookie_under_load(void **state)
{
	struct mpt_hs_guard *g = *state;
	uint64_t now = 2 * MPT_NSEC_PER_SEC;
	uint8_t msg[MPT_HS_INIT_LEN];
	struct sockaddr_in ue, other;
	unsigned admitted = 0;
	int why;

	v4(&ue, 0x0a000001);
	/* a flood of junk from many addresses, and spoofed copies in the UE's name */
	for (uint32_t i = 0; i < 2000; i++) {
		v4(&other, 0x64000000 + i);
		init_msg(msg, 100 + i);
		mpt_hs_guard_admit(g, msg, (struct sockaddr *)(i & 1 ? &other : &ue),
				   now + i * 10000ULL, &why);
	}
	now += 2000 * 10000ULL;
	assert_true(mpt_hs_guard_loaded(g, now));
	/* the UE's init without mac2: a cookie reply */
	init_msg(msg, 1);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&ue, now, &why),
			 MPT_HS_SEND_COOKIE);
	assert_int_equal(why, MPT_WIRE_HS_COOKIE);
	/* with mac2 from that reply: admitted, though its plain bucket is drained */
	with_mac2(g, msg, &ue, now);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&ue, now, &why),
			 MPT_HS_ADMIT);
	/* a mac2 made for the UE's address does not work from another port or host */
	init_msg(msg, 2);
	with_mac2(g, msg, &ue, now);
	other = ue;
	other.sin_port = htons(4001);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&other, now, &why),
			 MPT_HS_SEND_COOKIE);
	/* a cookie dies with the secret */
	init_msg(msg, 3);
	with_mac2(g, msg, &ue, now);
	mpt_cookie_set_secret(&g->cookie, (const uint8_t[32]){ 8 }, now);
	assert_int_equal(mpt_hs_guard_admit(g, msg, (struct sockaddr *)&ue, now, &why),
			 MPT_HS_SEND_COOKIE);
	/* proven inits have their own rate: burst 5 after a second */
	now += MPT_NSEC_PER_SEC;
	for (uint32_t i = 0; i < 20; i++) {
		init_msg(msg, 5000 + i);
		with_mac2(g, msg, &ue, now);
		admitted += mpt_hs_guard_admit(g, msg, (struct sockaddr *)&ue, now, &why) ==
			    MPT_HS_ADMIT;
	}
	assert_int_equal(admitted, MPT_RL_DEFAULT_BURST);
	assert_int_equal(why, MPT_WIRE_HS_RATELIMIT);
}

static void test_global_budget(void **state)
{
	struct mpt_hs_guard *g = *state;
	uint64_t now = 2 * MPT_NSEC_PER_SEC;
	uint8_t msg[MPT_HS_INIT_LEN];
	struct sockaddr_in a;
	unsigned ok = 0, busy = 0;
	int why;

	/* 10000 sources in one second, one init each: the budget admits its burst plus
	 * its rate, whatever the number of sources */
	for (uint32_t i = 0; i < 10000; i++) {
		v4(&a, 0x64000000 + i);
		init_msg(msg, i);
		with_mac2(g, msg, &a, now + i * 100000ULL);
		switch (mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a,
					   now + i * 100000ULL, &why)) {
		case MPT_HS_ADMIT:
			ok++;
			break;
		default:
			busy += why == MPT_WIRE_HS_BUSY;
		}
	}
	assert_in_range(ok, MPT_HS_BUDGET_RATE, MPT_HS_BUDGET_RATE + MPT_HS_BUDGET_BURST);
	assert_true(busy > 8000);
}

static void test_load_meter(void **state)
{
	struct mpt_hs_guard *g = *state;
	uint64_t now = 2 * MPT_NSEC_PER_SEC;
	uint8_t msg[MPT_HS_INIT_LEN];
	struct sockaddr_in a;
	int why;

	v4(&a, 0x0a000001);
	/* a real UE's pace: never loaded */
	for (uint32_t i = 0; i < 100; i++) {
		init_msg(msg, i);
		mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a, now + i * 50 * MPT_NSEC_PER_MSEC,
				   &why);
		assert_false(mpt_hs_guard_loaded(g, now + i * 50 * MPT_NSEC_PER_MSEC));
	}
	now += 10 * MPT_NSEC_PER_SEC;
	/* a flood: loaded once the burst is spent */
	for (uint32_t i = 0; i < 2 * MPT_HS_LOAD_BURST; i++) {
		init_msg(msg, 1000 + i);
		mpt_hs_guard_admit(g, msg, (struct sockaddr *)&a, now, &why);
	}
	assert_true(mpt_hs_guard_loaded(g, now));
	assert_true(mpt_hs_guard_loaded(g, now + MPT_HS_LOAD_HOLD_NS - 1));
	assert_false(mpt_hs_guard_loaded(g, now + MPT_HS_LOAD_HOLD_NS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_duplicate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_global_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cookie_under_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_meter, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
