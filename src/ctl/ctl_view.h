/* SPDX-License-Identifier: MIT */
/*
 * mptund-ctl's tables for people (status, paths, sessions, sched, sched list), built
 * from a reply's key=value list with the vocabulary of include/mptund/ctl.h. Scripts use
 * --json instead, which shows the same reply through the JSON backend.
 */
#ifndef MPTUND_CTL_VIEW_H
#define MPTUND_CTL_VIEW_H

#include <stdio.h>

#include "ctl_kv.h"

void ctl_view_status(FILE *f, const struct ctl_kvl *kv);
void ctl_view_paths(FILE *f, const struct ctl_kvl *kv);
void ctl_view_sessions(FILE *f, const struct ctl_kvl *kv);
void ctl_view_sched(FILE *f, const struct ctl_kvl *kv);
void ctl_view_sched_list(FILE *f, const struct ctl_kvl *kv);

#endif
