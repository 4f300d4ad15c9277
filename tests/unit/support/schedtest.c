// SPDX-License-Identifier: MIT
/* Helpers for scheduler unit tests; see schedtest.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "schedtest.h"

int schedtest_set(const struct mpt_sched_ops *ops, void *priv, const char *name,
		  const char *value)
{
	const struct mpt_param *p = mpt_param_find(ops->params, ops->nparams, name);
	char err[160];

	if (!p) {
		fprintf(stderr, "schedtest: %s has no tunable '%s'\n", ops->name, name);
		return -1;
	}
	if (mpt_param_parse(p, priv, value, err, sizeof(err)) < 0) {
		fprintf(stderr, "schedtest: %s\n", err);
		return -1;
	}
	return 0;
}

void schedtest_paper(const struct mpt_sched_ops *ops, void *priv)
{
	if (mpt_param_find(ops->params, ops->nparams, "arrival"))
		schedtest_set(ops, priv, "arrival", "0");
	if (mpt_param_find(ops->params, ops->nparams, "min_live_pkts"))
		schedtest_set(ops, priv, "min_live_pkts", "0");
}

static const struct mpt_sched_ops *setup(const char *name, void *priv, const char **kv,
					 const struct mpt_sched_ctx *ctx, bool paper)
{
	const struct mpt_sched_ops *ops = mpt_sched_find(name);

	if (!ops) {
		fprintf(stderr, "schedtest: no scheduler '%s'\n", name);
		return NULL;
	}
	mpt_sched_prepare(priv, ops);
	if (paper)
		schedtest_paper(ops, priv);
	for (; kv && kv[0]; kv += 2)
		if (schedtest_set(ops, priv, kv[0], kv[1]) < 0)
			return NULL;
	ops->init(priv, ctx);
	return ops;
}

double schedtest_stat(const struct mpt_sched_ops *ops, const void *priv, const char *name,
		      unsigned path)
{
	for (size_t i = 0; i < ops->nstats; i++)
		if (strcmp(ops->stats[i].name, name) == 0)
			return mpt_stat_read(&ops->stats[i], priv, path);
	fprintf(stderr, "schedtest: %s has no statistic '%s'\n", ops->name, name);
	return NAN;
}

int schedtest_send_one(const struct mpt_sched_ops *ops, void *priv,
		       struct mpt_sched_ctx *ctx, struct mpt_path_view *paths, uint32_t len)
{
	struct mpt_pkt_meta pkt = { .len = len };
	uint32_t mask = ops->pick(priv, ctx, &pkt);
	int p;

	if (!mask)
		return -1;
	if (__builtin_popcount(mask) != 1)
		return -2;
	p = __builtin_ctz(mask);
	if ((unsigned)p >= ctx->npaths)
		return -2;
	paths[p].in_flight += len;
	return p;
}

const struct mpt_sched_ops *schedtest_setup(const char *name, void *priv, const char **kv,
					    const struct mpt_sched_ctx *ctx)
{
	return setup(name, priv, kv, ctx, false);
}

const struct mpt_sched_ops *schedtest_setup_paper(const char *name, void *priv,
						  const char **kv,
						  const struct mpt_sched_ctx *ctx)
{
	return setup(name, priv, kv, ctx, true);
}
