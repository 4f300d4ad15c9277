// SPDX-License-Identifier: MIT
/*
 * The carrier of a path's ACKs: see ackroute.h for the rule.
 */
#include "ackroute.h"

static uint64_t margin(uint64_t best)
{
	return best / 4 > MPT_ACKROUTE_MARGIN_NS ? best / 4 : MPT_ACKROUTE_MARGIN_NS;
}

/* Candidate: usable, and not full unless every usable path is. */
static bool candidate(const struct mpt_ackroute_in *v, bool any_free)
{
	return v->usable && (!any_free || !v->full);
}

unsigned mpt_ackroute_pick(const struct mpt_ackroute_in *in, unsigned n, unsigned own,
			   int cur)
{
	bool any_free = false;
	int best = -1;

	for (unsigned i = 0; i < n; i++)
		any_free |= in[i].usable && !in[i].full;
	for (unsigned i = 0; i < n; i++)
		if (candidate(&in[i], any_free) &&
		    (best < 0 || in[i].owd_ns < in[best].owd_ns))
			best = (int)i;
	if (best < 0)
		return own;		/* nothing usable: it goes home, or nowhere */
	if (cur >= 0 && (unsigned)cur < n && candidate(&in[cur], any_free) &&
	    in[cur].owd_ns <= in[best].owd_ns + margin(in[best].owd_ns))
		best = cur;
	if (own < n && candidate(&in[own], any_free) &&
	    in[own].owd_ns <= in[best].owd_ns + margin(in[best].owd_ns))
		best = (int)own;
	return (unsigned)best;
}

uint64_t mpt_ackroute_owd(uint64_t min_rtt_ns, uint64_t in_flight, uint64_t rate,
			  uint32_t len)
{
	uint64_t owd = min_rtt_ns / 2, bdp;

	if (!rate)
		return owd;
	bdp = (uint64_t)((unsigned __int128)rate * min_rtt_ns / 1000000000ULL);
	if (in_flight > bdp)
		owd += (uint64_t)((unsigned __int128)(in_flight - bdp) * 1000000000ULL / rate);
	return owd + (uint64_t)len * 1000000000ULL / rate;
}
