// SPDX-License-Identifier: MIT
/*
 * Control socket server (see ctl_server.h).
 *
 * Each client has a fixed input buffer of one maximal request and an output queue
 * bounded by srv->out_max. Requests are handled in order as they complete, one at a
 * time: a reply is queued whole and written as far as the socket takes it, the rest
 * when it becomes writable, and the client's next request is read only once its reply
 * is gone. When all clients' unread replies pass srv->out_total, requests are answered
 * EAGAIN. A client that sends no complete request, or does not read its reply, for
 * srv->idle_s is closed; so 16 idle or pipelining clients cost little and lock out
 * nobody for long. Of MPT_CTL_MAX_CLIENTS connections the last is kept for uid 0, and
 * another uid has at most MPT_CTL_MAX_PER_UID. A watch client gets one record per interval from an ev_timer; when its
 * queue would overflow (it does not read), it is dropped, so a slow reader costs the
 * daemon at most out_max bytes and never blocks the loop. Garbage from one client is
 * answered with EINVAL/E2BIG and never touches the others; a request that cannot be
 * resynchronised (no blank line within 4 KiB), or is cut short by EOF, is answered
 * and the client closed.
 *
 * Permissions: the socket is 0600 (0660 with a group), created under umask 0177.
 * SO_PEERCRED: writes (per the command table) need uid 0 or the daemon's euid; reads
 * need that too when no group is set, otherwise whoever the socket mode let connect
 * (the kernel's check honours supplementary groups, which SO_PEERCRED cannot show).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <mptund/sched.h>

#include "ctl_server.h"
#include "log.h"

struct mpt_ctl_client {
	struct mpt_ctl_server *srv;
	int fd;
	struct ucred cred;
	bool may_read, may_write;
	bool closing;			/* close once the queue is flushed */
	bool watching;
	ev_io rd_w, wr_w;
	ev_timer watch_w;
	ev_timer idle_w;
	ev_tstamp last_progress;	/* a request completed or output was read */
	char scope[MPT_CTL_MAX_LINE];	/* watch scope */
	size_t in_len;
	char in[MPT_CTL_MAX_REQ];
	struct mpt_ctl_out out;
	struct mpt_ctl_req req;
};

static void client_free(struct mpt_ctl_client *c)
{
	struct mpt_ctl_server *srv = c->srv;

	ev_io_stop(srv->loop, &c->rd_w);
	ev_io_stop(srv->loop, &c->wr_w);
	ev_timer_stop(srv->loop, &c->watch_w);
	ev_timer_stop(srv->loop, &c->idle_w);
	close(c->fd);
	mpt_ctl_out_free(&c->out);
	for (unsigned i = 0; i < srv->nclients; i++)
		if (srv->clients[i] == c) {
			srv->clients[i] = srv->clients[--srv->nclients];
			break;
		}
	free(c);
}

static int process_input(struct mpt_ctl_client *c);

/* Write what the socket takes. Returns 0, or -1 when the client was freed. */
static int flush_only(struct mpt_ctl_client *c)
{
	struct ev_loop *loop = c->srv->loop;

	while (c->out.len) {
		ssize_t n = send(c->fd, c->out.buf, c->out.len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			client_free(c);
			return -1;
		}
		mpt_ctl_out_consume(&c->out, (size_t)n);
		c->last_progress = ev_now(loop);
	}
	if (c->out.len) {
		ev_io_start(loop, &c->wr_w);
		return 0;
	}
	ev_io_stop(loop, &c->wr_w);
	if (c->closing) {
		client_free(c);
		return -1;
	}
	return 0;
}

/* flush_only, then, once a reply is gone, read and run the next request. */
static int client_flush(struct mpt_ctl_client *c)
{
	bool had = c->out.len > 0;

	if (flush_only(c) < 0)
		return -1;
	if (had && !c->out.len && !c->watching) {
		ev_io_start(c->srv->loop, &c->rd_w);
		if (c->in_len)
			return process_input(c);
	}
	return 0;
}

size_t mpt_ctl_server_queued(const struct mpt_ctl_server *srv)
{
	size_t n = 0;

	for (unsigned i = 0; i < srv->nclients; i++)
		n += srv->clients[i]->out.len;
	return n;
}

/* Close off a reply started at offset start: on overflow, replace it by ENOBUFS. */
static void reply_end(struct mpt_ctl_out *out, size_t start, int rc, const char *msg)
{
	bool has_msg;

	out->scope = NULL;
	if (out->err) {
		out->len = start;
		out->err = 0;
		mpt_ctl_outf(out, "version=%d", MPT_CTL_VERSION);
		mpt_ctl_outf(out, "message=reply exceeds %zu bytes; narrow it with scope=",
			     out->max);
		rc = -ENOBUFS;
		msg = NULL;
	}
	has_msg = rc && memmem(out->buf + start, out->len - start, "\nmessage=", 9);
	if (rc && msg && msg[0])
		mpt_ctl_outf(out, "message=%s", msg);
	else if (rc && !has_msg)
		mpt_ctl_outf(out, "message=%s", strerror(-rc));
	mpt_ctl_outf(out, "errno=%d", -rc);
	mpt_ctl_out_append(out, "\n", 1);
}

/* Reply to a request that could not be parsed. */
static void reply_error(struct mpt_ctl_client *c, int rc, const char *msg)
{
	size_t start = c->out.len;

	mpt_ctl_outf(&c->out, "version=%d", MPT_CTL_VERSION);
	reply_end(&c->out, start, rc, msg);
}

static int do_sched_list(struct mpt_ctl_out *out)
{
	for (size_t i = 0; i < mpt_sched_count(); i++) {
		const struct mpt_sched_ops *ops = mpt_sched_at(i);

		mpt_ctl_outf(out, "sched.%zu.name=%s", i, ops->name);
		mpt_ctl_outf(out, "sched.%zu.summary=%s", i, ops->summary ? ops->summary : "");
	}
	return 0;
}

static void watch_cb(struct ev_loop *loop, ev_timer *w, int revents);

static int start_watch(struct mpt_ctl_client *c, char *msg, size_t msglen)
{
	const char *scope = mpt_ctl_req_get(&c->req, "scope");
	uint32_t ms;
	int rc;

	rc = mpt_ctl_req_u32(&c->req, "interval_ms", 1000, MPT_CTL_WATCH_MIN_MS,
			     MPT_CTL_WATCH_MAX_MS, &ms, msg, msglen);
	if (rc)
		return rc;
	if (!c->srv->h->dump)
		return -ENOSYS;
	snprintf(c->scope, sizeof(c->scope), "%s", scope ? scope : "");
	c->watching = true;
	ev_timer_set(&c->watch_w, 0., ms / 1000.);
	ev_timer_start(c->srv->loop, &c->watch_w);
	return 0;
}

/* Run one parsed request; the reply is queued in c->out. */
static void dispatch(struct mpt_ctl_client *c)
{
	const struct mpt_ctl_handlers *h = c->srv->h;
	const struct mpt_ctl_cmd_desc *d = &mpt_ctl_cmds[c->req.cmd];
	struct mpt_ctl_out *out = &c->out;
	const char *scope = mpt_ctl_req_get(&c->req, "scope");
	size_t start = out->len;
	char msg[160] = "";
	int rc;

	if (d->write ? !c->may_write : !c->may_read) {
		if (geteuid() == 0)
			snprintf(msg, sizeof(msg), "command '%s' needs uid 0 (peer is uid %u)",
				 d->name, (unsigned)c->cred.uid);
		else
			snprintf(msg, sizeof(msg), "command '%s' needs uid 0 or %u (peer is "
				 "uid %u)", d->name, (unsigned)geteuid(), (unsigned)c->cred.uid);
		reply_error(c, -EPERM, msg);
		return;
	}
	if (mpt_ctl_server_queued(c->srv) > c->srv->out_total) {
		c->srv->busy++;
		snprintf(msg, sizeof(msg), "%zu bytes of control replies unread by other "
			 "clients; try again", mpt_ctl_server_queued(c->srv));
		reply_error(c, -EAGAIN, msg);
		return;
	}
	if (c->req.cmd == MPT_CTL_CMD_WATCH) {
		rc = start_watch(c, msg, sizeof(msg));
		if (rc)
			reply_error(c, rc, msg);
		return;			/* records follow from the timer */
	}
	mpt_ctl_outf(out, "version=%d", MPT_CTL_VERSION);
	out->scope = scope;
	switch (c->req.cmd) {
	case MPT_CTL_CMD_STATS:
		rc = h->dump ? h->dump(c->srv->ctx, &c->req, out, scope ? scope : "") : -ENOSYS;
		break;
	case MPT_CTL_CMD_SCHED_LIST:
		rc = do_sched_list(out);
		break;
	case MPT_CTL_CMD_SCHED:
		rc = h->sched ? h->sched(c->srv->ctx, &c->req, out) : -ENOSYS;
		break;
	case MPT_CTL_CMD_SET:
		rc = h->set ? h->set(c->srv->ctx, &c->req, out) : -ENOSYS;
		break;
	case MPT_CTL_CMD_PATH:
		rc = h->path_cmd ? h->path_cmd(c->srv->ctx, &c->req, out) : -ENOSYS;
		break;
	case MPT_CTL_CMD_RELOAD:
		rc = h->reload ? h->reload(c->srv->ctx, &c->req, out) : -ENOSYS;
		break;
	case MPT_CTL_CMD_RULE_LIST:
	case MPT_CTL_CMD_RULE:
		rc = h->rule ? h->rule(c->srv->ctx, &c->req, out) : -ENOSYS;
		break;
	default:
		rc = -ENOSYS;
		break;
	}
	if (rc == -ENOSYS)
		snprintf(msg, sizeof(msg), "command '%s' is not supported by this daemon",
			 d->name);
	reply_end(out, start, rc > 0 ? 0 : rc, msg);
}

/* Parse and run the complete requests in c->in. Returns -1 when c was freed. */
static int process_input(struct mpt_ctl_client *c)
{
	size_t used;
	char msg[160];
	int rc;

again:
	while (c->in_len && !c->watching && !c->closing && !c->out.len) {
		rc = mpt_ctl_parse(c->in, c->in_len, &c->req, &used, msg, sizeof(msg));
		if (rc == -EAGAIN)
			break;
		c->last_progress = ev_now(c->srv->loop);
		if (rc == 0)
			dispatch(c);
		else
			reply_error(c, rc, msg);
		if (c->out.err) {	/* pipelines requests but does not read replies */
			c->srv->dropped_slow++;
			log_warnx("control: dropping client pid %d: %zu bytes unread",
				  (int)c->cred.pid, c->out.len);
			client_free(c);
			return -1;
		}
		if (rc && used == 0) {
			c->closing = true;	/* cannot find the next request */
			c->in_len = 0;
			break;
		}
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
	}
	if (!c->out.len)
		return c->closing ? flush_only(c) : 0;
	/* one reply at a time: read on once it is gone */
	ev_io_stop(c->srv->loop, &c->rd_w);
	if (flush_only(c) < 0)
		return -1;
	if (c->out.len || c->watching)
		return 0;
	ev_io_start(c->srv->loop, &c->rd_w);
	goto again;
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mpt_ctl_client *c = w->data;
	ssize_t n;

	if (c->in_len == sizeof(c->in)) {
		ev_io_stop(loop, w);	/* a reply is being flushed */
		return;
	}
	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {			/* EOF or error: finish the queued replies */
		ev_io_stop(loop, w);
		ev_timer_stop(loop, &c->watch_w);
		if (n == 0 && c->in_len && !c->watching && !c->closing) {
			char msg[96];

			snprintf(msg, sizeof(msg), "request of %zu bytes ends without the "
				 "empty line", c->in_len);
			reply_error(c, -EINVAL, msg);
		}
		c->closing = true;
		client_flush(c);
		return;
	}
	if (c->watching || c->closing)
		return;			/* input during a stream is ignored */
	c->in_len += (size_t)n;
	process_input(c);
}

static void write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	client_flush(w->data);
}

static void watch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mpt_ctl_client *c = w->data;
	struct mpt_ctl_out *out = &c->out;
	size_t start = out->len;
	int rc;

	mpt_ctl_outf(out, "version=%d", MPT_CTL_VERSION);
	mpt_ctl_outf(out, "time_ms=%.0f", ev_now(loop) * 1000.);
	out->scope = c->scope;
	rc = c->srv->h->dump(c->srv->ctx, NULL, out, c->scope);
	out->scope = NULL;
	if (out->err) {
		c->srv->dropped_slow++;
		log_warnx("control: dropping watch client pid %d: %zu bytes unread",
			  (int)c->cred.pid, start);
		client_free(c);
		return;
	}
	reply_end(out, start, rc > 0 ? 0 : rc, NULL);
	client_flush(c);
}

/* Close a client that sent no complete request, or read no output, for idle_s. A
 * watch client with nothing queued is reading its stream: it stays. */
static void idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mpt_ctl_client *c = w->data;
	ev_tstamp left = c->last_progress + c->srv->idle_s - ev_now(loop);

	if (c->watching && !c->out.len)
		c->last_progress = ev_now(loop);
	else if (left <= 0) {
		c->srv->timed_out++;
		log_debug("control: closing client pid %d: %s for %.0f s", (int)c->cred.pid,
			  c->out.len ? "not reading" : "no request", c->srv->idle_s);
		client_free(c);
		return;
	}
	w->repeat = left > 0 ? left : c->srv->idle_s;
	ev_timer_again(loop, w);
}

static unsigned clients_of(const struct mpt_ctl_server *srv, uid_t uid)
{
	unsigned n = 0;

	for (unsigned i = 0; i < srv->nclients; i++)
		n += srv->clients[i]->cred.uid == uid;
	return n;
}

static void reject(int fd, const char *msg)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "version=%d\nmessage=%s\nerrno=%d\n\n",
			 MPT_CTL_VERSION, msg, EBUSY);

	if (send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("control: reject: %s", strerror(errno));
	close(fd);
}

static void accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mpt_ctl_server *srv = w->data;
	struct mpt_ctl_client *c;
	struct ucred cred;
	socklen_t len;
	char msg[96];
	int fd;

	for (;;) {
		fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("control: accept");
			return;
		}
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
			log_warn("control: SO_PEERCRED");
			close(fd);
			continue;
		}
		/* the last slot is root's: others cannot lock root out */
		if (srv->nclients >= MPT_CTL_MAX_CLIENTS - (cred.uid == 0 ? 0 : 1)) {
			srv->rejected++;
			reject(fd, "too many control clients");
			continue;
		}
		if (cred.uid != 0 && clients_of(srv, cred.uid) >= MPT_CTL_MAX_PER_UID) {
			srv->rejected++;
			snprintf(msg, sizeof(msg), "uid %u has %d control connections already",
				 (unsigned)cred.uid, MPT_CTL_MAX_PER_UID);
			reject(fd, msg);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			reject(fd, "out of memory");
			continue;
		}
		c->cred = cred;
		c->srv = srv;
		c->fd = fd;
		c->may_write = c->cred.uid == 0 || c->cred.uid == geteuid();
		c->may_read = c->may_write || srv->group != (gid_t)-1;
		mpt_ctl_out_init(&c->out, srv->out_max);
		ev_io_init(&c->rd_w, read_cb, fd, EV_READ);
		ev_io_init(&c->wr_w, write_cb, fd, EV_WRITE);
		ev_init(&c->watch_w, watch_cb);
		ev_init(&c->idle_w, idle_cb);
		c->rd_w.data = c->wr_w.data = c->watch_w.data = c->idle_w.data = c;
		c->last_progress = ev_now(loop);
		c->idle_w.repeat = srv->idle_s;
		ev_timer_again(loop, &c->idle_w);
		ev_io_start(loop, &c->rd_w);
		srv->clients[srv->nclients++] = c;
	}
}

static int resolve_group(const char *group, gid_t *gid, char *err, size_t errlen)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long n;
	int rc;

	*gid = (gid_t)-1;
	if (!group || !group[0])
		return 0;
	n = strtoul(group, &end, 10);
	if (group[0] >= '0' && group[0] <= '9' && !*end) {
		*gid = (gid_t)n;
		return 0;
	}
	rc = getgrnam_r(group, &gr, buf, sizeof(buf), &res);
	if (rc || !res) {
		snprintf(err, errlen, "control group '%s' does not exist", group);
		return rc ? -rc : -ENOENT;
	}
	*gid = gr.gr_gid;
	return 0;
}

/* Remove a stale socket at path; refuse a live one or a non-socket. */
static int clear_stale(const struct sockaddr_un *sun, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (lstat(sun->sun_path, &st)) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "control socket '%s': %s", sun->sun_path, strerror(-rc));
		return rc;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "control socket '%s' exists and is not a socket",
			 sun->sun_path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		return rc;
	}
	rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) ? -errno : 0;
	close(fd);
	if (rc == -ECONNREFUSED) {
		log_info("control: replacing stale socket %s", sun->sun_path);
		if (unlink(sun->sun_path) && errno != ENOENT) {
			rc = -errno;
			snprintf(err, errlen, "cannot remove stale '%s': %s", sun->sun_path,
				 strerror(-rc));
			return rc;
		}
		return 0;
	}
	if (rc == 0 || rc == -EAGAIN) {
		snprintf(err, errlen, "another daemon answers on '%s'; not starting",
			 sun->sun_path);
		return -EADDRINUSE;
	}
	snprintf(err, errlen, "cannot probe '%s': %s", sun->sun_path, strerror(-rc));
	return rc;
}

static void make_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		log_debug("control: mkdir %s: %s", dir, strerror(errno));
}

int mpt_ctl_server_open(struct mpt_ctl_server *srv, struct ev_loop *loop, const char *path,
			const char *group, const struct mpt_ctl_handlers *h, void *ctx,
			char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int rc;

	memset(srv, 0, sizeof(*srv));
	srv->fd = -1;
	srv->loop = loop;
	srv->h = h;
	srv->ctx = ctx;
	srv->out_max = MPT_CTL_OUT_MAX;
	srv->out_total = MPT_CTL_OUT_TOTAL;
	srv->idle_s = MPT_CTL_IDLE_S;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path '%s' is longer than %zu bytes",
			 path, sizeof(sun.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	rc = resolve_group(group, &srv->group, err, errlen);
	if (rc)
		return rc;
	make_parent(path);
	rc = clear_stale(&sun, err, errlen);
	if (rc)
		return rc;
	srv->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		return rc;
	}
	old = umask(0177);
	rc = bind(srv->fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno : 0;
	umask(old);
	if (rc) {
		snprintf(err, errlen, "bind '%s': %s", path, strerror(-rc));
		goto fail_close;
	}
	if (srv->group != (gid_t)-1 &&
	    (chown(path, (uid_t)-1, srv->group) || chmod(path, 0660))) {
		rc = -errno;
		snprintf(err, errlen, "chown/chmod '%s' to group '%s': %s", path, group,
			 strerror(-rc));
		goto fail_unlink;
	}
	if (listen(srv->fd, 16)) {
		rc = -errno;
		snprintf(err, errlen, "listen '%s': %s", path, strerror(-rc));
		goto fail_unlink;
	}
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	ev_io_init(&srv->accept_w, accept_cb, srv->fd, EV_READ);
	srv->accept_w.data = srv;
	ev_io_start(loop, &srv->accept_w);
	return 0;

fail_unlink:
	unlink(path);
fail_close:
	close(srv->fd);
	srv->fd = -1;
	return rc;
}

void mpt_ctl_server_close(struct mpt_ctl_server *srv)
{
	if (srv->fd < 0)
		return;
	while (srv->nclients)
		client_free(srv->clients[0]);
	ev_io_stop(srv->loop, &srv->accept_w);
	close(srv->fd);
	srv->fd = -1;
	if (unlink(srv->path) && errno != ENOENT)
		log_warn("control: unlink %s", srv->path);
}
