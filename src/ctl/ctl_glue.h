/* SPDX-License-Identifier: MIT */
/* The daemon's side of the control socket: its handlers (ctl_glue.c, ctl_dump.c). */
#ifndef MPTUND_CTL_GLUE_H
#define MPTUND_CTL_GLUE_H

#include <stddef.h>

struct mpt_daemon;
struct mpt_ctl_req;
struct mpt_ctl_out;

int mpt_ctl_glue_open(struct mpt_daemon *d, char *err, size_t errlen);
void mpt_ctl_glue_close(struct mpt_daemon *d);
/* The stats dump handler (ctl_dump.c); ctx is the daemon. */
int mpt_ctl_dump(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out,
		 const char *scope);

#endif
