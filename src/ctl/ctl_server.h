/* SPDX-License-Identifier: MIT */
/*
 * The daemon's control socket server (libev). The daemon supplies a handler table and
 * an opaque ctx; the server owns the socket, the clients, the protocol, permissions
 * (from the command table in ctl_proto.c, never from the handler), watch streams and
 * back-pressure. Handlers append key=value lines to out and return 0 or -errno; on
 * error they may add "message=..." (else the server writes strerror). A NULL handler
 * answers ENOSYS.
 *
 * Daemon usage:
 *	static const struct mpt_ctl_handlers h = { .dump = d_dump, .set = d_set, ... };
 *	rc = mpt_ctl_server_open(&d->ctl, d->loop, cfg->ctl_path, cfg->ctl_group, &h, d);
 *	...
 *	mpt_ctl_server_close(&d->ctl);
 */
#ifndef MPTUND_CTL_SERVER_H
#define MPTUND_CTL_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

#include <ev.h>

#include "ctl_out.h"
#include "ctl_proto.h"

#define MPT_CTL_MAX_CLIENTS	16		/* more are answered EBUSY and closed; the
						 * last one is kept for uid 0 */
#define MPT_CTL_MAX_PER_UID	4		/* connections of one uid other than 0 */
#define MPT_CTL_OUT_MAX		(4u << 20)	/* largest queued output per client */
#define MPT_CTL_OUT_TOTAL	(4u << 20)	/* unread replies of all clients: past it,
						 * requests are answered EAGAIN */
#define MPT_CTL_IDLE_S		5.0		/* a client without a complete request, or
						 * not reading its reply, for this long is
						 * closed */

struct mpt_ctl_handlers {
	/* R stats/watch: append every key of the vocabulary (include/mptund/ctl.h).
	 * scope is "" or a key prefix; out already filters by it, a handler may use it
	 * to skip work. Called once per watch record too, so keep it cheap. req: the
	 * stats request (offset=, limit=, summary=: paging, include/mptund/ctl.h), NULL
	 * for a watch record. */
	int (*dump)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out,
		    const char *scope);
	/* R sched [session=S]: sched.name=, sched.summary=, then
	 * mpt_ctl_out_params(out, "sched.param", ops->params, ops->nparams, priv). */
	int (*sched)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);
	/* W set [session=S] [sched=NAME] [sched.P=V] [cc.P=V]: apply all or nothing. */
	int (*set)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);
	/* W path path=NAME [session=S] [admin=up|down] [cost=N] [weight=N]. */
	int (*path_cmd)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);
	/* W reload: re-read the configuration. */
	int (*reload)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);
	/* R rule_list, W rule op=add|del|move [name=] [pos=] [r.KEY=V ...]: steering
	 * rules (include/mptund/ctl.h); req->cmd tells which. */
	int (*rule)(void *ctx, const struct mpt_ctl_req *req, struct mpt_ctl_out *out);
};

struct mpt_ctl_client;

struct mpt_ctl_server {
	/* configuration (set by open; out_max may be lowered before clients come) */
	struct ev_loop *loop;
	const struct mpt_ctl_handlers *h;
	void *ctx;
	char path[108];
	size_t out_max;			/* per-client output queue limit */
	size_t out_total;		/* all clients' unread output limit */
	double idle_s;			/* idle / not-reading timeout */
	gid_t group;			/* socket group; (gid_t)-1 = owner only */

	/* runtime */
	int fd;
	ev_io accept_w;
	struct mpt_ctl_client *clients[MPT_CTL_MAX_CLIENTS];
	unsigned nclients;
	unsigned long dropped_slow;	/* watch clients dropped for not reading */
	unsigned long rejected;		/* connections refused: too many clients */
	unsigned long timed_out;	/* closed: idle or not reading */
	unsigned long busy;		/* requests answered EAGAIN: too much unread */
};

/*
 * Create the socket at path (its directory is created 0755 if missing), mode 0600, or
 * 0660 with group (a group name or number; NULL or "" = owner only). A stale socket
 * (nothing answers: ECONNREFUSED) is replaced; a live one is left alone and -EADDRINUSE
 * returned; a non-socket at path gives -EEXIST. err receives a message quoting the path.
 */
int mpt_ctl_server_open(struct mpt_ctl_server *srv, struct ev_loop *loop, const char *path,
			const char *group, const struct mpt_ctl_handlers *h, void *ctx,
			char *err, size_t errlen);

/* Bytes of replies queued for all clients and not read yet. */
size_t mpt_ctl_server_queued(const struct mpt_ctl_server *srv);

/* Disconnect every client, stop the watchers, close and unlink the socket. */
void mpt_ctl_server_close(struct mpt_ctl_server *srv);

#endif
