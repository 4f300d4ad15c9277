// SPDX-License-Identifier: MIT
/*
 * Benchmark: seal + open of one transport packet with a 1400-byte payload, per
 * cipher, through the daemon's own code path (mpt_aead_seal_packet/open_packet with
 * the prepared contexts). Prints nanoseconds per packet and the implied Gbit/s.
 * Usage: bench_aead [packets]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mptund/wire.h>

#include "aead.h"

#define PAYLOAD 1400

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int run(enum mpt_cipher c, unsigned long n)
{
	static const uint8_t key[32] = { 42 };
	uint8_t buf[MPT_WIRE_HDR_LEN + PAYLOAD + MPT_WIRE_TAG_LEN] = { 0 };
	struct mpt_aead tx, rx;
	uint64_t t0, t_seal = 0, t_open = 0;

	if (mpt_aead_init(&tx, c, key) || mpt_aead_init(&rx, c, key))
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		struct mpt_hdr h = { .path_id = (uint8_t)(i & 7), .receiver = 1, .pn = i };

		mpt_hdr_encode(buf, sizeof(buf), &h);
		t0 = now_ns();
		if (mpt_aead_seal_packet(&tx, buf, PAYLOAD, sizeof(buf)) < 0)
			return 1;
		t_seal += now_ns() - t0;
		t0 = now_ns();
		if (mpt_aead_open_packet(&rx, buf, sizeof(buf)) != PAYLOAD) {
			fprintf(stderr, "open failed at %lu\n", i);
			return 1;
		}
		t_open += now_ns() - t0;
	}
	printf("%-18s seal %6.0f ns  open %6.0f ns  seal+open %6.0f ns/pkt  (%.2f Gbit/s one way)\n",
	       mpt_cipher_name(c), (double)t_seal / n, (double)t_open / n,
	       (double)(t_seal + t_open) / n, PAYLOAD * 8.0 * n / (double)t_seal);
	mpt_aead_free(&tx);
	mpt_aead_free(&rx);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;

	if (!n)
		n = 1;
	printf("%lu packets of %d bytes payload\n", n, PAYLOAD);
	return run(MPT_CIPHER_CHACHA20_POLY1305, n) || run(MPT_CIPHER_AES_256_GCM, n);
}
