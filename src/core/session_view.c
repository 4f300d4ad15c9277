// SPDX-License-Identifier: MIT
/*
 * What a session's scheduler sees: the read-only views of its paths (mptund/sched.h)
 * and the context of a call into it; on the anchor, the paths' shares of the aggregate
 * load per path name (path_agg.h). The bottom of the session files: everything above
 * that asks the scheduler something builds its context here, and hands the packets it
 * picked paths for to those paths' queues (mpt_session_dispatch).
 */
#include <string.h>

#include "budget_state.h"
#include "daemon.h"
#include "session.h"

/* A path's queueing delay at its bottleneck: the latest RTT above the minimum. */
uint64_t mpt_session_path_queueing(const struct mpt_path_view *v)
{
	return v->latest_rtt_ns > v->min_rtt_ns ? v->latest_rtt_ns - v->min_rtt_ns : 0;
}

/* The least queueing delay of the paths in use (up, with bytes in flight): what a held
 * packet would meet after its wait in the scheduler queue. */
uint64_t mpt_session_least_queueing(const struct mpt_sched_ctx *ctx)
{
	uint64_t least = UINT64_MAX;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up && ctx->paths[i].in_flight)
			least = MPT_MIN(least, mpt_session_path_queueing(&ctx->paths[i]));
	return least == UINT64_MAX ? 0 : least;
}

/* Anchor: path p's share of its name's aggregate load, made current (path_agg.h). */
static const struct mpt_path_agg *agg_share(struct mpt_session *s, struct mpt_path *p)
{
	bool usable = mpt_path_usable(p);

	return mpt_agg_update(&s->d->agg, &p->agg, p->name,
			      usable ? mpt_path_in_flight(p) : 0, usable ? p->cc.cwnd : 0);
}

void mpt_session_agg_refresh(struct mpt_session *s)
{
	if (s->d->cfg.role != MPT_ROLE_ANCHOR)
		return;
	for (unsigned i = 0; i < s->npaths; i++)
		if (s->paths[i].used)
			agg_share(s, &s->paths[i]);
}

void mpt_session_refresh_views(struct mpt_session *s)
{
	bool anchor = s->d->cfg.role == MPT_ROLE_ANCHOR;
	uint32_t clamp = UINT32_MAX;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];
		const struct mpt_path_agg *agg = anchor && p->used ? agg_share(s, p) : NULL;

		mpt_path_fill_view(p, &s->views[i], s->d->inner_mtu);
		s->views[i].agg_in_flight = agg ? agg->in_flight : 0;
		s->views[i].agg_cwnd = agg ? agg->cwnd : 0;
		/* the MSS clamp follows the smallest usable path whose size is known */
		if (s->views[i].up && p->pmtu.state >= MPT_PMTU_COMPLETE)
			clamp = MPT_MIN(clamp, s->views[i].mtu);
	}
	s->clamp_mtu = clamp < s->d->pool.mtu ? clamp : 0;
	mpt_budgets_apply(s);		/* a path over its data budget shows as down */
}

void mpt_session_sched_ctx(struct mpt_session *s, struct mpt_sched_ctx *ctx, uint64_t now)
{
	mpt_session_refresh_views(s);
	ctx->paths = s->views;
	ctx->npaths = s->npaths;
	ctx->now = now;
	ctx->queue_pkts = s->squeue.pkts + s->sparse.q.pkts;
	ctx->queue_bytes = s->squeue.bytes + s->sparse.q.bytes;
	ctx->standing = s->standing.on;
	ctx->rng = &s->rng;
}

void mpt_session_dispatch(struct mpt_session *s, struct mpt_pkt *pkt, uint32_t mask)
{
	pkt->copied = (mask & (mask - 1)) != 0;
	while (mask) {
		unsigned i = (unsigned)__builtin_ctz(mask);
		struct mpt_pkt *copy = pkt;

		mask &= mask - 1;
		if (mask) {		/* redundant: every path but the last gets a copy */
			copy = mpt_pkt_alloc(&s->d->pool);
			if (!copy)
				continue;
			copy->len = pkt->len;
			copy->dsn = pkt->dsn;
			copy->unordered = pkt->unordered;
			copy->realtime = pkt->realtime;
			copy->copied = true;
			copy->enq_ns = pkt->enq_ns;
			copy->meta = pkt->meta;
			memcpy(copy->data, pkt->data, pkt->len);
			s->st.copies++;
		}
		s->st.picks[i]++;
		s->views[i].in_flight += copy->len;
		s->views[i].queued_bytes += copy->len;
		mpt_pktq_push_ahead(&s->paths[i].txq, copy);	/* real-time first */
	}
}

void mpt_session_flow_report(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_sched_ctx ctx;

	if (!p->nflowrep)
		return;
	if (s->sched->on_flow) {
		mpt_session_sched_ctx(s, &ctx, now);
		for (unsigned i = 0; i < p->nflowrep; i++)
			s->sched->on_flow(s->sched_priv, &ctx, p->flowrep[i].flow, p->id,
					  p->flowrep[i].acked, p->flowrep[i].lost);
	}
	p->nflowrep = 0;
}
