// SPDX-License-Identifier: MIT
/*
 * A path's endpoint moves only to a validated address (pathval.h, RFC 9000 sections
 * 8-9): the hooks the receive path calls for a packet from a new address and for a
 * PROBE_ACK, and the challenge they send. The first address of a path (an anchor path
 * joining, before anything was sent to it) is taken as it comes.
 */
#include <netinet/in.h>
#include <string.h>

#include "log.h"
#include "session.h"
#include "sys.h"

static void send_challenge(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_pathval *v = &p->pv;

	if (!mpt_pathval_may_send(v, MPT_PATHVAL_CHALLENGE_LEN)) {
		p->st.rebind_amp_limited++;
		return;
	}
	if (mpt_session_send_challenge(s, p, v->challenge, &v->cand, v->cand_len, now) < 0)
		return;
	mpt_pathval_on_sent(v, MPT_PATHVAL_CHALLENGE_LEN, now);
	p->st.rebind_challenges++;
}

void mpt_session_new_address(struct mpt_session *s, struct mpt_path *p,
			     const struct sockaddr_storage *from, socklen_t fromlen,
			     size_t bytes, bool newest, uint64_t now)
{
	uint64_t fresh = 0, retry = mpt_recovery_pto(&p->rec);

	if (!p->remote_len) {
		/* anchor: a path joining; the handshake and its first packet came from here */
		memcpy(&p->remote, from, fromlen);
		p->remote_len = fromlen;
		return;
	}
	if (newest && !mpt_pathval_is_cand(&p->pv, from, fromlen) &&
	    mpt_random_bytes(&fresh, sizeof(fresh)) < 0) {
		p->st.rebinds_refused++;	/* no challenge without fresh randomness */
		return;
	}
	switch (mpt_pathval_on_packet(&p->pv, from, fromlen, bytes, newest, fresh, retry,
				      now)) {
	case MPT_PV_REFUSED:
		p->st.rebinds_refused++;
		break;
	case MPT_PV_CHALLENGE:
		send_challenge(s, p, now);
		break;
	case MPT_PV_IGNORE:
		break;
	}
}

void mpt_session_pathval_response(struct mpt_session *s, struct mpt_path *p,
				  const struct sockaddr_storage *from, socklen_t fromlen,
				  uint64_t token)
{
	char was[INET6_ADDRSTRLEN + 8], now_at[INET6_ADDRSTRLEN + 8];

	if (!mpt_pathval_on_response(&p->pv, from, fromlen, token))
		return;
	mpt_sockaddr_format(&p->remote, was, sizeof(was));
	memcpy(&p->remote, &p->pv.cand, p->pv.cand_len);
	p->remote_len = p->pv.cand_len;
	mpt_pathval_reset(&p->pv);
	p->st.rebinds++;
	mpt_sockaddr_format(&p->remote, now_at, sizeof(now_at));
	log_info("%s: path %s: endpoint moved from %s to %s (address validated)", s->name,
		 p->name, was, now_at);
}
