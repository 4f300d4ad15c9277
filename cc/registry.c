// SPDX-License-Identifier: MIT
/* The static table of congestion controllers, looked up by name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <mptund/cc.h>

#include "cc_modules.h"

const char *const mpt_cc_state_names[MPT_CC_STATE_MAX] = {
	[MPT_CC_OTHER] = "other",
	[MPT_CC_STARTUP] = "startup",
	[MPT_CC_DRAIN] = "drain",
	[MPT_CC_PROBE_BW] = "probe_bw",
	[MPT_CC_PROBE_RTT] = "probe_rtt",
	[MPT_CC_SLOW_START] = "slow_start",
	[MPT_CC_AVOIDANCE] = "avoidance",
	[MPT_CC_RECOVERY] = "recovery",
};

static const struct mpt_cc_ops *const controllers[] = {
	&mpt_cc_fixed,
	&mpt_cc_bbr,
	&mpt_cc_cubic,
};

size_t mpt_cc_count(void)
{
	return MPT_ARRAY_SIZE(controllers);
}

const struct mpt_cc_ops *mpt_cc_at(size_t i)
{
	return i < MPT_ARRAY_SIZE(controllers) ? controllers[i] : NULL;
}

const struct mpt_cc_ops *mpt_cc_find(const char *name)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(controllers); i++)
		if (strcasecmp(controllers[i]->name, name) == 0)
			return controllers[i];
	return NULL;
}

int mpt_cc_registry_check(char *err, size_t errlen)
{
	for (size_t i = 0; i < MPT_ARRAY_SIZE(controllers); i++) {
		const struct mpt_cc_ops *c = controllers[i];

		if (!c->name || !c->on_ack || !c->init) {
			snprintf(err, errlen, "congestion controller #%zu '%s': missing a "
				 "required member", i, c->name ? c->name : "?");
			return -EINVAL;
		}
		if (c->priv_size > MPT_CC_PRIV_SIZE) {
			snprintf(err, errlen, "congestion controller '%s': private size %zu "
				 "exceeds %d", c->name, c->priv_size, MPT_CC_PRIV_SIZE);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcasecmp(controllers[j]->name, c->name) == 0) {
				snprintf(err, errlen, "congestion controller name '%s' "
					 "registered twice", c->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

void mpt_cc_prepare(struct mpt_cc *cc, const struct mpt_cc_ops *ops)
{
	memset(cc, 0, sizeof(*cc));
	mpt_param_defaults(ops->params, ops->nparams, cc->priv);
}
