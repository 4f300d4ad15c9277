// SPDX-License-Identifier: MIT
/*
 * What a session's scheduler sees: the read-only views of its paths (mptund/sched.h)
 * and the context of a call into it; on the anchor, the paths' shares of the aggregate
 * load per path name (path_agg.h). The bottom of the session files: everything above
 * that asks the scheduler something builds its context here.
 */
#include "daemon.h"
#include "session.h"

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
}

void mpt_session_sched_ctx(struct mpt_session *s, struct mpt_sched_ctx *ctx, uint64_t now)
{
	mpt_session_refresh_views(s);
	ctx->paths = s->views;
	ctx->npaths = s->npaths;
	ctx->now = now;
	ctx->queue_pkts = s->squeue.pkts;
	ctx->queue_bytes = s->squeue.bytes;
	ctx->standing = s->standing.on;
	ctx->rng = &s->rng;
}
