/* SPDX-License-Identifier: MIT */
/* The ops struct each cc/<name>.c exports; listed in cc/registry.c. */
#ifndef MPTUND_CC_MODULES_H
#define MPTUND_CC_MODULES_H

#include <mptund/cc.h>

extern const struct mpt_cc_ops mpt_cc_fixed;
extern const struct mpt_cc_ops mpt_cc_bbr;
extern const struct mpt_cc_ops mpt_cc_cubic;

#endif
