// SPDX-License-Identifier: MIT
/*
 * Datagram reception: a batch from a UDP socket (recvmmsg into 64 KiB buffers, so
 * that a UDP GRO message holding a run of datagrams fits; each datagram is then
 * copied into a pool buffer, placed so that a DATA frame's inner packet lands where
 * a TUN write wants it), then for each datagram: classify, hand handshakes to handshake.c, find the
 * keypair of a transport packet by its receiver index, check the replay window,
 * open, record, and pass the frames to the session. Every drop is counted by reason;
 * nothing is allocated for a packet before it authenticated.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#include "daemon.h"
#include "log.h"
#include "session.h"
#include "sys.h"

/* Where a received datagram starts in a pool buffer. */
static uint8_t *rx_base(struct mpt_pkt *p)
{
	return p->buf + MPT_PKT_HEADROOM - MPT_WIRE_DATA_PREFIX;
}

static size_t rx_cap(const struct mpt_daemon *d)
{
	return MPT_WIRE_DATA_PREFIX + mpt_pkt_room(&d->pool);
}

static void drop(struct mpt_daemon *d, int reason, uint64_t now)
{
	d->st.drops[reason]++;
	if (log_ratelimit_ok(&d->rl, now))
		log_debug("dropped a datagram: %s", mpt_wire_strerror(reason));
}

static struct mpt_session *session_by_index(struct mpt_daemon *d, uint32_t index,
					    struct mpt_keyslot **ks)
{
	struct mpt_session *s = mpt_daemon_session_by_index(d, index);

	if (!s)
		return NULL;
	*ks = mpt_session_keyslot(s, index);
	return *ks ? s : NULL;
}

static void rx_transport(struct mpt_daemon *d, struct mpt_pkt *p, uint8_t *buf, size_t len,
			 const struct sockaddr_storage *from, socklen_t fromlen,
			 const struct mpt_local *local, uint64_t now)
{
	struct mpt_keyslot *ks;
	struct mpt_session *s;
	struct mpt_hdr h;
	bool newest;
	int reason, n;

	if (mpt_hdr_decode(buf, len, &h, &reason) < 0) {
		drop(d, reason, now);
		goto put;
	}
	s = session_by_index(d, h.receiver, &ks);
	if (!s) {
		drop(d, MPT_WIRE_UNKNOWN_INDEX, now);
		goto put;
	}
	if (d->cfg.role == MPT_ROLE_UE && h.path_id >= s->npaths) {
		/* the UE's paths are its configured ones: an id beyond them would make
		 * a path without a congestion controller */
		s->st.drops[MPT_WIRE_BAD_PATH_ID]++;
		goto put;
	}
	if (!mpt_replay_check(&ks->replay[h.path_id], h.pn)) {
		s->st.drops[MPT_WIRE_REPLAY]++;
		goto put;
	}
	n = mpt_keyslot_open(ks, buf, len, now);
	if (n == -EKEYEXPIRED) {
		s->st.keys_expired++;		/* the keyslot is wiped now */
		s->st.drops[MPT_WIRE_KEY_EXPIRED]++;
		goto put;
	}
	if (n < 0) {
		s->st.drops[MPT_WIRE_DECRYPT]++;
		goto put;
	}
	newest = h.pn >= ks->replay[h.path_id].next;	/* next: highest + 1 */
	if (mpt_replay_update(&ks->replay[h.path_id], h.pn) < 0) {
		s->st.drops[MPT_WIRE_REPLAY]++;
		goto put;
	}
	ks = mpt_session_confirm(s, ks, now);
	/* the session takes the buffer (a DATA frame keeps it) */
	mpt_session_receive(s, ks, &h, p, buf + MPT_WIRE_HDR_LEN, (size_t)n, from, fromlen,
			    local, newest, now);
	return;
put:
	mpt_pkt_put(&d->pool, p);
}

void mpt_rx_datagram(struct mpt_daemon *d, struct mpt_pkt *p, uint8_t *buf, size_t len,
		     int fd, const struct sockaddr_storage *from, socklen_t fromlen,
		     const struct mpt_local *local, int path_hint, uint64_t now)
{
	int reason, type;

	d->st.rx_datagrams++;
	type = mpt_wire_classify(buf, len, &reason);
	if (type < 0) {
		drop(d, reason, now);
		mpt_pkt_put(&d->pool, p);
		return;
	}
	if (type == MPT_MSG_TRANSPORT) {
		rx_transport(d, p, buf, len, from, fromlen, local, now);
		return;
	}
	mpt_hs_on_datagram(d, type, buf, len, fd, from, fromlen, local, path_hint, now);
	mpt_pkt_put(&d->pool, p);
}

/* The UDP GRO segment size of a received message, or 0 when it is one datagram. */
static size_t gro_size(struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			int v;

			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v > 0 ? (size_t)v : 0;
		}
	}
	return 0;
}

/* One received message: a datagram, or with UDP GRO several of gso bytes each (the
 * last may be shorter), each copied into a pool buffer and handled in order. */
static void rx_message(struct mpt_daemon *d, const uint8_t *buf, size_t len, size_t gso,
		       int fd, const struct sockaddr_storage *from, socklen_t fromlen,
		       const struct mpt_local *local, int path_hint, uint64_t now)
{
	if (!gso || gso > len)
		gso = len;
	for (size_t off = 0; off < len; off += gso) {
		size_t n = MPT_MIN(gso, len - off);
		struct mpt_pkt *p;

		if (n > rx_cap(d)) {
			d->st.truncated++;
			continue;
		}
		p = mpt_pkt_alloc(&d->pool);
		if (!p) {
			d->st.pool_exhausted++;
			return;
		}
		memcpy(rx_base(p), buf + off, n);
		mpt_rx_datagram(d, p, rx_base(p), n, fd, from, fromlen, local, path_hint, now);
	}
}

/* The socket's error queue (IP_RECVERR, path.c): ICMP fragmentation needed / packet
 * too big, and local EMSGSIZE, for datagrams we sent; each names the destination, so
 * the path, and the MTU the router or the stack reported. Other errors are dropped. */
static void rx_errqueue(struct mpt_daemon *d, int fd, int path_hint)
{
	for (int k = 0; k < 64; k++) {
		char ctl[256];
		uint8_t data[64];
		struct sockaddr_storage to;
		struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
		struct msghdr mh = {
			.msg_name = &to,
			.msg_namelen = sizeof(to),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctl,
			.msg_controllen = sizeof(ctl),
		};

		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct sock_extended_err ee;

			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)) ||
			    cm->cmsg_len < CMSG_LEN(sizeof(ee)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			d->st.icmp_errors++;
			if (ee.ee_errno == EMSGSIZE && ee.ee_info)
				mpt_daemon_on_ptb(d, fd, path_hint, &to, mh.msg_namelen,
						  ee.ee_info, mpt_now_ns());
		}
	}
}

/*
 * A busy socket: every wake-up finds datagrams, so the wake-up with nothing to read
 * that drains the error queue may not come for as long as a flow runs, while an ICMP
 * too-big waits there and the path's search takes the fall as a black hole first
 * (and then ignores the too-big as news of the size it already went down to). Read
 * the error queue after datagrams too, at most once a millisecond per socket: a
 * failed recvmsg per millisecond, not per batch.
 */
static void rx_errqueue_due(struct mpt_daemon *d, int fd, int path_hint, uint64_t now)
{
	uint64_t *last = &d->rx.errq_ns[path_hint + 1];

	if (now - *last < MPT_NSEC_PER_MSEC)
		return;
	*last = now;
	rx_errqueue(d, fd, path_hint);
}

void mpt_rx_socket(struct mpt_daemon *d, int fd, int path_hint)
{
	struct mmsghdr msgs[MPT_RX_BATCH];
	struct iovec iov[MPT_RX_BATCH];
	struct sockaddr_storage from[MPT_RX_BATCH];
	uint8_t *ctl = d->rx.ctl;
	int rounds = 8, n, i;
	uint64_t got_ns = 0;		/* when the last datagrams were read; 0: none */

	while (rounds-- > 0) {
		uint64_t now;

		for (i = 0; i < MPT_RX_BATCH; i++) {
			iov[i].iov_base = d->rx.buf + (size_t)i * MPT_RX_BUF;
			iov[i].iov_len = MPT_RX_BUF;
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = ctl + (size_t)i * MPT_RX_CTL;
			msgs[i].msg_hdr.msg_controllen = MPT_RX_CTL;
		}
		n = recvmmsg(fd, msgs, MPT_RX_BATCH, MSG_DONTWAIT, NULL);
		now = mpt_now_ns();
		if (n <= 0) {
			int err = n < 0 ? errno : 0;

			/* a pending socket error (RECVERR), or a wake-up with nothing to
			 * read: the error queue holds ICMP errors (a send may have taken
			 * the pending error first, udp.h), read it */
			if (err != EINTR && (err != EAGAIN || !got_ns))
				rx_errqueue(d, fd, path_hint);
			if (err == EMSGSIZE || err == EHOSTUNREACH || err == ECONNREFUSED ||
			    err == ENETUNREACH)
				continue;
			if (err && err != EAGAIN && err != EINTR &&
			    log_ratelimit_ok(&d->rl, now))
				log_warnx("recvmmsg: %s", strerror(err));
			break;
		}
		got_ns = now;
		/* transport packets first, and what they make sent, then the batch's
		 * handshake messages: under a flood of inits the tunnel's packets
		 * never wait behind their work */
		for (int pass = 0; pass < 2; pass++) {
			for (i = 0; i < n; i++) {
				const uint8_t *b = iov[i].iov_base;
				bool hs = msgs[i].msg_len > 0 && b[0] != MPT_MSG_TRANSPORT;
				struct mpt_local local;

				if (hs != (pass == 1))
					continue;
				if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
					d->st.truncated++;
					continue;
				}
				/* the anchor's listen socket: where it arrived
				 * (udp_local.h); a UE's path socket: unknown */
				mpt_local_from_msg(&msgs[i].msg_hdr, &local);
				rx_message(d, iov[i].iov_base, msgs[i].msg_len,
					   gro_size(&msgs[i].msg_hdr), fd, &from[i],
					   msgs[i].msg_hdr.msg_namelen, &local, path_hint,
					   now);
			}
			mpt_daemon_flush_dirty(d, now);
		}
		if (n < MPT_RX_BATCH)
			break;
	}
	if (got_ns)	/* the clock read of the last batch serves */
		rx_errqueue_due(d, fd, path_hint, got_ns);
}
