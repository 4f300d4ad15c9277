// SPDX-License-Identifier: MIT
/*
 * fixed — a constant congestion window, no pacing.
 *
 * The window is `window` bytes whatever happens; losses and ACKs change nothing. Useful
 * as a reference, on links whose capacity is known and dedicated, and to test the
 * schedulers without the dynamics of a real controller.
 */
#include <mptund/cc.h>

#include "cc_modules.h"

struct fixed {
	uint32_t window;	/* tunable: bytes */
};
_Static_assert(sizeof(struct fixed) <= MPT_CC_PRIV_SIZE, "fixed state too large");

static void fixed_init(struct mpt_cc *cc, const struct mpt_cc_path *p,
		       struct mpt_rng *rng, uint64_t now)
{
	const struct fixed *f = (const struct fixed *)cc->priv;

	cc->cwnd = f->window;
	cc->pacing_rate = 0;
	cc->state = MPT_CC_OTHER;
}

static void fixed_on_ack(struct mpt_cc *cc, const struct mpt_cc_path *p,
			 const struct mpt_rate_sample *rs, uint64_t now)
{
	if (p->min_rtt_ns)
		cc->min_rtt_ns = p->min_rtt_ns;
}

static void fixed_params_changed(struct mpt_cc *cc)
{
	cc->cwnd = ((const struct fixed *)cc->priv)->window;
}

static const struct mpt_param fixed_params[] = {
	{ .name = "window", .type = MPT_PARAM_U32, .offset = offsetof(struct fixed, window),
	  .min = 2800, .max = 1u << 30, .def = 256 * 1024,
	  .help = "congestion window in bytes (constant)" },
};

const struct mpt_cc_ops mpt_cc_fixed = {
	.name = "fixed",
	.summary = "constant window, no pacing (reference)",
	.on_ack = fixed_on_ack,
	.init = fixed_init,
	.params_changed = fixed_params_changed,
	.priv_size = sizeof(struct fixed),
	.params = fixed_params,
	.nparams = MPT_ARRAY_SIZE(fixed_params),
};
