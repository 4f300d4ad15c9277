// SPDX-License-Identifier: MIT
/*
 * The TUN's write side: each in-order inner packet the sessions release. With the
 * TUN's offloads (tun.h) consecutive segments of one TCP flow are coalesced into one
 * super-packet (proto/gro.h), written when a packet does not continue the run or, at
 * the latest, when the event loop is about to wait (mpt_tun_flush from the daemon's
 * prepare watcher): one write per run instead of one per packet, no packet held
 * across a wait.
 */
#include "daemon.h"
#include "gro.h"

static void write_run(struct mpt_daemon *d)
{
	struct mpt_vnet_hdr vh;
	uint32_t nsegs = d->gro.nsegs, len = mpt_gro_finish(&d->gro, &vh);

	if (mpt_tun_write_vnet(&d->tun, &vh, d->gro.buf, len) < 0) {
		d->st.tun_gro_write_errors += nsegs;
	} else if (nsegs > 1) {
		d->st.tun_gro_pkts++;
		d->st.tun_gro_segs += nsegs;
	}
}

void mpt_tun_flush(struct mpt_daemon *d)
{
	if (d->gro.len)
		write_run(d);
}

int mpt_tun_out(struct mpt_daemon *d, const uint8_t *pkt, uint32_t len)
{
	ssize_t n;

	if (d->tun.vnet && d->gro.buf) {
		if (mpt_gro_add(&d->gro, pkt, len))
			return 0;
		mpt_tun_flush(d);
		if (mpt_gro_start(&d->gro, pkt, len))
			return 0;
	}
	n = mpt_tun_write(&d->tun, pkt, len);
	return n < 0 ? (int)n : 0;
}
