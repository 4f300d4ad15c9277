/* SPDX-License-Identifier: MIT */
/*
 * Address validation before a path's endpoint moves (RFC 9000 sections 8.2 and 9,
 * mptund-proto(7) "Address validation").
 *
 * An authenticated packet that advances the path's highest packet number from an
 * address other than the path's validated one makes that address the candidate: a
 * fresh 64-bit challenge (from getrandom, drawn by the caller) goes to it in a PROBE,
 * in the timestamp field the peer echoes in its PROBE_ACK. Only a PROBE_ACK carrying
 * that challenge and arriving from the candidate address moves the endpoint. Until
 * then data keeps going to the validated address, and nothing sent to the candidate
 * exceeds three times the bytes received from it (anti-amplification). A packet from a
 * new address that does not advance the highest packet number (an older copy) is
 * refused outright. Pure: no I/O, no clock, randomness passed in.
 */
#ifndef MPTUND_PATHVAL_H
#define MPTUND_PATHVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define MPT_PATHVAL_AMP_FACTOR	3	/* RFC 9000 8.1: at most 3x the bytes received */

struct mpt_pathval {
	struct sockaddr_storage cand;	/* the address being validated */
	socklen_t cand_len;		/* 0: no validation under way */
	uint64_t challenge;		/* the 64 unpredictable bits it must echo */
	uint64_t rx_bytes;		/* authenticated bytes received from cand */
	uint64_t tx_bytes;		/* bytes sent to cand (challenges) */
	uint64_t sent_ns;		/* last challenge sent; 0: none yet */
	uint64_t started_ns;
};

enum mpt_pathval_verdict {
	MPT_PV_IGNORE,		/* nothing to do now (validation under way) */
	MPT_PV_REFUSED,		/* an older packet number: the address is not followed */
	MPT_PV_CHALLENGE,	/* send a challenge to the candidate now, if the budget
				 * allows (mpt_pathval_may_send) */
};

void mpt_pathval_reset(struct mpt_pathval *v);

/*
 * An authenticated packet of bytes bytes from addr, which is not the path's validated
 * address. newest: it advanced the path's highest packet number. fresh: 64 random bits
 * for a new challenge (used only if addr becomes the candidate). retry_ns: how long a
 * challenge stays unanswered before the next packet from the candidate repeats it.
 */
enum mpt_pathval_verdict mpt_pathval_on_packet(struct mpt_pathval *v,
					       const struct sockaddr_storage *addr,
					       socklen_t len, size_t bytes, bool newest,
					       uint64_t fresh, uint64_t retry_ns,
					       uint64_t now);

/* Is addr the address under validation? (The caller draws fresh bits only when not:
 * a getrandom call per new candidate, not per packet.) */
bool mpt_pathval_is_cand(const struct mpt_pathval *v, const struct sockaddr_storage *addr,
			 socklen_t len);

/* May a challenge of bytes bytes go to the candidate (anti-amplification)? */
bool mpt_pathval_may_send(const struct mpt_pathval *v, size_t bytes);
/* A challenge of bytes bytes went to the candidate. */
void mpt_pathval_on_sent(struct mpt_pathval *v, size_t bytes, uint64_t now);

/*
 * A PROBE_ACK echoing token arrived from addr. True when it answers the challenge from
 * the candidate address: the caller moves the path's endpoint to v->cand, then resets.
 */
bool mpt_pathval_on_response(const struct mpt_pathval *v,
			     const struct sockaddr_storage *addr, socklen_t len,
			     uint64_t token);

#endif
