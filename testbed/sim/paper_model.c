// SPDX-License-Identifier: MIT
/*
 * The agent model of the axiomatic path-selection paper (Baumeister and Keshvadi, sec.
 * 3.1), as its public simulator (Keshvadi/path-aware-network-simulator) runs it. Our
 * own code; the model's rules:
 *
 *   start:    each agent on a uniformly random path, cwnd ~ U[1, 5] (1 cwnd = 1 Mbit/s)
 *   each step t (10 ms):
 *     load_p  = sum of the cwnd of the agents on p
 *     p congested iff load_p > C_p; loss_p = max(0, load_p - C_p)
 *     every agent: cwnd = congested ? cwnd / 2 : cwnd + 1, at least 1  (unit AIMD)
 *                  then picks its next path by the strategy; a switch resets cwnd to 2
 *     offered = sum of cwnd after that (the reported "Efficiency")
 *
 * Strategies (sec. 3.2), each on the static view the authors' agents have:
 *   minrtt   lowest base RTT (not a measured one: every agent picks the same path)
 *   minload  the path of lowest load_p of this step (absolute Mbit/s, the same
 *            snapshot for every agent: the "oracle" herds as well)
 *   attr     minrtt over the paths without the high-cost attribute
 *   rr       the agent's own counter over the paths in order
 *   wrr      stays weight_p steps on path p, then the next (weights = capacities)
 *   egreedy  with probability epsilon a uniformly random path, else minrtt
 *   blest    the paths within 1.5 x the best base RTT, the least loaded of them
 *
 * The authors keep the rr and wrr counters in module-level tables keyed by agent id
 * that outlive a run, and run the agent counts in order (10, 25, 50, ...) in one
 * process: agents 0..9 of the 25-agent run start where the 10-agent run left them.
 * For wrr (period 50 + 100 + 80 = 230 steps, runs of 300) that de-synchronises the
 * agents, which is where the paper's wrr rows beyond 10 agents come from; rr is not
 * affected (300 steps = 100 periods of 3). "carry = yes" reproduces it.
 */
#include <stdlib.h>
#include <string.h>

#include <mptund/rng.h>

#include "sim.h"

enum strat { S_MINRTT, S_MINLOAD, S_ATTR, S_RR, S_WRR, S_EGREEDY, S_BLEST };

struct agent {
	double cwnd;
	uint8_t path;
	uint32_t rr, wrr_count;		/* rr: next index; wrr: steps on the path */
};

struct paper {
	const struct sim_scenario *sc;
	enum strat strat;
	struct mpt_rng rng;
	unsigned n, k;
	struct agent *a;
	double load[MPT_MAX_PATHS];
};

static int strat_of(const char *name, enum strat *s)
{
	static const char *const names[] = { "minrtt", "minload", "attr", "rr", "wrr",
					     "egreedy", "blest" };

	for (unsigned i = 0; i < MPT_ARRAY_SIZE(names); i++) {
		if (strcmp(names[i], name) == 0) {
			*s = (enum strat)i;
			return 0;
		}
	}
	fprintf(stderr, "mptund-sim: paper model: no strategy '%s'\n", name);
	return -1;
}

/* Lowest base RTT among the paths in mask (first on ties, as Python's min()). */
static unsigned min_rtt_in(const struct paper *m, uint32_t mask)
{
	int best = -1;

	for (unsigned p = 0; p < m->k; p++)
		if ((mask >> p & 1) && (best < 0 ||
		    m->sc->paths[p].rtt_ms < m->sc->paths[best].rtt_ms))
			best = (int)p;
	return best < 0 ? 0 : (unsigned)best;
}

/* Lowest load of this step among the paths in mask (first on ties). */
static unsigned min_load_in(const struct paper *m, uint32_t mask)
{
	int best = -1;

	for (unsigned p = 0; p < m->k; p++)
		if ((mask >> p & 1) && (best < 0 || m->load[p] < m->load[best]))
			best = (int)p;
	return best < 0 ? 0 : (unsigned)best;
}

static double wrr_weight(const struct sim_pathspec *p)
{
	return p->weight > 0 ? p->weight : p->capacity_mbit;
}

static unsigned choose(struct paper *m, struct agent *a)
{
	uint32_t all = (1u << m->k) - 1, mask = 0;
	unsigned p;

	switch (m->strat) {
	case S_MINRTT:
		return min_rtt_in(m, all);
	case S_MINLOAD:
		return min_load_in(m, all);
	case S_ATTR:
		for (p = 0; p < m->k; p++)
			if (!m->sc->paths[p].high_cost)
				mask |= 1u << p;
		return mask ? min_rtt_in(m, mask) : mpt_rng_below(&m->rng, m->k);
	case S_RR:
		return a->rr++ % m->k;
	case S_WRR:	/* the authors' counter: weight steps per path, in order */
		if (a->wrr_count < wrr_weight(&m->sc->paths[a->rr])) {
			a->wrr_count++;
			return a->rr;
		}
		a->rr = (a->rr + 1) % m->k;
		a->wrr_count = 1;
		return a->rr;
	case S_EGREEDY:
		if (mpt_rng_double(&m->rng) < m->sc->epsilon)
			return mpt_rng_below(&m->rng, m->k);
		return min_rtt_in(m, all);
	case S_BLEST:
		p = min_rtt_in(m, all);
		for (unsigned q = 0; q < m->k; q++)
			if (m->sc->paths[q].rtt_ms <= 1.5 * m->sc->paths[p].rtt_ms)
				mask |= 1u << q;
		return min_load_in(m, mask);
	}
	return 0;
}

static void paper_step(struct paper *m, struct sim_metrics *met)
{
	double loss[MPT_MAX_PATHS], offered = 0, good = 0;
	bool congested[MPT_MAX_PATHS];

	memset(m->load, 0, sizeof(m->load));
	for (unsigned i = 0; i < m->n; i++)
		m->load[m->a[i].path] += m->a[i].cwnd;
	for (unsigned p = 0; p < m->k; p++) {
		double c = m->sc->paths[p].capacity_mbit;

		congested[p] = m->load[p] > c;
		loss[p] = congested[p] ? m->load[p] - c : 0;
		good += congested[p] ? c : m->load[p];
	}
	for (unsigned i = 0; i < m->n; i++) {
		struct agent *a = &m->a[i];
		unsigned next;

		a->cwnd = congested[a->path] ? a->cwnd / 2 : a->cwnd + 1;
		if (a->cwnd < 1)
			a->cwnd = 1;
		next = choose(m, a);
		if (next != a->path)
			a->cwnd = 2;	/* a switch restarts the window */
		a->path = (uint8_t)next;
		offered += a->cwnd;
	}
	sim_metrics_step(met, m->load, loss, offered, good);
}

int sim_paper_run(const struct sim_scenario *sc, const char *strategy, unsigned agents,
		  struct sim_metrics *met, struct sim_carry *carry)
{
	struct paper m = { .sc = sc, .n = agents, .k = sc->npaths };
	double *cw;

	if (strat_of(strategy, &m.strat) < 0)
		return -1;
	m.a = calloc(agents, sizeof(*m.a));
	cw = calloc(agents, sizeof(*cw));
	if (!m.a || !cw) {
		free(m.a);
		free(cw);
		return -1;
	}
	mpt_rng_seed(&m.rng, sc->seed * 1000003 + agents);
	for (unsigned i = 0; i < agents; i++) {
		m.a[i].path = (uint8_t)mpt_rng_below(&m.rng, m.k);
		m.a[i].cwnd = 1 + 4 * mpt_rng_double(&m.rng);
		if (carry && i < carry->n) {
			m.a[i].rr = carry->rr[i];
			m.a[i].wrr_count = carry->wrr_count[i];
		}
	}
	for (unsigned t = 0; t < sc->steps; t++)
		paper_step(&m, met);
	for (unsigned i = 0; carry && i < agents; i++) {
		carry->rr[i] = m.a[i].rr;
		carry->wrr_count[i] = m.a[i].wrr_count;
	}
	if (carry && agents > carry->n)
		carry->n = agents;
	for (unsigned i = 0; i < agents; i++)
		cw[i] = m.a[i].cwnd;
	met->agent_fairness = sim_jain(cw, agents);
	free(cw);
	free(m.a);
	return 0;
}
