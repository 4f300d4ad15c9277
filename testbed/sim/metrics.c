// SPDX-License-Identifier: MIT
/*
 * The axiomatic paper's metrics (sec. 3.3), as its public simulator computes them
 * from the per-step log:
 *   Efficiency   mean over steps of the agents' total offered rate (its
 *                "total_throughput": the sum of the windows, not goodput)
 *   Loss         mean over steps of sum over paths of max(0, load_p - C_p)
 *   Oscillation  mean over paths of the (sample) standard deviation of load_p over time
 *   Stability    1 / (1 + Oscillation)                                      (eq. 1)
 *   Fairness     Jain's index of the paths' loads summed over the run: what the
 *                reported values measure (0.33 = one path of three, 1.00 = even); the
 *                text's "final congestion windows of all agents" is agent_fairness
 *   LossAvoid    1 / (1 + Loss)                                             (eq. 2)
 * plus goodput, the mean delivered rate (ours).
 */
#include <math.h>
#include <string.h>

#include "sim.h"

void sim_metrics_init(struct sim_metrics *m, unsigned npaths, FILE *trace)
{
	memset(m, 0, sizeof(*m));
	m->npaths = npaths;
	m->trace = trace;
}

void sim_metrics_step(struct sim_metrics *m, const double *load, const double *loss,
		      double offered, double goodput)
{
	if (m->trace)
		fprintf(m->trace, "%u", m->steps);
	for (unsigned p = 0; p < m->npaths; p++) {
		m->load_sum[p] += load[p];
		m->load_sq[p] += load[p] * load[p];
		m->loss_sum += loss[p];
		if (m->trace)
			fprintf(m->trace, ",%.3f", load[p]);
	}
	if (m->trace)
		fprintf(m->trace, ",%.3f,%.3f\n", offered, goodput);
	m->offered_sum += offered;
	m->goodput_sum += goodput;
	m->steps++;
}

double sim_jain(const double *x, unsigned n)
{
	double s = 0, sq = 0;

	for (unsigned i = 0; i < n; i++) {
		s += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? s * s / (n * sq) : 0;
}

void sim_metrics_result(const struct sim_metrics *m, struct sim_result *r)
{
	double n = m->steps, osc = 0;

	memset(r, 0, sizeof(*r));
	if (!m->steps)
		return;
	for (unsigned p = 0; p < m->npaths; p++) {
		double mean = m->load_sum[p] / n;
		double var = n > 1 ? (m->load_sq[p] - n * mean * mean) / (n - 1) : 0;

		osc += sqrt(fmax(var, 0));
	}
	r->oscillation = osc / m->npaths;
	r->stability = 1 / (1 + r->oscillation);
	r->efficiency = m->offered_sum / n;
	r->loss = m->loss_sum / n;
	r->loss_avoidance = 1 / (1 + r->loss);
	r->fairness = sim_jain(m->load_sum, m->npaths);
	r->goodput = m->goodput_sum / n;
	r->agent_fairness = m->agent_fairness;
}
