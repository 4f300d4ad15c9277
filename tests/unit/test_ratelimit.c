// SPDX-License-Identifier: MIT
/* Handshake rate limiter: burst then steady rate per source, sources independent,
 * table bounded under a flood of spoofed sources. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
	for (unsigned i = 0; i < burst; i++)
		assert_true(mpt_ratelimit_allow(rl, i & 1 ? a : a2, now));
	assert_false(mpt_ratelimit_allow(rl, a, now));
	assert_true(mpt_ratelimit_allow(rl, b, now));	/* independent */

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
	for (unsigned i = 0; i < 5; i++)
		assert_true(mpt_ratelimit_allow(rl, victim, now));
	/* 100000 spoofed sources, each allowed its first burst: the table holds. */
	for (uint32_t i = 0; i < 100000; i++) {
		key_v4(k, 0x64000000 + i, 1);
		assert_true(mpt_ratelimit_allow(rl, k, now + i));
	}
	assert_int_equal(sizeof(*rl) <= 64 * 1024, 1);

	struct sockaddr other = { .sa_family = AF_UNIX };

	assert_int_equal(mpt_ratelimit_key(k, &other), -EAFNOSUPPORT);
	assert_int_equal(mpt_ratelimit_init(rl, 0, 5, 0), -EINVAL);
	test_free(rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_flood_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
