// SPDX-License-Identifier: MIT
/*
 * The carrier of a path's ACKs: see ackroute.h for the rule.
 */
#include "ackroute.h"

static uint64_t margin(uint64_t best)
{
	return best / 4 > MPT_ACKROUTE_MARGIN_NS ? best / 4 : MPT_ACKROUTE_MARGIN_NS;
}

/* The delay the rule compares: a full path pays MARGIN on top of its estimate. */
static uint64_t cost(const struct mpt_ackroute_in *v)
{
	return v->owd_ns + (v->full ? MPT_ACKROUTE_MARGIN_NS : 0);
}

/* May path i carry own's ACKs? Usable; own itself, or neither a path whose unloaded
 * delay is below floor nor, unless own's return sends at its capacity, a dearer one. */
static bool may_carry(const struct mpt_ackroute_in *in, unsigned own, unsigned i,
		      uint64_t floor)
{
	if (!in[i].usable)
		return false;
	if (i == own)
		return true;
	return in[i].base_ns >= floor &&
	       (in[i].cost <= in[own].cost || in[own].at_capacity);
}

unsigned mpt_ackroute_pick(const struct mpt_ackroute_in *in, unsigned n, unsigned own,
			   int cur)
{
	uint64_t floor = 0;	/* the least unloaded delay a carrier may have */
	int best = -1;

	if (own >= n)
		return own;
	if (in[own].usable && !in[own].full)
		return own;		/* a free return keeps its ACKs (ackroute.h) */
	if (in[own].base_ns > margin(in[own].base_ns))
		floor = in[own].base_ns - margin(in[own].base_ns);
	for (unsigned i = 0; i < n; i++)
		if (may_carry(in, own, i, floor) &&
		    (best < 0 || cost(&in[i]) < cost(&in[best])))
			best = (int)i;
	if (best < 0)
		return own;		/* nothing usable: it goes home, or nowhere */
	if (cur >= 0 && (unsigned)cur < n && may_carry(in, own, (unsigned)cur, floor) &&
	    cost(&in[cur]) <= cost(&in[best]) + margin(cost(&in[best])))
		best = cur;
	if (in[own].usable && cost(&in[own]) <= cost(&in[best]) + margin(cost(&in[best])))
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
