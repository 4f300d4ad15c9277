/* SPDX-License-Identifier: MIT */
/* The daemon's steering-rule commands and statistics on the control socket
 * (ctl_rules.c; the vocabulary in include/mptund/ctl.h). */
#ifndef MPTUND_CTL_RULES_H
#define MPTUND_CTL_RULES_H

#include "ctl_out.h"
#include "ctl_proto.h"

struct mpt_daemon;

/* rule.N.*, pushed_rule.N.*, rule_default.* of the stats dump. */
void mpt_ctl_rules_dump(struct mpt_ctl_out *out, const struct mpt_daemon *d);
/* The handler of rule_list and rule (ctx: the daemon). */
int mpt_ctl_rules_cmd(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);

#endif
