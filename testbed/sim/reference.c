// SPDX-License-Identifier: MIT
/*
 * The axiomatic path-selection paper's Appendix A (Baumeister and Keshvadi, "Full
 * Experimental Results"; Table 1 of sec. 4.2 is a subset): per strategy and agent
 * count, its Oscillation, Loss, Fairness, Efficiency, Stability, Loss Avoidance.
 */
#include <string.h>

#include "sim.h"

struct ref_row {
	const char *strategy;
	unsigned agents;
	struct sim_result r;
};

static const struct ref_row appendix_a[] = {
	{ "minrtt", 10, { .oscillation = 4.25, .loss = 2.44, .fairness = 0.33, .efficiency = 44.79,
	  .stability = 0.19, .loss_avoidance = 0.29 } },
	{ "minrtt", 25, { .oscillation = 5.58, .loss = 0.43, .fairness = 0.34, .efficiency = 38.42,
	  .stability = 0.15, .loss_avoidance = 0.70 } },
	{ "minrtt", 50, { .oscillation = 10.04, .loss = 24.81, .fairness = 0.34, .efficiency = 75.11,
	  .stability = 0.09, .loss_avoidance = 0.04 } },
	{ "minrtt", 100, { .oscillation = 5.51, .loss = 50.37, .fairness = 0.34, .efficiency = 100.95,
	  .stability = 0.15, .loss_avoidance = 0.02 } },
	{ "minrtt", 150, { .oscillation = 8.38, .loss = 100.78, .fairness = 0.34, .efficiency = 151.38,
	  .stability = 0.11, .loss_avoidance = 0.01 } },
	{ "minrtt", 250, { .oscillation = 12.90, .loss = 201.71, .fairness = 0.34, .efficiency = 252.31,
	  .stability = 0.07, .loss_avoidance = 0.00 } },
	{ "minrtt", 500, { .oscillation = 28.00, .loss = 454.24, .fairness = 0.34, .efficiency = 504.84,
	  .stability = 0.03, .loss_avoidance = 0.00 } },
	{ "minload", 10, { .oscillation = 5.25, .loss = 0.09, .fairness = 0.33, .efficiency = 60.01,
	  .stability = 0.16, .loss_avoidance = 0.92 } },
	{ "minload", 25, { .oscillation = 7.86, .loss = 6.59, .fairness = 0.33, .efficiency = 74.89,
	  .stability = 0.11, .loss_avoidance = 0.13 } },
	{ "minload", 50, { .oscillation = 10.64, .loss = 10.21, .fairness = 0.34, .efficiency = 75.63,
	  .stability = 0.09, .loss_avoidance = 0.09 } },
	{ "minload", 100, { .oscillation = 6.23, .loss = 20.52, .fairness = 0.34, .efficiency = 101.02,
	  .stability = 0.14, .loss_avoidance = 0.05 } },
	{ "minload", 150, { .oscillation = 8.91, .loss = 70.95, .fairness = 0.34, .efficiency = 151.45,
	  .stability = 0.10, .loss_avoidance = 0.01 } },
	{ "minload", 250, { .oscillation = 14.67, .loss = 151.94, .fairness = 0.34, .efficiency = 252.37,
	  .stability = 0.06, .loss_avoidance = 0.01 } },
	{ "minload", 500, { .oscillation = 26.84, .loss = 424.08, .fairness = 0.34, .efficiency = 504.58,
	  .stability = 0.04, .loss_avoidance = 0.00 } },
	{ "attr", 10, { .oscillation = 4.30, .loss = 2.42, .fairness = 0.33, .efficiency = 44.72,
	  .stability = 0.19, .loss_avoidance = 0.29 } },
	{ "attr", 25, { .oscillation = 5.43, .loss = 0.44, .fairness = 0.34, .efficiency = 38.42,
	  .stability = 0.16, .loss_avoidance = 0.70 } },
	{ "attr", 50, { .oscillation = 10.40, .loss = 24.99, .fairness = 0.34, .efficiency = 75.31,
	  .stability = 0.09, .loss_avoidance = 0.04 } },
	{ "attr", 100, { .oscillation = 5.09, .loss = 50.38, .fairness = 0.34, .efficiency = 100.92,
	  .stability = 0.16, .loss_avoidance = 0.02 } },
	{ "attr", 150, { .oscillation = 8.74, .loss = 100.90, .fairness = 0.34, .efficiency = 151.50,
	  .stability = 0.10, .loss_avoidance = 0.01 } },
	{ "attr", 250, { .oscillation = 14.04, .loss = 201.75, .fairness = 0.34, .efficiency = 252.35,
	  .stability = 0.07, .loss_avoidance = 0.00 } },
	{ "attr", 500, { .oscillation = 28.33, .loss = 454.34, .fairness = 0.34, .efficiency = 504.94,
	  .stability = 0.03, .loss_avoidance = 0.00 } },
	{ "rr", 10, { .oscillation = 9.44, .loss = 0.00, .fairness = 1.00, .efficiency = 20.05,
	  .stability = 0.10, .loss_avoidance = 1.00 } },
	{ "rr", 25, { .oscillation = 23.63, .loss = 0.08, .fairness = 1.00, .efficiency = 50.16,
	  .stability = 0.04, .loss_avoidance = 0.93 } },
	{ "rr", 50, { .oscillation = 47.21, .loss = 23.36, .fairness = 1.00, .efficiency = 100.28,
	  .stability = 0.02, .loss_avoidance = 0.04 } },
	{ "rr", 100, { .oscillation = 94.27, .loss = 123.13, .fairness = 1.00, .efficiency = 200.26,
	  .stability = 0.01, .loss_avoidance = 0.01 } },
	{ "rr", 150, { .oscillation = 141.44, .loss = 223.29, .fairness = 1.00, .efficiency = 300.46,
	  .stability = 0.01, .loss_avoidance = 0.00 } },
	{ "rr", 250, { .oscillation = 235.70, .loss = 423.52, .fairness = 1.00, .efficiency = 500.69,
	  .stability = 0.00, .loss_avoidance = 0.00 } },
	{ "rr", 500, { .oscillation = 471.43, .loss = 924.42, .fairness = 1.00, .efficiency = 1001.58,
	  .stability = 0.00, .loss_avoidance = 0.00 } },
	{ "wrr", 10, { .oscillation = 29.21, .loss = 0.92, .fairness = 0.90, .efficiency = 59.93,
	  .stability = 0.03, .loss_avoidance = 0.52 } },
	{ "wrr", 25, { .oscillation = 31.16, .loss = 2.91, .fairness = 0.85, .efficiency = 115.24,
	  .stability = 0.03, .loss_avoidance = 0.26 } },
	{ "wrr", 50, { .oscillation = 23.57, .loss = 6.21, .fairness = 0.88, .efficiency = 168.98,
	  .stability = 0.04, .loss_avoidance = 0.14 } },
	{ "wrr", 100, { .oscillation = 28.69, .loss = 24.52, .fairness = 0.92, .efficiency = 206.47,
	  .stability = 0.03, .loss_avoidance = 0.04 } },
	{ "wrr", 150, { .oscillation = 31.36, .loss = 40.90, .fairness = 0.93, .efficiency = 235.25,
	  .stability = 0.03, .loss_avoidance = 0.02 } },
	{ "wrr", 250, { .oscillation = 38.93, .loss = 93.34, .fairness = 0.96, .efficiency = 303.45,
	  .stability = 0.03, .loss_avoidance = 0.01 } },
	{ "wrr", 500, { .oscillation = 109.03, .loss = 313.57, .fairness = 0.97, .efficiency = 536.20,
	  .stability = 0.01, .loss_avoidance = 0.00 } },
	{ "egreedy", 10, { .oscillation = 4.41, .loss = 1.05, .fairness = 0.36, .efficiency = 41.46,
	  .stability = 0.18, .loss_avoidance = 0.49 } },
	{ "egreedy", 25, { .oscillation = 6.70, .loss = 4.16, .fairness = 0.39, .efficiency = 48.63,
	  .stability = 0.13, .loss_avoidance = 0.19 } },
	{ "egreedy", 50, { .oscillation = 9.75, .loss = 16.68, .fairness = 0.41, .efficiency = 73.15,
	  .stability = 0.09, .loss_avoidance = 0.06 } },
	{ "egreedy", 100, { .oscillation = 5.71, .loss = 49.73, .fairness = 0.43, .efficiency = 113.90,
	  .stability = 0.15, .loss_avoidance = 0.02 } },
	{ "egreedy", 150, { .oscillation = 9.05, .loss = 100.10, .fairness = 0.43, .efficiency = 171.27,
	  .stability = 0.10, .loss_avoidance = 0.01 } },
	{ "egreedy", 250, { .oscillation = 13.27, .loss = 200.56, .fairness = 0.43, .efficiency = 284.38,
	  .stability = 0.07, .loss_avoidance = 0.00 } },
	{ "egreedy", 500, { .oscillation = 25.11, .loss = 451.71, .fairness = 0.43, .efficiency = 570.12,
	  .stability = 0.04, .loss_avoidance = 0.00 } },
	{ "blest", 10, { .oscillation = 4.16, .loss = 2.43, .fairness = 0.33, .efficiency = 44.76,
	  .stability = 0.19, .loss_avoidance = 0.29 } },
	{ "blest", 25, { .oscillation = 5.14, .loss = 0.49, .fairness = 0.34, .efficiency = 38.48,
	  .stability = 0.16, .loss_avoidance = 0.67 } },
	{ "blest", 50, { .oscillation = 10.08, .loss = 24.83, .fairness = 0.34, .efficiency = 75.13,
	  .stability = 0.09, .loss_avoidance = 0.04 } },
	{ "blest", 100, { .oscillation = 5.52, .loss = 50.30, .fairness = 0.34, .efficiency = 100.90,
	  .stability = 0.15, .loss_avoidance = 0.02 } },
	{ "blest", 150, { .oscillation = 8.20, .loss = 100.77, .fairness = 0.34, .efficiency = 151.37,
	  .stability = 0.11, .loss_avoidance = 0.01 } },
	{ "blest", 250, { .oscillation = 13.89, .loss = 201.68, .fairness = 0.34, .efficiency = 252.28,
	  .stability = 0.07, .loss_avoidance = 0.00 } },
	{ "blest", 500, { .oscillation = 26.26, .loss = 453.93, .fairness = 0.34, .efficiency = 504.53,
	  .stability = 0.04, .loss_avoidance = 0.00 } },
};

const struct sim_result *sim_reference(const char *strategy, unsigned agents)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(appendix_a); i++)
		if (appendix_a[i].agents == agents &&
		    strcmp(appendix_a[i].strategy, strategy) == 0)
			return &appendix_a[i].r;
	return NULL;
}
