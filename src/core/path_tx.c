// SPDX-License-Identifier: MIT
/*
 * A path's send side: sealing a framed packet under the session's keypair with the
 * path's next packet number, and accounting for it in the path's recovery, controller
 * and pacer; then the socket: the batch of sealed datagrams goes out in UDP GSO runs
 * where the kernel and route take them, the rest with sendmmsg; a datagram the local
 * stack refuses as too big is a signal for the path's MTU discovery. On the anchor
 * every send carries the path's source address pin (udp_local.h); a pin the stack
 * refuses (the address is no longer ours) is forgotten and the send goes from the
 * kernel's choice (mpt_path_pin_lost). What goes into a
 * packet (frames, which path) is the session's choice (session_tx.c).
 */
#include <errno.h>
#include <netinet/udp.h>
#include <string.h>

#include "log.h"
#include "keyslot.h"
#include "path.h"
#include "sys.h"
#include "udp.h"

int mpt_path_seal(struct mpt_path *p, struct mpt_keyslot *ks, uint8_t *buf,
		  size_t frames_len, uint8_t *out, size_t out_cap,
		  const struct mpt_seal_opts *o, uint64_t now)
{
	struct mpt_hdr h = {
		.type = MPT_MSG_TRANSPORT,
		.path_id = p->id,
		.receiver = ks->remote_index,
		.pn = p->next_pn,
	};
	struct mpt_cc_path cp;
	int len;

	if (!ks->valid || !p->remote_len)
		return -ENOTCONN;
	if (!p->admin_up)	/* out of service: not even ACKs, the peer sees it die */
		return -ENETDOWN;
	if (!mpt_recovery_can_send(&p->rec))
		return -ENOBUFS;
	mpt_hdr_encode(buf, MPT_WIRE_HDR_LEN, &h);
	len = mpt_keyslot_seal(ks, buf, frames_len, out, out_cap, now);
	if (len < 0)
		return len;
	p->next_pn++;
	mpt_recovery_on_sent_data(&p->rec, h.pn, o->eliciting ? (uint32_t)len : 0, now,
				  o->retain);
	if (o->realtime)
		mpt_recovery_mark_realtime(&p->rec, h.pn);
	if (o->eliciting && p->cc_ops->on_sent) {
		mpt_path_cc_view(p, &cp, o->inner_mtu);
		p->cc_ops->on_sent(&p->cc, &cp, (uint32_t)len, now);
	}
	if (o->eliciting && !p->pto_at)
		p->pto_at = now + (mpt_recovery_pto(&p->rec) << p->pto_backoff);
	return len;
}

int mpt_path_seal_send(struct mpt_path *p, struct mpt_keyslot *ks, uint8_t *buf,
		       size_t frames_len, size_t cap, const struct mpt_seal_opts *o,
		       uint64_t now)
{
	int len = mpt_path_seal(p, ks, buf, frames_len, buf, cap, o, now), ret;
	struct mpt_local was;

	if (len < 0)
		return len;
	was = p->local;
	ret = o->to ? mpt_path_sendto_addr(p, buf, (size_t)len, o->to, o->tolen)
		    : mpt_path_sendto(p, buf, (size_t)len);
	if (ret == MPT_LOCAL_UNPINNED)
		mpt_path_pin_lost(p, &was, o->owner, now);
	if (ret < 0) {
		p->st.send_errors++;
		return ret;
	}
	p->st.tx_pkts++;
	p->st.tx_bytes += (uint64_t)len;
	return len;
}

void mpt_path_batch_add(struct mpt_path *p, struct mpt_txbatch *b, size_t len,
			struct mpt_pkt *pkt, bool paced, uint64_t now)
{
	struct mmsghdr *m = &b->msg[b->n];

	p->st.data_tx++;
	p->st.data_tx_bytes += len;
	if (paced)
		mpt_pacer_on_send(&p->pacer, p->cc.pacing_rate, (uint32_t)len, now);
	b->iov[b->n].iov_base = b->buf + b->off;
	b->iov[b->n].iov_len = len;
	b->off += len;
	memset(m, 0, sizeof(*m));
	m->msg_hdr.msg_name = &p->remote;
	m->msg_hdr.msg_namelen = p->remote_len;
	m->msg_hdr.msg_iov = &b->iov[b->n];
	m->msg_hdr.msg_iovlen = 1;
	b->pkt[b->n++] = pkt;
}

void mpt_path_pin_lost(struct mpt_path *p, const struct mpt_local *was, const char *owner,
		       uint64_t now)
{
	char a[INET6_ADDRSTRLEN + 16];

	p->st.pin_fallbacks++;
	if (!mpt_local_equal(was, &p->pin_lost) ||
	    now - p->pin_lost_ns > 60 * MPT_NSEC_PER_SEC) {
		mpt_local_format(was, a, sizeof(a));
		log_info("%s: path %s: the pinned source %s is no longer ours (a send from it "
			 "failed): replies leave from the kernel's choice until the UE's next "
			 "datagram pins an address", owner ? owner : "?", p->name, a);
	}
	p->pin_lost = *was;
	p->pin_lost_ns = now;
	memset(&p->local, 0, sizeof(p->local));
}

/* Every message of the batch sends from the path's pin (none once it is forgotten). */
static void batch_pin(const struct mpt_path *p, struct mpt_txbatch *b)
{
	size_t ctl_len;

	memset(&b->ctl, 0, sizeof(b->ctl));
	ctl_len = mpt_local_cmsg(&p->local, b->ctl.buf, sizeof(b->ctl.buf));
	for (unsigned i = 0; i < b->n; i++) {
		b->msg[i].msg_hdr.msg_control = ctl_len ? b->ctl.buf : NULL;
		b->msg[i].msg_hdr.msg_controllen = ctl_len;
	}
}

/* A batch send failed with err: if the pin refused it (mpt_local_refused), unpin the
 * batch and try again from the kernel's choice with send (a sendmmsg or a GSO run);
 * the pin is forgotten if that one goes, kept if it fails too (no route at all).
 * Returns the second try's result, or err. */
static int batch_unpinned(struct mpt_path *p, struct mpt_txbatch *b, int err,
			  const char *owner, int (*send)(struct mpt_path *,
							 struct mpt_txbatch *, unsigned,
							 unsigned, uint16_t),
			  unsigned from, unsigned n, uint16_t seg)
{
	struct mpt_local was = p->local;
	int ret;

	if (!mpt_local_refused(&was, err))
		return err;
	memset(&p->local, 0, sizeof(p->local));
	batch_pin(p, b);
	ret = send(p, b, from, n, seg);
	if (ret >= 0) {
		mpt_path_pin_lost(p, &was, owner, mpt_now_ns());
		return ret;
	}
	p->local = was;
	batch_pin(p, b);
	return err;
}

/* The local stack refused a datagram of len bytes as too big for the route. */
static void local_too_big(struct mpt_path *p, size_t len)
{
	p->st.send_too_big++;
	mpt_plpmtud_on_send_too_big(&p->pmtu, (uint16_t)MPT_MIN(len + mpt_path_ip_udp(p),
								 65535u), mpt_now_ns());
}

/* sendmmsg of b->msg[from, from + n): how many went, or -errno (seg: unused). */
static int sendmmsg_run(struct mpt_path *p, struct mpt_txbatch *b, unsigned from,
			unsigned n, uint16_t seg)
{
	(void)seg;
	return mpt_udp_sendmmsg(p->fd, b->msg + from, n);
}

/* Send b->msg[from, from + n) with sendmmsg; returns how many left. */
static unsigned send_mmsg(struct mpt_path *p, struct mpt_txbatch *b, unsigned from,
			  unsigned n, const char *owner)
{
	while (n) {
		int k = sendmmsg_run(p, b, from, n, 0);

		if (k < 0)	/* the pinned source may be gone (udp_local.h) */
			k = batch_unpinned(p, b, k, owner, sendmmsg_run, from, n, 0);

		if (k == -EMSGSIZE) {
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
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t)) + MPT_LOCAL_CMSG_SPACE];
		struct cmsghdr align;
	} cbuf;
	struct msghdr mh = {
		.msg_name = &p->remote,
		.msg_namelen = p->remote_len,
		.msg_control = cbuf.buf,
		.msg_controllen = CMSG_SPACE(sizeof(uint16_t)),
		.msg_iovlen = 1,
	};
	struct iovec iov = { .iov_base = b->iov[from].iov_base, .iov_len = 0 };
	struct cmsghdr *cm;
	ssize_t ret;

	memset(&cbuf, 0, sizeof(cbuf));

	for (unsigned i = from; i < from + n; i++)	/* contiguous: sealed in order */
		iov.iov_len += b->iov[i].iov_len;
	mh.msg_iov = &iov;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	mh.msg_controllen += mpt_local_cmsg(&p->local, cbuf.buf + CMSG_SPACE(sizeof(uint16_t)),
					    MPT_LOCAL_CMSG_SPACE);
	ret = mpt_udp_sendmsg(p->fd, &mh);
	if (ret < 0)
		return (int)ret;
	p->st.tx_pkts += n;
	p->st.tx_bytes += iov.iov_len;
	p->st.gso_sends++;
	return 0;
}

/* Send the batched data packets of path p: runs of equal size through UDP GSO when the
 * kernel and route take it, the rest with sendmmsg. Packets the path's recovery does
 * not keep go back to the pool. */
void mpt_path_batch_send(struct mpt_path *p, struct mpt_txbatch *b,
			 struct mpt_pkt_pool *pool, const char *owner)
{
	unsigned i = 0, left = 0;

	batch_pin(p, b);
	while (i < b->n) {
		size_t seg = b->iov[i].iov_len, bytes = seg;
		unsigned n = 1, sent_left;
		int gso_err = 0;

		/* a run: equal sizes, the last one may be shorter, at most 64 KiB */
		while (i + n < b->n && b->iov[i + n].iov_len <= seg &&
		       bytes + b->iov[i + n].iov_len <= MPT_GSO_MAX_BYTES) {
			bytes += b->iov[i + n].iov_len;
			if (b->iov[i + n++].iov_len < seg)
				break;
		}
		if (n > 1 && p->gso_ok) {
			int ret = send_gso(p, b, i, n, (uint16_t)seg);

			if (ret < 0)	/* the pinned source may be gone (udp_local.h) */
				ret = batch_unpinned(p, b, ret, owner, send_gso, i, n,
						     (uint16_t)seg);
			if (ret == 0) {
				i += n;
				continue;
			}
			if (ret == -EMSGSIZE)
				local_too_big(p, seg);
			else if (ret == -EIO || ret == -EINVAL || ret == -ENOPROTOOPT)
				gso_err = ret;
		}
		/* socket buffer full or an error: what is left counts as sent and will
		 * be found lost by the peer's ACKs, like any loss on the path */
		sent_left = send_mmsg(p, b, i, n, owner);
		if (gso_err && sent_left < n) {
			/* one by one they go: this path's route cannot GSO, stop trying (a
			 * blackhole route refuses both with EINVAL: GSO stays on) */
			p->gso_ok = false;
			log_info("%s: path %s: UDP GSO unavailable (%s), sending datagrams "
				 "one by one", owner, p->name, strerror(-gso_err));
		}
		left += sent_left;
		i += n;
	}
	p->st.send_errors += left;
	for (i = 0; i < b->n; i++)
		if (b->pkt[i])
			mpt_pkt_put(pool, b->pkt[i]);
	b->n = 0;
	b->off = 0;
}
