// SPDX-License-Identifier: MIT
/*
 * The sending half of a session: scheduler queue -> scheduler -> path pacer queues
 * -> framed, sealed datagrams. Also the control traffic (ACKs, probes with their
 * PATH_STATUS frames) and re-arming the session timer at the earliest deadline the
 * session has (the timer's work itself: session_timer.c).
 *
 * A data packet is framed in place in its pool buffer (the inner packet already sits
 * after headroom for the header and DATA frame header); the due ACKs the path carries
 * (its own, or another path's whose return is full or slower: session_ackroute.c)
 * ride along in the tailroom when they fit.
 */
#include <errno.h>
#include <string.h>

#include "arrival.h"
#include "daemon.h"
#include "log.h"
#include "session.h"
#include "session_rules.h"
#include "sys.h"

#define CTRL_BUF	512

static bool ack_due(const struct mpt_path *p)
{
	return p->ackt.unacked_eliciting > 0;
}

/* Append an ACK frame for path p's packets, carried by path q, if one is due and fits;
 * returns bytes added. */
static size_t append_ack(struct mpt_path *p, struct mpt_path *q, uint8_t *pos, size_t cap,
			 uint64_t now)
{
	struct mpt_ack_info ack;
	int n;

	if (!ack_due(p) || mpt_acktrack_build(&p->ackt, now, &ack) < 0)
		return 0;
	while (ack.nranges > 1 && MPT_FRAME_HDR_LEN + MPT_ACK_LEN(ack.nranges) > cap)
		ack.nranges--;		/* the highest ranges matter most */
	n = mpt_frame_ack_encode(pos, cap, &ack);
	if (n < 0)
		return 0;
	mpt_acktrack_on_ack_sent(&p->ackt, now);
	p->st.acks_tx++;
	if (p != q)
		p->st.acks_away++;
	q->st.ack_tx_bytes += (uint64_t)n;
	return (size_t)n;
}

/* How append_acks picks: an ACK pending; q's own pending and another path's only when
 * due now (AckRouting: a data packet takes another path's ACK along only when it
 * would go now anyway, so that a stream of small packets on a thin path does not
 * carry one ACK each; q's own ride along as without AckRouting: holding them back on
 * a busy LTE made its loss recovery in BBR's Startup late, sat-lte-down); or also
 * q's own (a PROBE_ACK answers with the ACK of the packet that asked). */
enum ack_take { ACKS_PENDING, ACKS_NOW, ACKS_OWN };

/* Append the ACKs that path q carries (session_ackroute.c): of every path whose
 * carrier q is, as take says. Returns bytes added. */
static size_t append_acks(struct mpt_session *s, struct mpt_path *q, uint8_t *pos,
			  size_t cap, enum ack_take take, uint64_t now)
{
	bool own = take == ACKS_OWN;
	size_t n = 0;

	for (unsigned i = 0; i < s->npaths && i < MPT_MAX_PATHS; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->used || !ack_due(p))
			continue;
		if (take == ACKS_NOW && p != q && !mpt_acktrack_should_ack_now(&p->ackt, now))
			continue;
		if (!(own && p == q) && mpt_session_ack_carrier(s, p, now) != q)
			continue;
		n += append_ack(p, q, pos + n, cap - n, now);
	}
	return n;
}

/* Seal under the session's current keypair (mpt_path_seal): retain a data packet for
 * retransmission, or NULL. A keypair at its hard lifetime is counted: the UE
 * handshakes for a new one (timer). */
static int seal(struct mpt_session *s, struct mpt_path *p, uint8_t *buf, size_t frames_len,
		uint8_t *out, size_t out_cap, const struct mpt_seal_opts *o, uint64_t now)
{
	int len = mpt_path_seal(p, &s->cur, buf, frames_len, out, out_cap, o, now);

	if (len == -EKEYEXPIRED)
		s->st.keys_expired++;
	return len;
}

static int seal_and_send(struct mpt_session *s, struct mpt_path *p, uint8_t *buf,
			 size_t frames_len, size_t cap, bool eliciting, uint64_t now)
{
	struct mpt_seal_opts o = { eliciting, NULL, s->d->inner_mtu, NULL, 0, false,
				   s->name };
	int len = mpt_path_seal_send(p, &s->cur, buf, frames_len, cap, &o, now);

	if (len == -EKEYEXPIRED)
		s->st.keys_expired++;
	return len;
}

/* A repair of an ordered packet says so: when it comes after the receiver gave its
 * hole up, it shows a loss, not reordering its hold should have waited for. */
static uint8_t data_frame_type(const struct mpt_pkt *pkt)
{
	if (pkt->unordered)
		return MPT_FRAME_DATA_UNORDERED;
	return pkt->rtx ? MPT_FRAME_DATA_RESENT : MPT_FRAME_DATA;
}

/*
 * Frame one data packet and seal it into the batch buffer. The frames are built in
 * the packet's own buffer (header room, DATA frame, a piggybacked ACK in the tail
 * room) and sealed out of place, so the plaintext stays: with Recovery = retransmit
 * the path's recovery keeps the packet until it is acknowledged or declared lost (and
 * then perhaps re-sent, session_repair.c); otherwise the batch recycles it.
 */
static void send_data(struct mpt_session *s, struct mpt_path *p, struct mpt_pkt *pkt,
		      struct mpt_txbatch *b, uint64_t now)
{
	struct mpt_daemon *d = s->d;
	uint8_t *buf = pkt->data - MPT_WIRE_DATA_PREFIX;
	size_t cap = MPT_WIRE_DATA_PREFIX + mpt_pkt_room(&d->pool);
	bool keep = d->cfg.recovery == MPT_RECOVERY_RETRANSMIT;
	size_t flen;
	int ret;

	/* nothing larger than the path carries: the piggybacked ACK must fit too */
	cap = MPT_MIN(cap, (size_t)mpt_path_max_datagram(p));
	ret = mpt_frame_data_encode_as(buf + MPT_WIRE_HDR_LEN, cap - MPT_WIRE_HDR_LEN,
				       data_frame_type(pkt), pkt->dsn, pkt->data, pkt->len);
	if (ret < 0) {
		mpt_pkt_put(&d->pool, pkt);
		return;
	}
	flen = (size_t)ret;
	flen += mpt_session_ackf_append(s, p, buf + MPT_WIRE_HDR_LEN + flen,
					cap - MPT_WIRE_HDR_LEN - flen - MPT_WIRE_TAG_LEN, now);
	flen += append_acks(s, p, buf + MPT_WIRE_HDR_LEN + flen,
			    cap - MPT_WIRE_HDR_LEN - flen - MPT_WIRE_TAG_LEN,
			    d->cfg.ack_routing ? ACKS_NOW : ACKS_PENDING, now);
	if (b->cap - b->off < MPT_WIRE_HDR_LEN + flen + MPT_WIRE_TAG_LEN)
		mpt_path_batch_send(p, b, &s->d->pool, s->name);	/* the buffer is full */
	if (!pkt->rtx)
		pkt->sent_ns = now;
	pkt->path = p->id;
	ret = seal(s, p, buf, flen, b->buf + b->off, b->cap - b->off,
		   &(struct mpt_seal_opts){ .eliciting = true, .retain = keep ? pkt : NULL,
					    .inner_mtu = d->inner_mtu,
					    .realtime = pkt->realtime }, now);
	if (ret < 0) {
		p->st.send_errors++;
		mpt_pkt_put(&d->pool, pkt);
		return;
	}
	mpt_session_data_seen(s, now);
	/* kept: the path's recovery owns it */
	mpt_path_batch_add(p, b, (size_t)ret, keep ? NULL : pkt, !pkt->unordered, now);
	if (b->n == MPT_TX_BATCH)
		mpt_path_batch_send(p, b, &s->d->pool, s->name);
}

/* A packet of control frames only: an ACK if due, and/or a PROBE or PROBE_ACK. */
void mpt_session_send_control(struct mpt_session *s, struct mpt_path *p,
			      const struct mpt_probe *probe_ack, uint64_t now)
{
	uint8_t buf[CTRL_BUF];
	size_t flen = 0, room = sizeof(buf) - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN, ack;
	int n;

	if (probe_ack) {
		n = mpt_frame_probe_ack_encode(buf + MPT_WIRE_HDR_LEN, room, probe_ack->id,
					       probe_ack->timestamp);
		if (n > 0)
			flen += (size_t)n;
		/* anchor: how far the UE's idle PROBEs may be apart (session_probe.c) */
		if (n > 0 && mpt_session_idle_hint_ms(s) &&
		    (n = mpt_frame_idle_hint_encode(buf + MPT_WIRE_HDR_LEN + flen, room - flen,
						    mpt_session_idle_hint_ms(s))) > 0)
			flen += (size_t)n;
	}
	ack = append_acks(s, p, buf + MPT_WIRE_HDR_LEN + flen, room - flen,
			  probe_ack ? ACKS_OWN : ACKS_PENDING, now);
	flen += ack;
	if (flen && seal_and_send(s, p, buf, flen, sizeof(buf), false, now) > 0 && ack &&
	    !probe_ack)	/* an ACK-only datagram: all of it is ACK cost */
		p->st.ack_tx_bytes += MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN + mpt_path_ip_udp(p);
}

int mpt_session_send_frames(struct mpt_session *s, struct mpt_path *p,
			    const uint8_t *frames, size_t len, uint64_t now)
{
	uint8_t buf[MPT_WIRE_HDR_LEN + MPT_FRAME_HDR_LEN + MPT_RULES_HDR_LEN +
		    MPT_RULES_FRAG_MAX + MPT_WIRE_TAG_LEN];

	if (len > sizeof(buf) - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN)
		return -EMSGSIZE;
	memcpy(buf + MPT_WIRE_HDR_LEN, frames, len);
	return seal_and_send(s, p, buf, len, sizeof(buf), false, now);
}

/* A PROBE (ack-eliciting): liveness, path info for the peer, and the probe timeout. */
void mpt_session_send_probe(struct mpt_session *s, struct mpt_path *p, uint64_t now,
			    bool pto)
{
	struct mpt_probe pr = {
		.id = ++p->probe_seq,
		.timestamp = now,
		.cost = p->cost,
		.weight = p->weight,
		.capacity = p->capacity,
	};
	uint8_t buf[CTRL_BUF];
	size_t flen, room = sizeof(buf) - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN;
	int n;

	memcpy(pr.name, p->name, sizeof(pr.name));
	n = mpt_frame_probe_encode(buf + MPT_WIRE_HDR_LEN, room, &pr);
	if (n < 0)
		return;
	flen = (size_t)n;
	flen += mpt_session_ackf_append(s, p, buf + MPT_WIRE_HDR_LEN + flen, room - flen, now);
	flen += mpt_session_pstat_append(s, buf + MPT_WIRE_HDR_LEN + flen, room - flen);
	flen += append_acks(s, p, buf + MPT_WIRE_HDR_LEN + flen, room - flen, ACKS_PENDING,
			    now);
	if (seal_and_send(s, p, buf, flen, sizeof(buf), true, now) > 0)
		p->st.probes_tx++;
	if (pto)
		p->st.ptos++;
}

/* A path-validation challenge (session_pathval.c): a PROBE whose timestamp, echoed in
 * the PROBE_ACK, is the challenge token, sent to dst and not to p's endpoint. */
int mpt_session_send_challenge(struct mpt_session *s, struct mpt_path *p, uint64_t token,
			       const struct sockaddr_storage *dst, socklen_t dstlen,
			       uint64_t now)
{
	struct mpt_probe pr = {
		.id = ++p->probe_seq,
		.timestamp = token,
		.cost = p->cost,
		.weight = p->weight,
		.capacity = p->capacity,
	};
	struct mpt_seal_opts o = { false, NULL, s->d->inner_mtu, dst, dstlen, false,
				   s->name };
	uint8_t buf[CTRL_BUF];
	size_t room = sizeof(buf) - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN;
	int n, len;

	memcpy(pr.name, p->name, sizeof(pr.name));
	n = mpt_frame_probe_encode(buf + MPT_WIRE_HDR_LEN, room, &pr);
	if (n < 0)
		return n;
	len = mpt_path_seal_send(p, &s->cur, buf, (size_t)n, sizeof(buf), &o, now);
	if (len == -EKEYEXPIRED)
		s->st.keys_expired++;
	return len;
}

/* A PROBE padded to an outer packet of size bytes (plpmtud.h), not ack-eliciting for
 * the path's recovery: neither in flight nor congestion controlled, and its loss is
 * no congestion (RFC 8899 4.4). Returns the datagram length or -errno. */
int mpt_session_send_mtu_probe(struct mpt_session *s, struct mpt_path *p, uint16_t size,
			       uint32_t id, uint64_t now)
{
	struct mpt_probe pr = {
		.id = id,
		.timestamp = now,
		.cost = p->cost,
		.weight = p->weight,
		.capacity = p->capacity,
	};
	struct mpt_pkt *pkt = mpt_pkt_alloc(&s->d->pool);
	size_t dgram = size - mpt_path_ip_udp(p), flen;
	uint8_t *buf;
	int n, ret;

	if (!pkt)
		return -ENOBUFS;
	buf = pkt->data - MPT_WIRE_DATA_PREFIX;
	if (dgram > MPT_WIRE_DATA_PREFIX + mpt_pkt_room(&s->d->pool) ||
	    dgram < MPT_WIRE_MIN_TRANSPORT + MPT_FRAME_HDR_LEN + MPT_PROBE_LEN +
		    MPT_FRAME_HDR_LEN) {
		mpt_pkt_put(&s->d->pool, pkt);
		return -EMSGSIZE;
	}
	memcpy(pr.name, p->name, sizeof(pr.name));
	flen = dgram - MPT_WIRE_HDR_LEN - MPT_WIRE_TAG_LEN;
	n = mpt_frame_probe_encode(buf + MPT_WIRE_HDR_LEN, flen, &pr);
	if (n > 0)
		n = mpt_frame_padding_encode(buf + MPT_WIRE_HDR_LEN + n, flen - (size_t)n,
					     flen - (size_t)n);
	ret = n < 0 ? n : seal_and_send(s, p, buf, flen, dgram, false, now);
	mpt_pkt_put(&s->d->pool, pkt);
	return ret;
}

/*
 * An in-order take is about to number a run of the bulk lane: the sparse lane joins
 * it, right after the packets numbered already (due first on the faster paths) and
 * ahead of those not numbered yet, so its packets are numbered before the slower
 * path's packet and leave next on the faster paths. Served only once the numbered
 * packets at the bulk lane's head were gone, the lane waited as long as in-order
 * takes kept numbering new runs: with a standing queue on two paths, for as long as
 * the queue stood (iperf3's 1-byte end-of-test message behind a greedy flow on
 * test_resilience's paths: over 400 ms, the server's RTO twice). Only while a packet
 * not numbered yet follows (the take's packet for the slower path is then one of
 * those). Returns the bytes up to the end of the joined packets (the take goes at
 * least that far), 0 if the lane did not join.
 */
static uint64_t join_run(struct mpt_session *s)
{
	struct mpt_pkt *after = NULL, *p = s->squeue.head;
	uint64_t end = 0;

	for (; p && p->dsn != MPT_DSN_UNSET; p = p->next) {
		after = p;
		end += p->len;
	}
	if (!p)
		return 0;
	end += s->sparse.q.bytes;
	mpt_sparse_bulk_all(&s->sparse, &s->sparse.q);
	mpt_pktq_splice_after(&s->squeue, after, &s->sparse.q);
	s->st.sparse_joined++;
	return end;
}

/*
 * The packet for a pick: the head of lane q, or, for one path of a scheduler that
 * allows it (ops->in_order), the bulk lane's packet as far into it as the other paths
 * deliver before a packet sent on this one arrives (mpt_arrival_lead): it then
 * arrives in order instead of holding the faster paths' packets at the receiver.
 * The sparse lane's head, were it to arrive that late, would hold them all the same
 * (a ping that took a 300 ms satellite while LTE was full: the LTE packets numbered
 * after it waited for it, the UE's reorder buffer overflowed): the lane then joins
 * the bulk lane's front, where the in-order take passes it to the faster paths.
 */
static struct mpt_pkt *take(struct mpt_session *s, struct mpt_pktq *q,
			    const struct mpt_sched_ctx *ctx, uint32_t mask)
{
	struct mpt_pkt *p;
	uint64_t lead, joined, end = 0;

	if ((q == &s->squeue && q->pkts < 2) || (mask & (mask - 1)) ||
	    !s->sched->in_order || !s->sched->in_order(s->sched_priv) ||
	    ctx->paths[__builtin_ctz(mask)].mtu < s->d->pool.mtu)
		goto head;
	lead = mpt_arrival_lead(ctx, (unsigned)__builtin_ctz(mask), q->head->len);
	if (lead <= q->head->len)
		goto head;
	if (q != &s->squeue) {		/* the sparse lane (sparse.h) */
		mpt_sparse_demote(&s->sparse, &s->squeue);
		s->st.sparse_demoted++;
		q = &s->squeue;
		if (q->pkts < 2)
			goto head;
	} else if (s->sparse.q.head) {
		joined = join_run(s);	/* once: MPT_MAX evaluates its arguments twice */
		lead = MPT_MAX(lead, joined);
	}
	s->st.in_order_takes++;
	/* the packets it passes are numbered first, so that they are the ones the
	 * receiver waits for, as they leave on the faster paths (mpt_pktq_take_at
	 * stops at the same packet) */
	for (p = q->head; p && p->next && (end += p->len) <= lead; p = p->next)
		mpt_session_number(s, p);
	p = mpt_pktq_take_at(q, lead);
	goto out;
head:
	p = mpt_pktq_pop(q);
out:
	mpt_session_number(s, p);
	mpt_sparse_left(&s->sparse, p);	/* the packets it passed still wait (sparse.h) */
	return p;
}

/* Does the scheduler pin flows to paths (flowhold.h)? */
static bool per_flow(const struct mpt_session *s)
{
	return s->sched->per_flow && s->sched->per_flow(s->sched_priv);
}

/*
 * The held flows first (flowhold.h), each as far as its path takes its packets. A
 * slot is walked from the end, as mpt_fhold_pop moves the last slot into a freed one.
 */
static void schedule_held(struct mpt_session *s, struct mpt_sched_ctx *ctx,
			  uint32_t usable, uint32_t min_fit, uint64_t now)
{
	struct mpt_fhold *h = &s->fhold;

	if (!per_flow(s)) {	/* the scheduler changed: back to the one queue */
		mpt_fhold_release(h, &s->squeue);
		return;
	}
	for (unsigned i = h->nslots; i-- > 0;) {
		while (i < h->nslots && h->slot[i].q.head) {
			struct mpt_pkt *pkt = h->slot[i].q.head;
			uint32_t mask;

			if (pkt->len > min_fit) {	/* the path MTU fell: the queue's
							 * MTU handling takes them */
				mpt_fhold_release(h, &s->squeue);
				return;
			}
			mask = s->sched->pick(s->sched_priv, ctx, &pkt->meta) & usable;
			if (!mask)
				break;
			pkt = mpt_fhold_pop(h, i);
			mpt_session_number(s, pkt);
			mpt_sparse_left(&s->sparse, pkt);
			mpt_sparse_bulk_sent(&s->sparse, pkt->len, s->d->pool.mtu);
			mpt_session_dispatch(s, pkt, mask);
		}
	}
}

/* q's head packet, set aside with its flow (flowhold.h): from the sparse lane, its
 * flow now waits as bulk (sparse.h). */
static void set_aside(struct mpt_session *s, struct mpt_pktq *q)
{
	struct mpt_pkt *pkt = mpt_pktq_pop(q);

	if (q != &s->squeue)
		mpt_sparse_bulk(&s->sparse, pkt);
	mpt_fhold_add(&s->fhold, pkt);
}

/*
 * Lane q's head packet was held. A scheduler that pins flows holds only its flow: the
 * packet waits aside (flowhold.h) and true says go on with the next. False: the
 * queue holds (a scheduler that does not pin flows, a packet already numbered, one
 * that waits for a path MTU search, every flow slot taken).
 */
static bool hold_head(struct mpt_session *s, struct mpt_pktq *q,
		      const struct mpt_sched_ctx *ctx, uint32_t min_fit, uint64_t now)
{
	struct mpt_pkt *pkt = q->head;

	s->st.holds++;
	if (q == &s->squeue)	/* the bulk lane's wait only (standing.h) */
		mpt_standing_update(&s->standing, now, now - pkt->enq_ns +
				    mpt_session_least_queueing(ctx));
	if (!per_flow(s) || pkt->dsn != MPT_DSN_UNSET || pkt->len > min_fit ||
	    (s->fhold.nslots == MPT_FHOLD_FLOWS &&
	     mpt_fhold_find(&s->fhold, pkt->meta.flow_hash) < 0))
		return false;
	set_aside(s, q);
	return true;
}

/* The head packet's flow waits aside (flowhold.h): it follows, in its flow's order. */
static bool follow_held(struct mpt_session *s, struct mpt_pktq *q)
{
	struct mpt_pkt *pkt = q->head;

	if (!s->fhold.nslots || pkt->dsn != MPT_DSN_UNSET ||
	    mpt_fhold_find(&s->fhold, pkt->meta.flow_hash) < 0)
		return false;
	set_aside(s, q);
	return true;
}

/*
 * Hand lane q's packets to paths (numbered: only while its head is numbered already);
 * false when its head is held (the lanes behind it wait: a flow's sparse packets go
 * before its bulk ones). The views are built once per
 * call: while packets move only the chosen path's in-flight changes (nothing is sent
 * or acked here), so the loop updates that field and the queue length instead of
 * rebuilding them.
 */
static bool serve_lane(struct mpt_session *s, struct mpt_pktq *q, struct mpt_sched_ctx *ctx,
		       uint32_t usable, uint32_t min_fit, uint64_t now, bool numbered)
{
	const struct mpt_sched_ops *ops = s->sched;
	bool bulk = q == &s->squeue;

	while (q->head && (!numbered || q->head->dsn != MPT_DSN_UNSET)) {
		struct mpt_pkt *pkt;
		uint32_t mask;

		ctx->queue_pkts = s->squeue.pkts + s->sparse.q.pkts;
		ctx->queue_bytes = s->squeue.bytes + s->sparse.q.bytes;
		if (ops->tick && now >= s->next_tick_ns) {
			ops->tick(s->sched_priv, ctx);
			s->next_tick_ns = now + ops->tick_ns;
		}
		if (follow_held(s, q))
			continue;
		if (q->head->len > min_fit && !bulk) {	/* the bulk lane's MTU handling */
			mpt_sparse_demote(&s->sparse, &s->squeue);
			return true;
		}
		if (q->head->len <= min_fit)
			mask = ops->pick(s->sched_priv, ctx, &q->head->meta) & usable;
		else
			mask = mpt_session_pick_fitting(s, ctx, usable, now);
		if (mask == MPT_PICK_DROPPED)
			continue;
		if (!mask) {
			if (hold_head(s, q, ctx, min_fit, now))
				continue;
			return false;
		}
		if (bulk)	/* the head's wait, before a take (standing.h) */
			mpt_standing_update(&s->standing, now, now - q->head->enq_ns +
					    mpt_session_path_queueing(
						    &s->views[__builtin_ctz(mask)]));
		ctx->standing = s->standing.on;
		pkt = take(s, q, ctx, mask);
		if (bulk)	/* the sparse lane's round clock (sparse.h) */
			mpt_sparse_bulk_sent(&s->sparse, pkt->len, s->d->pool.mtu);
		mpt_session_dispatch(s, pkt, mask);
	}
	return true;
}

/*
 * The held flows, the sparse-flow lane (sparse.h), the bulk lane, the rules' queues.
 * Before the sparse lane, the bulk lane's head packets that the in-order take numbered
 * early (take()): they are due on the faster paths before the slower path's packet
 * numbered after them arrives. A sparse packet sent ahead of them is numbered past
 * that packet too, so the receiver holds it for them all (it gains nothing), and with
 * a slow path's long queue its number is more than the reorder buffer ahead of the
 * holes, which are then given up (sat-lte-down, minrtt: iperf3's control message at
 * the end of the download, 8 MB in flight on the satellite, 300-1900 overflow
 * releases at the UE and as many spurious retransmissions at the server).
 */
void mpt_session_schedule(struct mpt_session *s, struct mpt_sched_ctx *ctx,
			  uint32_t usable, uint32_t min_fit, uint64_t now)
{
	if (s->fhold.nslots)
		schedule_held(s, ctx, usable, min_fit, now);
	if (serve_lane(s, &s->squeue, ctx, usable, min_fit, now, true) &&
	    serve_lane(s, &s->sparse.q, ctx, usable, min_fit, now, false))
		serve_lane(s, &s->squeue, ctx, usable, min_fit, now, false);
	if (s->rules)		/* steering rules: their queues (session_rules.c) */
		mpt_rules_schedule(s, ctx, usable, min_fit, now);
}

static void schedule(struct mpt_session *s, uint64_t now)
{
	struct mpt_sched_ctx ctx;
	uint32_t usable = 0;

	if (!mpt_session_waiting(s) && !s->rtxq.head && !mpt_rules_queued(s)) {
		mpt_standing_update(&s->standing, now, 0);
		return;
	}
	mpt_session_sched_ctx(s, &ctx, now);
	mpt_session_repair(s, s->views, &ctx, now);	/* repairs first */
	if (!mpt_session_waiting(s) && !mpt_rules_queued(s)) {
		mpt_standing_update(&s->standing, now, 0);
		return;
	}
	for (unsigned i = 0; i < s->npaths; i++)
		usable |= (uint32_t)s->views[i].up << i;
	mpt_session_schedule(s, &ctx, usable, mpt_session_min_fit(s, usable), now);
}

/*
 * May the packet at the head of p's queue leave now? A real-time packet (a rule with
 * Ordered = no; it goes ahead of the bulk in the queue, mpt_pktq_push_ahead) is not
 * paced and not charged to the pacer: the pacing rate of a path that carried only a
 * trickle is about the trickle's own rate (BBR's bandwidth estimate learns nothing
 * above what the sender offered), so repairs or overflow landing there (1,500 bytes
 * = 30 ms of pace at 50 kB/s each) would queue the voice behind them for hundreds of
 * milliseconds. What bounds it is the window: a real-time rule's scheduler sees each
 * window only MPT_RT_ALLOWANCE_PKTS past the others' (session_rules.c).
 */
static bool paced_ready(const struct mpt_path *p, uint64_t now)
{
	return p->txq.head->unordered || mpt_pacer_ready(&p->pacer, p->cc.pacing_rate, now);
}

static void flush_path(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_txbatch *b = &s->d->txb;

	uint32_t fit = mpt_path_max_inner(p, s->d->pool.mtu);
	struct mpt_pktq back = { 0 };

	while (p->txq.head) {
		if (!paced_ready(p, now))
			break;
		if (!mpt_recovery_can_send(&p->rec))
			break;
		if (p->txq.head->len > fit) {	/* the path MTU fell since the pick */
			mpt_pktq_push(&back, mpt_pktq_pop(&p->txq));
			continue;
		}
		send_data(s, p, mpt_pktq_pop(&p->txq), b, now);
	}
	if (back.head) {			/* to the scheduler again, first */
		mpt_sparse_bulk_all(&s->sparse, &back);	/* their flows wait (sparse.h) */
		mpt_pktq_prepend(&s->squeue, &back);
		mpt_daemon_mark(s->d, s);
	}
	if (b->n)
		mpt_path_batch_send(p, b, &s->d->pool, s->name);
	mpt_session_note_busy(p, now);
	if (mpt_acktrack_should_ack_now(&p->ackt, now))	/* on the path that carries it */
		mpt_session_send_control(s, mpt_session_ack_carrier(s, p, now), NULL, now);
}

void mpt_session_flush(struct mpt_session *s, uint64_t now)
{
	schedule(s, now);
	mpt_session_sched_events(s);
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->used)
			continue;
		/* draft-cheng 3.4 with the scheduler as the path's application: room left
		 * in cwnd after the scheduler's turn (queue empty, or packets held for
		 * other paths by cost, arrival or a live window) is app-limited, marked
		 * before the path's queued packets leave so that they carry the mark and
		 * the controller does not take the scheduler's choice for the path's rate */
		if (mpt_path_in_flight(p) < p->cc.cwnd && !p->rec.app_limited)
			mpt_recovery_on_app_limited(&p->rec);
		flush_path(s, p, now);
		mpt_path_meter(p, now);
	}
	mpt_session_arm(s, now);
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

void mpt_session_arm(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t at = 0;

	mpt_session_agg_refresh(s);		/* the aggregates follow every flush */
	if (cfg->role == MPT_ROLE_ANCHOR && mpt_session_quiet_check(s, now)) {
		ev_timer_stop(s->d->loop, &s->timer);	/* the daemon's sweep watches it */
		return;
	}
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->used)
			continue;
		if (p->txq.head)
			at = earliest(at, paced_ready(p, now) ? now :
					  mpt_pacer_release_time(&p->pacer, p->cc.pacing_rate, now));
		at = earliest(at, mpt_acktrack_deadline(&p->ackt));
		at = earliest(at, mpt_recovery_loss_deadline(&p->rec));
		at = earliest(at, p->pto_at);
		at = earliest(at, p->next_probe_ns);
		at = earliest(at, mpt_session_dead_deadline(p));
		if (p->alive)
			at = earliest(at, mpt_plpmtud_deadline(&p->pmtu));
	}
	at = earliest(at, mpt_reorder_next_deadline(&s->reorder));
	if (s->rtxq.head)		/* waiting for room: a slow retry in case nothing else */
		at = earliest(at, now + 10 * MPT_NSEC_PER_MSEC);
	if ((s->squeue.head || s->sparse.q.head) && s->sched->tick)
		at = earliest(at, s->next_tick_ns);
	if (s->rules)
		at = earliest(at, mpt_rules_deadline(s));
	if (cfg->role == MPT_ROLE_UE) {
		at = earliest(at, s->hs_next_ns);
		if (s->cur.valid && !s->hs.pending && s->last_auth_rx_ns)
			at = earliest(at, mpt_session_silent_deadline(s));
		if (s->cur.valid && !s->hs.pending)
			at = earliest(at, s->cur.created_ns + MPT_MIN(cfg->rekey_after_ns,
							MPT_REKEY_AFTER_TIME_MAX_NS));
	}
	at = earliest(at, mpt_keyslot_deadline(&s->cur));
	at = earliest(at, mpt_keyslot_deadline(&s->prev));
	at = earliest(at, mpt_keyslot_deadline(&s->next));
	if (!at && cfg->role == MPT_ROLE_ANCHOR && !s->npaths) {
		/* a peer not connected: nothing to time until it handshakes (1,000
		 * configured peers must not mean 1,000 wake-ups a second) */
		ev_timer_stop(s->d->loop, &s->timer);
		return;
	}
	if (!at)
		at = now + MPT_NSEC_PER_SEC;	/* nothing pending: a slow heartbeat */
	if (ev_is_active(&s->timer) && at == s->timer_at)
		return;
	s->timer_at = at;
	ev_timer_stop(s->d->loop, &s->timer);
	ev_timer_set(&s->timer, at > now ? (double)(at - now) / 1e9 : 0.0, 0.0);
	ev_timer_start(s->d->loop, &s->timer);
}

static bool in_use(const struct mpt_path *p)
{
	return p->link_ok && p->admin_up;
}

size_t mpt_session_pstat_append(struct mpt_session *s, uint8_t *pos, size_t room)
{
	size_t n = 0;

	if (s->d->cfg.role != MPT_ROLE_UE)
		return 0;
	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];
		struct mpt_path_status ps = { .path_id = p->id, .seq = p->status_seq,
					      .in_use = in_use(p) };
		int k;

		if (!p->used || !p->status_seq || (ps.in_use && !p->status_repeat))
			continue;
		k = mpt_frame_pstat_encode(pos + n, room - n, &ps);
		if (k < 0)
			break;
		n += (size_t)k;
		if (ps.in_use)
			p->status_repeat--;
	}
	return n;
}
