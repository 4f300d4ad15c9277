// SPDX-License-Identifier: MIT
/*
 * PATH_STATUS (mptund-proto(7)): the UE tells the anchor when one of its paths goes
 * out of use (mptund-ctl path X down, its device down or without address) or comes
 * back, so the anchor stops sending on it within one round trip of another path
 * instead of after its dead-path or probe timeouts, and resumes at once. The frame
 * goes on every other usable path at once (in a PROBE, which the peer answers), and
 * with every PROBE while the path is out of use, so a lost frame is repeated; a
 * higher sequence number replaces a lower one. The frames due are appended to the
 * probes where they are built (session_tx.c: mpt_session_pstat_append).
 */
#include "daemon.h"
#include "log.h"
#include "session.h"

#define PSTAT_REPEAT	3	/* probes that repeat an "in use again" */

void mpt_session_status_changed(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	if (s->d->cfg.role != MPT_ROLE_UE || !s->cur.valid)
		return;
	p->status_seq++;
	p->status_repeat = PSTAT_REPEAT;
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *q = &s->paths[i];

		if (q->used && q->link_ok && q->admin_up && q->remote_len)
			mpt_session_send_probe(s, q, now, false);
	}
}

void mpt_session_on_pstat(struct mpt_session *s, const struct mpt_path_status *ps,
			  uint64_t now)
{
	struct mpt_path *p = &s->paths[ps->path_id];
	bool out = !ps->in_use;

	if (s->d->cfg.role != MPT_ROLE_ANCHOR || !p->used ||
	    (p->status_seq && (int32_t)(ps->seq - p->status_seq) <= 0))
		return;
	p->status_seq = ps->seq;
	if (out == p->peer_out)
		return;
	p->peer_out = out;
	log_info("%s: path %s: the UE %s", s->name, p->name,
		 out ? "took it out of use" : "uses it again");
	if (!out)
		p->next_probe_ns = now;
	mpt_session_path_changed(s, p, now);
}
