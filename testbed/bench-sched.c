// SPDX-License-Identifier: MIT
/*
 * bench-sched — nanoseconds per pick() of every registered scheduler at K = 2, 4, 8
 * paths, with defaults, on realistic changing views: a ring of 1024 precomputed view
 * snapshots (srtt jitter, cwnd and in_flight moving, one path in four full at times,
 * delivery rates drifting), a new snapshot per packet, 64 flows, one in 50 packets ECN
 * CE. on_ack is timed separately (one call per pick, on the picked path).
 * Then steering rules: 32 rules (5 schedulers, matching on protocol, ports, DSCP,
 * prefixes), 64 flows, K = 4: the flow-cache lookup of the packet's rule plus its
 * instance's pick, per packet; and a cache miss (the 32 rules scanned in order).
 *   usage: bench-sched [packets per run]     (default 2,000,000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mptund/sched.h>

#include "daemon.h"
#include "session_rules.h"

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

#define RULE_FLOWS 64

/* A packet of flow f: UDP or TCP to one of 16 servers, ports and DSCP varying. */
static void rule_flow(unsigned f, struct mpt_pkt_info *info)
{
	memset(info, 0, sizeof(*info));
	info->family = AF_INET;
	info->meta.len = 1200;
	info->meta.proto = f % 3 ? 17 : 6;
	info->meta.dscp = f % 5 ? 0 : 46;
	info->meta.flow_hash = (f + 1) * 0x9e3779b9u;
	info->src.bytes[0] = 10, info->src.bytes[3] = 2;
	info->dst.bytes[0] = 198, info->dst.bytes[1] = 51, info->dst.bytes[3] = (uint8_t)(f % 16);
	info->sport = (uint16_t)(40000 + f);
	info->dport = (uint16_t)(5000 + f % 40);
	info->l4_offset = 20;
}

/* 32 rules; the last ones catch most flows, so a miss scans far. */
static void rule_setup(struct mpt_daemon *d)
{
	static const char *const scheds[] = { "minrtt", "cpf", "rr", "wrr", "acpf" };
	char spec[160], err[256];
	struct mpt_rule r;

	for (unsigned i = 0; i < 32; i++) {
		if (i < 24)
			snprintf(spec, sizeof(spec), "Name=r%u Protocol=udp DestinationPort=%u "
				 "Destination=198.51.100.0/24 Scheduler=%s", i, 5000 + i,
				 scheds[i % 5]);
		else
			snprintf(spec, sizeof(spec), "Name=r%u DSCP=%u Source=10.0.0.0/8 "
				 "Scheduler=%s", i, i == 31 ? 0 : 46, scheds[i % 5]);
		if (mpt_rule_parse(&r, spec, strlen(spec), err, sizeof(err)) < 0 ||
		    mpt_ruleset_add(&d->rules, &r, 99, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench-sched: %s\n", err);
			exit(1);
		}
	}
}

/* ns per packet: rule lookup through the flow cache + the rule's pick, K = 4. */
static void bench_rules(unsigned n)
{
	static struct mpt_daemon d;
	static struct mpt_session s;
	static struct mpt_peer_config peer = { .name = "ue" };
	struct mpt_pkt_info info[RULE_FLOWS];
	struct mpt_rng rng;
	struct mpt_sched_ctx ctx = { .npaths = 4, .rng = &rng, .now = 1000000000ULL };
	uint64_t t0, t1, sink = 0;
	unsigned matched = 0;

	d.cfg.role = MPT_ROLE_UE;
	d.cfg.queue_limit = 1024;
	mpt_ruleset_init(&d.rules, 0);
	rule_setup(&d);
	s.d = &d;
	s.peer = &peer;
	s.sched = mpt_sched_find("cpf");
	s.sched_priv = priv;
	mpt_sched_prepare(priv, s.sched);
	mpt_rng_seed(&rng, 99);
	make_views(4, &rng);
	ctx.paths = snap[0];
	if (!mpt_rules_get(&s)) {
		fprintf(stderr, "bench-sched: out of memory\n");
		exit(1);
	}
	for (unsigned f = 0; f < RULE_FLOWS; f++) {
		unsigned slot;

		rule_flow(f, &info[f]);
		slot = mpt_rules_classify(&s, &info[f]);	/* warm: instances made */
		if (slot != MPT_RULE_DEFAULT && !s.rules->inst[slot]) {
			struct mpt_rinst *in = calloc(1, sizeof(*in));

			in->ops = s.rules->slot[slot]->ops;
			in->priv = aligned_alloc(64, MPT_SCHED_PRIV_SIZE);
			mpt_sched_prepare(in->priv, in->ops);
			in->ops->init(in->priv, &ctx);
			s.rules->inst[slot] = in;
		}
		matched += slot != MPT_RULE_DEFAULT;
	}
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		const struct mpt_pkt_info *pi = &info[i % RULE_FLOWS];
		unsigned slot = mpt_rules_classify(&s, pi);
		struct mpt_rinst *in = slot == MPT_RULE_DEFAULT ? NULL : s.rules->inst[slot];

		ctx.paths = snap[i % NSNAP];
		ctx.now += 10000;
		sink += in ? in->ops->pick(in->priv, &ctx, &pi->meta)
			   : s.sched->pick(s.sched_priv, &ctx, &pi->meta);
	}
	t1 = now_ns();
	printf("rules: 32 rules, %u flows (%u matched a rule), K = 4: lookup + pick %.1f ns "
	       "per packet (goal <= 150)\n", RULE_FLOWS, matched, (double)(t1 - t0) / n);
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		sink += mpt_rules_classify(&s, &info[i % RULE_FLOWS]);
	t1 = now_ns();
	printf("rules: of which the lookup alone (flow cache hit): %.1f ns\n",
	       (double)(t1 - t0) / n);
	t0 = now_ns();
	for (unsigned i = 0; i < n / 10; i++) {
		struct mpt_flow_key k = { .family = AF_INET, .proto = 17, .ports = true,
					  .dport = (uint16_t)(5000 + i % 40) };

		for (unsigned r = 0; r < d.rules.n; r++)
			if (mpt_rule_match(&d.rules.r[r].rule, &k, false)) {
				sink += r;
				break;
			}
	}
	t1 = now_ns();
	printf("rules: a flow-cache miss (the rules scanned in order): %.1f ns\n",
	       (double)(t1 - t0) / (n / 10));
	if (sink == 42)
		printf(" ");
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
	bench_rules(n);
	return 0;
}
