// SPDX-License-Identifier: MIT
/*
 * What a session's scheduler sees: the read-only views of its paths (mptund/sched.h)
 * and the context of a call into it. The bottom of the session files: everything
 * above that asks the scheduler something builds its context here.
 */
#include "daemon.h"
#include "session.h"

void mpt_session_refresh_views(struct mpt_session *s)
{
	uint32_t clamp = UINT32_MAX;

	for (unsigned i = 0; i < s->npaths; i++) {
		const struct mpt_path *p = &s->paths[i];

		mpt_path_fill_view(p, &s->views[i], s->d->inner_mtu);
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
