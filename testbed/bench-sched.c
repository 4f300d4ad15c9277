// SPDX-License-Identifier: MIT
/*
 * bench-sched — nanoseconds per pick() of every registered scheduler at K = 2, 4, 8
 * paths, with defaults, on realistic changing views: a ring of 1024 precomputed view
 * snapshots (srtt jitter, cwnd and in_flight moving, one path in four full at times,
 * delivery rates drifting), a new snapshot per packet, 64 flows, one in 50 packets ECN
 * CE. on_ack is timed separately (one call per pick, on the picked path).
 *   usage: bench-sched [packets per run]     (default 2,000,000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mptund/sched.h>

#define NSNAP 1024

static _Alignas(16) unsigned char priv[MPT_SCHED_PRIV_SIZE];
static struct mpt_path_view snap[NSNAP][MPT_MAX_PATHS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void make_views(unsigned k, struct mpt_rng *rng)
{
	for (unsigned s = 0; s < NSNAP; s++) {
		for (unsigned i = 0; i < k; i++) {
			struct mpt_path_view *v = &snap[s][i];
			double bw = 2.5e6 * (i + 1) * (0.8 + 0.4 * mpt_rng_double(rng));
			double rtt = 0.010 * (i + 1) * (0.9 + 0.2 * mpt_rng_double(rng));

			memset(v, 0, sizeof(*v));
			v->id = (uint8_t)i;
			snprintf(v->name, sizeof(v->name), "p%u", i);
			v->up = true;
			v->capacity = (uint64_t)(2.5e6 * (i + 1));
			v->srtt_ns = (uint64_t)(rtt * 1e9);
			v->min_rtt_ns = (uint64_t)(0.010 * (i + 1) * 0.9 * 1e9);
			v->cwnd = (uint64_t)(bw * rtt * 2);
			v->in_flight = mpt_rng_below(rng, 4) == 0 ? v->cwnd :
				(uint64_t)(v->cwnd * mpt_rng_double(rng));
			v->btlbw = v->delivery_rate = v->pacing_rate = (uint64_t)bw;
			v->mtu = 1400;
		}
	}
}

static double bench(const struct mpt_sched_ops *ops, unsigned k, unsigned n,
		    double *ack_ns)
{
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .npaths = k, .rng = &rng, .now = 1000000000ULL };
	struct mpt_pkt_meta pkt = { .len = 1200, .proto = 6 };
	uint32_t picked[256];
	uint64_t t0, t1, sink = 0;

	mpt_rng_seed(&rng, 1);
	ctx.paths = snap[0];
	mpt_sched_prepare(priv, ops);
	ops->init(priv, &ctx);
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		uint32_t m;

		ctx.paths = snap[i % NSNAP];
		ctx.now += 10000;	/* 10 us per packet */
		pkt.flow_hash = (i % 64) * 0x9e3779b9u;
		pkt.ecn = i % 50 == 0 ? 3 : 0;
		m = ops->pick(priv, &ctx, &pkt);
		picked[i & 255] = m;
		sink += m;
	}
	t1 = now_ns();
	*ack_ns = 0;
	if (ops->on_ack) {
		uint64_t a0 = now_ns();

		for (unsigned i = 0; i < n; i++) {
			uint32_t m = picked[i & 255];

			ctx.paths = snap[i % NSNAP];
			ops->on_ack(priv, &ctx, m ? (unsigned)__builtin_ctz(m) : 0, 1200);
		}
		*ack_ns = (double)(now_ns() - a0) / n;
	}
	if (sink == 42)
		printf(" ");
	return (double)(t1 - t0) / n;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2000000;
	const unsigned ks[] = { 2, 4, 8 };
	struct mpt_rng rng;

	printf("%-10s %4s %12s %12s\n", "scheduler", "K", "ns/pick", "ns/on_ack");
	for (size_t s = 0; s < mpt_sched_count(); s++) {
		const struct mpt_sched_ops *ops = mpt_sched_at(s);

		for (size_t j = 0; j < MPT_ARRAY_SIZE(ks); j++) {
			double pick_ns, ack_ns;

			mpt_rng_seed(&rng, 99);
			make_views(ks[j], &rng);
			pick_ns = bench(ops, ks[j], n, &ack_ns);
			if (ops->on_ack)
				printf("%-10s %4u %12.1f %12.1f\n", ops->name, ks[j], pick_ns, ack_ns);
			else
				printf("%-10s %4u %12.1f %12s\n", ops->name, ks[j], pick_ns, "-");
		}
	}
	return 0;
}
