// SPDX-License-Identifier: MIT
/*
 * A path's send side on the socket: the batch of sealed datagrams goes out in UDP GSO
 * runs where the kernel and route take them, the rest with sendmmsg; a datagram the
 * local stack refuses as too big is a signal for the path's MTU discovery. On the
 * anchor every send carries the path's source address pin (udp_local.h).
 */
#include <errno.h>
#include <netinet/udp.h>
#include <string.h>

#include "log.h"
#include "path.h"
#include "sys.h"

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
void mpt_path_batch_send(struct mpt_path *p, struct mpt_txbatch *b,
			 struct mpt_pkt_pool *pool, const char *owner)
{
	unsigned i = 0, left = 0;
	size_t ctl_len;

	memset(&b->ctl, 0, sizeof(b->ctl));
	ctl_len = mpt_local_cmsg(&p->local, b->ctl.buf, sizeof(b->ctl.buf));
	for (i = 0; i < b->n; i++) {
		b->msg[i].msg_hdr.msg_control = ctl_len ? b->ctl.buf : NULL;
		b->msg[i].msg_hdr.msg_controllen = ctl_len;
	}
	i = 0;
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
					 "one by one", owner, p->name, strerror(-ret));
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
			mpt_pkt_put(pool, b->pkt[i]);
	b->n = 0;
	b->off = 0;
}
