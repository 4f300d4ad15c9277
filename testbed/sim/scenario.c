// SPDX-License-Identifier: MIT
/*
 * Scenario files of mptund-sim: one "key = value" per line, '#' starts a comment.
 *
 *   title = Table 1 of the axiomatic paper
 *   model = paper                 paper | tunnel
 *   steps = 300                   time steps
 *   step_ms = 10
 *   agents = 10 50 100 250 500    one run per count ...
 *   strategies = minrtt rr wrr    ... and per strategy (scheduler names; tunnel:
 *                                 also "single", one path only, the first)
 *   epsilon = 0.1
 *   seed = 1
 *   path = NAME CAPACITY_MBIT RTT_MS [weight=W] [cost=C] [buffer_bdp=B] [high-cost]
 *   param = NAME VALUE            tunnel: a scheduler tunable for every agent
 *   cc = bbr                      tunnel: congestion controller
 *   flows = 4                     tunnel: flows per agent (inner 5-tuples)
 *   epsilons = 0 0.1 0.5          egreedy: one run per epsilon (paper's Figure 2)
 *   reference = yes               print the paper's Appendix A row beside ours
 *   carry = yes                   paper: rr/wrr counters carry over between agent
 *                                 counts, as the authors' global tables did
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int parse_num(const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno || end == v || *end ? -1 : 0;
}

/* "NAME CAPACITY RTT [opts]" */
static int parse_path(struct sim_scenario *sc, char *v)
{
	struct sim_pathspec *p;
	char *tok, *save = NULL;
	unsigned field = 0;

	if (sc->npaths >= MPT_MAX_PATHS)
		return -1;
	p = &sc->paths[sc->npaths];
	memset(p, 0, sizeof(*p));
	p->buffer_bdp = 1;
	for (tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		double x;

		if (field == 0) {
			snprintf(p->name, sizeof(p->name), "%s", tok);
		} else if (field <= 2) {
			if (parse_num(tok, &x) < 0 || x <= 0)
				return -1;
			*(field == 1 ? &p->capacity_mbit : &p->rtt_ms) = x;
		} else if (strcmp(tok, "high-cost") == 0) {
			p->high_cost = true;
		} else if (!strncmp(tok, "weight=", 7) && !parse_num(tok + 7, &x)) {
			p->weight = x;
		} else if (!strncmp(tok, "cost=", 5) && !parse_num(tok + 5, &x)) {
			p->cost = (uint32_t)x;
		} else if (!strncmp(tok, "buffer_bdp=", 11) && !parse_num(tok + 11, &x)) {
			p->buffer_bdp = x;
		} else {
			return -1;
		}
		field++;
	}
	if (field < 3)
		return -1;
	sc->npaths++;
	return 0;
}

/* A list of unsigned numbers or of names. */
static int parse_list(char *v, unsigned *n, unsigned *nums, char (*names)[MPT_NAME_LEN])
{
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(v, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		double x;

		if (*n >= SIM_MAX_RUNS)
			return -1;
		if (names) {
			snprintf(names[*n], MPT_NAME_LEN, "%s", tok);
		} else {
			if (parse_num(tok, &x) < 0 || x < 1)
				return -1;
			nums[*n] = (unsigned)x;
		}
		(*n)++;
	}
	return *n ? 0 : -1;
}

static int parse_doubles(char *v, unsigned *n, double *out)
{
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(v, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		if (*n >= SIM_MAX_RUNS || parse_num(tok, &out[*n]) < 0 || out[*n] > 1)
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

static int parse_kv(struct sim_scenario *sc, const char *k, char *v)
{
	double x;

	if (!strcmp(k, "title"))
		return snprintf(sc->title, sizeof(sc->title), "%s", v) < 0 ? -1 : 0;
	if (!strcmp(k, "model")) {
		sc->model = !strcmp(v, "tunnel") ? SIM_MODEL_TUNNEL : SIM_MODEL_PAPER;
		return strcmp(v, "tunnel") && strcmp(v, "paper") ? -1 : 0;
	}
	if (!strcmp(k, "agents"))
		return parse_list(v, &sc->nagents, sc->agents, NULL);
	if (!strcmp(k, "strategies"))
		return parse_list(v, &sc->nstrategies, NULL, sc->strategies);
	if (!strcmp(k, "path"))
		return parse_path(sc, v);
	if (!strcmp(k, "epsilons"))
		return parse_doubles(v, &sc->nepsilons, sc->epsilons);
	if (!strcmp(k, "cc"))
		return snprintf(sc->cc, sizeof(sc->cc), "%s", v) < 0 ? -1 : 0;
	if (!strcmp(k, "reference")) {
		sc->reference = !strcmp(v, "yes") || !strcmp(v, "1");
		return 0;
	}
	if (!strcmp(k, "carry")) {
		sc->carry = !strcmp(v, "yes") || !strcmp(v, "1");
		return 0;
	}
	if (!strcmp(k, "param")) {
		struct sim_kv *kv = &sc->params[sc->nparams];

		if (sc->nparams >= SIM_MAX_PARAMS || sscanf(v, "%31s %31s", kv->name,
							    kv->value) != 2)
			return -1;
		sc->nparams++;
		return 0;
	}
	if (parse_num(v, &x) < 0 || x < 0)
		return -1;
	if (!strcmp(k, "steps") && x >= 1)
		sc->steps = (unsigned)x;
	else if (!strcmp(k, "step_ms") && x > 0)
		sc->step_ms = x;
	else if (!strcmp(k, "epsilon") && x <= 1)
		sc->epsilon = x;
	else if (!strcmp(k, "seed"))
		sc->seed = (uint64_t)x;
	else if (!strcmp(k, "flows") && x >= 1 && x <= 1000)
		sc->flows = (unsigned)x;
	else
		return -1;
	return 0;
}

int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *value)
{
	char v[512];

	snprintf(v, sizeof(v), "%s", value);
	return parse_kv(sc, key, v);
}

int sim_scenario_load(struct sim_scenario *sc, const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	unsigned ln = 0;

	memset(sc, 0, sizeof(*sc));
	sc->steps = 300;
	sc->step_ms = 10;
	sc->epsilon = 0.1;
	sc->seed = 1;
	sc->flows = 1;
	snprintf(sc->cc, sizeof(sc->cc), "bbr");
	if (!f) {
		fprintf(stderr, "mptund-sim: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *eq, *hash = strchr(line, '#');

		ln++;
		if (hash)
			*hash = 0;
		s = trim(s);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (eq)
			*eq = 0;
		if (!eq || parse_kv(sc, trim(s), trim(eq + 1)) < 0) {
			fprintf(stderr, "mptund-sim: %s:%u: bad line '%s'\n", file, ln, s);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!sc->npaths || !sc->nagents || !sc->nstrategies) {
		fprintf(stderr, "mptund-sim: %s: needs path, agents and strategies\n", file);
		return -1;
	}
	return 0;
}
