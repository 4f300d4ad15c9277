/* SPDX-License-Identifier: MIT */
/*
 * Inner TCP retransmissions seen from the tunnel, a congestion signal of the flow
 * (TCPPathChanger, tcppathchanger-exp3.txt section 2.2: the retransmission timer's
 * expiry and CWR are the signals that make a flow change path; the tunnel does not
 * see the sender's timer, it sees the segment the timer sends again). Per session, a
 * small direct-mapped table of flows (by the inner flow hash) keeps the next sequence
 * number each flow has sent; a segment that lies wholly below it is old data sent
 * again. A flow that loses its slot to another starts afresh (no signal), so a
 * collision costs a missed signal, never a false one. Pure.
 */
#ifndef MPTUND_TCPSEQ_H
#define MPTUND_TCPSEQ_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_TCPSEQ_SLOTS	64

struct mpt_tcpseq_slot {
	uint32_t hash;			/* the flow (0: free) */
	uint32_t next;			/* one past the highest sequence number sent */
};

struct mpt_tcpseq {
	struct mpt_tcpseq_slot slot[MPT_TCPSEQ_SLOTS];
	uint64_t retrans;		/* segments found sent again */
};

/*
 * A TCP segment of flow hash (non-zero) using len sequence numbers from seq (data,
 * SYN and FIN; 0 for a bare ACK, which is never a retransmission). Returns true when
 * it is a retransmission: every number it uses was sent before (serial arithmetic,
 * RFC 1982, so the sequence space may wrap).
 */
bool mpt_tcpseq_note(struct mpt_tcpseq *t, uint32_t hash, uint32_t seq, uint32_t len);

#endif
