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
