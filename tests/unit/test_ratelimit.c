// SPDX-License-Identifier: MIT
/* Handshake rate limiter: a new source gets one token, then burst and steady rate,
 * sources independent, IPv6 keyed by /64 and v4-mapped by /32, table bounded under a
 * flood of spoofed sources; the plain token bucket. */
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

#include "ratelimit.h"

static void key_v4(uint8_t key[MPT_RL_ADDR_LEN], uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(addr) };

	assert_int_equal(mpt_ratelimit_key(key, (struct sockaddr *)&sin), 0);
}

static void test_burst_then_rate(void **state)
{
	const uint32_t rate = 20, burst = 5;
	struct mpt_ratelimit *rl = test_malloc(sizeof(*rl));
	uint8_t a[MPT_RL_ADDR_LEN], b[MPT_RL_ADDR_LEN], a2[MPT_RL_ADDR_LEN];
	uint64_t now = 5 * MPT_NSEC_PER_SEC;
	unsigned ok = 0;

	assert_int_equal(mpt_ratelimit_init(rl, rate, burst, 1234), 0);
	key_v4(a, 0x0a000001, 1000);
	key_v4(a2, 0x0a000001, 2000);	/* same host, other port: same bucket */
	key_v4(b, 0x0a000002, 1000);
	/* A new source holds one token, not a full bucket. */
	assert_true(mpt_ratelimit_peek(rl, a, now));
	assert_true(mpt_ratelimit_allow(rl, a, now));
	assert_false(mpt_ratelimit_peek(rl, a2, now));
	assert_false(mpt_ratelimit_allow(rl, a2, now));
	assert_true(mpt_ratelimit_allow(rl, b, now));	/* independent */
	/* After a second the bucket is full: burst, then nothing. */
	now += MPT_NSEC_PER_SEC;
	for (unsigned i = 0; i < burst; i++) {
		assert_true(mpt_ratelimit_peek(rl, a, now));	/* peek takes nothing */
		assert_true(mpt_ratelimit_allow(rl, i & 1 ? a : a2, now));
	}
	assert_false(mpt_ratelimit_allow(rl, a, now));

	/* Over 10 s of 1000 attempts/s, a source gets burst + rate x 10 s. */
	for (unsigned ms = 1; ms <= 10000; ms++)
		ok += mpt_ratelimit_allow(rl, a, now + ms * MPT_NSEC_PER_MSEC);
	assert_int_equal(ok, rate * 10);
	/* Idle for long: the bucket refills to burst, not beyond. */
	now += 100 * MPT_NSEC_PER_SEC;
	ok = 0;
	for (unsigned i = 0; i < 3 * burst; i++)
		ok += mpt_ratelimit_allow(rl, a, now);
	assert_int_equal(ok, burst);
	test_free(rl);
}

static void test_flood_bounded(void **state)
{
	struct mpt_ratelimit *rl = test_malloc(sizeof(*rl));
	uint8_t k[MPT_RL_ADDR_LEN], victim[MPT_RL_ADDR_LEN];
	uint64_t now = MPT_NSEC_PER_SEC;

	assert_int_equal(mpt_ratelimit_init(rl, 20, 5, 99), 0);
	key_v4(victim, 0xc0000201, 1);
	assert_true(mpt_ratelimit_allow(rl, victim, now));
	/* 100000 spoofed sources, each allowed one init and no more: the table holds. */
	for (uint32_t i = 0; i < 100000; i++) {
		key_v4(k, 0x64000000 + i, 1);
		assert_true(mpt_ratelimit_allow(rl, k, now + i));
		assert_false(mpt_ratelimit_allow(rl, k, now + i));
	}
	assert_int_equal(sizeof(*rl) <= 64 * 1024, 1);

	struct sockaddr other = { .sa_family = AF_UNIX };

	assert_int_equal(mpt_ratelimit_key(k, &other), -EAFNOSUPPORT);
	assert_int_equal(mpt_ratelimit_init(rl, 0, 5, 0), -EINVAL);
	test_free(rl);
}

static void key_v6(uint8_t key[MPT_RL_ADDR_LEN], const char *text)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };

	assert_int_equal(inet_pton(AF_INET6, text, &s6.sin6_addr), 1);
	assert_int_equal(mpt_ratelimit_key(key, (struct sockaddr *)&s6), 0);
}

static void test_keys(void **state)
{
	uint8_t a[MPT_RL_ADDR_LEN], b[MPT_RL_ADDR_LEN], c[MPT_RL_ADDR_LEN];

	/* one /64 is one source, whatever its interface identifier */
	key_v6(a, "2001:db8:1:2::1");
	key_v6(b, "2001:db8:1:2:dead:beef:1234:5678");
	key_v6(c, "2001:db8:1:3::1");
	assert_memory_equal(a, b, MPT_RL_ADDR_LEN);
	assert_memory_not_equal(a, c, MPT_RL_ADDR_LEN);
	/* v4-mapped from an IPv6 socket: the whole IPv4 address, as from AF_INET */
	key_v6(a, "::ffff:10.0.0.1");
	key_v6(b, "::ffff:10.0.0.2");
	assert_memory_not_equal(a, b, MPT_RL_ADDR_LEN);
	key_v4(c, 0x0a000001, 5);
	assert_memory_equal(a, c, MPT_RL_ADDR_LEN);
}

static void test_v6_flood_one_prefix(void **state)
{
	struct mpt_ratelimit *rl = test_malloc(sizeof(*rl));
	uint8_t k[MPT_RL_ADDR_LEN];
	char text[64];
	unsigned ok = 0;

	assert_int_equal(mpt_ratelimit_init(rl, 20, 5, 7), 0);
	/* 10000 addresses of one /64 within one second: one token, then 20/s */
	for (unsigned i = 0; i < 10000; i++) {
		snprintf(text, sizeof(text), "2001:db8::%x:%x", i >> 8, i & 0xff);
		key_v6(k, text);
		ok += mpt_ratelimit_allow(rl, k, MPT_NSEC_PER_SEC + i * 100000ULL);
	}
	assert_in_range(ok, 20, 22);
	test_free(rl);
}

static void test_bucket(void **state)
{
	struct mpt_bucket b;
	uint64_t now = 3 * MPT_NSEC_PER_SEC;
	unsigned ok = 0;

	assert_int_equal(mpt_bucket_init(&b, 1000, 100, now), 0);
	for (unsigned i = 0; i < 200; i++)
		ok += mpt_bucket_take(&b, now);
	assert_int_equal(ok, 100);			/* starts full: the burst */
	ok = 0;
	for (unsigned us = 1; us <= 1000000; us += 10)	/* 100k attempts in 1 s */
		ok += mpt_bucket_take(&b, now + us * 1000ULL);
	assert_in_range(ok, 999, 1000);
	assert_int_equal(mpt_bucket_init(&b, 0, 1, now), -EINVAL);
	assert_int_equal(mpt_bucket_init(&b, 1, 0, now), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_v6_flood_one_prefix),
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_flood_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
