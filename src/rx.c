// SPDX-License-Identifier: MIT
/*
 * Datagram reception: a batch from a UDP socket (recvmmsg straight into pool
 * buffers, placed so that a DATA frame's inner packet lands where a TUN write wants
 * it), then for each datagram: classify, hand handshakes to handshake.c, find the
 * keypair of a transport packet by its receiver index, check the replay window,
 * open, record, and pass the frames to the session. Every drop is counted by reason;
 * nothing is allocated for a packet before it authenticated.
 */
#include <errno.h>
#include <string.h>
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
	unsigned idx = index & 0xffff;
	struct mpt_session *s;

	if (idx >= d->nsessions)
		return NULL;
	s = &d->sessions[idx];
	*ks = mpt_session_keyslot(s, index);
	return *ks ? s : NULL;
}

static void rx_transport(struct mpt_daemon *d, struct mpt_pkt *p, uint8_t *buf, size_t len,
			 const struct sockaddr_storage *from, socklen_t fromlen,
			 uint64_t now)
{
	struct mpt_keyslot *ks;
	struct mpt_session *s;
	struct mpt_hdr h;
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
	if (!mpt_replay_check(&ks->replay[h.path_id], h.pn)) {
		s->st.drops[MPT_WIRE_REPLAY]++;
		goto put;
	}
	n = mpt_aead_open_packet(&ks->rx, buf, len);
	if (n < 0) {
		s->st.drops[MPT_WIRE_DECRYPT]++;
		goto put;
	}
	if (mpt_replay_update(&ks->replay[h.path_id], h.pn) < 0) {
		s->st.drops[MPT_WIRE_REPLAY]++;
		goto put;
	}
	ks = mpt_session_confirm(s, ks, now);
	/* the session takes the buffer (a DATA frame keeps it) */
	mpt_session_receive(s, ks, &h, p, buf + MPT_WIRE_HDR_LEN, (size_t)n, from, fromlen,
			    now);
	return;
put:
	mpt_pkt_put(&d->pool, p);
}

void mpt_rx_datagram(struct mpt_daemon *d, struct mpt_pkt *p, uint8_t *buf, size_t len,
		     int fd, const struct sockaddr_storage *from, socklen_t fromlen,
		     int path_hint, uint64_t now)
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
		rx_transport(d, p, buf, len, from, fromlen, now);
		return;
	}
	mpt_hs_on_datagram(d, type, buf, len, fd, from, fromlen, path_hint, now);
	mpt_pkt_put(&d->pool, p);
}

void mpt_rx_socket(struct mpt_daemon *d, int fd, int path_hint)
{
	struct mmsghdr msgs[MPT_RX_BATCH];
	struct iovec iov[MPT_RX_BATCH];
	struct sockaddr_storage from[MPT_RX_BATCH];
	struct mpt_pkt *pk[MPT_RX_BATCH];
	int rounds = 8, n, i, k;

	while (rounds-- > 0) {
		uint64_t now;

		for (k = 0; k < MPT_RX_BATCH; k++) {
			pk[k] = mpt_pkt_alloc(&d->pool);
			if (!pk[k])
				break;
			iov[k].iov_base = rx_base(pk[k]);
			iov[k].iov_len = rx_cap(d);
			memset(&msgs[k].msg_hdr, 0, sizeof(msgs[k].msg_hdr));
			msgs[k].msg_hdr.msg_name = &from[k];
			msgs[k].msg_hdr.msg_namelen = sizeof(from[k]);
			msgs[k].msg_hdr.msg_iov = &iov[k];
			msgs[k].msg_hdr.msg_iovlen = 1;
		}
		if (k == 0) {
			d->st.pool_exhausted++;
			return;
		}
		n = recvmmsg(fd, msgs, (unsigned)k, MSG_DONTWAIT, NULL);
		now = mpt_now_ns();
		for (i = n < 0 ? 0 : n; i < k; i++)
			mpt_pkt_put(&d->pool, pk[i]);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR &&
			    log_ratelimit_ok(&d->rl, now))
				log_warn("recvmmsg");
			break;
		}
		for (i = 0; i < n; i++) {
			if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				d->st.truncated++;
				mpt_pkt_put(&d->pool, pk[i]);
				continue;
			}
			mpt_rx_datagram(d, pk[i], rx_base(pk[i]), msgs[i].msg_len, fd,
					&from[i], msgs[i].msg_hdr.msg_namelen, path_hint, now);
		}
		mpt_daemon_flush_dirty(d, now);
		if (n < k)
			break;
	}
}
