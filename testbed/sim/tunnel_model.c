// SPDX-License-Identifier: MIT
/*
 * The tunnel model: each agent is one mptund session (tests/unit/support/simlink.h)
 * with a greedy source, the daemon's real scheduler (by registry name) and a real
 * congestion controller per path (scenario "cc", default bbr).
 *
 *   agent 1: [sched] --p1--> link 1,1 \
 *   agent 2: [sched] --p1--> link 2,1  }  bottleneck p1: capacity C1, buffer B1
 *   ...                               /
 *
 * Coupling: simlink gives every session its own link per path. Every step the links of
 * one path are re-cut from the shared bottleneck in proportion to what each session
 * offered it in the last step plus what waits in its queue (a FIFO's share of a
 * saturated link is its share of the arrivals), with one packet of floor so that a
 * session starting on a path is not starved:
 *     rate_i,p  = C_p x (a_i,p + mss) / sum_j (a_j,p + mss)
 *     queue_i,p = max(B_p x the same share, 4 packets)
 * Measured per step and path: load = bytes the sessions handed to the path (the
 * paper's offered load), loss = bytes dropped at the bottleneck, goodput = bytes
 * delivered. Agent fairness: Jain's index of the sessions' delivered bytes.
 * Strategy "single": a single-path transport on the first path (TCPPathChanger's
 * baseline, Figure 5a).
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "simlink.h"

#define MSS 1200u

struct tunnel {
	const struct sim_scenario *sc;
	unsigned n, k;
	unsigned kagent;		/* paths of each session (1 for "single") */
	struct sim_session **s;
	struct sim_path_stats *prev;	/* n x k, at the last step */
	double *offer;			/* n x k, bytes in the last step + queued */
};

/* Sent-packet ring per path: 4 x the largest path's BDP plus buffer per agent, at
 * least 1024 packets (simlink's default of 65536 costs 12 MB a session). */
static uint32_t tunnel_ring(const struct sim_scenario *sc, unsigned n)
{
	double most = 0;

	for (unsigned p = 0; p < sc->npaths; p++) {
		const struct sim_pathspec *ps = &sc->paths[p];
		double bdp = ps->capacity_mbit * 1e6 / 8 * ps->rtt_ms / 1e3;

		most = MPT_MAX(most, 4 * bdp * (1 + ps->buffer_bdp) / n / MSS);
	}
	return (uint32_t)MPT_MIN(MPT_MAX(most, 1024.0), 65536.0);
}

static struct sim_session *tunnel_agent(const struct sim_scenario *sc, const char *sched,
					unsigned i, unsigned n)
{
	struct sim_session_cfg cfg = { .npaths = sc->npaths, .sched = sched,
				       .seed = sc->seed * 1000003 + i, .pkt_len = MSS,
				       .nflows = sc->flows };
	struct sim_session *s;
	char eps[32];

	if (!strcmp(sched, "single")) {	/* single-path transport: the first path */
		cfg.npaths = 1;
		cfg.sched = "rr";
	}
	for (unsigned p = 0; p < cfg.npaths; p++) {
		const struct sim_pathspec *ps = &sc->paths[p];
		double rate = ps->capacity_mbit * 1e6 / 8;
		double bdp = rate * ps->rtt_ms / 1e3;

		cfg.paths[p] = (struct sim_path_cfg){
			.name = ps->name, .cc = sc->cc, .mss = MSS, .cost = ps->cost,
			.weight = (uint32_t)(ps->weight > 0 ? ps->weight : ps->capacity_mbit),
			.capacity = (uint64_t)rate,
			.tags = ps->high_cost ? MPT_PATH_TAG_HIGH_COST : 0,
			.link = { .rate = (uint64_t)(rate / n) + 1,
				  .delay_ns = (uint64_t)(ps->rtt_ms * 1e6 / 2),
				  .queue_bytes = (uint64_t)MPT_MAX(ps->buffer_bdp * bdp / n,
								   4.0 * MSS) },
		};
	}
	cfg.ring_pkts = tunnel_ring(sc, n);
	s = sim_session_new(&cfg);
	if (!s)
		return NULL;
	snprintf(eps, sizeof(eps), "%g", sc->epsilon);
	if (mpt_param_find(sim_session_sched_ops(s)->params,
			   sim_session_sched_ops(s)->nparams, "epsilon"))
		sim_session_set_param(s, -1, "epsilon", eps);
	for (unsigned j = 0; j < sc->nparams; j++)
		if (mpt_param_find(sim_session_sched_ops(s)->params,
				   sim_session_sched_ops(s)->nparams, sc->params[j].name) &&
		    sim_session_set_param(s, -1, sc->params[j].name,
					  sc->params[j].value) < 0) {
			sim_session_free(s);
			return NULL;
		}
	return s;
}

/* Re-cut every path's bottleneck among the sessions by their offer (see above). */
static void tunnel_share(struct tunnel *t)
{
	for (unsigned p = 0; p < t->k; p++) {
		const struct sim_pathspec *ps = &t->sc->paths[p];
		double rate = ps->capacity_mbit * 1e6 / 8, tot = 0;
		double buf = ps->buffer_bdp * rate * ps->rtt_ms / 1e3;

		for (unsigned i = 0; i < t->n; i++)
			tot += t->offer[i * t->k + p] + MSS;
		for (unsigned i = 0; i < t->n && p < t->kagent; i++) {
			double share = (t->offer[i * t->k + p] + MSS) / tot;
			struct sim_link_cfg *l = sim_path_link(t->s[i], p);

			l->rate = (uint64_t)(rate * share) + 1;
			l->queue_bytes = (uint64_t)MPT_MAX(buf * share, 4.0 * MSS);
		}
	}
}

/* One step: run every session to t_end, account the step, re-cut the links. */
static void tunnel_step(struct tunnel *t, uint64_t t_end, struct sim_metrics *m)
{
	double load[MPT_MAX_PATHS] = { 0 }, loss[MPT_MAX_PATHS] = { 0 };
	double good = 0, offered = 0, secs = t->sc->step_ms / 1e3;

	for (unsigned i = 0; i < t->n; i++) {
		sim_session_run_until(t->s[i], t_end);
		for (unsigned p = 0; p < t->kagent; p++) {
			const struct sim_path_stats *st = sim_path_stats(t->s[i], p);
			struct sim_path_stats *pv = &t->prev[i * t->k + p];
			double handed = (double)(st->handed_bytes - pv->handed_bytes);

			load[p] += handed;
			loss[p] += (double)(st->queue_drops - pv->queue_drops) * MSS;
			good += (double)(st->delivered_bytes - pv->delivered_bytes);
			t->offer[i * t->k + p] = handed +
						 (double)sim_path_queue_bytes(t->s[i], p);
			*pv = *st;
		}
	}
	for (unsigned p = 0; p < t->k; p++) {
		load[p] = load[p] * 8 / 1e6 / secs;
		loss[p] = loss[p] * 8 / 1e6 / secs;
		offered += load[p];
	}
	sim_metrics_step(m, load, loss, offered, good * 8 / 1e6 / secs);
	tunnel_share(t);
}

static void tunnel_free(struct tunnel *t)
{
	for (unsigned i = 0; t->s && i < t->n; i++)
		if (t->s[i])
			sim_session_free(t->s[i]);
	free(t->s);
	free(t->prev);
	free(t->offer);
}

int sim_tunnel_run(const struct sim_scenario *sc, const char *strategy, unsigned agents,
		   struct sim_metrics *m)
{
	struct tunnel t = { .sc = sc, .n = agents, .k = sc->npaths,
			    .kagent = strcmp(strategy, "single") ? sc->npaths : 1 };
	uint64_t step_ns = (uint64_t)(sc->step_ms * 1e6);
	double *got;
	int rc = 0;

	t.s = calloc(agents, sizeof(*t.s));
	t.prev = calloc((size_t)agents * t.k, sizeof(*t.prev));
	t.offer = calloc((size_t)agents * t.k, sizeof(*t.offer));
	got = calloc(agents, sizeof(*got));
	if (!t.s || !t.prev || !t.offer || !got) {
		rc = -1;
		goto out;
	}
	for (unsigned i = 0; i < agents; i++) {
		t.s[i] = tunnel_agent(sc, strategy, i, agents);
		if (!t.s[i]) {
			fprintf(stderr, "mptund-sim: tunnel model: cannot start '%s'\n",
				strategy);
			rc = -1;
			goto out;
		}
	}
	for (unsigned step = 1; step <= sc->steps; step++)
		tunnel_step(&t, step * step_ns, m);
	for (unsigned i = 0; i < agents; i++)
		for (unsigned p = 0; p < t.kagent; p++)
			got[i] += (double)sim_path_stats(t.s[i], p)->delivered_bytes;
	m->agent_fairness = sim_jain(got, agents);
out:
	free(got);
	tunnel_free(&t);
	return rc;
}
