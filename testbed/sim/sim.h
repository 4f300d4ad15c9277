/* SPDX-License-Identifier: MIT */
/*
 * mptund-sim: a multi-agent simulator of path selection (issue 14).
 *
 * N agents share K bottleneck paths in discrete time steps. Two models:
 *  - paper:  the agent model of the axiomatic path-selection paper (Baumeister and
 *            Keshvadi, sec. 3.1; its public simulator): each agent sits on one path per
 *            step, a unit AIMD window in Mbit/s, the strategies of sec. 3.2 as the
 *            authors coded them (paper_model.c);
 *  - tunnel: each agent is an mptund session running the daemon's real scheduler and a
 *            real congestion controller per path over the simulated link of the unit
 *            tests (tests/unit/support/simlink.h); the sessions' links of one path are
 *            coupled into one bottleneck every step (tunnel_model.c).
 * Both report the paper's metrics (sec. 3.3; metrics.c) beside goodput.
 */
#ifndef MPTSIM_SIM_H
#define MPTSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <mptund/common.h>

#define SIM_MAX_RUNS	16	/* agent counts or strategies per scenario */
#define SIM_MAX_PARAMS	8

enum sim_model { SIM_MODEL_PAPER, SIM_MODEL_TUNNEL };

struct sim_pathspec {
	char name[MPT_NAME_LEN];
	double capacity_mbit;
	double rtt_ms;			/* base round trip */
	double weight;			/* WRR weight; 0 = capacity */
	uint32_t cost;
	bool high_cost;			/* the paper's "high-cost" attribute (sec. 4.1) */
	double buffer_bdp;		/* tunnel: bottleneck buffer, BDPs (default 1) */
};

struct sim_kv {
	char name[32], value[32];
};

struct sim_scenario {
	char title[96];
	enum sim_model model;
	unsigned steps;			/* time steps */
	double step_ms;			/* length of a step */
	unsigned nagents, agents[SIM_MAX_RUNS];
	unsigned nstrategies;
	char strategies[SIM_MAX_RUNS][MPT_NAME_LEN];
	double epsilon;			/* egreedy (sec. 3.2: 0.1) */
	uint64_t seed;
	unsigned npaths;
	struct sim_pathspec paths[MPT_MAX_PATHS];
	unsigned nparams;		/* tunnel: scheduler tunables for every agent */
	struct sim_kv params[SIM_MAX_PARAMS];
	char cc[MPT_NAME_LEN];		/* tunnel: congestion controller */
	unsigned flows;			/* tunnel: flows per agent (default 1) */
	unsigned nepsilons;		/* egreedy: one run per epsilon (Figure 2) */
	double epsilons[SIM_MAX_RUNS];
	bool reference;			/* print the paper's Appendix A beside ours */
	bool carry;			/* paper: rr/wrr counters carry over from the
					 * previous agent count (see paper_model.c) */
};

/* Per-agent round-robin counters kept across the runs of one strategy (paper model,
 * "carry = yes"); owned by the caller, zeroed for a new strategy. */
struct sim_carry {
	unsigned n;
	uint32_t *rr, *wrr_count;
};

/* Parse a scenario file (scenario.c): "key = value" lines, '#' comments. 0 or -1
 * with a message "FILE:LINE: ..." on stderr. */
int sim_scenario_load(struct sim_scenario *sc, const char *file);
/* Set one key as a scenario line would (command-line overrides). 0 or -1. */
int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *value);

/* Per-step accumulator of the paper's metrics (sec. 3.3). */
struct sim_metrics {
	unsigned npaths, steps;
	double load_sum[MPT_MAX_PATHS], load_sq[MPT_MAX_PATHS];	/* Mbit/s */
	double offered_sum;		/* the authors' "total_throughput" */
	double loss_sum;		/* sum over paths of max(0, load - capacity) */
	double goodput_sum;		/* delivered, Mbit/s */
	double agent_fairness;		/* Jain over agents (set by the model) */
	FILE *trace;			/* optional per-step CSV of path loads */
};

struct sim_result {
	double efficiency, loss, fairness, stability, oscillation, loss_avoidance;
	double goodput, agent_fairness;
};

void sim_metrics_init(struct sim_metrics *m, unsigned npaths, FILE *trace);
/* One step: per-path load (Mbit/s), loss (Mbit/s over capacity), offered total,
 * delivered total. */
void sim_metrics_step(struct sim_metrics *m, const double *load, const double *loss,
		      double offered, double goodput);
void sim_metrics_result(const struct sim_metrics *m, struct sim_result *r);
/* Jain's index of n values. */
double sim_jain(const double *x, unsigned n);

/* The models: run one (strategy, agents) cell. 0 or -1 with a message. */
int sim_paper_run(const struct sim_scenario *sc, const char *strategy, unsigned agents,
		  struct sim_metrics *m, struct sim_carry *carry);
int sim_tunnel_run(const struct sim_scenario *sc, const char *strategy, unsigned agents,
		   struct sim_metrics *m);

/* The paper's Appendix A row for (strategy, agents), or NULL (reference.c). */
const struct sim_result *sim_reference(const char *strategy, unsigned agents);

#endif
