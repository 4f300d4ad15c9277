/* SPDX-License-Identifier: MIT */
/* Helpers for scheduler unit tests: an instance with tunables set, its statistics. */
#ifndef MPTUND_SCHEDTEST_H
#define MPTUND_SCHEDTEST_H

#include <mptund/sched.h>

/*
 * Prepare scheduler `name` in priv (MPT_SCHED_PRIV_SIZE bytes), apply the tunables
 * kv = { "name", "value", ..., NULL } and call init. NULL (with a message on stderr
 * quoting what failed) for an unknown scheduler, tunable or value.
 */
const struct mpt_sched_ops *schedtest_setup(const char *name, void *priv, const char **kv,
					    const struct mpt_sched_ctx *ctx);
/* The same with the paper's algorithm (schedtest_paper) before kv is applied. */
const struct mpt_sched_ops *schedtest_setup_paper(const char *name, void *priv,
						  const char **kv,
						  const struct mpt_sched_ctx *ctx);
/* Set one tunable of a prepared instance (before init); 0, or -1 with a message. */
int schedtest_set(const struct mpt_sched_ops *ops, void *priv, const char *name,
		  const char *value);
/* The paper's algorithm: arrival awareness (sched/arrival.h) off where the scheduler
 * has the switch. Tests of a paper's exact rule use it before init. */
void schedtest_paper(const struct mpt_sched_ops *ops, void *priv);

/* A declared statistic by name; NAN (and a message) when there is none. */
double schedtest_stat(const struct mpt_sched_ops *ops, const void *priv, const char *name,
		      unsigned path);

/*
 * Ask ops for one packet of len bytes and account it in flight on the chosen path
 * (paths is ctx->paths, writable). Returns the path, -1 when the packet is held, -2
 * when the answer is not exactly one path of the context.
 */
int schedtest_send_one(const struct mpt_sched_ops *ops, void *priv,
		       struct mpt_sched_ctx *ctx, struct mpt_path_view *paths, uint32_t len);

#endif
