/* SPDX-License-Identifier: MIT */
/*
 * Datagram packetization-layer path MTU discovery for one path (RFC 8899, DPLPMTUD),
 * as a pure state machine: the session sends what it asks for and reports what comes
 * back. Every size here is an outer IP packet size (what "MTU" names on a link); the
 * path turns it into a UDP payload by subtracting its IP and UDP headers.
 *
 *   BASE        the path (re)started: PLPMTU = base, nothing confirmed above it
 *   SEARCHING   rounds of padded probes (a PROBE frame and PADDING, acknowledged by the
 *               peer's PROBE_ACK) look for the largest size between the confirmed
 *               PLPMTU and the smallest size known to fail: a round probes the maximum
 *               (most links carry it: done in one round trip) and sizes spread evenly
 *               over the open range, MPT_PMTU_COPIES datagrams each; the round ends
 *               when every probe is answered or after one probe timeout, and the
 *               range shrinks about (MPT_PMTU_ROUND + 1) times per round
 *   COMPLETE    PLPMTU confirmed; searched again after MPT_PMTU_RAISE_NS
 *   PINNED      [Path] Mtu set: no search, PLPMTU fixed
 *
 * A probe is lost after one probe timeout without its PROBE_ACK (the peer answers a
 * PROBE at once, so an RTT and its variation, not RFC 8899's 15 s PROBE_TIMER, which
 * is sized for protocols whose probes wait for a delayed ACK: section 5.1.1 lets it be
 * derived from the PL's RTT estimate). The caller's timeout (from the path's data
 * RTT, or 500 ms before it has one) is an upper bound: the probes time themselves, a
 * round ending MPT_PMTU_PROBE_RTTS times its first answer's delay after it began
 * (the next rounds of the search start from that delay). So that every round has an
 * answer even where every size it searches fails (an IPv6 path at 1280), it also
 * carries one probe at the confirmed PLPMTU, which decides nothing. A data RTT sample can be
 * far off when a path comes up: a packet sent before the path was up, answered after,
 * gave 0.6 s srtt and 0.6 s rttvar on a 0.3 ms path, a 3.3 s probe timeout, and the
 * search took 3.3 s (test_pmtu6). Each size goes out
 * twice in its round, at its start and, if unanswered, half a timeout later, so that
 * neither one random loss nor one burst of a full queue fails it (RFC 8899's
 * MAX_PROBES, 3 there, one timeout apart: the search must end within 2 s of a path
 * coming up). Probes are not congestion controlled and their
 * loss is not congestion (RFC 8899 section 4.4); a round is at most a dozen
 * datagrams.
 *
 * What the scheduler may send (mpt_plpmtud_cap) is optimistic while a search runs:
 * everything below the smallest failed size, so that the first round trips of a path
 * carry full-size packets where the path takes them; a packet lost for its size is
 * repaired elsewhere, and the search or the black-hole detector soon lowers the cap.
 *
 * Black holes (section 4.3): a full-size data packet lost MPT_PMTU_BH_LOSSES times in a
 * row, with no later-sent full-size packet delivered, asks for a confirmation round: a
 * probe of the lost size and one of the base, each size twice half a probe timeout
 * apart. Only when the lost size goes unanswered and the base is answered has the
 * path MTU fallen (route change, handover): PLPMTU drops to the base at once, the
 * failing size becomes the upper bound and the search restarts. The losses alone
 * are no proof: a full bottleneck queue drops large packets and lets small ones by
 * (test_pmtu's greedy TCP made the anchor take a black hole on its 1500-byte path).
 *
 * ICMP Packet Too Big / Fragmentation Needed (IP_RECVERR) is a hint only (section
 * 4.6.1): the kernel matched it to our socket and the quoted packet's ports; a size
 * below the base or not below the current cap is ignored; otherwise the cap drops to
 * it at once and a probe of that size confirms it before it is the PLPMTU.
 */
#ifndef MPTUND_PLPMTUD_H
#define MPTUND_PLPMTUD_H

#include <stdbool.h>
#include <stdint.h>

#define MPT_PMTU_BASE_V4	1200	/* RFC 8899 section 5.1.2, IPv4 */
#define MPT_PMTU_BASE_V6	1280	/* RFC 8899 section 5.1.2 / RFC 8200 minimum */
#define MPT_PMTU_ROUND		5	/* sizes searched per round, the maximum included */
#define MPT_PMTU_ROUND_MAX	(MPT_PMTU_ROUND + 1)	/* and one at the confirmed PLPMTU,
					 * which times the round (see above) */
#define MPT_PMTU_RAISE_NS	(60ULL * 1000000000ULL)	/* RFC 8899: 600 s; access links
					 * change MTU on handover, and a raise costs one
					 * probe a minute per path */
#define MPT_PMTU_RAISE_FAST_NS	(5ULL * 1000000000ULL)	/* the first raise after a
					 * black hole: a path MTU that fell on a handover often
					 * comes back with the next; doubled per raise that finds
					 * nothing, up to MPT_PMTU_RAISE_NS */
#define MPT_PMTU_BH_LOSSES	3	/* full-size losses in a row for a black hole */
#define MPT_PMTU_PROBE_RTTS	5	/* a round's probe timer: this many times its first
					 * answer's delay (RFC 8899 5.1.1: the PROBE_TIMER "can
					 * be derived from the PL RTT estimate"); a round's
					 * first copies leave back to back, so 5 covers the
					 * serialisation of the round's other sizes */
#define MPT_PMTU_PROBE_MIN_NS	(20ULL * 1000000ULL)	/* the probe timer's floor */
#define MPT_PMTU_PROBE_FLAG	0x80000000u	/* PROBE id: an MTU probe, size in 30..16 */

enum mpt_pmtu_state {
	MPT_PMTU_BASE,
	MPT_PMTU_SEARCHING,
	MPT_PMTU_COMPLETE,
	MPT_PMTU_PINNED,
};

struct mpt_plpmtud {
	uint16_t base, max;		/* search range (max: OuterMTU or the interface) */
	uint16_t plpmtu;		/* confirmed */
	uint16_t fail;			/* smallest size known to fail; max + 1 if none */
	uint16_t hint;			/* a PTB's size awaiting confirmation, 0 none */
	uint16_t round[MPT_PMTU_ROUND_MAX];	/* sizes probed in the current round */
	uint8_t nround;			/* 0: no round under way */
	uint8_t round_acked;		/* bit per size answered */
	uint8_t round_acks;		/* PROBE_ACKs received in the round */
	uint8_t round_sent;		/* probes sent in the round */
	bool resent;			/* the round's second copies went */
	bool resending;			/* due() returned the second copies */
	bool round_timed;		/* the round's first answer timed it */
	uint16_t round_seq;		/* probe id seq of the round's first probe */
	uint64_t round_start_ns;	/* when the round's first copies left */
	uint64_t probe_rtt_ns;		/* the last round's first answer after, 0 none yet
					 * in this search */
	uint64_t resend_at_ns;
	uint8_t state;			/* enum mpt_pmtu_state */
	bool optimistic;		/* first search, nothing failed yet: cap = fail - 1 */
	uint16_t seq;			/* low bits of probe ids */
	uint64_t probe_deadline_ns;
	uint64_t raise_at_ns;
	uint64_t raise_ns;		/* the current raise interval */
	uint16_t raise_from;		/* PLPMTU when a raise search began, 0 none */

	/* black-hole detector */
	uint32_t big_lost;		/* full-size data losses in a row */
	uint64_t big_ok_sent_ns;	/* send time of the latest full-size packet delivered */
	bool confirming;		/* a confirmation round is due or under way */
	uint16_t confirm_size;		/* the lost size it probes, beside the base */

	/* counters */
	uint64_t probes_sent, probes_acked, probes_lost;
	uint64_t black_holes, ptb_hints, ptb_ignored, searches;
	uint64_t bh_unconfirmed;	/* confirmation rounds that found no black hole */
};

/* pinned: a fixed MTU ([Path] Mtu), no search. */
void mpt_plpmtud_init(struct mpt_plpmtud *m, uint16_t base, uint16_t max, uint16_t pinned);
/* The path came up (or its peer restarted): search from the base. */
void mpt_plpmtud_start(struct mpt_plpmtud *m, uint64_t now);
/* The largest outer packet the path may carry now (see above). */
uint16_t mpt_plpmtud_cap(const struct mpt_plpmtud *m);

/*
 * Timer work at now: a round past its deadline ends (unanswered sizes fail); returns
 * how many sizes to probe now (0: none: a new round, or a round's unanswered sizes
 * again half way) and puts them in sizes[]. The caller sends one probe of each with
 * mpt_plpmtud_probe_id() and then reports mpt_plpmtud_on_sent() with the number sent
 * and the probe timeout.
 */
unsigned mpt_plpmtud_due(struct mpt_plpmtud *m, uint64_t now,
			 uint16_t sizes[MPT_PMTU_ROUND_MAX]);
uint32_t mpt_plpmtud_probe_id(struct mpt_plpmtud *m, uint16_t size);
void mpt_plpmtud_on_sent(struct mpt_plpmtud *m, unsigned datagrams, uint64_t timeout_ns,
			 uint64_t now);
/* The local stack refused a probe of size (EMSGSIZE: above the interface MTU). */
void mpt_plpmtud_on_send_too_big(struct mpt_plpmtud *m, uint16_t size, uint64_t now);
/* When the timer must run next for this path (0: nothing pending). */
uint64_t mpt_plpmtud_deadline(const struct mpt_plpmtud *m);

/* A PROBE_ACK: id is an MTU probe's id (true returned) or a liveness probe's. */
bool mpt_plpmtud_on_probe_ack(struct mpt_plpmtud *m, uint32_t id, uint64_t now);
/* A data packet of size bytes (outer), sent at sent_ns, delivered or declared lost. A
 * loss counts only when no later-sent full-size packet was delivered (congestion drops
 * a few, a black hole all). Returns true when the losses ask for a confirmation round
 * (due at once); its verdict comes from mpt_plpmtud_due() (black_holes counts it). */
bool mpt_plpmtud_on_data(struct mpt_plpmtud *m, uint16_t size, uint64_t sent_ns, bool lost,
			 uint64_t now);
/* ICMP PTB / frag needed reporting mtu (validated by the kernel's socket match).
 * Returns true when taken as a new hint (the caller logs it). */
bool mpt_plpmtud_on_ptb(struct mpt_plpmtud *m, uint32_t mtu, uint64_t now);

const char *mpt_plpmtud_state_name(const struct mpt_plpmtud *m);

#endif
