/* SPDX-License-Identifier: MIT */
/* The ops struct each sched/<name>.c exports; listed in sched/registry.c. */
#ifndef MPTUND_SCHED_MODULES_H
#define MPTUND_SCHED_MODULES_H

#include <mptund/sched.h>

extern const struct mpt_sched_ops mpt_sched_rr;
extern const struct mpt_sched_ops mpt_sched_cpf;
extern const struct mpt_sched_ops mpt_sched_acpf;
extern const struct mpt_sched_ops mpt_sched_minrtt;
extern const struct mpt_sched_ops mpt_sched_wrr;
extern const struct mpt_sched_ops mpt_sched_egreedy;
extern const struct mpt_sched_ops mpt_sched_exp3;
extern const struct mpt_sched_ops mpt_sched_olms;
extern const struct mpt_sched_ops mpt_sched_blest;
extern const struct mpt_sched_ops mpt_sched_minload;
extern const struct mpt_sched_ops mpt_sched_attr;
extern const struct mpt_sched_ops mpt_sched_active_standby;
extern const struct mpt_sched_ops mpt_sched_smallest_delay;
extern const struct mpt_sched_ops mpt_sched_load_balance;
extern const struct mpt_sched_ops mpt_sched_priority;
extern const struct mpt_sched_ops mpt_sched_redundant;

#endif
