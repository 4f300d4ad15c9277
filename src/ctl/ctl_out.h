/* SPDX-License-Identifier: MIT */
/*
 * An appendable reply buffer for the control socket. Handlers write one key=value line
 * per mpt_ctl_outf() call; the buffer adds the newline, replaces control characters in
 * the line by '?', and drops lines whose key lies outside the request's scope (so a
 * handler can always dump everything). It grows up to a limit and then remembers
 * -ENOBUFS instead of growing further. The server also uses it as a write queue.
 */
#ifndef MPTUND_CTL_OUT_H
#define MPTUND_CTL_OUT_H

#include <stddef.h>

#include <mptund/param.h>

struct mpt_ctl_out {
	char *buf;
	size_t len, cap;
	size_t max;		/* limit on len */
	const char *scope;	/* keep only keys equal to or below this prefix; NULL: all */
	int err;		/* 0, or -ENOBUFS once a line did not fit */
};

void mpt_ctl_out_init(struct mpt_ctl_out *out, size_t max);
void mpt_ctl_out_free(struct mpt_ctl_out *out);
/* Empty the buffer, clear err and scope (keeps the memory). */
void mpt_ctl_out_reset(struct mpt_ctl_out *out);

/* Append one line "key=value"; returns 0 (also when the scope dropped it) or -ENOBUFS. */
int mpt_ctl_outf(struct mpt_ctl_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append raw bytes (no scope, no newline). Returns 0 or -ENOBUFS. */
int mpt_ctl_out_append(struct mpt_ctl_out *out, const void *p, size_t n);
/* Drop n bytes from the front (a write queue that was partly sent). */
void mpt_ctl_out_consume(struct mpt_ctl_out *out, size_t n);

/*
 * Describe a tunable table with current values from blob:
 *   PREFIX.P.value=, PREFIX.P.type=, PREFIX.P.min=, PREFIX.P.max=, PREFIX.P.default=,
 *   PREFIX.P.help= (and PREFIX.P.values=a|b for enums), e.g. PREFIX "sched.param".
 */
int mpt_ctl_out_params(struct mpt_ctl_out *out, const char *prefix,
		       const struct mpt_param *tab, size_t n, const void *blob);

/*
 * Emit a module's declared statistics for session s (see include/mptund/ctl.h):
 *   session.S.sched_stat.NAME[_total][.P]=V  (per-path stats for paths 0..npaths-1).
 */
int mpt_ctl_out_sched_stats(struct mpt_ctl_out *out, unsigned s,
			    const struct mpt_stat *stats, size_t n, const void *blob,
			    unsigned npaths);

#endif
