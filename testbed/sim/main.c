// SPDX-License-Identifier: MIT
/*
 * mptund-sim [options] SCENARIO — the multi-agent simulator (sim.h).
 *
 *   -m, --model paper|tunnel   override the scenario's model
 *   -s, --steps N              override the number of steps
 *   -a, --agents "10 50"       override the agent counts
 *   -S, --strategies "rr wrr"  override the strategies
 *   -c, --csv FILE             write the summary as CSV
 *   -t, --trace DIR            write DIR/<model>_<strategy>_<agents>.csv: per step
 *                              the path loads, offered and delivered (Figure 1)
 *   -r, --require PCT          exit 1 when a row's Efficiency or Loss is off the
 *                              paper's Appendix A by more than PCT % (Loss: or by
 *                              more than 1 Mbit/s), or Fairness/Stability by > 0.02
 *
 * Prints one row per (strategy, agents): the paper's metrics (sec. 3.3) and goodput,
 * and with "reference = yes" the paper's Appendix A values beside them.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static void print_header(const struct sim_scenario *sc)
{
	printf("# %s (%s model, %u steps of %.0f ms, %u paths)\n",
	       sc->title[0] ? sc->title : "mptund-sim", sc->model == SIM_MODEL_PAPER ?
	       "paper" : "tunnel", sc->steps, sc->step_ms, sc->npaths);
	printf("%-8s %6s | %9s %9s %5s %5s | %9s %5s", "strategy", "agents", "Effic.",
	       "Loss", "Fair", "Stab", "Goodput", "AgFr");
	if (sc->reference)
		printf(" | paper: %9s %9s %5s %5s", "Effic.", "Loss", "Fair", "Stab");
	printf("\n");
}

/* True when r is within pct % of the paper's row (see --require). */
static bool near_reference(const struct sim_result *r, const struct sim_result *ref,
			   double pct)
{
	double f = pct / 100;

	return fabs(r->efficiency - ref->efficiency) <= f * ref->efficiency &&
	       fabs(r->loss - ref->loss) <= fmax(f * ref->loss, 1.0) &&
	       fabs(r->fairness - ref->fairness) <= 0.02 + 1e-9 &&
	       fabs(r->stability - ref->stability) <= 0.02 + 1e-9;
}

static bool print_row(const struct sim_scenario *sc, const char *strat, unsigned n,
		      const struct sim_result *r, FILE *csv, double require)
{
	/* the paper's egreedy rows are for epsilon 0.1 only */
	bool eps_ok = strcmp(strat, "egreedy") || fabs(sc->epsilon - 0.1) < 1e-9;
	const struct sim_result *ref = sc->reference && eps_ok ? sim_reference(strat, n) :
				       NULL;

	printf("%-8s %6u | %9.2f %9.2f %5.2f %5.2f | %9.2f %5.2f", strat, n, r->efficiency,
	       r->loss, r->fairness, r->stability, r->goodput, r->agent_fairness);
	if (ref)
		printf(" | paper: %9.2f %9.2f %5.2f %5.2f", ref->efficiency, ref->loss,
		       ref->fairness, ref->stability);
	else if (sc->reference)
		printf(" | paper: %9s", "-");
	printf("\n");
	if (csv)
		fprintf(csv, "%s,%s,%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n",
			sc->model == SIM_MODEL_PAPER ? "paper" : "tunnel", strat, n,
			r->efficiency, r->loss, r->fairness, r->stability, r->oscillation,
			r->loss_avoidance, r->goodput, r->agent_fairness);
	if (require > 0 && (!ref || !near_reference(r, ref, require))) {
		fprintf(stderr, "mptund-sim: %s %u: not within %g %% of the paper\n", strat,
			n, require);
		return false;
	}
	return true;
}

static double total_capacity(const struct sim_scenario *sc)
{
	double c = 0;

	for (unsigned p = 0; p < sc->npaths; p++)
		c += sc->paths[p].capacity_mbit;
	return c;
}

static int run_cell(const struct sim_scenario *sc, const char *strat, unsigned n,
		    const char *trace_dir, FILE *csv, struct sim_carry *carry,
		    double require)
{
	struct sim_metrics m;
	struct sim_result r;
	FILE *trace = NULL;
	int rc;

	if (trace_dir) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s_%s_%u.csv", trace_dir,
			 sc->model == SIM_MODEL_PAPER ? "paper" : "tunnel", strat, n);
		trace = fopen(path, "w");
		if (!trace) {
			perror(path);
			return -1;
		}
		fprintf(trace, "step");
		for (unsigned p = 0; p < sc->npaths; p++)
			fprintf(trace, ",%s_load", sc->paths[p].name);
		fprintf(trace, ",offered,goodput\n");
	}
	sim_metrics_init(&m, sc->npaths, trace);
	rc = sc->model == SIM_MODEL_PAPER ? sim_paper_run(sc, strat, n, &m, carry) :
					    sim_tunnel_run(sc, strat, n, &m);
	if (trace)
		fclose(trace);
	if (rc < 0)
		return -1;
	sim_metrics_result(&m, &r);
	if (sc->model == SIM_MODEL_TUNNEL && r.goodput > 1.01 * total_capacity(sc)) {
		fprintf(stderr, "mptund-sim: %s %u: goodput %.2f above the paths' %.2f "
			"Mbit/s: the bottleneck coupling is broken\n", strat, n, r.goodput,
			total_capacity(sc));
		return -1;
	}
	rc = print_row(sc, strat, n, &r, csv, require) ? 0 : 1;
	fflush(stdout);
	return rc;
}

struct cli {
	const char *model, *agents, *strats, *csv, *trace;
	long steps;
	double require;
};

/* Options into cli; the scenario file's index, or -1 after a usage message. */
static int parse_cli(int argc, char **argv, struct cli *o)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "steps", required_argument, NULL, 's' },
		{ "agents", required_argument, NULL, 'a' },
		{ "strategies", required_argument, NULL, 'S' },
		{ "csv", required_argument, NULL, 'c' },
		{ "trace", required_argument, NULL, 't' },
		{ "require", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	bool bad = false;
	int c;

	while (!bad && (c = getopt_long(argc, argv, "m:s:a:S:c:t:r:", opts, NULL)) != -1) {
		switch (c) {
		case 'm': o->model = optarg; break;
		case 's': o->steps = strtol(optarg, NULL, 10); break;
		case 'a': o->agents = optarg; break;
		case 'S': o->strats = optarg; break;
		case 'c': o->csv = optarg; break;
		case 't': o->trace = optarg; break;
		case 'r': o->require = strtod(optarg, NULL); break;
		default:
			bad = true;
		}
	}
	if (bad || optind != argc - 1) {
		fprintf(stderr, "usage: mptund-sim [-m paper|tunnel] [-s STEPS] [-a AGENTS] "
			"[-S STRATEGIES] [-c CSV] [-t DIR] [-r PCT] SCENARIO\n");
		return -1;
	}
	return optind;
}

/* The scenario with the command line's overrides; 0, or -1 with a message. */
static int load(struct sim_scenario *sc, const char *file, const struct cli *o)
{
	if (sim_scenario_load(sc, file) < 0)
		return -1;
	if (o->steps > 0)
		sc->steps = (unsigned)o->steps;
	if ((o->model && sim_scenario_set(sc, "model", o->model) < 0) ||
	    (o->agents && sim_scenario_set(sc, "agents", o->agents) < 0) ||
	    (o->strats && sim_scenario_set(sc, "strategies", o->strats) < 0)) {
		fprintf(stderr, "mptund-sim: bad --model, --agents or --strategies\n");
		return -1;
	}
	return 0;
}

/* Every (strategy[, epsilon], agents) cell: -1 on error, 1 when a cell is off the
 * reference (--require), else 0. */
static int run_all(struct sim_scenario *sc, const struct cli *o, FILE *csv)
{
	struct sim_carry carry = { 0 };
	unsigned maxn = 1;
	bool off = false;
	int rc = 0;

	for (unsigned a = 0; a < sc->nagents; a++)
		maxn = MPT_MAX(maxn, sc->agents[a]);
	carry.rr = calloc(maxn, sizeof(*carry.rr));
	carry.wrr_count = calloc(maxn, sizeof(*carry.wrr_count));
	if (!carry.rr || !carry.wrr_count)
		rc = -1;
	for (unsigned s = 0; s < sc->nstrategies && rc >= 0; s++) {
		bool eg = !strcmp(sc->strategies[s], "egreedy") && sc->nepsilons;

		for (unsigned e = 0; e < (eg ? sc->nepsilons : 1) && rc >= 0; e++) {
			if (eg) {
				sc->epsilon = sc->epsilons[e];
				printf("# epsilon %.2f\n", sc->epsilon);
			}
			carry.n = 0;	/* a new strategy starts from fresh counters */
			for (unsigned a = 0; a < sc->nagents && rc >= 0; a++) {
				rc = run_cell(sc, sc->strategies[s], sc->agents[a], o->trace,
					      csv, sc->carry ? &carry : NULL, o->require);
				off |= rc > 0;
			}
		}
	}
	free(carry.rr);
	free(carry.wrr_count);
	return rc < 0 ? -1 : off;
}

int main(int argc, char **argv)
{
	struct cli o = { 0 };
	struct sim_scenario sc;
	FILE *csv = NULL;
	clock_t t0 = clock();
	int i = parse_cli(argc, argv, &o), rc;

	if (i < 0)
		return 2;
	if (load(&sc, argv[i], &o) < 0)
		return 1;
	if (o.csv) {
		csv = fopen(o.csv, "w");
		if (!csv) {
			perror(o.csv);
			return 1;
		}
		fprintf(csv, "model,strategy,agents,efficiency,loss,fairness,stability,"
			"oscillation,loss_avoidance,goodput,agent_fairness\n");
	}
	print_header(&sc);
	rc = run_all(&sc, &o, csv);
	if (csv)
		fclose(csv);
	fprintf(stderr, "mptund-sim: %.1f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	return rc ? 1 : 0;
}
