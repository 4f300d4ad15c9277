// SPDX-License-Identifier: MIT
/*
 * The sending half of a session: scheduler queue -> scheduler -> path pacer queues
 * -> framed, sealed datagrams. Also the control traffic (ACKs, probes) and the
 * session timer's work: pacing releases, delayed ACKs, loss and probe timeouts,
 * liveness, the scheduler tick, reorder timeouts.
 *
 * A data packet is framed in place in its pool buffer (the inner packet already sits
 * after headroom for the header and DATA frame header); a due ACK for the same path
 * rides along in the tailroom when it fits.
 */
#include <errno.h>
#include <netinet/udp.h>
#include <string.h>

#include "arrival.h"
#include "daemon.h"
#include "log.h"
#include "session.h"
#include "sys.h"

#define CTRL_BUF	512

static bool ack_due(const struct mpt_path *p)
{
	return p->ackt.unacked_eliciting > 0;
}

/* Append an ACK frame for path p if one is due and fits; returns bytes added. */
static size_t append_ack(struct mpt_path *p, uint8_t *pos, size_t cap, uint64_t now)
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
	p->st.ack_tx_bytes += (uint64_t)n;
	return (size_t)n;
}

/*
 * Seal the transport packet at buf (header space at buf[0..16), frames_len bytes of
 * frames after it) into out (out_cap bytes; out == buf: in place, cap bytes of room),
 * and account for it as sent. eliciting: the peer will ACK it, so it counts in flight
 * (data, probes); ACK-only packets are tracked with 0 bytes so that their packet
 * numbers may appear in the peer's ACK ranges. retain: a data packet kept for
 * retransmission until acknowledged or lost (the path's recovery owns it from here).
 * Returns the datagram length.
 */
static int seal(struct mpt_session *s, struct mpt_path *p, uint8_t *buf, size_t frames_len,
		uint8_t *out, size_t out_cap, bool eliciting, struct mpt_pkt *retain,
		uint64_t now)
{
	struct mpt_hdr h = {
		.type = MPT_MSG_TRANSPORT,
		.path_id = p->id,
		.receiver = s->cur.remote_index,
		.pn = p->next_pn,
	};
	struct mpt_cc_path cp;
	int len;

	if (!s->cur.valid || !p->remote_len)
		return -ENOTCONN;
	if (!p->admin_up)	/* out of service: not even ACKs, the peer sees it die */
		return -ENETDOWN;
	if (!mpt_recovery_can_send(&p->rec))
		return -ENOBUFS;
	mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN, &h);
	len = out == buf ? mpt_aead_seal_packet(&s->cur.tx, buf, frames_len, out_cap)
			 : mpt_aead_seal_packet_to(&s->cur.tx, buf, frames_len, out, out_cap);
	if (len < 0)
		return len;
	p->next_pn++;
	s->cur.tx_pkts++;
	mpt_recovery_on_sent_data(&p->rec, h.pn, eliciting ? (uint32_t)len : 0, now, retain);
	if (eliciting && p->cc_ops->on_sent) {
		mpt_path_cc_view(p, &cp, s->d->inner_mtu);
		p->cc_ops->on_sent(&p->cc, &cp, (uint32_t)len, now);
	}
	if (eliciting && !p->pto_at)
		p->pto_at = now + (mpt_recovery_pto(&p->rec) << p->pto_backoff);
	return len;
}

static int seal_and_send(struct mpt_session *s, struct mpt_path *p, uint8_t *buf,
			 size_t frames_len, size_t cap, bool eliciting, uint64_t now)
{
	int len = seal(s, p, buf, frames_len, buf, cap, eliciting, NULL, now), ret;

	if (len < 0)
		return len;
	ret = mpt_daemon_sendto(s->d, p, buf, (size_t)len);
	if (ret < 0) {
		p->st.send_errors++;
		return ret;
	}
	p->st.tx_pkts++;
	p->st.tx_bytes += (uint64_t)len;
	return len;
}

/* The local stack refused a datagram of len bytes as too big for the route. */
static void local_too_big(struct mpt_path *p, size_t len)
{
	p->st.send_too_big++;
	mpt_plpmtud_on_send_too_big(&p->pmtu, (uint16_t)MPT_MIN(len + mpt_path_ip_udp(p),
								 65535u), mpt_now_ns());
}

/* Send b->msg[from, from + n) with sendmmsg; returns how many left. */
static unsigned send_mmsg(struct mpt_path *p, struct mpt_txbatch *b, unsigned from,
			  unsigned n)
{
	while (n) {
		int k = sendmmsg(p->fd, b->msg + from, n, MSG_DONTWAIT);

		if (k < 0 && errno == EMSGSIZE) {
			local_too_big(p, b->msg[from].msg_hdr.msg_iov->iov_len);
			from++;			/* lost: repaired elsewhere */
			n--;
			continue;
		}
		if (k <= 0)
			break;
		for (int i = 0; i < k; i++) {
			p->st.tx_pkts++;
			p->st.tx_bytes += b->msg[from + (unsigned)i].msg_hdr.msg_iov->iov_len;
		}
		from += (unsigned)k;
		n -= (unsigned)k;
	}
	return n;
}

/*
 * UDP GSO: n datagrams of seg bytes (the last may be shorter), sealed next to each
 * other in the batch buffer, handed to the kernel as one send with UDP_SEGMENT, so the
 * stack (routing, skb, veth or driver) runs once for the run instead of once per
 * datagram. A receiver without UDP GRO gets ordinary datagrams: this changes nothing on
 * the wire. Returns 0, or -errno (EIO: no checksum offload on the route's device).
 */
static int send_gso(struct mpt_path *p, struct mpt_txbatch *b, unsigned from, unsigned n,
		    uint16_t seg)
{
	char cbuf[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
	struct msghdr mh = {
		.msg_name = &p->remote,
		.msg_namelen = p->remote_len,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
		.msg_iovlen = 1,
	};
	struct iovec iov = { .iov_base = b->iov[from].iov_base, .iov_len = 0 };
	struct cmsghdr *cm;

	for (unsigned i = from; i < from + n; i++)	/* contiguous: sealed in order */
		iov.iov_len += b->iov[i].iov_len;
	mh.msg_iov = &iov;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	if (sendmsg(p->fd, &mh, MSG_DONTWAIT) < 0)
		return -errno;
	p->st.tx_pkts += n;
	p->st.tx_bytes += iov.iov_len;
	p->st.gso_sends++;
	return 0;
}

/* Send the batched data packets of path p: runs of equal size through UDP GSO when the
 * kernel and route take it, the rest with sendmmsg. Packets the path's recovery does
 * not keep go back to the pool. */
static void batch_send(struct mpt_session *s, struct mpt_path *p, struct mpt_txbatch *b)
{
	struct mpt_daemon *d = s->d;
	unsigned i = 0, left = 0;

	while (i < b->n) {
		size_t seg = b->iov[i].iov_len, bytes = seg;
		unsigned n = 1;

		/* a run: equal sizes, the last one may be shorter, at most 64 KiB */
		while (i + n < b->n && b->iov[i + n].iov_len <= seg &&
		       bytes + b->iov[i + n].iov_len <= MPT_GSO_MAX_BYTES) {
			bytes += b->iov[i + n].iov_len;
			if (b->iov[i + n++].iov_len < seg)
				break;
		}
		if (n > 1 && p->gso_ok) {
			int ret = send_gso(p, b, i, n, (uint16_t)seg);

			if (ret == 0) {
				i += n;
				continue;
			}
			if (ret == -EMSGSIZE)
				local_too_big(p, seg);
			else if (ret == -EIO || ret == -EINVAL || ret == -ENOPROTOOPT) {
				p->gso_ok = false;	/* this path's route cannot: stop trying */
				log_info("%s: path %s: UDP GSO unavailable (%s), sending datagrams "
					 "one by one", s->name, p->name, strerror(-ret));
			}
		}
		/* socket buffer full or an error: what is left counts as sent and will
		 * be found lost by the peer's ACKs, like any loss on the path */
		left += send_mmsg(p, b, i, n);
		i += n;
	}
	p->st.send_errors += left;
	for (i = 0; i < b->n; i++)
		if (b->pkt[i])
			mpt_pkt_put(&d->pool, b->pkt[i]);
	b->n = 0;
	b->off = 0;
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
	struct mmsghdr *m;
	size_t flen;
	int ret;

	/* nothing larger than the path carries: the piggybacked ACK must fit too */
	cap = MPT_MIN(cap, (size_t)mpt_path_max_datagram(p));
	ret = mpt_frame_data_encode(buf + MPT_WIRE_HDR_LEN, cap - MPT_WIRE_HDR_LEN, pkt->dsn,
				    pkt->data, pkt->len);
	if (ret < 0) {
		mpt_pkt_put(&d->pool, pkt);
		return;
	}
	flen = (size_t)ret;
	flen += mpt_session_ackf_append(s, p, buf + MPT_WIRE_HDR_LEN + flen,
					cap - MPT_WIRE_HDR_LEN - flen - MPT_WIRE_TAG_LEN, now);
	flen += append_ack(p, buf + MPT_WIRE_HDR_LEN + flen,
			   cap - MPT_WIRE_HDR_LEN - flen - MPT_WIRE_TAG_LEN, now);
	if (b->cap - b->off < MPT_WIRE_HDR_LEN + flen + MPT_WIRE_TAG_LEN)
		batch_send(s, p, b);			/* the buffer is full */
	if (!pkt->rtx)
		pkt->sent_ns = now;
	pkt->path = p->id;
	ret = seal(s, p, buf, flen, b->buf + b->off, b->cap - b->off, true,
		   keep ? pkt : NULL, now);
	if (ret < 0) {
		p->st.send_errors++;
		mpt_pkt_put(&d->pool, pkt);
		return;
	}
	p->st.data_tx++;
	mpt_pacer_on_send(&p->pacer, p->cc.pacing_rate, (uint32_t)ret, now);
	b->iov[b->n].iov_base = b->buf + b->off;
	b->iov[b->n].iov_len = (size_t)ret;
	b->off += (size_t)ret;
	m = &b->msg[b->n];
	memset(m, 0, sizeof(*m));
	m->msg_hdr.msg_name = &p->remote;
	m->msg_hdr.msg_namelen = p->remote_len;
	m->msg_hdr.msg_iov = &b->iov[b->n];
	m->msg_hdr.msg_iovlen = 1;
	b->pkt[b->n++] = keep ? NULL : pkt;	/* kept: the path's recovery owns it */
	if (b->n == MPT_TX_BATCH)
		batch_send(s, p, b);
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
	}
	ack = append_ack(p, buf + MPT_WIRE_HDR_LEN + flen, room - flen, now);
	flen += ack;
	if (flen && seal_and_send(s, p, buf, flen, sizeof(buf), false, now) > 0 && ack &&
	    !probe_ack)	/* an ACK-only datagram: all of it is ACK cost */
		p->st.ack_tx_bytes += MPT_WIRE_HDR_LEN + MPT_WIRE_TAG_LEN + mpt_path_ip_udp(p);
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
	flen += append_ack(p, buf + MPT_WIRE_HDR_LEN + flen, room - flen, now);
	if (seal_and_send(s, p, buf, flen, sizeof(buf), true, now) > 0)
		p->st.probes_tx++;
	if (pto)
		p->st.ptos++;
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

/* A path's queueing delay at its bottleneck: the latest RTT above the minimum. */
static uint64_t path_queueing(const struct mpt_path_view *v)
{
	return v->latest_rtt_ns > v->min_rtt_ns ? v->latest_rtt_ns - v->min_rtt_ns : 0;
}

/* The least queueing delay of the paths in use (up, with bytes in flight): what a held
 * packet would meet after its wait in the scheduler queue. */
static uint64_t least_queueing(const struct mpt_sched_ctx *ctx)
{
	uint64_t least = UINT64_MAX;

	for (unsigned i = 0; i < ctx->npaths; i++)
		if (ctx->paths[i].up && ctx->paths[i].in_flight)
			least = MPT_MIN(least, path_queueing(&ctx->paths[i]));
	return least == UINT64_MAX ? 0 : least;
}

/*
 * The packet for a pick: the head of the queue, or, for one path of a scheduler that
 * allows it (ops->in_order), the packet as far into the queue as the other paths
 * deliver before a packet sent on this one arrives (mpt_arrival_lead): it then
 * arrives in order instead of holding the faster paths' packets at the receiver.
 */
static struct mpt_pkt *take(struct mpt_session *s, const struct mpt_sched_ctx *ctx,
			    uint32_t mask)
{
	uint64_t lead;

	if (s->squeue.pkts < 2 || (mask & (mask - 1)) || !s->sched->in_order ||
	    !s->sched->in_order(s->sched_priv) ||
	    ctx->paths[__builtin_ctz(mask)].mtu < s->d->pool.mtu)
		return mpt_pktq_pop(&s->squeue);
	lead = mpt_arrival_lead(ctx, (unsigned)__builtin_ctz(mask), s->squeue.head->len);
	if (lead <= s->squeue.head->len)
		return mpt_pktq_pop(&s->squeue);
	s->st.in_order_takes++;
	return mpt_pktq_take_at(&s->squeue, lead);
}

/*
 * Hand queued packets to paths. The views are built once per call: while packets
 * move only the chosen path's in-flight changes (nothing is sent or acked here), so
 * the loop updates that field and the queue length instead of rebuilding them.
 */
static void schedule(struct mpt_session *s, uint64_t now)
{
	const struct mpt_sched_ops *ops = s->sched;
	struct mpt_daemon *d = s->d;
	struct mpt_sched_ctx ctx;
	uint32_t usable = 0, min_fit;

	if (!s->squeue.head && !s->rtxq.head) {
		mpt_standing_update(&s->standing, now, 0);
		return;
	}
	mpt_session_sched_ctx(s, &ctx, now);
	mpt_session_repair(s, s->views, &ctx, now);	/* repairs first */
	if (!s->squeue.head) {
		mpt_standing_update(&s->standing, now, 0);
		return;
	}
	for (unsigned i = 0; i < s->npaths; i++)
		usable |= (uint32_t)s->views[i].up << i;
	min_fit = mpt_session_min_fit(s, usable);
	while (s->squeue.head) {
		struct mpt_pkt *pkt;
		uint32_t mask;

		ctx.queue_pkts = s->squeue.pkts;
		ctx.queue_bytes = s->squeue.bytes;
		if (ops->tick && now >= s->next_tick_ns) {
			ops->tick(s->sched_priv, &ctx);
			s->next_tick_ns = now + ops->tick_ns;
		}
		if (s->squeue.head->len <= min_fit)
			mask = ops->pick(s->sched_priv, &ctx, &s->squeue.head->meta) & usable;
		else
			mask = mpt_session_pick_fitting(s, &ctx, usable, now);
		if (mask == MPT_PICK_DROPPED)
			continue;
		if (!mask) {
			s->st.holds++;
			mpt_standing_update(&s->standing, now, now - s->squeue.head->enq_ns +
					    least_queueing(&ctx));
			return;
		}
		pkt = take(s, &ctx, mask);
		mpt_standing_update(&s->standing, now, now - pkt->enq_ns +
				    path_queueing(&s->views[__builtin_ctz(mask)]));
		ctx.standing = s->standing.on;
		while (mask) {
			unsigned i = (unsigned)__builtin_ctz(mask);
			struct mpt_pkt *copy = pkt;

			mask &= mask - 1;
			if (mask) {		/* redundant: every path but the last gets a copy */
				copy = mpt_pkt_alloc(&d->pool);
				if (!copy)
					continue;
				copy->len = pkt->len;
				copy->dsn = pkt->dsn;
				copy->meta = pkt->meta;
				memcpy(copy->data, pkt->data, pkt->len);
				s->st.copies++;
			}
			s->st.picks[i]++;
			s->views[i].in_flight += copy->len;
			s->views[i].queued_bytes += copy->len;
			mpt_pktq_push(&s->paths[i].txq, copy);
		}
	}
}

static void flush_path(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_txbatch *b = &s->d->txb;

	uint32_t fit = mpt_path_max_inner(p, s->d->pool.mtu);
	struct mpt_pktq back = { 0 };

	while (p->txq.head) {
		if (!mpt_pacer_ready(&p->pacer, p->cc.pacing_rate, now))
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
		mpt_pktq_prepend(&s->squeue, &back);
		mpt_daemon_mark(s->d, s);
	}
	if (b->n)
		batch_send(s, p, b);
	if (mpt_acktrack_should_ack_now(&p->ackt, now))
		mpt_session_send_control(s, p, NULL, now);
}

void mpt_session_flush(struct mpt_session *s, uint64_t now)
{
	schedule(s, now);
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
	}
	mpt_session_arm(s, now);
}

void mpt_session_set_alive(struct mpt_session *s, struct mpt_path *p, bool alive,
			   uint64_t now)
{
	if (p->alive == alive)
		return;
	p->alive = alive;
	if (alive && p->pmtu.state == MPT_PMTU_BASE)
		mpt_path_pmtu_start(p, now);
	if (alive) {
		p->alive_since_ns = now;
		p->rtt_fresh = false;
	}
	if (alive)
		p->st.ups++;
	else
		p->st.downs++;
	log_info("%s: path %s is %s", s->name, p->name, alive ? "up" : "down");
	mpt_session_path_changed(s, p, now);
	mpt_daemon_notify_status(s->d, false);
}

void mpt_session_path_changed(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	struct mpt_sched_ctx ctx;
	bool up = mpt_path_usable(p);

	if (!up) {
		/* what waited for this path goes back through the scheduler, ahead of
		 * the queue and in its order: the packets are not lost, only their path */
		mpt_pktq_prepend(&s->squeue, &p->txq);
		mpt_path_reset(p, &s->d->pool, now);	/* what was in flight is lost */
		mpt_session_collect_lost(s, p, now);
	}
	if (s->sched->on_path_change) {
		mpt_session_sched_ctx(s, &ctx, now);
		s->sched->on_path_change(s->sched_priv, &ctx, p->id, up);
	}
	mpt_daemon_mark(s->d, s);
}

void mpt_session_liveness(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;
	uint64_t dead_after = cfg->probe_interval_ns * cfg->probe_miss_limit;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];

		if (!p->used)
			continue;
		if (p->alive && now - mpt_session_heard_ns(s, p) > dead_after)
			mpt_session_set_alive(s, p, false, now);
		if (now >= p->next_probe_ns) {
			p->next_probe_ns = now + cfg->probe_interval_ns;
			if (s->cur.valid && p->link_ok && p->admin_up && p->remote_len)
				mpt_session_send_probe(s, p, now, false);
		}
	}
}

/* Called on an authenticated packet from path p. */
void mpt_session_heard(struct mpt_session *s, struct mpt_path *p, uint64_t now)
{
	p->last_rx_ns = now;
	if (!p->alive)
		mpt_session_set_alive(s, p, true, now);
}

void mpt_session_on_timer(struct mpt_session *s, uint64_t now)
{
	const struct mpt_config *cfg = &s->d->cfg;

	for (unsigned i = 0; i < s->npaths; i++) {
		struct mpt_path *p = &s->paths[i];
		struct mpt_recovery_event ev;
		uint64_t dl = mpt_recovery_loss_deadline(&p->rec);

		if (!p->used)
			continue;
		mpt_session_check_dead(s, p, now);
		mpt_session_pmtu_timer(s, p, now);
		if (dl && now >= dl) {
			mpt_recovery_on_loss_timeout(&p->rec, now, &ev);
			mpt_session_on_losses(s, p, &ev, now);
		}
		if (p->pto_at && now >= p->pto_at) {
			p->pto_at = 0;
			if (p->rec.in_flight) {
				if (p->pto_backoff < 6)
					p->pto_backoff++;
				mpt_session_send_probe(s, p, now, true);
			}
		}
	}
	mpt_session_liveness(s, now);
	mpt_reorder_on_timeout(&s->reorder, now);
	if (cfg->role == MPT_ROLE_UE) {
		if (s->cur.valid && !s->hs.pending && s->last_auth_rx_ns &&
		    now - s->last_auth_rx_ns > mpt_session_silent_ns(cfg)) {
			log_info("%s: nothing from the anchor for %llu ms: handshaking afresh",
				 s->name, (unsigned long long)((now - s->last_auth_rx_ns) /
							       MPT_NSEC_PER_MSEC));
			s->hs_fresh = true;
			s->hs_tries = 0;
			s->last_auth_rx_ns = now;	/* one start; retries back off */
			mpt_hs_ue_start(s, now);
		} else if (s->hs_next_ns && now >= s->hs_next_ns)
			mpt_hs_ue_start(s, now);
		else if (s->cur.valid && !s->hs.pending &&
			 (now >= s->cur.created_ns + cfg->rekey_after_ns ||
			  s->cur.tx_pkts >= cfg->rekey_after_packets))
			mpt_hs_ue_start(s, now);
	}
	if (s->squeue.head && s->sched->tick && now >= s->next_tick_ns) {
		struct mpt_sched_ctx ctx;

		mpt_session_sched_ctx(s, &ctx, now);
		s->sched->tick(s->sched_priv, &ctx);
		s->next_tick_ns = now + s->sched->tick_ns;
	}
}
