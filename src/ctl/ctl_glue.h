/* SPDX-License-Identifier: MIT */
/* The daemon's side of the control socket: its handlers (ctl_glue.c). */
#ifndef MPTUND_CTL_GLUE_H
#define MPTUND_CTL_GLUE_H

#include <stddef.h>

struct mpt_daemon;

int mpt_ctl_glue_open(struct mpt_daemon *d, char *err, size_t errlen);
void mpt_ctl_glue_close(struct mpt_daemon *d);

#endif
